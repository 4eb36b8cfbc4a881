package stash

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed"
)

// TestUnreadableFileKeepsItsHistory: a page's file whose frontmatter
// cannot be read (here a history line edited by hand into a YAML mapping)
// keeps its history: the next Put does not start the page again at
// version 1. A corrupted history is reported, not dropped, and a number is
// never given twice (docs/history.md).
func TestUnreadableFileKeepsItsHistory(t *testing.T) {
	dir := t.TempDir()
	s := openStash(t, dir)
	ctx := context.Background()
	u := "https://e.com/docs/p"
	base, file := putVersions(t, s, dir, u, "one\n", "two\n", "three\n")
	data, _ := os.ReadFile(file)
	// A person takes the quotes off a line of JSON: YAML reads a mapping.
	edited := strings.Replace(string(data), `  - '{"n":1,`, `  - {"n":1,`, 1)
	edited = strings.Replace(edited, `"}'`+"\n", `"}`+"\n", 1)
	if edited == string(data) {
		t.Fatalf("nothing edited:\n%s", data)
	}
	os.WriteFile(file, []byte(edited), 0o644)

	snap := &heed.Snapshot{Source: "docs", URL: u, Markdown: "four\n", FetchedAt: base.Add(5 * time.Minute)}
	if _, err := s.Put(ctx, snap); err != nil {
		t.Fatalf("Put over a file that cannot be read: %v (an error is a fair answer)", err)
	}
	if snap.Version != 4 || snap.Change != heed.Changed {
		t.Errorf("the Put over a file that cannot be read made version %d, %q; want 4, changed", snap.Version, snap.Change)
	}
	h, err := s.History(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Versions)+len(h.Unreadable) < 4 {
		t.Errorf("the history kept %d entries and %d lines it cannot read; the page had 3 versions and a fourth: %+v", len(h.Versions), len(h.Unreadable), h)
	}
}
