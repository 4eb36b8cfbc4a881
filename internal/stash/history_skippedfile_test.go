package stash

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestReindexKeepsSkippedFilesTexts: heed reindex, which skips a page's
// file it cannot read (reported as "not a snapshot"), keeps the texts of
// the page's past versions: the file repaired, its history names texts
// that are still there.
func TestReindexKeepsSkippedFilesTexts(t *testing.T) {
	dir := t.TempDir()
	s := openStash(t, dir)
	ctx := context.Background()
	u := "https://e.com/docs/p"
	_, file := putVersions(t, s, dir, u, "one\n", "two\n", "three\n")
	data, _ := os.ReadFile(file)
	// A person's edit the YAML cannot read: an unclosed quote.
	os.WriteFile(file, []byte(strings.Replace(string(data), "\nurl: ", "\ntitle: 'broken\nurl: ", 1)), 0o644)
	if _, err := s.Reindex(ctx); err == nil {
		t.Fatal("reindex: no error for a file it cannot read")
	}
	os.WriteFile(file, data, 0o644) // repaired
	if _, err := s.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if text, err := s.VersionText(ctx, u, 1); err != nil || text != "one\n" {
		t.Errorf("version 1, after a reindex that skipped the file: %q, %v", text, err)
	}
}
