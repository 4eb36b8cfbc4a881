package stash

import (
	"context"
	"testing"
	"time"

	"github.com/heedhq/heed"
)

// TestRemovedPageVersion: the stash gives a removed page's snapshot the
// number of its content as its Version, as heed.Snapshot says and as a
// team's database does, not the number of its removal.
func TestRemovedPageVersion(t *testing.T) {
	s := openStash(t, t.TempDir())
	ctx := context.Background()
	u := "https://e.com/docs/p"
	if _, err := s.Put(ctx, &heed.Snapshot{Source: "docs", URL: u, Markdown: "one\n", FetchedAt: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.MarkRemoved(ctx, "docs", u, time.Now(), "404"); err != nil || !ok {
		t.Fatalf("MarkRemoved: %v, %v", ok, err)
	}
	snap, err := s.Get(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Version != 1 {
		t.Errorf("a removed page's snapshot, its text version 1: Version %d", snap.Version)
	}
}
