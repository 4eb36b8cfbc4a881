package mcp

import (
	"context"
	"fmt"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// floodSite is a site of pages pages in all: the start page links to the
// others, and every page links to many URLs a crawl skips unfetched (on
// other hosts, or deeper than max_depth 1).
func floodSite(t *testing.T, pages, links int) *site {
	t.Helper()
	site := newSite(t)
	var top []string
	for i := 1; i < pages; i++ {
		top = append(top, fmt.Sprintf("/p%d", i))
	}
	// off are a page's links to other hosts and, from a page at depth 1,
	// to pages at depth 2.
	off := func(page string, deeper bool) []string {
		var out []string
		for j := range links {
			out = append(out, fmt.Sprintf("http://elsewhere.invalid%s/%d", page, j))
			if deeper {
				out = append(out, fmt.Sprintf("%s/deeper/%d", page, j))
			}
		}
		return out
	}
	site.set("/", html("Start", []string{"The start page of a site whose pages link far and wide, the harbour among them."}, append(top, off("/start", false)...)...))
	for _, p := range top {
		site.set(p, html("Page "+p, []string{"A page of the harbour, " + p + ", with words enough to be content."}, off(p, true)...))
	}
	return site
}

// drained waits until every progress notification sent before now has
// been handled: the client handles notifications one at a time in the
// order they came, so once the notification of a later call (a web_grep
// of one page, token "marker") is handled, all that came before are.
func drained(t *testing.T, cs *sdk.ClientSession, progress *progressLog, url string) []*sdk.ProgressNotificationParams {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "web_grep", Arguments: map[string]any{"url": url, "pattern": "harbour"}, Meta: sdk.Meta{"progressToken": "marker"}}); err != nil {
		t.Fatal(err)
	}
	for range 2000 {
		all := progress.all()
		for i, p := range all {
			if p.ProgressToken == "marker" {
				return all[:i]
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the marker's progress notification never came")
	return nil
}

// checkProgress checks a call's progress notifications: at most one per
// page fetched and one more, progress rising with each, the last saying
// every page was fetched, of at most the call's max_pages.
func checkProgress(t *testing.T, events []*sdk.ProgressNotificationParams, token any, pages, maxPages int) {
	t.Helper()
	if len(events) == 0 || len(events) > pages+1 {
		t.Fatalf("%d progress notifications for a call that fetched %d pages; want 1 to %d", len(events), pages, pages+1)
	}
	for i, p := range events {
		if p.ProgressToken != token || p.Total != float64(maxPages) || i > 0 && p.Progress <= events[i-1].Progress || p.Progress > float64(pages) {
			t.Errorf("progress %d: %+v; want token %v, total %d, progress rising to %d", i, p, token, maxPages, pages)
		}
	}
	if last := events[len(events)-1]; last.Progress != float64(pages) {
		t.Errorf("the last progress notification says %v of %v pages: %q; want %d", last.Progress, last.Total, last.Message, pages)
	}
}

// TestCrawlProgressByPage: a web_crawl's progress is about the pages it
// fetches, not every link it skips: a crawl of 16 pages that link to
// 3,100 URLs it does not fetch sends at most 17 notifications.
func TestCrawlProgressByPage(t *testing.T) {
	const pages = 16
	site := floodSite(t, pages, 100)
	s := newServer(t, Limits{MaxPages: 40}, loopback)
	var progress progressLog
	cs := connect(t, s, &progress)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "web_crawl", Arguments: map[string]any{"url": site.URL + "/", "max_depth": 1}, Meta: sdk.Meta{"progressToken": "crawl"}})
	if err != nil {
		t.Fatal(err)
	}
	var out CrawlOutput
	if text, isErr := decode(t, res, &out); isErr || out.Stored != pages || out.Skipped["scope"]+out.Skipped["limit"] < 3000 {
		t.Fatalf("web_crawl: %s %+v", text, out)
	}
	checkProgress(t, drained(t, cs, &progress, site.URL+"/"), "crawl", pages, 40)

	// Spaced by an hour: the first notification, and the last, held back
	// until the crawl is done.
	s.progressEvery = time.Hour
	progress = progressLog{}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "web_crawl", Arguments: map[string]any{"url": site.URL + "/", "max_depth": 1}, Meta: sdk.Meta{"progressToken": "again"}})
	if err != nil {
		t.Fatal(err)
	}
	if text, isErr := decode(t, res, &out); isErr || out.Unchanged != pages {
		t.Fatalf("web_crawl again: %s %+v", text, out)
	}
	events := drained(t, cs, &progress, site.URL+"/")
	if len(events) != 2 || events[0].Progress != 1 || events[1].Progress != pages || events[1].Total != 40 {
		t.Errorf("progress spaced by an hour: %d notifications, want 2 (1 and %d of 40)", len(events), pages)
		for _, p := range events {
			t.Logf("%+v", p)
		}
	}
}

// TestGrepProgressByPage: so is a web_grep's.
func TestGrepProgressByPage(t *testing.T) {
	const pages = 16
	site := floodSite(t, pages, 100)
	s := newServer(t, Limits{MaxPages: 40}, loopback)
	var progress progressLog
	cs := connect(t, s, &progress)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "web_grep", Arguments: map[string]any{"url": site.URL + "/", "pattern": "harbour", "depth": 1}, Meta: sdk.Meta{"progressToken": 9}})
	if err != nil {
		t.Fatal(err)
	}
	var out GrepOutput
	if text, isErr := decode(t, res, &out); isErr || out.PagesSearched != pages || out.MatchCount != pages {
		t.Fatalf("web_grep: %s %+v", text, out)
	}
	checkProgress(t, drained(t, cs, &progress, site.URL+"/"), float64(9), pages, 40)
}
