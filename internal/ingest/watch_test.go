package ingest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"sync"
	"testing"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawlopt"
)

// Watch tells of each page a crawl stores, as it is stored, and of the
// crawl's end once its pages are listed; a crawl that stores nothing
// tells of nothing, and nothing is told once the watch is stopped.
func TestWatch(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<html><head><title>Home</title></head><body><main><p>The start of a small site, with words enough.</p><p><a href="/a">A</a> <a href="/b">B</a></p></main></body></html>`)
		case "/a", "/b":
			fmt.Fprintf(w, `<html><head><title>%s</title></head><body><main><p>The page %s of a small site, with words enough.</p></main></body></html>`, r.URL.Path, r.URL.Path)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	client := fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Retries: -1})
	svc := New(Config{StashDir: t.TempDir(), HTTP: client, Delay: -1})
	defer svc.Close()
	var mu sync.Mutex
	var changes []Change
	var listed []string // what ListPage lists when the end is told
	stop := svc.Watch(func(c Change) {
		var ids []string
		if c.Ended {
			entries, _, err := svc.ListPage(context.Background(), "", 100)
			if err != nil {
				t.Error(err)
			}
			for _, e := range entries {
				ids = append(ids, e.ID)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		changes = append(changes, c)
		if c.Ended {
			listed = ids
		}
	})
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = site.URL+"/", "site", 0
	if _, err := svc.Crawl(context.Background(), CrawlRequest{Options: o}, nil); err != nil {
		t.Fatal(err)
	}
	urls := []string{site.URL + "/", site.URL + "/a", site.URL + "/b"}
	mu.Lock()
	got := slices.Clone(changes)
	mu.Unlock()
	if len(got) != 4 || !got[3].Ended || got[3].Source != "site" {
		t.Fatalf("changes %+v; want three pages stored, then the end", got)
	}
	var stored []string
	for _, c := range got[:3] {
		if c.Ended || c.Source != "site" || c.ID != heed.IDOf(c.URL) {
			t.Errorf("change %+v", c)
		}
		stored = append(stored, c.URL)
	}
	slices.Sort(stored)
	if !slices.Equal(stored, urls) {
		t.Errorf("stored %q; want %q", stored, urls)
	}
	if want := slices.Sorted(slices.Values(idsOf(urls))); !slices.Equal(listed, want) {
		t.Errorf("when the end was told, ListPage listed %q; want every page stored, %q", listed, want)
	}

	// Again, the pages unchanged: nothing changed, nothing told. Nor is a
	// crawl that stores nothing.
	if _, err := svc.Crawl(context.Background(), CrawlRequest{Options: o}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Crawl(context.Background(), CrawlRequest{Options: o, NoStore: true}, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	n := len(changes)
	mu.Unlock()
	if n != 4 {
		t.Errorf("%d changes after crawls that stored nothing new; want the 4 of the first", n)
	}
	stop()
	o.Start = site.URL + "/a"
	o.Source = "other"
	if _, err := svc.Crawl(context.Background(), CrawlRequest{Options: o}, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	n = len(changes)
	mu.Unlock()
	if n != 4 {
		t.Errorf("%d changes after the watch stopped; want none more", n)
	}
}
