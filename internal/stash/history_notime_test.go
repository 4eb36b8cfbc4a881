package stash

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/heedhq/heed"
)

// TestOlderFileWithoutTime: a page stored before histories whose file has
// no fetched_at (or one that does not parse) begins its history with a
// version the next Put writes so that it reads back: the history is not
// "damaged", heed reindex reports nothing, and version 1's text can still
// be asked for.
func TestOlderFileWithoutTime(t *testing.T) {
	dir := t.TempDir()
	s := openStash(t, dir)
	ctx := context.Background()
	u := "https://e.com/docs/old"
	snap := &heed.Snapshot{Source: "docs", URL: u, Title: "Old", Markdown: "old text\n", FetchedAt: time.Now().Add(-time.Hour)}
	if _, err := s.Put(ctx, snap); err != nil {
		t.Fatal(err)
	}
	// As an older heed, or a person, wrote it: no history, no time.
	old := *snap
	old.FetchedAt = time.Time{}
	os.WriteFile(filepath.Join(dir, filepath.FromSlash(snap.Path)), encode(&old, nil), 0o644)
	if _, err := s.Put(ctx, &heed.Snapshot{Source: "docs", URL: u, Title: "Old", Markdown: "new text\n", FetchedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	h, err := s.History(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Unreadable) > 0 || len(h.Versions) != 2 {
		t.Errorf("the stash's own history of the page: %+v, lines it cannot read %q", h.Versions, h.Unreadable)
	}
	if text, err := s.VersionText(ctx, u, 1); err != nil || text != "old text\n" {
		t.Errorf("version 1: %q, %v", text, err)
	}
}
