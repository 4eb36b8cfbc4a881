package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed"
)

// TestWebCrawlListsNoPageGone: a page the stash holds as found gone,
// linked still and answering 404 again, is "as it was" to a crawl
// (counted unchanged, docs/history.md), but it is no page the crawl
// kept: the crawl's pages (web_crawl's, crawl_pages') are those an
// agent may read as the site has them, and a page gone is not one of
// them. The crawl notes it in its frontier as unchanged, and its kept
// pages list it.
func TestWebCrawlListsNoPageGone(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Tides", []string{"Tides rise and fall twice a day, pulled by the Moon and the Sun."}, "/spring", "/neap"))
	site.set("/spring", html("Spring tides", []string{"Spring tides come at new and full moon."}))
	site.set("/neap", html("Neap tides", []string{"Neap tides come at the quarter moons."}))
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	var out CrawlOutput
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, &out); isErr || out.Stored != 3 {
		t.Fatalf("first crawl: %s", text)
	}
	site.mu.Lock()
	delete(site.pages, "/neap")
	site.mu.Unlock()
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, &out); isErr || out.Removed != 1 {
		t.Fatalf("second crawl: %s", text)
	}
	text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, &out)
	if isErr || out.Removed != 0 {
		t.Fatalf("third crawl: %s", text)
	}
	var pages PagesOutput
	if text, isErr := call(t, cs, "crawl_pages", map[string]any{"crawl": out.Crawl}, &pages); isErr {
		t.Fatal(text)
	}
	for _, p := range append(out.Pages, pages.Pages...) {
		if strings.HasSuffix(p.URL, "/neap") {
			t.Errorf("the crawl lists %s (id %s, unchanged %v), a page found gone that answers 404 still:\n%s", p.URL, p.ID, p.Unchanged, text)
			break
		}
	}
}

// TestStashReadSaysPageGone: a page a crawl found gone stays in the
// stash, its last copy readable, out of search; heed show says when it
// was removed (docs/history.md). An agent that reads it with stash_read
// (from stash_changes' removed pages, a crawl's list, an ID it kept) or
// as the resource heed://snapshot/{id} must be told so, or it takes the
// old text for the page as the site has it. Neither says a word of it.
func TestStashReadSaysPageGone(t *testing.T) {
	s := newServer(t, Limits{}, loopback)
	cs := connectWith(t, s, nil, legacy)
	u := "https://tides.example/ferry"
	w := openChanger(t, s)
	w.put("tides", u, "Ferry", "# Ferry\n\nThe ferry leaves at dawn.\n", time.Now().AddDate(0, 0, -30))
	w.remove("tides", u, time.Now())
	w.close()
	text, isErr := call(t, cs, "stash_read", map[string]any{"url_or_id": u}, nil)
	if isErr {
		t.Fatal(text)
	}
	heeds, _ := checkMarkedPlain(t, "stash_read", text)
	if !strings.Contains(heeds, "removed") && !strings.Contains(heeds, "gone") {
		t.Errorf("stash_read of a page found gone says nothing of it:\n%s", text)
	}
	c := read(t, cs, "heed://snapshot/"+heed.IDOf(u))
	if _, ok := c.Meta["removed"]; !ok {
		t.Errorf("heed://snapshot/{id} of a page found gone: _meta %v says nothing of it", c.Meta)
	}
}
