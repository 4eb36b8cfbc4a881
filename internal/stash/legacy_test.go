package stash

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// legacyShared makes a stash as one written before named snapshots were
// kept apart: A's and B's rows name one file, which holds B (written
// last).
func legacyShared(t *testing.T) (*Stash, *Snapshot, *Snapshot) {
	t.Helper()
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	a := &Snapshot{Source: "a", URL: "https://e.com/Feed", Name: "feeds/e-com-feed", Markdown: "A", FetchedAt: time.Now()}
	b := &Snapshot{Source: "b", URL: "https://e.com/feed", Name: "feeds/e-com-feed", Markdown: "B", FetchedAt: time.Now()}
	for _, sn := range []*Snapshot{a, b} {
		if _, err := s.Put(ctx, sn); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE docs SET path = ? WHERE url = ?`, a.Path, b.URL); err != nil {
		t.Fatal(err)
	}
	bb := *b
	bb.Path = a.Path
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(a.Path)), encode(&bb), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, b.URL); err != nil || got.Markdown != "B" {
		t.Fatalf("legacy setup: %v %v", got, err)
	}
	return s, a, b
}

// Re-putting A moves A to its own file and leaves B's.
func TestLegacySharedFilePut(t *testing.T) {
	s, a, b := legacyShared(t)
	a2 := *a
	a2.Markdown = "A2"
	if _, err := s.Put(t.Context(), &a2); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(t.Context(), b.URL); err != nil || got.Markdown != "B" {
		t.Errorf("B's snapshot is gone after A was put again: %v, %v", got, err)
	}
}

// Removing A's source leaves B's file, which A's row also named.
func TestLegacySharedFileRemove(t *testing.T) {
	s, a, b := legacyShared(t)
	if _, err := s.Remove(t.Context(), a.Source); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(t.Context(), b.URL); err != nil || got.Markdown != "B" {
		t.Errorf("B's snapshot is gone after A's source was removed: %v, %v", got, err)
	}
}
