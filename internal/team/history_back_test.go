package team

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/pgstore"
)

// TestTeamPageBackBehind304 shows, for a team's workers, what
// the crawl package's TestPageBackBehind304 shows on one machine:
// a page marked removed (no longer linked), linked again and answering
// the workers' conditional request with 304, stays removed.
func TestTeamPageBackBehind304(t *testing.T) {
	pool := database(t)
	var mu sync.Mutex
	links := []string{"/a", "/b"}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ls := links
		mu.Unlock()
		// Each page's ETag names its content: the home page's, its links.
		var etag string
		switch r.URL.Path {
		case "/":
			etag = fmt.Sprintf(`"home%d"`, len(ls))
		case "/a", "/b":
			etag = `"` + r.URL.Path + `"`
		default:
			http.NotFound(w, r)
			return
		}
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprintf(w, `<html><head><title>%s</title></head><body><main><p>The page %s, with words enough to be content of its own.</p>`, r.URL.Path, r.URL.Path)
		if r.URL.Path == "/" {
			for _, l := range ls {
				fmt.Fprintf(w, `<a href="%s">%s</a> `, l, l)
			}
		}
		fmt.Fprint(w, `</main></body></html>`)
	}))
	t.Cleanup(site.Close)
	o := crawl.Options{Options: crawlopt.Defaults()}
	o.Start, o.Source, o.Delay = site.URL+"/", "site", 0
	o.NoSitemaps, o.NoLLMsTxt = true, true
	crawlTeamOnce(t, pool, o)
	mu.Lock()
	links = []string{"/a"}
	mu.Unlock()
	crawlTeamOnce(t, pool, o)
	st, err := pgstore.Open(context.Background(), pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if snap, err := st.Get(context.Background(), site.URL+"/b"); err != nil || snap.Removed.IsZero() {
		t.Fatalf("/b, no longer linked: %+v, %v; want it removed", snap, err)
	}
	mu.Lock()
	links = []string{"/a", "/b"}
	mu.Unlock()
	events := crawlTeamOnce(t, pool, o)
	snap, err := st.Get(context.Background(), site.URL+"/b")
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Removed.IsZero() {
		var told []string
		for _, e := range events {
			told = append(told, string(e.Kind)+" "+e.URL)
		}
		t.Errorf("/b came back, yet it is removed (at %v); the crawl told %q", snap.Removed, told)
	}
}
