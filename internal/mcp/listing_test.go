package mcp

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCrawlSkipsOnRequest: web_crawl counts the URLs it skipped by
// reason and lists none of them, but gives a cursor to list them: the
// URLs of one reason, in the order the crawl met them, page by page
// within max_chars, without crawling again; or in the crawl's own call,
// with skipped_reason.
func TestCrawlSkipsOnRequest(t *testing.T) {
	site := newSite(t)
	site.robots = "User-agent: *\nDisallow: /private/\n"
	var links []string
	for i := range 60 {
		links = append(links, fmt.Sprintf("/private/%02d/%s", i, strings.Repeat("deep", 30)))
	}
	links = append(links, "/hidden")
	site.set("/", html("Harbour", []string{"The harbour's page, with words enough to be the main content."}, links...))
	site.set("/hidden", strings.Replace(html("Hidden", []string{"A page that asks not to be indexed."}), "<head>", `<head><meta name="robots" content="noindex">`, 1))
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)

	var out CrawlOutput
	text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, &out)
	if isErr || out.Skipped["robots"] != 60 || out.Skipped["noindex"] != 1 || len(out.Skips) != 0 || out.SkippedCursor == "" {
		t.Fatalf("web_crawl: %s %+v", text, out)
	}
	if strings.Contains(text, "/private/") || !strings.Contains(text, "noindex (1), robots (60)") || !strings.Contains(text, out.SkippedCursor) {
		t.Errorf("web_crawl's text lists URLs, or not how to ask for them:\n%s", text)
	}
	hits := len(site.hits())

	// The URLs skipped for robots, in pages of at most MinChars.
	var listed []string
	cursor, pages := out.SkippedCursor, 0
	for cursor != "" {
		args := map[string]any{"url": site.URL + "/", "cursor": cursor, "max_chars": MinChars}
		if pages == 0 {
			args["skipped_reason"] = "robots"
		}
		var page CrawlOutput
		if text, isErr := call(t, cs, "web_crawl", args, &page); isErr || len(page.Skips) == 0 || page.Stored != out.Stored {
			t.Fatalf("web_crawl, page %d of the URLs skipped for robots: %s", pages, text)
		}
		for _, sk := range page.Skips {
			if sk.Reason != "robots" || sk.Event != "skipped" || !strings.Contains(sk.Detail, "Disallow: /private/") {
				t.Errorf("skip %+v", sk)
			}
			listed = append(listed, strings.TrimPrefix(sk.URL, site.URL))
		}
		if page.NextCursor != "" && !strings.Contains(strings.Join(page.Notes, "\n"), "for the rest, call web_crawl with the same url and cursor") {
			t.Errorf("a cut page does not say how to ask for the rest: %v", page.Notes)
		}
		cursor, pages = page.NextCursor, pages+1
	}
	if pages < 3 || !slices.Equal(listed, links[:60]) {
		t.Errorf("%d pages listed %d URLs:\n%v\nwant\n%v", pages, len(listed), listed, links[:60])
	}
	if n := len(site.hits()); n != hits {
		t.Errorf("listing the skipped URLs made %d requests of the site", n-hits)
	}

	// In the crawl's own call.
	var again CrawlOutput
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "skipped_reason": "noindex"}, &again); isErr ||
		len(again.Skips) != 1 || again.Skips[0].URL != site.URL+"/hidden" || again.NextCursor != "" {
		t.Errorf("web_crawl with skipped_reason noindex: %s %+v", text, again.Skips)
	}
	var none CrawlOutput
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "cursor": again.SkippedCursor, "skipped_reason": "deadline"}, &none); isErr ||
		len(none.Skips) != 0 || !slices.Contains(none.Notes, "the crawl skipped no URL for deadline") {
		t.Errorf("web_crawl, a reason it skipped nothing for: %s %+v", text, none)
	}
}

