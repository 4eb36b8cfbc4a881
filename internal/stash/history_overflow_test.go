package stash

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed"
)

// TestHugeVersionNumber: a history line whose number is the largest
// int (a hostile or hand-edited file) is a line the stash cannot read:
// kept as it is and reported, and the next Put's version has a number
// that reads back (no overflow).
func TestHugeVersionNumber(t *testing.T) {
	dir := t.TempDir()
	s := openStash(t, dir)
	ctx := context.Background()
	u := "https://e.com/docs/p"
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	if _, err := s.Put(ctx, &heed.Snapshot{Source: "docs", URL: u, Markdown: "one\n", FetchedAt: base}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, filepath.FromSlash(mustPath(t, s, u)))
	data, _ := os.ReadFile(file)
	edited := strings.Replace(string(data), `{"n":1,`, `{"n":9223372036854775807,`, 1)
	if edited == string(data) {
		t.Fatalf("nothing edited:\n%s", data)
	}
	os.WriteFile(file, []byte(edited), 0o644)
	snap := &heed.Snapshot{Source: "docs", URL: u, Markdown: "two\n", FetchedAt: base.Add(time.Minute)}
	if _, err := s.Put(ctx, snap); err != nil {
		return // refused, clearly: fine
	}
	h, err := s.History(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Version < 1 || len(h.Unreadable) != 1 || !strings.Contains(h.Unreadable[0], "9223372036854775807") || h.Versions[len(h.Versions)-1].N != snap.Version {
		t.Errorf("stored as version %d; the history reads %+v, and cannot read %q", snap.Version, h.Versions, h.Unreadable)
	}
}
