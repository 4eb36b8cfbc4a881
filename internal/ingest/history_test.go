package ingest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/stash"
)

// remover is a store that marks pages removed, as a crawl does.
type remover interface {
	putter
	MarkRemoved(ctx context.Context, source, url string, at time.Time, why string) (bool, error)
}

// TestSinceStored: a page read now is compared with the store's copy,
// in either store: unchanged, changed by so many words, its copy's
// version and time; a page found gone says when, with the version of its
// last content; a page the store does not hold, or no store, is nil; and
// nothing is stored.
func TestSinceStored(t *testing.T) {
	for name, backend := range backends(t) {
		t.Run(name, func(t *testing.T) {
			svc, open := backend(t)
			ctx := context.Background()
			if c, err := svc.SinceStored(ctx, "https://docs.example/a", "# A"); c != nil || err != nil {
				t.Fatalf("with no store: %+v, %v; want nil", c, err)
			}
			first := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
			text := "# Tides\n\nThe tide turns at noon, and the harbour opens."
			w := open()
			for i, md := range []string{"# Tides\n\nThe tide turns.", text} {
				snap := &heed.Snapshot{Source: "docs", URL: "https://docs.example/tides", Title: "Tides", FetchedAt: first.AddDate(0, 0, i), Markdown: md}
				if _, err := w.Put(ctx, snap); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := w.Put(ctx, &heed.Snapshot{Source: "docs", URL: "https://docs.example/gone", Title: "Gone", FetchedAt: first, Markdown: "# Gone\n\nSoon gone."}); err != nil {
				t.Fatal(err)
			}
			gone := first.AddDate(0, 0, 3)
			if ok, err := w.(remover).MarkRemoved(ctx, "docs", "https://docs.example/gone", gone, "404"); !ok || err != nil {
				t.Fatalf("MarkRemoved: %v %v", ok, err)
			}
			w.Close()

			c, err := svc.SinceStored(ctx, "https://docs.example/tides", text)
			want := Compared{ID: heed.IDOf("https://docs.example/tides"), Version: 2, FetchedAt: first.AddDate(0, 0, 1), Change: heed.Unchanged}
			if err != nil || c == nil || !c.FetchedAt.Equal(want.FetchedAt) || c.FetchedAt.IsZero() {
				t.Fatalf("unchanged: %+v, %v; want %+v", c, err, want)
			}
			c.FetchedAt = want.FetchedAt
			if *c != want {
				t.Errorf("unchanged: %+v; want %+v", *c, want)
			}
			// Its URL as a link gives it: the host in capitals, a fragment.
			c, err = svc.SinceStored(ctx, "https://DOCS.example/tides#noon", text+" At dusk too.")
			if err != nil || c == nil || c.Change != heed.Changed || c.WordsAdded != 3 || c.WordsRemoved != 0 || c.Version != 2 {
				t.Errorf("changed: %+v, %v; want 3 words added to version 2", c, err)
			}
			c, err = svc.SinceStored(ctx, "https://docs.example/tides", "# Tides\n\nThe tide turns at dusk, and the harbour opens.")
			if err != nil || c == nil || c.Change != heed.Changed || c.WordsAdded != 1 || c.WordsRemoved != 1 {
				t.Errorf("a word changed: %+v, %v", c, err)
			}
			c, err = svc.SinceStored(ctx, "https://docs.example/gone", "# Gone\n\nBack again.")
			if err != nil || c == nil || c.Version != 1 || !c.Removed.Equal(gone) || c.Change != heed.Changed {
				t.Errorf("a page found gone: %+v, %v; want version 1, removed %v", c, err, gone)
			}
			if c, err := svc.SinceStored(ctx, "https://docs.example/never", "# Never"); c != nil || err != nil {
				t.Errorf("a page the store does not hold: %+v, %v; want nil", c, err)
			}
			// Nothing was stored: the history is as it was.
			h, err := svc.History(ctx, "https://docs.example/tides")
			if err != nil || len(h.Versions) != 2 {
				t.Errorf("history after the comparisons: %+v, %v", h, err)
			}
		})
	}
}

// TestHoldSharesOneStore: reads made while a door holds the store share
// one open store; without a hold, each opens it anew; and a hold with no
// store says so, holding nothing.
func TestHoldSharesOneStore(t *testing.T) {
	dir := t.TempDir()
	opens := 0
	svc := New(Config{StashDir: dir, Open: func(ctx context.Context) (Store, error) {
		opens++
		return stash.Open(ctx, dir)
	}})
	t.Cleanup(func() { svc.Close() })
	ctx := context.Background()
	w, err := stash.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, md := range []string{"# Tides\n\nNoon.", "# Tides\n\nDusk."} {
		if _, err := w.Put(ctx, &heed.Snapshot{Source: "docs", URL: "https://docs.example/tides", FetchedAt: time.Now().AddDate(0, 0, i-1), Markdown: md}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	read := func() {
		t.Helper()
		for n := 1; n <= 2; n++ {
			if _, err := svc.VersionText(ctx, "https://docs.example/tides", n); err != nil {
				t.Fatal(err)
			}
		}
	}
	read()
	if opens != 2 {
		t.Fatalf("two reads without a hold opened the store %d times, want 2", opens)
	}
	release, err := svc.Hold(ctx)
	if err != nil {
		t.Fatal(err)
	}
	read()
	read()
	release()
	if opens != 3 {
		t.Errorf("four reads in a hold opened the store %d times in all, want 3: once for the hold", opens)
	}
	read()
	if opens != 5 {
		t.Errorf("after the hold, the store opened %d times in all, want 5: it was let go", opens)
	}

	none := New(Config{StashDir: t.TempDir()})
	t.Cleanup(func() { none.Close() })
	release, err = none.Hold(ctx)
	var missing *NoStashError
	if !errors.As(err, &missing) {
		t.Errorf("a hold with no stash: %v, want a *NoStashError", err)
	}
	release()
}
