package feed

import (
	"runtime"
	"strings"
	"testing"
)

func atomFeed(base, content string) []byte {
	return []byte(`<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>` +
		`<entry xml:base="` + base + `"><id>1</id><title>t</title><content type="html">` + content + `</content></entry></feed>`)
}

// Before the fix, gofeed resolved every relative URL of an Atom entry's HTML against
// xml:base before Read sees it: the linker's budgets never see it.
func TestAtomXMLBaseBounded(t *testing.T) {
	long := "https://e.com/" + strings.Repeat("d", 8000) + "/"
	body := atomFeed(long, strings.Repeat(`&lt;a href=a&gt;x&lt;/a&gt; `, 1000))
	_, md := snapshotOf(t, "xml:base", body, 0)
	t.Logf("feed %d bytes, snapshot %d bytes, %.1f times", len(body), len(md), float64(len(md))/float64(len(body)))
}

// gofeed's ResolveHTML parses with html.Parse and renders the tree back:
// the parser reopens an <a> in every following paragraph, so its href is
// copied into each.
func TestAtomReopenedLinkBounded(t *testing.T) {
	href := "https://e.com/" + strings.Repeat("d", 8000)
	body := atomFeed("https://e.com/", `<![CDATA[<p><a href="`+href+`">x`+strings.Repeat("<p>y", 2000)+`]]>`)
	_, md := snapshotOf(t, "reopened a", body, 0)
	t.Logf("feed %d bytes, snapshot %d bytes, %.1f times", len(body), len(md), float64(len(md))/float64(len(body)))
}

// An RSS channel's xml:base: gofeed resolves each item's <link> against it
// (ResolveURLIfBase) before the linker sees it, so the linker's budget of
// what resolving adds is never charged.
func TestRSSXMLBaseLinksBounded(t *testing.T) {
	long := "https://e.com/" + strings.Repeat("d", 8000) + "/"
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel xml:base="` + long + `"><title>c</title>`)
	for i := range 500 {
		b.WriteString("<item><link>" + strings.Repeat("x", 1) + itoa(i) + "</link></item>")
	}
	b.WriteString("</channel></rss>")
	body := []byte(b.String())
	f, md := snapshotOf(t, "rss xml:base", body, 0)
	t.Logf("feed %d bytes, %d items, snapshot %d bytes, %.1f times", len(body), len(f.Items), len(md), float64(len(md))/float64(len(body)))
}

func itoa(i int) string {
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		if i /= 10; i == 0 {
			return s
		}
	}
}

// Without xml:base, gofeed leaves the HTML alone and extract's own parser
// reopens nothing: bounded (control).
func TestAtomReopenedLinkNoBase(t *testing.T) {
	href := "https://e.com/" + strings.Repeat("d", 8000)
	body := []byte(`<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>` +
		`<entry><id>1</id><title>t</title><content type="html"><![CDATA[<p><a href="` + href + `">x` + strings.Repeat("<p>y", 2000) + `]]></content></entry></feed>`)
	_, md := snapshotOf(t, "no base", body, 0)
	t.Logf("feed %d bytes, snapshot %d bytes", len(body), len(md))
}

// An xml:base costs what its bytes do: each doubling of the feed about
// doubles what reading it allocates (it was 3.8 times before).
func TestXMLBaseWorkLinear(t *testing.T) {
	var last uint64
	for _, n := range []int{250, 500, 1000} {
		long := "https://e.com/" + strings.Repeat("d", 4*n) + "/"
		body := atomFeed(long, strings.Repeat(`&lt;a href=a&gt;x&lt;/a&gt; `, n))
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f, err := Read(body, "https://e.com/feed", 0)
		if err != nil {
			t.Fatal(err)
		}
		md, _, _ := Document(f.Description, f.Items, "")
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("n=%d feed %d bytes: allocated %d bytes, snapshot %d", n, len(body), alloc, len(md))
		if last > 0 && alloc > 3*last {
			t.Errorf("n=%d: allocated %d bytes, more than 3 times the %d of half the feed", n, alloc, last)
		}
		last = alloc
	}
}
