package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/history"
	"github.com/heedhq/heed/internal/history/historytest"
)

// The team's database keeps a page's history as every store does.
func TestHistory(t *testing.T) {
	historytest.Run(t, func(t *testing.T, r history.Retention) historytest.Store {
		s := openStore(t)
		s.Retention = r
		return s
	})
}

// count is how many rows a query counts.
func count(t *testing.T, s *Store, query string, args ...any) int {
	t.Helper()
	var n int
	if err := s.pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Workers that put a page at once, each a content of its own, each in a
// transaction of its own (as a team's crawl commits a page), number its
// versions one after the other: 1 to N, no gap, no number twice, each
// content once with its text kept; the same content put by many at once
// (a job run again beside the first) is one version.
func TestPutConcurrent(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	s.Retention = history.Retention{Versions: -1, MaxAge: -1}
	const u, workers = "https://docs.example/busy", 8
	at := time.Now().UTC().Truncate(time.Second)
	var wg sync.WaitGroup
	errs := make([]error, workers)
	texts := make([]string, workers)
	for i := range workers {
		texts[i] = fmt.Sprintf("# Busy\n\nText number %d.\n", i)
		wg.Go(func() {
			snap := &heed.Snapshot{Source: "docs", URL: u, Title: "Busy", FetchedAt: at.Add(time.Duration(i) * time.Second), Markdown: texts[i]}
			errs[i] = pgx.BeginFunc(ctx, s.Pool(), func(tx pgx.Tx) error {
				_, err := PutIn(ctx, tx, snap, s.Retention)
				return err
			})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	h, err := s.History(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for i, v := range h.Versions {
		if v.N != i+1 {
			t.Fatalf("versions numbered %+v; want 1 to %d", h.Versions, workers)
		}
		text, err := s.VersionText(ctx, u, v.N)
		if err != nil || heed.HashOf(text) != v.Hash {
			t.Errorf("version %d's text: %q, %v", v.N, text, err)
		}
		seen = append(seen, text)
	}
	slices.Sort(seen)
	if !slices.Equal(seen, texts) {
		t.Errorf("the versions' texts: %q; want each of %q once", seen, texts)
	}
	got, err := s.Get(ctx, u)
	if err != nil || got.Version != workers || heed.HashOf(got.Markdown) != h.Versions[workers-1].Hash {
		t.Errorf("the page is not its last version: %+v, %v", got, err)
	}

	// The same content from many at once: one version, the others find
	// it current.
	const same = "https://docs.example/same"
	changes := make([]heed.Change, workers)
	for i := range workers {
		wg.Go(func() {
			snap := &heed.Snapshot{Source: "docs", URL: same, Title: "Same", FetchedAt: at, Markdown: "# Same\n"}
			_, errs[i] = s.Put(ctx, snap)
			changes[i] = snap.Change
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	slices.Sort(changes)
	if changes[0] != heed.New || changes[1] != heed.Unchanged || changes[workers-1] != heed.Unchanged {
		t.Errorf("the same content at once: %q; want one new, the others unchanged", changes)
	}
	if h, err := s.History(ctx, same); err != nil || len(h.Versions) != 1 {
		t.Errorf("the same content at once: %+v, %v; want one version", h, err)
	}
}

// A page's content replaced keeps its old text once, however many
// versions or pages have it: a page flipping between two texts stores
// two; the texts of versions let go are dropped where no version has
// them; Remove drops a source's history and the texts only it had.
func TestContentsOnce(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	s.Retention = history.Retention{Versions: 4, MaxAge: -1}
	at := time.Now().UTC().Add(-time.Hour)
	put := func(source, u, text string) {
		t.Helper()
		at = at.Add(time.Second)
		if _, err := s.Put(ctx, &heed.Snapshot{Source: source, URL: u, FetchedAt: at, Markdown: text}); err != nil {
			t.Fatal(err)
		}
	}
	const a, b = "# A\n", "# B\n"
	put("docs", "https://docs.example/flip", a)
	if n := count(t, s, `SELECT count(*) FROM heed_content`); n != 0 {
		t.Errorf("%d texts kept for a page of one version; want none (its text is its row's)", n)
	}
	for range 3 {
		put("docs", "https://docs.example/flip", b)
		put("docs", "https://docs.example/flip", a)
	}
	// Each text replaced is kept once, however often it comes back.
	if n := count(t, s, `SELECT count(*) FROM heed_content`); n != 2 {
		t.Errorf("%d texts kept for a page flipping between two; want 2", n)
	}
	if n := count(t, s, `SELECT count(*) FROM heed_history`); n != 4 {
		t.Errorf("%d entries; want the retention's 4", n)
	}
	// Another page, of another source, with the same old text.
	put("blog", "https://blog.example/x", a)
	put("blog", "https://blog.example/x", "# X\n")
	if n := count(t, s, `SELECT count(*) FROM heed_content`); n != 2 {
		t.Errorf("%d texts kept; want 2: two pages' old text is one", n)
	}
	// The flipping page moves on: a and b let go from it, a kept for
	// the blog's page, b dropped.
	for i := range 4 {
		put("docs", "https://docs.example/flip", fmt.Sprintf("# C%d\n", i))
	}
	if kept, want := contents(t, s), []string{"# A\n", "# C0\n", "# C1\n", "# C2\n"}; !slices.Equal(kept, want) {
		t.Errorf("texts kept %q; want %q", kept, want)
	}
	if text, err := s.VersionText(ctx, "https://blog.example/x", 1); err != nil || text != a {
		t.Errorf("the blog's first version: %q, %v", text, err)
	}
	if n, err := s.Remove(ctx, "docs"); err != nil || n != 1 {
		t.Fatalf("Remove: %d, %v", n, err)
	}
	if n := count(t, s, `SELECT count(*) FROM heed_history h WHERE h.url LIKE 'https://docs.example/%'`); n != 0 {
		t.Errorf("%d entries of the removed source left", n)
	}
	if kept := contents(t, s); !slices.Equal(kept, []string{a}) {
		t.Errorf("texts after Remove: %q; want only the blog's", kept)
	}
	if text, err := s.VersionText(ctx, "https://blog.example/x", 1); err != nil || text != a {
		t.Errorf("the blog's first version after Remove: %q, %v", text, err)
	}
}

// contents are the texts heed_content keeps, sorted.
func contents(t *testing.T, s *Store) []string {
	t.Helper()
	rows, err := s.pool.Query(context.Background(), `SELECT markdown FROM heed_content ORDER BY markdown COLLATE "C"`)
	if err != nil {
		t.Fatal(err)
	}
	texts, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return texts
}

// A page put over and over with new content keeps what the retention
// retains, however many versions there were: its entries and texts are
// bounded, and each Put reads no more than they.
func TestHistoryBounded(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	s.Retention = history.Retention{Versions: 5, MaxAge: -1}
	const u, puts = "https://docs.example/churn", 500
	at := time.Now().UTC().Add(-time.Hour)
	for i := range puts {
		snap := &heed.Snapshot{Source: "docs", URL: u, FetchedAt: at.Add(time.Duration(i) * time.Millisecond), Markdown: fmt.Sprintf("# Churn %d\n", i)}
		if _, err := s.Put(ctx, snap); err != nil {
			t.Fatal(err)
		}
		if snap.Version != i+1 {
			t.Fatalf("Put %d: version %d", i, snap.Version)
		}
	}
	if n := count(t, s, `SELECT count(*) FROM heed_history`); n != 5 {
		t.Errorf("%d entries after %d versions; want 5", n, puts)
	}
	if n := count(t, s, `SELECT count(*) FROM heed_content`); n != 4 {
		t.Errorf("%d texts kept after %d versions; want 4 (the fifth is the row's)", n, puts)
	}
	h, err := s.History(ctx, u)
	if err != nil || len(h.Versions) != 5 || h.Versions[0].N != puts-4 || h.Versions[4].N != puts {
		t.Fatalf("history: %+v, %v", h, err)
	}
	// Removals count as entries too; a page removed and back, over and
	// over, is bounded the same.
	for i := range 50 {
		if ok, err := s.MarkRemoved(ctx, "docs", u, at.Add(time.Minute+time.Duration(i)*time.Second), "404"); err != nil || !ok {
			t.Fatalf("MarkRemoved: %v, %v", ok, err)
		}
		if _, err := s.Put(ctx, &heed.Snapshot{Source: "docs", URL: u, FetchedAt: at.Add(time.Minute + time.Duration(i)*time.Second + time.Millisecond), Markdown: "# Back\n"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, s, `SELECT count(*) FROM heed_history`); n != 5 {
		t.Errorf("%d entries after removals; want 5", n)
	}
	if n := count(t, s, `SELECT count(*) FROM heed_content`); n > 4 {
		t.Errorf("%d texts kept; want at most 4", n)
	}
}

// Get says a page's version and when it was found gone; a hostile
// version number or reason is no SQL error.
func TestGetRemoved(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	at := time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	const u = "https://docs.example/gone"
	for i, text := range []string{"one\n", "two\n"} {
		if _, err := s.Put(ctx, &heed.Snapshot{Source: "docs", URL: u, FetchedAt: at.AddDate(0, 0, i), Markdown: text}); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := s.MarkRemoved(ctx, "docs", u, at.AddDate(0, 0, 3), "410\x00\xff"+string(make([]byte, 10000))); err != nil || !ok {
		t.Fatalf("MarkRemoved: %v, %v", ok, err)
	}
	got, err := s.Get(ctx, u)
	if err != nil || got.Version != 2 || !got.Removed.Equal(at.AddDate(0, 0, 3)) || got.Markdown != "two\n" {
		t.Fatalf("Get of a removed page: %+v, %v", got, err)
	}
	h, _ := s.History(ctx, u)
	if why := h.Versions[2].Removed; len(why) > 300 {
		t.Errorf("a reason of %d bytes kept", len(why))
	}
	for _, n := range []int{0, -1, 3, 1 << 40} {
		if _, err := s.VersionText(ctx, u, n); !errors.Is(err, heed.ErrNotFound) {
			t.Errorf("VersionText(%d): %v, want ErrNotFound", n, err)
		}
	}
	if _, err := s.Put(ctx, &heed.Snapshot{Source: "docs", URL: u, FetchedAt: at.AddDate(0, 0, 4), Markdown: "two\n"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, u); got.Version != 4 || !got.Removed.IsZero() {
		t.Errorf("Get of a page back: version %d, removed %v", got.Version, got.Removed)
	}
}

// A row in the way of a new page's (another URL with its ID) fails the
// Put with the database's own error, a unique violation, as a team's
// crawl takes for a page the database refused: not a loop, not a page
// lost.
func TestPutIDTaken(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	const u = "https://docs.example/taken"
	if _, err := s.pool.Exec(ctx, `INSERT INTO heed_snapshot (url, id, source, fetched_at, hash, markdown) VALUES ('https://other.example/', $1, 'docs', now(), '', '')`, heed.IDOf(u)); err != nil {
		t.Fatal(err)
	}
	_, err := s.Put(ctx, &heed.Snapshot{Source: "docs", URL: u, FetchedAt: time.Now(), Markdown: "text\n"})
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "23505" {
		t.Fatalf("Put of a page whose ID is taken: %v; want a unique violation", err)
	}
}

// Changes reads as many batches as it takes: of 300 pages with entries
// since the time, every other one came to nothing (new and removed
// since); every change is found, by URL, in one part or in parts.
func TestChangesBatches(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	t0 := time.Now().UTC().Truncate(time.Second).Add(-time.Hour)
	u := func(i int) string { return fmt.Sprintf("https://docs.example/p%03d", i) }
	var want []string
	err := pgx.BeginFunc(ctx, s.Pool(), func(tx pgx.Tx) error {
		for i := range 300 {
			at := t0
			if i%2 == 1 {
				at = t0.Add(20 * time.Minute)
			}
			if _, err := PutIn(ctx, tx, &heed.Snapshot{Source: "docs", URL: u(i), FetchedAt: at, Markdown: "one\n"}, history.Retention{}); err != nil {
				return err
			}
			if i%2 == 0 {
				want = append(want, u(i))
				_, err := PutIn(ctx, tx, &heed.Snapshot{Source: "docs", URL: u(i), FetchedAt: t0.Add(20 * time.Minute), Markdown: "two\n"}, history.Retention{})
				if err != nil {
					return err
				}
			} else if _, err := MarkRemovedIn(ctx, tx, "docs", u(i), t0.Add(30*time.Minute), "404", history.Retention{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	since := t0.Add(10 * time.Minute)
	urls := func(cs []heed.PageChange) []string {
		var out []string
		for _, c := range cs {
			if c.Change != heed.Changed {
				t.Errorf("%s: %q, want changed", c.URL, c.Change)
			}
			out = append(out, c.URL)
		}
		return out
	}
	all, err := s.Changes(ctx, heed.ChangesQuery{Since: since})
	if err != nil || !slices.Equal(urls(all), want) {
		t.Fatalf("every change: %d, %v; want %d", len(all), err, len(want))
	}
	var parts []string
	after := ""
	for range 10 {
		cs, err := s.Changes(ctx, heed.ChangesQuery{Since: since, After: after, Limit: 60})
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) == 0 {
			break
		}
		if len(cs) > 60 {
			t.Fatalf("a part of %d; the limit is 60", len(cs))
		}
		parts = append(parts, urls(cs)...)
		after = cs[len(cs)-1].URL
	}
	if !slices.Equal(parts, want) {
		t.Errorf("in parts: %d changes; want %d", len(parts), len(want))
	}
}
