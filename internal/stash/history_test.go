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

	"github.com/heedhq/heed/internal/history"
	"github.com/heedhq/heed/internal/history/historytest"
)

func TestHistory(t *testing.T) {
	historytest.Run(t, func(t *testing.T, r history.Retention) historytest.Store {
		s, err := Open(context.Background(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		s.SetRetention(r)
		return s
	})
}

func openStash(t *testing.T, dir string) *Stash {
	t.Helper()
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// keptTexts counts the texts the stash keeps of past versions.
func keptTexts(t *testing.T, s *Stash) int {
	t.Helper()
	db, err := s.versionsDB(context.Background())
	if err != nil || db == nil {
		t.Fatalf("the kept versions: %v", err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM texts`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A page that flips between two texts keeps each once.
func TestFlippingPageKeepsEachTextOnce(t *testing.T) {
	dir := t.TempDir()
	s := openStash(t, dir)
	ctx := context.Background()
	for i := range 10 {
		text := []string{"# A\n\nfirst\n", "# A\n\nsecond\n"}[i%2]
		if _, err := s.Put(ctx, &heed.Snapshot{Source: "docs", URL: "https://e.com/p", Markdown: text, FetchedAt: time.Now().Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	h, err := s.History(ctx, "https://e.com/p")
	if err != nil || len(h.Versions) != 10 {
		t.Fatalf("history: %d versions, %v", len(h.Versions), err)
	}
	if n := keptTexts(t, s); n != 2 {
		t.Fatalf("%d texts kept, want 2", n)
	}
}

// A kept text damaged is an error that says so, never another text.
func TestDamagedKeptText(t *testing.T) {
	s := openStash(t, t.TempDir())
	ctx := context.Background()
	u := "https://e.com/p"
	for i, text := range []string{"first\n", "second\n"} {
		if _, err := s.Put(ctx, &heed.Snapshot{Source: "docs", URL: u, Markdown: text, FetchedAt: time.Now().Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	db, _ := s.versionsDB(ctx)
	if _, err := db.Exec(`UPDATE texts SET data = ?`, []byte("not deflate")); err != nil {
		t.Fatal(err)
	}
	if text, err := s.VersionText(ctx, u, 1); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("a damaged text read as %q, %v", text, err)
	}
	if text, err := s.VersionText(ctx, u, 2); err != nil || text != "second\n" {
		t.Fatalf("the current text: %q, %v", text, err)
	}
}

// heed reindex rebuilds the index of versions from the files, and
// reports a damaged history, whose entries are kept.
func TestReindexRebuildsHistories(t *testing.T) {
	dir := t.TempDir()
	s := openStash(t, dir)
	ctx := context.Background()
	u := "https://e.com/docs/p"
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	since := base.Add(30 * time.Second)
	for i, text := range []string{"one\n", "two\n", "three\n"} {
		if _, err := s.Put(ctx, &heed.Snapshot{Source: "docs", URL: u, Markdown: text, FetchedAt: base.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.MarkRemoved(ctx, "docs", u, base.Add(3*time.Minute), "404"); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Changes(ctx, heed.ChangesQuery{Since: since})
	s.Close()
	if err := os.Remove(filepath.Join(dir, indexFile)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, indexFile+"-wal"))
	s = openStash(t, dir)
	if _, err := s.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := s.Changes(ctx, heed.ChangesQuery{Since: since})
	if err != nil || len(after) != 1 || len(before) != 1 || after[0] != before[0] || after[0].Change != heed.Removed || after[0].From != 1 {
		t.Fatalf("changes before the reindex %+v, after %+v (%v)", before, after, err)
	}
	h, err := s.History(ctx, u)
	if err != nil || len(h.Versions) != 4 || h.Versions[3].Removed != "404" {
		t.Fatalf("history after the reindex: %+v, %v", h, err)
	}
	if hits, _ := s.Search(ctx, heed.Query{Text: "three"}); len(hits) != 0 {
		t.Fatalf("a removed page is found after the reindex: %+v", hits)
	}
	if text, err := s.VersionText(ctx, u, 1); err != nil || text != "one\n" {
		t.Fatalf("version 1: %q, %v", text, err)
	}

	// Damage an entry: it is reported, kept, and kept again by the next
	// Put.
	file := filepath.Join(dir, filepath.FromSlash(mustPath(t, s, u)))
	data, _ := os.ReadFile(file)
	damaged := strings.Replace(string(data), `"n":2`, `"n":"two"`, 1)
	if damaged == string(data) {
		t.Fatal("no entry to damage")
	}
	os.WriteFile(file, []byte(damaged), 0o644)
	if _, err := s.Reindex(ctx); !errors.Is(err, ErrDamagedHistory) {
		t.Fatalf("reindex of a damaged history: %v, want ErrDamagedHistory", err)
	}
	h, err = s.History(ctx, u)
	if err != nil || len(h.Unreadable) != 1 || len(h.Versions) != 3 {
		t.Fatalf("damaged history: %+v, %v", h, err)
	}
	if _, err := s.Put(ctx, &heed.Snapshot{Source: "docs", URL: u, Markdown: "four\n", FetchedAt: time.Now().Add(20 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	h, _ = s.History(ctx, u)
	if len(h.Unreadable) != 1 || h.Versions[len(h.Versions)-1].N != 5 {
		t.Fatalf("after a Put, the damaged entry must stay: %+v", h)
	}
}

// putVersions puts texts as the versions of u's page of source docs, a
// minute apart from an hour ago (base), and returns base and the page's
// file.
func putVersions(t *testing.T, s *Stash, dir, u string, texts ...string) (base time.Time, file string) {
	t.Helper()
	base = time.Now().Add(-time.Hour).Truncate(time.Second)
	for i, text := range texts {
		if _, err := s.Put(context.Background(), &heed.Snapshot{Source: "docs", URL: u, Markdown: text, FetchedAt: base.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	return base, filepath.Join(dir, filepath.FromSlash(mustPath(t, s, u)))
}

func mustPath(t *testing.T, s *Stash, u string) string {
	t.Helper()
	snap, err := s.Get(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	return snap.Path
}

// A page stored before histories begins its history with its file's
// version.
func TestHistoryOfAPageFromBefore(t *testing.T) {
	dir := t.TempDir()
	s := openStash(t, dir)
	ctx := context.Background()
	u := "https://e.com/docs/old"
	at := time.Now().Add(-48 * time.Hour).UTC().Truncate(time.Second)
	snap := &heed.Snapshot{Source: "docs", URL: u, Title: "Old", Markdown: "old text\n", FetchedAt: at}
	if _, err := s.Put(ctx, snap); err != nil {
		t.Fatal(err)
	}
	// As an older heed wrote it: no history in its file.
	os.WriteFile(filepath.Join(dir, filepath.FromSlash(snap.Path)), encode(snap, nil), 0o644)
	h, err := s.History(ctx, u)
	if err != nil || len(h.Versions) != 1 || !h.Versions[0].At.Equal(at) || h.Versions[0].Hash != heed.HashOf("old text\n") {
		t.Fatalf("history of an older file: %+v, %v", h, err)
	}
	snap2 := &heed.Snapshot{Source: "docs", URL: u, Title: "Old", Markdown: "new text\n", FetchedAt: time.Now()}
	if _, err := s.Put(ctx, snap2); err != nil {
		t.Fatal(err)
	}
	if snap2.Version != 2 || snap2.Change != heed.Changed {
		t.Fatalf("Put after an older file: version %d %q", snap2.Version, snap2.Change)
	}
	if text, err := s.VersionText(ctx, u, 1); err != nil || text != "old text\n" {
		t.Fatalf("the older file's text: %q, %v", text, err)
	}
}
