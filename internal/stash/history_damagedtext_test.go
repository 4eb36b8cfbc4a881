package stash

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed"
)

// TestDamagedEntryKeepsItsText shows that heed reindex, which
// reports a history entry it cannot read and keeps the line "as it is,
// never dropped", drops the entry's text all the same: the index holds
// no entry naming its hash, and dropVersions deletes what no indexed
// entry names. Repaired by hand, the line names a text that is gone.
func TestDamagedEntryKeepsItsText(t *testing.T) {
	dir := t.TempDir()
	s := openStash(t, dir)
	ctx := context.Background()
	u := "https://e.com/docs/p"
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	for i, text := range []string{"one\n", "two\n", "three\n"} {
		if _, err := s.Put(ctx, &heed.Snapshot{Source: "docs", URL: u, Markdown: text, FetchedAt: base.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, filepath.FromSlash(mustPath(t, s, u)))
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
