package stash

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"modernc.org/sqlite"
)

// legacyShared makes a stash as one written before named snapshots were
// kept apart: A's and B's rows name one file, which holds B (written
// last).
func legacyShared(t *testing.T) (*Stash, *heed.Snapshot, *heed.Snapshot) {
	t.Helper()
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	a := &heed.Snapshot{Source: "a", URL: "https://e.com/Feed", Name: "feeds/e-com-feed", Markdown: "A", FetchedAt: time.Now()}
	b := &heed.Snapshot{Source: "b", URL: "https://e.com/feed", Name: "feeds/e-com-feed", Markdown: "B", FetchedAt: time.Now()}
	for _, sn := range []*heed.Snapshot{a, b} {
		if _, err := s.Put(ctx, sn); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE docs SET path = ? WHERE url = ?`, a.Path, b.URL); err != nil {
		t.Fatal(err)
	}
	bb := *b
	bb.Path = a.Path
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(a.Path)), encode(&bb, nil), 0o644); err != nil {
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

// asOlderHeed makes s's index as a heed from before paths were compared
// case folded left it: version 2, its paths indexed as they are spelled
// (docs_path), or not at all before that.
func asOlderHeed(t *testing.T, s *Stash) {
	t.Helper()
	if _, err := s.db.ExecContext(t.Context(), `DROP INDEX IF EXISTS docs_path_nocase; CREATE INDEX IF NOT EXISTS docs_path ON docs(path);
		PRAGMA user_version = 2`); err != nil {
		t.Fatal(err)
	}
}

// pagesRead is how many pages of its index the stash's connection has
// read since it was opened (SQLite's page cache hits and misses): the
// index's work, counted rather than timed.
func pagesRead(t *testing.T, s *Stash) int {
	t.Helper()
	conn, err := s.db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	n := 0
	err = conn.Raw(func(dc any) error {
		st, ok := dc.(sqlite.DBStatus)
		if !ok {
			return fmt.Errorf("the driver's connection has no status")
		}
		for _, op := range []sqlite.DBStatusOp{sqlite.DBStatusCacheHit, sqlite.DBStatusCacheMiss} {
			cur, _, err := st.Status(op, false)
			if err != nil {
				return err
			}
			n += cur
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOpenSettlesOlderStashInLinearWork: the first Open of an older
// stash, whose removal of a source was cut short, settles the removal in
// work that grows as the rows do. Each removal asks whether another row
// names the file, case folded; before the index that answers it was made
// first, each asked by reading the whole table.
func TestOpenSettlesOlderStashInLinearWork(t *testing.T) {
	work := func(n int) int {
		dir := t.TempDir()
		s := open(t, dir)
		tx, err := s.db.BeginTx(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if _, err := tx.Exec(`INSERT INTO docs (id, url, source, path, state) VALUES (?, ?, 'docs', ?, 'removing')`,
				fmt.Sprint("id", i), fmt.Sprint("https://e.com/", i), fmt.Sprintf("docs/e.com/%d.md", i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		asOlderHeed(t, s)
		s.Close()
		s = open(t, dir)
		if list, err := s.List(t.Context(), ""); err != nil || len(list) != 0 {
			t.Fatalf("after Open: %d rows, %v", len(list), err)
		}
		return pagesRead(t, s)
	}
	small, large := work(1000), work(4000)
	t.Logf("pages read by Open: %d for 1000 rows being removed, %d for 4000", small, large)
	if large > 6*small {
		t.Errorf("Open read %d pages to settle 1000 removals and %d for 4000: %.1f times as many for 4 times the rows", small, large, float64(large)/float64(small))
	}
}

// TestUpgradeDropsLostRows: in a stash an older heed wrote, http:// and
// https:// of a page shared one file (its PathFor left the scheme out, on
// any file system), which holds the page written last. The upgrade drops
// the other page's row and its full-text entry: it is not listed, not a
// search hit with an empty snippet, and a re-crawl stores it anew.
func TestUpgradeDropsLostRows(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	a, b := snap("http://e.com/page", "A", "Page A holds zqaa."), snap("https://e.com/page", "B", "Page B holds zqbb.")
	for _, p := range []*heed.Snapshot{a, b} {
		p.ETag, p.Links = `"1"`, []string{"https://e.com/"}
		if _, err := s.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	// As the older heed left it: B's row names A's file, which B wrote last.
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(b.Path))); err != nil {
		t.Fatal(err)
	}
	bb := *b
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(a.Path)), encode(&bb, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE docs SET path = ? WHERE url = ?`, a.Path, b.URL); err != nil {
		t.Fatal(err)
	}
	asOlderHeed(t, s)
	s.Close()
	s = open(t, dir)
	list, err := s.List(ctx, "")
	if err != nil || len(list) != 1 || list[0].URL != b.URL {
		t.Errorf("after the upgrade List = %+v, %v; want only %s, whose file it is", list, err, b.URL)
	}
	if hits, err := s.Search(ctx, heed.Query{Text: "zqaa"}); err != nil || len(hits) != 0 {
		t.Errorf("after the upgrade a search for the lost page's word finds %+v, %v", hits, err)
	}
	if hits, err := s.Search(ctx, heed.Query{Text: "zqbb"}); err != nil || len(hits) != 1 || !strings.Contains(hits[0].Snippet, "zqbb") {
		t.Errorf("after the upgrade a search for the kept page's word finds %+v, %v", hits, err)
	}
	if _, _, ok := s.Validators(ctx, "docs", b.URL); !ok {
		t.Error("the page that kept the file lost its validators")
	}
	if changed, err := s.Put(ctx, a); err != nil || !changed {
		t.Errorf("a re-crawl of the lost page: changed %v, %v", changed, err)
	}
	for _, p := range []*heed.Snapshot{a, b} {
		if got, err := s.Get(ctx, p.URL); err != nil || got.Markdown != p.Markdown {
			t.Errorf("Get %s = %+v, %v", p.URL, got, err)
		}
	}
	s.Close()
	checkStressAgree(t, dir)
}

// TestIndexWithoutOldPath: an index from before moves recorded their old
// path is read as it is, by a reader that another process keeps from
// writing it, and gets the column from the next writer, which can then
// move pages.
func TestIndexWithoutOldPath(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir)
	ctx := t.Context()
	x := snap("https://e.com/page", "X", "version one of X")
	if _, err := w.Put(ctx, x); err != nil {
		t.Fatal(err)
	}
	if _, err := w.db.ExecContext(ctx, `ALTER TABLE docs DROP COLUMN old_path`); err != nil {
		t.Fatal(err)
	}
	r := open(t, dir) // w holds the writer lock
	if r.Writable() {
		t.Fatal("a second Stash took the writer lock")
	}
	if got, err := r.Get(ctx, x.URL); err != nil || got.Markdown != x.Markdown {
		t.Errorf("a reader of the older index: Get = %+v, %v", got, err)
	}
	r.Close()
	w.Close()
	w = open(t, dir)
	x.Source, x.Markdown = "other", "version two of X"
	if _, err := w.Put(ctx, x); err != nil {
		t.Fatal(err)
	}
	if got, err := w.Get(ctx, x.URL); err != nil || got.Markdown != x.Markdown || got.Path != x.Path {
		t.Errorf("moved in the upgraded index: Get = %+v, %v", got, err)
	}
	w.Close()
	if _, orphans := checkAgree(t, dir); len(orphans) > 0 {
		t.Errorf("files that no row names: %v", orphans)
	}
}
