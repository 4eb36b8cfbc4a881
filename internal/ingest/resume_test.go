package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/stash"
)

// TestResumeByID: a crawl taken up by its ID alone (heed crawl --resume
// ID) crawls what it recorded: its start, its source and its scope, and
// what it had queued.
func TestResumeByID(t *testing.T) {
	asked := map[string]int{}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked[r.URL.Path]++
		fmt.Fprintf(w, `<html><head><title>Page %s</title></head><body><main><p>The page %s, with words enough to be content.</p><a href="/docs/b">b</a> <a href="/other">o</a></main></body></html>`, r.URL.Path, r.URL.Path)
	}))
	t.Cleanup(s.Close)
	dir := t.TempDir()
	// A crawl of /docs/a, its start ended and /docs/b queued, cut short.
	st, err := stash.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	o := crawlopt.Defaults()
	o.Start, o.Source = s.URL+"/docs/a", "docs"
	o.Delay = 0
	recorded, _ := json.Marshal(o) // as a crawl records its options
	rec, _, err := st.Begin(t.Context(), ledger.Crawl{Key: `{"start":"` + o.Start + `","source":"docs"}`, Start: o.Start, Source: "docs", Options: string(recorded)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	st.Write(t.Context(), rec.ID, []ledger.Entry{{URL: o.Start, Fate: ledger.Stored}, {URL: s.URL + "/docs/b", Fate: ledger.Queued, Depth: 1}}, ledger.Counts{Requests: 1, Stored: 1}, nil)
	st.Finish(t.Context(), rec.ID, ledger.Interrupted, ledger.Counts{Requests: 1, Stored: 1})
	st.Close()

	svc := New(Config{HTTP: fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}), StashDir: dir})
	t.Cleanup(func() { svc.Close() })
	req := CrawlRequest{Options: crawlopt.Defaults(), Resume: rec.ID}
	req.Delay = 0
	res, err := svc.Crawl(t.Context(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Crawl != rec.ID || res.Resumed == nil || res.Source != "docs" || res.Start != o.Start || res.Stored != 1 {
		t.Errorf("resumed by ID: crawl %d, %+v, source %q, start %q, %d stored; want crawl %d of %s into docs, /docs/b stored", res.Crawl, res.Resumed, res.Source, res.Start, res.Stored, rec.ID, o.Start)
	}
	if asked["/docs/a"] != 0 || asked["/docs/b"] != 1 || asked["/other"] != 0 {
		t.Errorf("asked %v: want /docs/b alone (/docs/a ended, /other out of the recorded scope)", asked)
	}
	got, err := svc.CrawlStatus(t.Context(), rec.ID)
	if err != nil || got.State != ledger.Done || got.Counts.Stored != 2 {
		t.Errorf("the record after: %+v, %v", got, err)
	}
}

// TestResumeByIDKeepsItsOptions: a crawl taken up by its ID alone runs
// with the options it ran with (its max_depth, its delay), not heed's
// defaults.
func TestResumeByIDKeepsItsOptions(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var mu sync.Mutex
	asked := map[string]int{}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked[r.URL.Path]++
		mu.Unlock()
		if r.URL.Path == "/a" && ctx.Err() == nil {
			cancel() // Ctrl-C while /a is asked for
			<-r.Context().Done()
			return
		}
		next := map[string]string{"/": "/a", "/a": "/a/deep"}[r.URL.Path]
		fmt.Fprintf(w, `<html><head><title>Page %s</title></head><body><main><p>The page %s, with words enough to be content.</p><a href="%s">next</a></main></body></html>`, r.URL.Path, r.URL.Path, next)
	}))
	t.Cleanup(s.Close)
	svc := New(Config{HTTP: fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}), StashDir: t.TempDir()})
	t.Cleanup(func() { svc.Close() })
	req := CrawlRequest{Options: crawlopt.Defaults()}
	req.Start, req.Source, req.MaxDepth, req.Delay, req.NoSitemaps, req.NoLLMsTxt = s.URL+"/", "site", 1, 0, true, true
	first, err := svc.Crawl(ctx, req, nil)
	if err != nil || first.Crawl == 0 {
		t.Fatalf("the first run: %+v, %v", first, err)
	}
	again := CrawlRequest{Options: crawlopt.Defaults(), Resume: first.Crawl}
	res, err := svc.Crawl(t.Context(), again, nil)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if res.Crawl != first.Crawl || asked["/a"] != 2 || asked["/a/deep"] != 0 || res.MaxDepth != 1 || res.Skipped["limit"] != 1 {
		t.Errorf("resumed by ID: crawl %d, max_depth %d, %+v, asked %v; want crawl %d, /a asked again, /a/deep past its max_depth of 1", res.Crawl, res.MaxDepth, res.Skipped, asked, first.Crawl)
	}
}
