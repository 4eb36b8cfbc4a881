package ingest

import (
	"context"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/stash"
)

// exportRemoved puts a page in a team's database, marks it removed, and
// exports the database to a new stash. It returns the database's URL,
// the stash's folder and the page's URL.
func exportRemoved(t *testing.T) (dbURL, dir, page string) {
	t.Helper()
	dbURL = teamDatabase(t)
	ctx := context.Background()
	db, err := pgstore.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	page = "https://e.com/docs/gone"
	if _, err := db.Put(ctx, &heed.Snapshot{Source: "docs", URL: page, Title: "Gone", Markdown: "# Gone\n\nA page about walruses.\n", FetchedAt: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.MarkRemoved(ctx, "docs", page, time.Now(), "404"); err != nil || !ok {
		t.Fatalf("MarkRemoved: %v, %v", ok, err)
	}
	dir = t.TempDir()
	if _, err := Export(ctx, dbURL, dir); err != nil {
		t.Fatal(err)
	}
	return dbURL, dir, page
}

// TestExportKeepsRemoval: heed export writes a page the team's database
// holds removed into the stash as removed: search does not find it.
func TestExportKeepsRemoval(t *testing.T) {
	_, dir, u := exportRemoved(t)
	ctx := context.Background()
	st, err := stash.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	snap, err := st.Get(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	hits, _ := st.Search(ctx, heed.Query{Text: "walruses"})
	if snap.Removed.IsZero() || len(hits) != 0 {
		t.Errorf("a page removed in the team's database, exported: removed %v, found by search %d times", snap.Removed, len(hits))
	}
}

// TestExportAgainKeepsHistory: heed export run again over a stash it
// wrote leaves a page removed in the team's database as it was ("those
// already there as they are stay"): no page is written anew, and the
// page's history in the stash gains no entry.
func TestExportAgainKeepsHistory(t *testing.T) {
	url, dir, u := exportRemoved(t)
	ctx := context.Background()
	entries := func() int {
		st, err := stash.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		h, err := st.History(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		return len(h.Versions)
	}
	first := entries()
	n, err := Export(ctx, url, dir)
	if err != nil {
		t.Fatal(err)
	}
	if again := entries(); again != first || n != 0 {
		t.Errorf("exported again, nothing changed in the database: %d pages written anew (want 0), the page's history %d entries (was %d)", n, again, first)
	}
}
