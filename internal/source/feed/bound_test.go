package feed

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// snapshotOf reads a feed and writes its snapshot, failing unless the
// snapshot is within MaxGrowth times the feed's length and every string
// read from the feed is valid UTF-8.
func snapshotOf(t *testing.T, name string, body []byte, limit int) (*Feed, string) {
	t.Helper()
	f, err := Read(body, "https://e.com/feed", limit)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	md, _, _ := Document(f.Description, f.Items, "")
	if len(md) > MaxGrowth*len(body) {
		t.Errorf("%s: a snapshot of %d bytes from a feed of %d, %.1f times, over %d", name, len(md), len(body),
			float64(len(md))/float64(len(body)), MaxGrowth)
	}
	if s := invalidString(f, md); s != "" {
		t.Errorf("%s: invalid UTF-8 in %s", name, s)
	}
	return f, md
}

// invalidString names the first string of a feed or its snapshot that is
// not valid UTF-8, or returns "".
func invalidString(f *Feed, md string) string {
	fields := map[string]string{"title": f.Title, "description": f.Description, "link": f.Link, "snapshot": md}
	for i, it := range f.Items {
		for k, v := range map[string]string{"title": it.Title, "link": it.Link, "id": it.ID, "author": it.Author, "markdown": it.Markdown} {
			fields[fmt.Sprintf("item %d %s", i, k)] = v
		}
	}
	for name, s := range fields {
		if !utf8.ValidString(s) {
			return fmt.Sprintf("%s %q", name, s)
		}
	}
	return ""
}

func rssItems(channelLink string, items ...string) []byte {
	return []byte(`<?xml version="1.0"?><rss version="2.0"><channel><title>c</title><link>` + channelLink + `</link><description>d</description>` +
		strings.Join(items, "") + `</channel></rss>`)
}

// TestItemRaggedTable: an item whose content is a table of one wide row
// and many short ones makes a snapshot of about its size, not of their
// product.
func TestItemRaggedTable(t *testing.T) {
	table := "<table><tr>" + strings.Repeat("<td>x", 5000) + strings.Repeat("<tr><td>y", 5000) + "</table>"
	body := rssItems("https://e.com/", `<item><title>t</title><link>https://e.com/1</link><description>`+xmlText(table)+`</description></item>`)
	snapshotOf(t, "ragged table", body, 0)
}

// TestLongLinks: a long channel link that every item's relative link and
// every relative link in the items' content is resolved against does not
// multiply the feed.
func TestLongLinks(t *testing.T) {
	long := "https://e.com/" + strings.Repeat("d", 8000) + "/"
	var items []string
	for i := range 500 {
		items = append(items, fmt.Sprintf(`<item><title>t</title><link>%d</link><description>%s</description></item>`, i,
			xmlText(strings.Repeat(`<a href="a">a</a> `, 20))))
	}
	f, _ := snapshotOf(t, "long links", rssItems(long, items...), 0)
	if len(f.Items) != 500 {
		t.Errorf("%d items of 500", len(f.Items))
	}
	// Links that encoding makes longer (a character of windows-1252 is
	// three bytes of UTF-8, nine percent-encoded) do not either.
	body := []byte(`<?xml version="1.0" encoding="windows-1252"?><rss version="2.0"><channel><title>c</title><link>https://e.com/</link>`)
	for i := range 500 {
		body = fmt.Appendf(body, `<item><title>t</title><link>https://e.com/%d/%s</link></item>`, i, strings.Repeat("\x80", 200))
	}
	body = append(body, "</channel></rss>"...)
	snapshotOf(t, "encoded links", body, 0)
}

