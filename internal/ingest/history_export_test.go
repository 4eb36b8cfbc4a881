package ingest

import (
	"context"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/stash"
)

// TestExportKeepsRemoval shows that heed export writes a page the
// team's database holds removed into the stash as a page that is there:
// the stash's Put of the snapshot clears its removal, so the exported
// stash finds it in search, and heed changes of the stash says nothing
// of its removal. (Its history stays behind too: the stash starts it at
// version 1.)
func TestExportKeepsRemoval(t *testing.T) {
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
