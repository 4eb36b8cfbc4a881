package stash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReindexSaysWhatItSkipped: Reindex names a Markdown file that is
// no snapshot, and counts one as one.
func TestReindexSaysWhatItSkipped(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	if _, err := s.Put(t.Context(), snap("https://docs.example.com/first", "First", "a page")); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(dir, "docs", "notes.md")
	if err := os.WriteFile(notes, []byte("my own notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := s.Reindex(t.Context())
	if n != 1 || err == nil || !strings.Contains(err.Error(), "1 file was skipped: "+notes) {
		t.Errorf("Reindex = %d, %v; want 1, and an error saying the one file skipped", n, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs", "more.md"), []byte("more notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reindex(t.Context()); err == nil || !strings.Contains(err.Error(), "2 files were skipped") {
		t.Errorf("Reindex: %v; want 2 files skipped", err)
	}
}
