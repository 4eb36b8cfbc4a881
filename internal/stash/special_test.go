//go:build unix

package stash

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/heedhq/heed"
)

// TestNoWaitOnSpecialFiles: a named pipe planted in the stash where a
// page's file, or the log, is, and a link to an endless device, are no
// snapshots: reading, searching, reindexing, logging and checking the
// stash pass them by, without waiting on the pipe or reading without end.
func TestNoWaitOnSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	for _, u := range []string{"https://docs.example.com/first", "https://docs.example.com/second"} {
		if _, err := s.Put(t.Context(), snap(u, "Page", "tides and harbours")); err != nil {
			t.Fatal(err)
		}
	}
	first := filepath.Join(dir, "docs", "docs.example.com", "first.md")
	if err := os.Remove(first); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(first, 0o644); err != nil {
		t.Skipf("making a named pipe: %v", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "docs", "docs.example.com", "zero.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, LogFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(t.Context(), "https://docs.example.com/first"); err == nil {
		t.Error("a named pipe was read as a page")
	}
	if hits, err := s.Search(t.Context(), heed.Query{Text: "harbours", Limit: 10}); err != nil || len(hits) == 0 {
		t.Errorf("search: %+v, %v", hits, err)
	}
	if err := s.AppendLog("## a crawl\n"); err == nil {
		t.Error("the log was appended to a named pipe")
	}
	if n, err := s.Reindex(t.Context()); n != 1 {
		t.Errorf("reindex: %d, %v; want the one page whose file is a file", n, err)
	}
	s.Close()
	if err := os.Remove(filepath.Join(dir, indexFile)); err != nil {
		t.Fatal(err)
	}
	var missing *MissingError
	if err := Check(dir); !errors.As(err, &missing) {
		t.Errorf("Check of a stash without its index: %v", err)
	}
}
