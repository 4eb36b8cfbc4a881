package ingest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/pgtest"
	"github.com/heedhq/heed/internal/stash"
)

// The same pages in the stash of files and in a team's database answer
// the same queries with the same pages, the same one first. (The
// rankings differ in their figures: SQLite's bm25 against Postgres's
// ts_rank_cd; what is checked is which pages, and which first.)
func TestSearchParity(t *testing.T) {
	ctx := context.Background()
	url := teamDatabase(t)
	pg, err := pgstore.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	st, err := stash.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	pages := []struct{ url, title, text string }{
		{"https://go.example/leaks", "Goroutine leaks", "A goroutine that blocks forever leaks its stack. Cancel the context to stop it."},
		{"https://go.example/context", "Package context", "A context carries deadlines and cancellation signals across API boundaries."},
		{"https://go.example/channels", "Channels", "Channels connect goroutines. A send on a closed channel panics."},
		{"https://go.example/maps", "Maps", "A map is not safe for concurrent use: guard it with a mutex."},
		{"https://pg.example/vacuum", "Routine vacuuming", "VACUUM reclaims storage occupied by dead tuples. Autovacuum runs it for you."},
		{"https://pg.example/index", "Indexes", "A B-tree index speeds up equality and range queries on sorted data."},
		{"https://pg.example/wal", "Write-ahead log", "The write-ahead log records every change before it reaches the data files."},
		{"https://rust.example/ownership", "Ownership", "Each value in Rust has an owner; when the owner goes out of scope, the value is dropped."},
		{"https://rust.example/borrowing", "References and borrowing", "A reference borrows a value without taking ownership of it."},
		{"https://py.example/gc", "Garbage collection", "Python frees memory by reference counting, and a cycle collector finds the rest."},
	}
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range pages {
		for _, s := range []interface {
			Put(context.Context, *heed.Snapshot) (bool, error)
		}{st, pg} {
			snap := &heed.Snapshot{Source: "docs", URL: p.url, Title: p.title, FetchedAt: at, Markdown: "# " + p.title + "\n\n" + p.text}
			if _, err := s.Put(ctx, snap); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, q := range []string{"goroutine", "context cancellation", "vacuum", "index", "ownership", "reference", "\"write-ahead log\"", "borrow*", "memory", "channel closed"} {
		a, errA := st.Search(ctx, heed.Query{Text: q})
		b, errB := pg.Search(ctx, heed.Query{Text: q})
		if errA != nil || errB != nil {
			t.Fatalf("%q: %v, %v", q, errA, errB)
		}
		ua, ub := hitURLs(a), hitURLs(b)
		sa, sb := slices.Sorted(slices.Values(ua)), slices.Sorted(slices.Values(ub))
		if !slices.Equal(sa, sb) || len(ua) > 0 && ua[0] != ub[0] {
			t.Errorf("%q: the stash finds %q, the database %q", q, ua, ub)
		}
		if len(ua) == 0 {
			t.Errorf("%q finds nothing: %s", q, fmt.Sprint(a))
		}
	}
}

func hitURLs(hits []heed.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.URL)
	}
	return out
}

// Processes beside a team's workers (heed mcp --db) read robots.txt as
// the workers do: from the team's table, or fetched once for the team
// on the host's turn and stored there.
func TestTeamRobotsShared(t *testing.T) {
	ctx := context.Background()
	url := teamDatabase(t)
	var asked atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			asked.Add(1)
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
			return
		}
		fmt.Fprint(w, "<html><body><p>A page.</p></body></html>")
	}))
	defer site.Close()
	client := fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Retries: -1})
	for i, path := range []string{"/private/a", "/private/b", "/open"} {
		// A service each, as processes of a team are.
		svc := New(Config{DB: url, HTTP: client, Delay: 10 * time.Millisecond})
		d, err := svc.Robots().Allowed(ctx, "heed", site.URL+path)
		svc.Close()
		if err != nil || d.Allowed != (path == "/open") {
			t.Errorf("%d: %s: %+v, %v", i, path, d, err)
		}
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("robots.txt asked %d times by three processes; want once for the team", n)
	}
}

// teamDatabase is the URL of a new team database, migrated, in a cluster
// of its own that stops when the test ends.
func teamDatabase(t *testing.T) string {
	t.Helper()
	c := pgtest.Start(t)
	t.Cleanup(c.Stop)
	url := c.Database(t)
	if _, err := Migrate(context.Background(), url, 0); err != nil {
		t.Fatal(err)
	}
	return url
}
