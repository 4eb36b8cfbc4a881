package team

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
)

// TestTeamKeptListsNoPageMoved: a team's crawl does not list among the
// pages it kept (Kept: crawl_pages, heed status) a page it found moved:
// /old, stored by a first crawl, now redirects to /new on its site and is
// marked removed (moved); only /new is listed, as on one machine.
func TestTeamKeptListsNoPageMoved(t *testing.T) {
	pool := database(t)
	var moved atomic.Bool
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page := func(title, body string) {
			fmt.Fprintf(w, `<html><head><title>%s</title></head><body><main><p>The page %s, with words enough to be content of its own.</p>%s</main></body></html>`, title, title, body)
		}
		switch {
		case r.URL.Path == "/":
			page("Home", `<a href="/old">old</a>`)
		case r.URL.Path == "/old" && moved.Load():
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
		case r.URL.Path == "/old" || r.URL.Path == "/new" && moved.Load():
			page("Tides", "")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	o := crawl.Options{Options: crawlopt.Defaults()}
	o.Start, o.Source, o.Delay = site.URL+"/", "site", 0
	o.NoSitemaps, o.NoLLMsTxt = true, true
	crawlTeamOnce(t, pool, o)
	moved.Store(true)
	events := crawlTeamOnce(t, pool, o)
	var id int64
	if err := pool.QueryRow(context.Background(), `SELECT max(id) FROM heed_crawl`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	kept, err := Kept(context.Background(), pool, id, time.Time{}, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	var told []string
	for _, e := range events {
		told = append(told, fmt.Sprintf("%s %s %s", e.Kind, e.URL, e.Reason))
	}
	for _, k := range kept {
		if strings.HasSuffix(k.URL, "/old") {
			t.Errorf("the crawl's kept pages list %s, found moved (its snapshot removed); the crawl told:\n%s", k.URL, strings.Join(told, "\n"))
		}
	}
}
