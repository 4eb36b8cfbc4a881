package team

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/testutil"
)

// TestContentMovedIsNoDuplicate: a page whose content moved to another
// URL between two crawls is stored under its new URL in the second,
// not skipped as a duplicate of the snapshot the first crawl left under
// its old one: a page is a duplicate of one kept in its own crawl, as on
// one machine.
func TestContentMovedIsNoDuplicate(t *testing.T) {
	pool := database(t)
	var moved atomic.Bool
	text := strings.Repeat("The text of a page that moves, long enough to be taken for a twin. ", 5)
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		page := func(title, links string) {
			fmt.Fprintf(w, `<html><head><title>%s</title></head><body><main><h1>Manual</h1><p>%s</p>%s</main></body></html>`, title, text, links)
		}
		switch {
		case r.URL.Path == "/" && !moved.Load():
			fmt.Fprint(w, `<html><head><title>Home</title></head><body><main><p>The home page, with words enough.</p><a href="/old">old</a></main></body></html>`)
		case r.URL.Path == "/":
			fmt.Fprint(w, `<html><head><title>Home</title></head><body><main><p>The home page, with words enough.</p><a href="/new">new</a></main></body></html>`)
		case r.URL.Path == "/old" && !moved.Load():
			page("Old", "")
		case r.URL.Path == "/new" && moved.Load():
			page("New", "")
		default:
			http.NotFound(w, r)
		}
	})
	startWorkers(t, pool, 1, nil)
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay, o.NoSitemaps, o.NoLLMsTxt = site.URL+"/", "moves", 5*time.Millisecond, true, true
	first, err := Start(t.Context(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	if p := waitDone(t, pool, first, time.Minute); p.Stored != 2 {
		t.Fatalf("the first crawl: %+v", p)
	}
	moved.Store(true)
	second, err := Start(t.Context(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	p := waitDone(t, pool, second, time.Minute)
	if p.Skipped["duplicate"] != 0 || p.Stored+p.Unchanged != 2 {
		t.Errorf("the second crawl, /old moved to /new: %+v; want /new stored, no duplicate", p)
	}
	var n int
	if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM heed_snapshot WHERE url = $1`, site.URL+"/new").Scan(&n); err != nil || n != 1 {
		t.Errorf("/new has %d snapshots (%v), want 1", n, err)
	}
}
