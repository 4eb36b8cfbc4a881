package ingest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/heedhq/heed"
)

// TestTeamCrawlSummaryTellsChanges: a team's crawl, followed to its end,
// reports what its pages came to as a crawl on one machine of the same
// site does: its summary counts the changed and removed pages, and a
// page found gone (404), which the workers mark removed, is counted
// removed, not failed.
func TestTeamCrawlSummaryTellsChanges(t *testing.T) {
	svc := teamJobService(t)
	var mu sync.Mutex
	pages := map[string]string{"/": "Home /a /b", "/a": "A", "/b": "B"}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		body, ok := pages[r.URL.Path]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `<html><head><title>%s</title></head><body><main><p>The page %s says %s, with words enough to be content of its own.</p>`, r.URL.Path, r.URL.Path, body)
		if r.URL.Path == "/" {
			fmt.Fprint(w, `<a href="/a">a</a> <a href="/b">b</a>`)
		}
		fmt.Fprint(w, `</main></body></html>`)
	}))
	t.Cleanup(site.Close)
	req := jobRequest(site.URL + "/")
	req.Source = "site"
	if _, err := svc.Crawl(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	pages["/a"] = "A, revised"
	delete(pages, "/b")
	mu.Unlock()
	mid := time.Now()
	res, err := svc.Crawl(t.Context(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := svc.Changes(t.Context(), heed.ChangesQuery{Since: mid})
	if err != nil {
		t.Fatal(err)
	}
	told := map[heed.Change]int{}
	for _, c := range cs {
		told[c.Change]++
	}
	if told[heed.Changed] != 1 || told[heed.Removed] != 1 {
		t.Fatalf("heed changes tells %v; want 1 changed, 1 removed", told)
	}
	if res.Summary.Changed != 1 || res.Summary.Removed != 1 || res.Summary.Failed != 0 {
		t.Errorf("the team crawl's summary says %q; want 1 changed, 1 removed, 0 failed, as heed changes tells", res.Summary.Text())
	}
}
