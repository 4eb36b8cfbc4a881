package mcp

import (
	"fmt"
	"strings"
	"testing"
	"time"
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

// TestWebFetchChangedSince: web_fetch of a page the stash holds says
// whether it changed since the stash's copy (its version, when it was
// fetched, the words added and removed), in its result and its text, on
// the first part only; of a page the stash does not hold, or with no
// stash at all, it says nothing; and it stores nothing.
func TestWebFetchChangedSince(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Tides", []string{"Tides rise and fall twice a day, pulled by the Moon and the Sun."}, "/spring"))
	site.set("/spring", html("Spring tides", []string{"Spring tides come at new and full moon.", strings.Repeat("Spring tide water runs high and low. ", 40)}))
	site.set("/elsewhere", html("Elsewhere", []string{"A page no crawl reached."}))
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)

	// No stash yet: nothing to compare with.
	var f FetchOutput
	text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/spring"}, &f)
	if isErr || f.ChangedSince != nil || strings.Contains(text, "stash's copy") {
		t.Fatalf("web_fetch with no stash: %+v\n%s", f.ChangedSince, text)
	}

	var crawled CrawlOutput
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, &crawled); isErr || crawled.Stored != 2 {
		t.Fatalf("web_crawl: %s", text)
	}
	var stored ReadOutput
	if text, isErr := call(t, cs, "stash_read", map[string]any{"url_or_id": site.URL + "/spring"}, &stored); isErr {
		t.Fatal(text)
	}

	// As the stash holds it: unchanged.
	f = FetchOutput{}
	text, isErr = call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/spring"}, &f)
	c := f.ChangedSince
	if isErr || c == nil || c.Change != "unchanged" || c.ID != stored.ID || c.Version != 1 || !c.FetchedAt.Equal(stored.FetchedAt) || c.Added != 0 || c.Deleted != 0 || !c.Removed.IsZero() {
		t.Fatalf("web_fetch of a page as stored: %+v\n%s", c, text)
	}
	if want := fmt.Sprintf("Since the stash's copy (version 1, id %s, fetched %s): unchanged.\n", stored.ID, stored.FetchedAt.Format(time.RFC3339)); !strings.Contains(text, want) {
		t.Errorf("web_fetch's text lacks %q:\n%.600s", want, text)
	}
	heeds, _ := checkMarkedPlain(t, "web_fetch", text)
	if !strings.Contains(heeds, "Since the stash's copy") {
		t.Errorf("the comparison is not in heed's words:\n%.600s", text)
	}
	// A later part says nothing of it.
	var later FetchOutput
	if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/spring", "start_index": 10, "version": f.Version}, &later); isErr || later.ChangedSince != nil || strings.Contains(text, "stash's copy") {
		t.Errorf("a later part: %+v\n%s", later.ChangedSince, text)
	}

	// The page changes: four words added ("moon", "at", "moon," and
	// "twice."), and one removed ("moon.").
	site.set("/spring", html("Spring tides", []string{"Spring tides come at new moon and at full moon, twice.", strings.Repeat("Spring tide water runs high and low. ", 40)}))
	f = FetchOutput{}
	text, isErr = call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/spring"}, &f)
	c = f.ChangedSince
	if isErr || c == nil || c.Change != "changed" || c.Version != 1 || c.Added != 4 || c.Deleted != 1 {
		t.Fatalf("web_fetch of a page changed: %+v\n%s", c, text)
	}
	if !strings.Contains(text, "): changed, 4 words added and 1 removed. web_fetch stores nothing") {
		t.Errorf("web_fetch's text of a page changed:\n%.600s", text)
	}
	// Nothing was stored: the stash's copy is as it was.
	var again ReadOutput
	if text, isErr := call(t, cs, "stash_read", map[string]any{"url_or_id": site.URL + "/spring"}, &again); isErr || again.Version != stored.Version {
		t.Errorf("the stash's copy after web_fetch: %s", text)
	}

	// A page the stash does not hold.
	f = FetchOutput{}
	text, isErr = call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/elsewhere"}, &f)
	if isErr || f.ChangedSince != nil || strings.Contains(text, "stash's copy") {
		t.Errorf("web_fetch of a page never stored: %+v\n%s", f.ChangedSince, text)
	}
}

// checkMarkedPlain splits a result's text into heed's words and the
// pages', and fails the test if its markers are not paired.
func checkMarkedPlain(t *testing.T, tool, text string) (heeds string, pages []string) {
	t.Helper()
	_, heeds, pages = splitMarked(t, tool, text)
	return heeds, pages
}
