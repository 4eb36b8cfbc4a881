package stash

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestDamagedEntryKeepsItsText: heed reindex, which reports a history
// entry it cannot read and keeps its line as it is, keeps the entry's
// text too: repaired by hand, the line names a text that is still there.
func TestDamagedEntryKeepsItsText(t *testing.T) {
	dir := t.TempDir()
	s := openStash(t, dir)
	ctx := context.Background()
	u := "https://e.com/docs/p"
	_, file := putVersions(t, s, dir, u, "one\n", "two\n", "three\n")
	data, _ := os.ReadFile(file)
	damaged := strings.Replace(string(data), `"n":2`, `"n":"two"`, 1)
	os.WriteFile(file, []byte(damaged), 0o644)
	if _, err := s.Reindex(ctx); !errors.Is(err, ErrDamagedHistory) {
		t.Fatalf("reindex: %v, want ErrDamagedHistory", err)
	}
	// The person repairs the line.
	os.WriteFile(file, data, 0o644)
	if text, err := s.VersionText(ctx, u, 2); err != nil || text != "two\n" {
		t.Errorf("version 2, its line damaged through a reindex and repaired: %q, %v", text, err)
	}
}
