package stash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/ledger"
)

// TestLinksOutOfTheStash plants symbolic links in a stash that lead out
// of it: a host's folder, a page's file, the log. No write, read or
// removal of the stash follows them: the files outside are as they were,
// and nothing is made there.
func TestLinksOutOfTheStash(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	readme := filepath.Join(outside, "README.md")
	secret := filepath.Join(outside, "secret.md")
	if err := os.WriteFile(readme, []byte("the project's own readme\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A snapshot's file, outside: reading it through a link would show it.
	if err := os.WriteFile(secret, encode(snap("https://docs.example.com/secret", "Secret", "what lies outside"), nil), 0o644); err != nil {
		t.Fatal(err)
	}
	s := open(t, dir)
	if _, err := s.Put(t.Context(), snap("https://docs.example.com/first", "First", "a page")); err != nil {
		t.Fatal(err)
	}
	// The host's folder becomes a link out of the stash.
	host := filepath.Join(dir, "docs", "docs.example.com")
	if err := os.Rename(host, host+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, host); err != nil {
		t.Fatal(err)
	}
	_, err := s.Put(t.Context(), snap("https://docs.example.com/README", "Readme", "a page named README"))
	if err == nil {
		t.Error("a page was written through a link out of the stash")
	} else if !strings.Contains(err.Error(), "README") || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("the error does not name the page's file and the link: %v", err)
	}
	if _, err := s.Put(t.Context(), snap("https://docs.example.com/new/page", "New", "a page in a new folder")); err == nil {
		t.Error("a folder was made through a link out of the stash")
	}
	if _, err := s.Get(t.Context(), "https://docs.example.com/secret"); err == nil {
		t.Error("a page was read through a link out of the stash")
	}
	// Its own page, through the link, is not read either.
	if snap, err := s.Get(t.Context(), "https://docs.example.com/first"); err == nil {
		t.Errorf("a page was read through a link out of the stash: %q", snap.Markdown)
	}

	// A page's own file as a link out, and the log as one.
	if err := os.Remove(host); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(host+".moved", host); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(host, "first.md")
	if err := os.Remove(first); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, first); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(t.Context(), "https://docs.example.com/first"); err == nil {
		t.Errorf("a page's file that links out of the stash was read: %q", got.Markdown)
	}
	hits, err := s.Search(t.Context(), heed.Query{Text: "outside", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if strings.Contains(h.Snippet, "outside") {
			t.Errorf("a snippet was read through a link out of the stash: %q", h.Snippet)
		}
	}
	log := filepath.Join(dir, LogFile)
	if err := os.Symlink(readme, log); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendLog("## a crawl\n"); err != nil {
		t.Logf("appending to a log that links out: %v", err)
	}
	// A source whose folder links out is removed without touching what
	// the link leads to.
	if err := os.Symlink(outside, filepath.Join(dir, "other")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Remove(t.Context(), "other"); err != nil && !strings.Contains(err.Error(), "no") {
		t.Logf("removing a source whose folder links out: %v", err)
	}
	if _, err := s.Remove(t.Context(), "docs"); err != nil {
		t.Logf("removing: %v", err)
	}
	if n, err := s.Reindex(t.Context()); err != nil {
		t.Logf("reindex: %d, %v", n, err)
	}
	if got, err := s.Get(t.Context(), "https://docs.example.com/secret"); err == nil {
		t.Errorf("reindex took up a page outside the stash: %q", got.Markdown)
	}

	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the folder outside the stash holds %v, want README.md and secret.md alone", names)
	}
	if data, err := os.ReadFile(readme); err != nil || string(data) != "the project's own readme\n" {
		t.Errorf("README.md outside the stash was changed: %q, %v", data, err)
	}
	if _, err := os.Stat(secret); err != nil {
		t.Errorf("secret.md outside the stash was removed: %v", err)
	}
}

// TestLinksWithinTheStash: a folder of the stash that is a symbolic link
// to another folder of it is written, read and searched through, and a
// write through it that fails for another reason is not blamed on it.
func TestLinksWithinTheStash(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	if err := os.MkdirAll(filepath.Join(dir, "kept", "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("kept", "docs"), filepath.Join(dir, "docs")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(t.Context(), snap("https://docs.example.com/first", "First", "a page kept elsewhere in the stash")); err != nil {
		t.Fatalf("writing through a link within the stash: %v", err)
	}
	if got, err := s.Get(t.Context(), "https://docs.example.com/first"); err != nil || got.Title != "First" {
		t.Errorf("reading through a link within the stash: %+v, %v", got, err)
	}
	if hits, err := s.Search(t.Context(), heed.Query{Text: "elsewhere", Limit: 10}); err != nil || len(hits) != 1 || !strings.Contains(hits[0].Snippet, "elsewhere") {
		t.Errorf("searching through a link within the stash: %+v, %v", hits, err)
	}
	// A host's folder that is a file: the write fails, and not because
	// of the link.
	if err := os.WriteFile(filepath.Join(dir, "kept", "docs", "other.example.com"), []byte("a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := s.Put(t.Context(), snap("https://other.example.com/page", "Other", "a page"))
	if err == nil {
		t.Fatal("a page was written below a file")
	}
	if strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a write that failed within the stash blames the link: %v", err)
	}
}

// TestHeedFolderLinked: the stash's own folder (.heed), its index or its
// lock as a link out of the stash is refused when the stash is opened,
// in words that say so: not as another process writing it.
func TestHeedFolderLinked(t *testing.T) {
	for _, name := range []string{".heed", indexFile, ".heed/lock"} {
		t.Run(name, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			s := open(t, dir)
			if _, err := s.Put(t.Context(), snap("https://docs.example.com/first", "First", "a page")); err != nil {
				t.Fatal(err)
			}
			s.Close()
			moved := filepath.Join(outside, "moved")
			if err := os.Rename(filepath.Join(dir, name), moved); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(moved, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			w, err := Open(t.Context(), dir)
			if err == nil {
				_, err = w.Put(t.Context(), snap("https://docs.example.com/second", "Second", "a page"))
				w.Close()
			}
			if err == nil || !strings.Contains(err.Error(), name+" is a symbolic link") {
				t.Errorf("opening a stash whose %s links out of it: %v; want an error naming the link", name, err)
			}
		})
	}
}

// TestLedgerLinked: the crawls' ledger as a link out of the stash is
// neither written nor read, in words that say so; the file it leads to
// is left as it was.
func TestLedgerLinked(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	s := open(t, dir)
	if _, _, err := s.Begin(t.Context(), ledger.Crawl{Key: "k"}, 0); err != nil {
		t.Fatal(err)
	}
	s.Close()
	moved := filepath.Join(outside, "moved")
	if err := os.Rename(filepath.Join(dir, ledgerFile), moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, filepath.Join(dir, ledgerFile)); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(moved)
	if err != nil {
		t.Fatal(err)
	}
	w := open(t, dir)
	if _, _, err := w.Begin(t.Context(), ledger.Crawl{Key: "k"}, 0); err == nil || !strings.Contains(err.Error(), ledgerFile+" is a symbolic link") {
		t.Errorf("a crawl of a stash whose ledger links out of it: %v; want an error naming the link", err)
	}
	w.Close()
	r, err := OpenRead(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Crawls(t.Context(), 5); err == nil || !strings.Contains(err.Error(), ledgerFile+" is a symbolic link") {
		t.Errorf("the crawls of a stash whose ledger links out of it: %v; want an error naming the link", err)
	}
	r.Close()
	if after, err := os.ReadFile(moved); err != nil || string(after) != string(before) {
		t.Errorf("the file the ledger's link leads to changed: %v", err)
	}
}
