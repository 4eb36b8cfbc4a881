package ingest

import (
	"context"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/stash"
)

// TestExportAgainKeepsHistory shows that heed export run again over a
// stash it wrote leaves a page removed in the team's database as it was:
// "those already there as they are stay". The second export's Put finds
// the stash's copy removed, so takes the page for one come back (a new
// version), and its MarkRemoved removes it again: every export adds two
// entries to the page's history in the stash (until the retention drops
// its real ones) and counts the page as written anew.
func TestExportAgainKeepsHistory(t *testing.T) {
	url := teamDatabase(t)
	ctx := context.Background()
	db, err := pgstore.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	u := "https://e.com/docs/gone"
	if _, err := db.Put(ctx, &heed.Snapshot{Source: "docs", URL: u, Title: "Gone", Markdown: "# Gone\n\nA page about walruses.\n", FetchedAt: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.MarkRemoved(ctx, "docs", u, time.Now(), "404"); err != nil || !ok {
		t.Fatalf("MarkRemoved: %v, %v", ok, err)
	}
	dir := t.TempDir()
	if _, err := Export(ctx, url, dir); err != nil {
		t.Fatal(err)
	}
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
