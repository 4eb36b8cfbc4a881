package crawl_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawl/crawltest"
)

// TestConformance runs the conformance suite against the crawl on one
// machine, into the store of this run of the tests (the stash of files
// and SQLite, then a store in memory, then PostgreSQL's rows).
func TestConformance(t *testing.T) {
	crawltest.Run(t, crawltest.Backend{Crawl: crawlOne})
}

// crawlOne crawls with o into a store of its own, runs times, and says
// what came of the last.
func crawlOne(t *testing.T, o crawl.Options, runs int, before func(int)) crawltest.Result {
	c, st := crawl.NewTestCrawler(t)
	var mu sync.Mutex
	var res crawltest.Result
	for run := range runs {
		before(run)
		if run > 0 {
			res.Runs = append(res.Runs, res.Events)
		}
		res.Events = nil
		_, err := c.Crawl(t.Context(), o, func(e crawl.Event) {
			mu.Lock()
			defer mu.Unlock()
			res.Events = append(res.Events, e)
		})
		// A crawl that kept nothing, or whose start URL failed, says so;
		// its events say why, and they are what the suite compares.
		if err != nil && !errors.Is(err, crawl.ErrNothingKept) && !errors.Is(err, crawl.ErrStartFailed) {
			t.Fatalf("crawl: %v", err)
		}
	}
	res.Runs = append(res.Runs, res.Events)
	entries, err := st.List(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	res.Snapshots = map[string]crawltest.Snapshot{}
	res.Histories = map[string][]heed.PageVersion{}
	for _, e := range entries {
		h, err := st.History(t.Context(), e.URL)
		if err != nil {
			t.Fatalf("%s: history: %v", e.URL, err)
		}
		res.Histories[e.URL] = h.Versions
		snap, err := st.Get(t.Context(), e.ID)
		if err != nil {
			t.Fatalf("%s: %v", e.URL, err)
		}
		res.Snapshots[snap.URL] = crawltest.Snapshot{Title: snap.Title, Markdown: snap.Markdown, Author: snap.Author, Published: snap.Published}
	}
	return res
}