// TestFeedInvalidUTF8: a feed whose strings are not valid UTF-8 gives
// valid UTF-8 in every field and in the snapshot.
func TestFeedInvalidUTF8(t *testing.T) {
	bad := "\xc8\x87\xff"
	for name, body := range map[string]string{
		"json": `{"version":"https://jsonfeed.org/version/1.1","title":"T` + bad + `","home_page_url":"https://e.com/` + bad + `","items":[` +
			`{"id":"i` + bad + `","url":"https://e.com/1` + bad + `","title":"t` + bad + `","authors":[{"name":"a` + bad + `"}],"content_html":"<p>c` + bad + `</p>"}]}`,
		"rss": `<?xml version="1.0"?><rss version="2.0"><channel><title>T` + bad + `</title><link>https://e.com/</link><description>d` + bad + `</description>` +
			`<item><title>t` + bad + `</title><link>https://e.com/1` + bad + `</link><guid>g` + bad + `</guid><author>a` + bad + `</author><description>c` + bad + `</description></item></channel></rss>`,
	} {
		if _, err := Read([]byte(body), "https://e.com/feed", 0); err != nil {
			continue // refused whole: nothing of it is kept
		}
		snapshotOf(t, name, []byte(body), 0)
	}
}

// TestSnapshotBoundAtSizes: for each shape of feed that made a snapshot
// multiply it, the snapshot stays within MaxGrowth times the feed at
// every size.
func TestSnapshotBoundAtSizes(t *testing.T) {
	for _, s := range feedAmplifiers {
		for _, n := range []int{500, 1000, 2000, 4000} {
			snapshotOf(t, fmt.Sprintf("%s/%d", s.name, n), s.feed(n), 0)
		}
	}
}

// feedAmplifiers are shapes of feed whose snapshot grew faster than the
// feed before it was bounded, made with n repeats of their part.
var feedAmplifiers = []struct {
	name string
	feed func(n int) []byte
}{
	{"table", func(n int) []byte {
		table := "<table><tr>" + strings.Repeat("<td>x", n) + strings.Repeat("<tr><td>y", n) + "</table>"
		return rssItems("https://e.com/", `<item><title>t</title><link>https://e.com/1</link><description>`+xmlText(table)+`</description></item>`)
	}},
	{"channel-link", func(n int) []byte {
		var items []string
		for i := range n / 10 {
			items = append(items, fmt.Sprintf(`<item><link>%d</link><description>%s</description></item>`, i, xmlText(`<img src="a">`)))
		}
		return rssItems("https://e.com/"+strings.Repeat("d", 8000)+"/", items...)
	}},
}

// BenchmarkSnapshotAmplifiers reads each shape of feedAmplifiers and
// writes its snapshot at four sizes, reporting the snapshot's bytes per
// byte of feed (out/in): both it and the time per byte stay flat as the
// feed grows.
func BenchmarkSnapshotAmplifiers(b *testing.B) {
	for _, s := range feedAmplifiers {
		for _, n := range []int{500, 1000, 2000, 4000} {
			body := s.feed(n)
			b.Run(fmt.Sprintf("%s/n=%d", s.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(body)))
				var out int
				for b.Loop() {
					f, err := Read(body, "https://e.com/feed", 0)
					if err != nil {
						b.Fatal(err)
					}
					md, _, _ := Document(f.Description, f.Items, "")
					out = len(md)
				}
				b.ReportMetric(float64(out)/float64(len(body)), "out/in")
			})
		}
	}
}

// TestReadWorkLinear: a long channel link is read no more than a budget
// of the feed's length allows, however many items' relative links, or
// items without a link, are resolved or read against it. The memory Read
// allocates grows with the feed, not with the items times the link.
func TestReadWorkLinear(t *testing.T) {
	alloc := func(n int, item string) uint64 {
		var items []string
		for i := range n {
			items = append(items, fmt.Sprintf(item, i))
		}
		body := rssItems("https://e.com/"+strings.Repeat("d", 100*n)+"/", items...)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := Read(body, "https://e.com/feed", 0); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	for name, item := range map[string]string{
		"relative links": `<item><link>../%d</link></item>`,
		"no links":       `<item><guid>%d</guid><description>&lt;a href="x"&gt;x&lt;/a&gt;</description></item>`,
	} {
		small, large := alloc(200, item), alloc(800, item)
		t.Logf("%s: %d bytes allocated, then %d", name, small, large)
		if large > 6*small {
			t.Errorf("%s: four times the feed allocates %.1f times the memory (%d bytes, then %d)", name, float64(large)/float64(small), small, large)
		}
	}
}