// TestCursorsRefused: a cursor heed did not give, or gives for another
// list, is refused, saying why and what to do; and so is a cursor given
// with what it cannot go with.
func TestCursorsRefused(t *testing.T) {
	site := newSite(t)
	site.robots = "User-agent: *\nDisallow: /private/\n"
	site.set("/", html("Harbour", []string{"The harbour's page, with words enough to be the main content."}, "/private/a", "/private/b"))
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	var out CrawlOutput
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, &out); isErr || out.SkippedCursor == "" {
		t.Fatalf("web_crawl: %s", text)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(out.SkippedCursor)
	other := func(edit func(b []byte) []byte) string {
		return base64.RawURLEncoding.EncodeToString(edit(slices.Clone(raw)))
	}
	notHeeds := "is not one heed gave: pass next_cursor (or skipped_cursor) as a result gave it"
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"web_crawl", map[string]any{"url": site.URL + "/", "cursor": "not a cursor!", "skipped_reason": "robots"}, notHeeds},
		{"web_crawl", map[string]any{"url": site.URL + "/", "cursor": strings.Repeat("A", 5000), "skipped_reason": "robots"}, notHeeds},
		{"web_crawl", map[string]any{"url": site.URL + "/", "cursor": other(func(b []byte) []byte { b[0] = 9; return b }), "skipped_reason": "robots"}, notHeeds},
		{"web_crawl", map[string]any{"url": site.URL + "/", "cursor": other(func(b []byte) []byte { return append(b, 1) }), "skipped_reason": "robots"}, notHeeds},
		{"web_crawl", map[string]any{"url": site.URL + "/", "cursor": other(func(b []byte) []byte { b[len(b)-2] = 7; return b })}, notHeeds},
		{"web_crawl", map[string]any{"url": site.URL + "/", "cursor": other(func(b []byte) []byte { b[3] ^= 0xff; return b }), "skipped_reason": "robots"}, "is no longer held: heed keeps a result's list for 10m0s after it was last read"},
		{"web_crawl", map[string]any{"url": site.URL + "/elsewhere/", "cursor": out.SkippedCursor, "skipped_reason": "robots"}, "with other arguments: give the url as the call that gave it did"},
		{"web_crawl", map[string]any{"url": site.URL + "/", "cursor": out.SkippedCursor}, "give skipped_reason with this cursor: the crawl skipped or failed URLs for robots (2)"},
		{"web_crawl", map[string]any{"url": site.URL + "/", "cursor": out.SkippedCursor, "skipped_reason": "robots", "max_pages": 5, "render": "never"}, "with cursor, web_crawl lists the skipped URLs of a crawl made, and crawls nothing: leave out max_pages, render"},
		{"web_crawl", map[string]any{"url": site.URL + "/", "skipped_reason": "bogus"}, "skipped_reason"},
		{"web_grep", map[string]any{"url": site.URL + "/", "pattern": "x", "cursor": out.SkippedCursor}, "goes on with a list of web_crawl, not of web_grep: pass it to web_crawl"},
		{"stash_sources", map[string]any{"cursor": out.SkippedCursor}, "goes on with a list of web_crawl, not of stash_sources"},
	} {
		text, isErr := call(t, cs, c.tool, c.args, nil)
		if !isErr || !strings.Contains(text, c.want) || len(text) > 600 {
			t.Errorf("%s %v: error %v, %q; want %q", c.tool, cutTo(fmt.Sprint(c.args), 200), isErr, text, c.want)
		}
	}

	// A listing is held for its lifetime from when it was last read.
	now := time.Now()
	s.lists.now = func() time.Time { return now }
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "cursor": out.SkippedCursor, "skipped_reason": "robots"}, nil); isErr {
		t.Fatalf("web_crawl within the listing's lifetime: %s", text)
	}
	now = now.Add(listingTTL + time.Second)
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "cursor": out.SkippedCursor, "skipped_reason": "robots"}, nil); !isErr || !strings.Contains(text, "is no longer held") {
		t.Errorf("web_crawl past the listing's lifetime: %v %s", isErr, text)
	}
}
