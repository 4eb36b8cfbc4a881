package mcp

import (
	"strings"
	"testing"
)

// TestWebCrawlSaysWhatChanged: a crawl's result counts the pages new,
// changed and removed beside those stored and unchanged, in its fields
// and its text: a page whose content changed is changed, one that
// answers 404 now is removed, and one never seen is new.
func TestWebCrawlSaysWhatChanged(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Tides", []string{"Tides rise and fall twice a day, pulled by the Moon and the Sun."}, "/spring", "/neap"))
	site.set("/spring", html("Spring tides", []string{"Spring tides come at new and full moon."}))
	site.set("/neap", html("Neap tides", []string{"Neap tides come at the quarter moons."}))
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	var first CrawlOutput
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, &first); isErr || first.New != 3 || first.Stored != 3 {
		t.Fatalf("first crawl: %s", text)
	}

	site.set("/spring", html("Spring tides", []string{"Spring tides come at new and full moon, and run high."}, "/slack"))
	site.set("/slack", html("Slack water", []string{"Slack water is the still moment between tides."}))
	site.mu.Lock()
	delete(site.pages, "/neap")
	site.mu.Unlock()
	var again CrawlOutput
	text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, &again)
	if isErr {
		t.Fatal(text)
	}
	if again.Stored != 2 || again.New != 1 || again.Changed != 1 || again.Unchanged != 1 || again.Removed != 1 || again.Failed != 0 {
		t.Errorf("second crawl: %+v; want 2 stored (1 new, 1 changed), 1 unchanged, 1 removed", again)
	}
	if !strings.Contains(text, "2 stored (1 new, 1 changed), 1 unchanged, 1 removed, 0 failed") {
		t.Errorf("second crawl's text: %s", text)
	}
	// crawl_status says the same.
	var status CrawlOutput
	if text, isErr := call(t, cs, "crawl_status", map[string]any{"crawl": again.Crawl}, &status); isErr || status.New != 1 || status.Changed != 1 || status.Removed != 1 {
		t.Errorf("crawl_status: %s", text)
	}
}
