package stash

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/heedhq/heed"
)

// apartPages are snapshots whose URLs (or names) differ only in ways
// that some file system heed runs on does not tell apart: case (APFS,
// NTFS, exFAT), composed and decomposed accents (APFS), Windows's device
// names and trailing dots, a folder named like a page's file, the two
// schemes of a page, and a named snapshot beside a crawled page. Each
// holds a word of its own, to search for.
func apartPages() []*heed.Snapshot {
	urls := []string{
		"https://e.com/Readme", "https://e.com/README", "https://e.com/readme", "https://e.com/ReadMe/",
		"https://e.com/Docs/a", "https://e.com/docs/a",
		"https://e.com/p?a=1", "https://e.com/P?a=1",
		"https://e.com/r%C3%A9sume", "https://e.com/re%CC%81sume", "https://e.com/R%C3%89SUME", "https://e.com/RE%CC%81SUME",
		"https://e.com/x", "https://e.com/X.MD/y",
		"https://e.com/con", "https://e.com/AUX.html", "https://e.com/nul/x", "https://e.com/com1", "https://e.com/dot./x",
		"http://e.com/page", "https://e.com/page",
		"https://e.com/named",
	}
	var out []*heed.Snapshot
	for i, u := range urls {
		out = append(out, snap(u, "Page "+u, fmt.Sprintf("The page at %s holds %s.", u, apartWord(i))))
	}
	named := snap("https://f.com/feed", "A feed", "The feed holds "+apartWord(len(urls))+".")
	named.Source, named.Name = "feeds", "docs/e.com/Named"
	return append(out, named)
}

// apartWord is the i-th page's own word, for i < 676: a word that the
// index's stemmer leaves whole, as no English suffix ends in "x" (with a
// word ending in "y" or "s", zqay and zqai are one term).
func apartWord(i int) string {
	if i < 0 || i >= 26*26 {
		panic(fmt.Sprintf("apartWord(%d): only 676 words", i))
	}
	return fmt.Sprintf("zq%c%cx", 'a'+i/26, 'a'+i%26)
}

// TestApartWords: every apartWord is a term of its own in the index.
func TestApartWords(t *testing.T) {
	s := open(t, t.TempDir())
	seen := map[string]int{}
	for i := range 26 * 26 {
		term := tokensOf(t, s, "", apartWord(i))
		if j, ok := seen[term]; ok {
			t.Fatalf("apartWord(%d) %s and apartWord(%d) %s are one term in the index, %s", j, apartWord(j), i, apartWord(i), term)
		}
		seen[term] = i
	}
}

// fold is what a case-insensitive, normalization-insensitive file system
// makes of a name heed wrote: heed's names are ASCII (checked apart),
// which every Unicode normalization leaves as it is, and ASCII letters
// are all that case folding changes in them.
func fold(path string) string { return strings.ToLower(path) }

// putApart puts pages, and checks that each has a file of its own.
func putApart(t *testing.T, s *Stash, pages []*heed.Snapshot) {
	t.Helper()
	for _, p := range pages {
		if _, err := s.Put(t.Context(), p); err != nil {
			t.Errorf("Put %s: %v", p.URL, err)
		}
	}
	seen := map[string]string{}
	for _, p := range pages {
		for i := 0; i < len(p.Path); i++ {
			if p.Path[i] >= utf8.RuneSelf {
				t.Errorf("%s is at %q, which is not ASCII", p.URL, p.Path)
				break
			}
		}
		if other, ok := seen[fold(p.Path)]; ok {
			t.Errorf("%s and %s share a file, %s, once case is folded", p.URL, other, p.Path)
		}
		seen[fold(p.Path)] = p.URL
	}
}

// checkApart checks that every page reads back as its own, that the
// stash holds one file per page, and that a search for a page's own word
// finds it with a snippet of its own text.
func checkApart(t *testing.T, s *Stash, pages []*heed.Snapshot) {
	t.Helper()
	ctx := t.Context()
	for i, p := range pages {
		got, err := s.Get(ctx, p.URL)
		if err != nil || got.Markdown != p.Markdown {
			t.Errorf("Get %s = %+v, %v; want its own Markdown %q", p.URL, got, err, p.Markdown)
		}
		hits, err := s.Search(ctx, heed.Query{Text: apartWord(i)})
		if err != nil || len(hits) != 1 || hits[0].URL != p.URL || !strings.Contains(hits[0].Snippet, apartWord(i)) {
			t.Errorf("search for %s's word %s: %+v, %v", p.URL, apartWord(i), hits, err)
		}
	}
	files := 0
	err := filepath.WalkDir(s.Dir(), func(path string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == ".heed":
			return filepath.SkipDir
		case !d.IsDir() && filepath.Dir(path) != filepath.Clean(s.Dir()):
			files++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files != len(pages) {
		t.Errorf("%d snapshot files for %d pages", files, len(pages))
	}
}

// checkApartLasts: the pages stay apart, and readable, through a
// reindex, and through being put again unchanged and then changed.
func checkApartLasts(t *testing.T, dir string, pages []*heed.Snapshot) {
	t.Helper()
	s := open(t, dir)
	if n, err := s.Reindex(t.Context()); err != nil || n != len(pages) {
		t.Errorf("Reindex: %d, %v; want %d", n, err, len(pages))
	}
	checkApart(t, s, pages)
	paths := map[string]string{}
	for _, p := range pages {
		paths[p.URL] = p.Path
		if changed, err := s.Put(t.Context(), p); err != nil || changed {
			t.Errorf("Put %s again, unchanged: changed %v, %v", p.URL, changed, err)
		}
	}
	checkApart(t, s, pages)
	for _, p := range pages {
		p.Markdown += " Changed."
	}
	putApart(t, s, pages)
	for _, p := range pages {
		if !strings.EqualFold(p.Path, paths[p.URL]) {
			t.Errorf("%s moved from %s to %s", p.URL, paths[p.URL], p.Path)
		}
	}
	checkApart(t, s, pages)
	s.Close()
	checkStressAgree(t, dir)
}

// TestPagesApart: URLs that differ only in case (or in what some other
// file system does not tell apart) get names that differ in more than
// case, here on a file system that tells case apart; TestPagesApartOnNTFS
// checks the same on one that does not.
func TestPagesApart(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	pages := apartPages()
	putApart(t, s, pages)
	checkApart(t, s, pages)
	s.Close()
	checkApartLasts(t, dir, pages)
}

// TestPagesApartOnNTFS: on a case-insensitive file system (NTFS, mounted
// through FUSE by ntfs-3g with ignore_case and windows_names, which also
// refuses the names Windows refuses), pages whose URLs differ only in
// case each keep a file of their own, read back as their own, and are
// found with snippets of their own, before and after a reindex there.
func TestPagesApartOnNTFS(t *testing.T) {
	pagesApartIn(t, filepath.Join(caseInsensitiveDir(t), "stash"))
}

// TestPagesApartOnExFAT: as TestPagesApartOnNTFS, on a case-insensitive
// file system that keeps the case of names as APFS does, so that a
// reindex reads them back as they were written.
func TestPagesApartOnExFAT(t *testing.T) { pagesApartIn(t, filepath.Join(exfatDir(t), "stash")) }

func pagesApartIn(t *testing.T, dir string) {
	s := open(t, dir)
	pages := apartPages()
	putApart(t, s, pages)
	checkApart(t, s, pages)
	s.Close()
	checkApartLasts(t, dir, pages)
}

// A stash that an older heed wrote on a case-insensitive file system has
// two rows naming one file, as Readme.md and readme.md, which holds the
// page written last. Opening it drops the lost page's row (it is not
// listed, and has no validators that would let a re-crawl find it
// unchanged), and putting the pages again gives each a file of its own,
// whichever comes first, and loses neither.
func TestPagesApartAfterSharing(t *testing.T) { caseInsensitive(t, pagesApartAfterSharing) }

func pagesApartAfterSharing(t *testing.T, mnt string) {
	for _, first := range []int{0, 1} {
		t.Run(fmt.Sprint("first", first), func(t *testing.T) {
			dir := filepath.Join(mnt, fmt.Sprint("stash", first))
			s := open(t, dir)
			ctx := t.Context()
			a, b := snap("https://e.com/Readme", "A", "Page A."), snap("https://e.com/readme", "B", "Page B.")
			for _, p := range []*heed.Snapshot{a, b} {
				p.ETag, p.Links = `"1"`, []string{"https://e.com/"}
				if _, err := s.Put(ctx, p); err != nil {
					t.Fatal(err)
				}
			}
			// As the older heed left it: B's row names readme.md, which is
			// A's Readme.md here, and B wrote it last; the index of paths
			// told case apart.
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(b.Path))); err != nil {
				t.Fatal(err)
			}
			bb := *b
			if err := os.WriteFile(filepath.Join(dir, "docs/e.com/readme.md"), encode(&bb, nil), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := s.db.ExecContext(ctx, `UPDATE docs SET path = ? WHERE url = ?`, "docs/e.com/readme.md", b.URL); err != nil {
				t.Fatal(err)
			}
			asOlderHeed(t, s)
			if _, err := s.Get(ctx, a.URL); err == nil {
				t.Fatal("setup: A reads back")
			}
			s.Close()
			s = open(t, dir)
			if _, _, ok := s.Validators(ctx, "docs", a.URL); ok {
				t.Error("the lost page has validators: a re-crawl would find it unchanged")
			}
			if list, err := s.List(ctx, ""); err != nil || len(list) != 1 || list[0].URL != b.URL {
				t.Errorf("List = %+v, %v; want only %s, whose file it is", list, err, b.URL)
			}
			if _, _, ok := s.Validators(ctx, "docs", b.URL); !ok {
				t.Error("the page that kept the file lost its validators")
			}
			order := []*heed.Snapshot{a, b}
			if first == 1 {
				order = []*heed.Snapshot{b, a}
			}
			for _, p := range order {
				if _, err := s.Put(ctx, p); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range []*heed.Snapshot{a, b} {
				if got, err := s.Get(ctx, p.URL); err != nil || got.Markdown != p.Markdown {
					t.Errorf("Get %s = %+v, %v after putting both again", p.URL, got, err)
				}
			}
			if strings.EqualFold(a.Path, b.Path) {
				t.Errorf("both at %s", a.Path)
			}
		})
	}
}

// A stash that an older heed wrote where case is told apart has
// Readme.md and readme.md, each its page's. Opening it forgets nothing,
// and putting the pages again moves one of them to a name of its own and
// leaves no copy behind at the old one.
func TestPagesApartAfterCaseTold(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	a, b := snap("https://e.com/Readme", "A", "Page A."), snap("https://e.com/readme", "B", "Page B.")
	for _, p := range []*heed.Snapshot{a, b} {
		p.ETag, p.Links = `"1"`, []string{"https://e.com/"}
		if _, err := s.Put(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	// As the older heed left it: B at readme.md.
	old := filepath.Join(dir, filepath.FromSlash(b.Path))
	b.Path = "docs/e.com/readme.md"
	if err := os.Rename(old, filepath.Join(dir, filepath.FromSlash(b.Path))); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE docs SET path = ? WHERE url = ?`, b.Path, b.URL); err != nil {
		t.Fatal(err)
	}
	asOlderHeed(t, s)
	s.Close()
	s = open(t, dir)
	for _, p := range []*heed.Snapshot{a, b} {
		if _, _, ok := s.Validators(ctx, "docs", p.URL); !ok {
			t.Errorf("%s lost its validators", p.URL)
		}
	}
	for _, p := range []*heed.Snapshot{b, a} {
		p.Markdown += " Changed."
	}
	putApart(t, s, []*heed.Snapshot{b, a})
	pages := []*heed.Snapshot{a, b}
	for i, p := range pages {
		// checkApart looks for each page's own word.
		p.Markdown = fmt.Sprintf("Page %s holds %s.", p.URL, apartWord(i))
	}
	putApart(t, s, pages)
	checkApart(t, s, pages)
}

// Pages whose names differ only in case, put at once, each a few times
// and changed each time, still get a file each: the second to come sees
// the first's row, written before either writes its file.
func TestPagesApartAtOnce(t *testing.T) {
	s := open(t, t.TempDir())
	s.SetBatch(4)
	var pages []*heed.Snapshot
	for _, u := range []string{"https://e.com/Readme", "https://e.com/README", "https://e.com/readme", "https://e.com/rEADME",
		"http://e.com/readme", "http://e.com/README", "https://e.com/Readme/", "https://e.com/readme/"} {
		pages = append(pages, snap(u, "Readme", ""))
	}
	var wg sync.WaitGroup
	for i, p := range pages {
		wg.Go(func() {
			for round := range 5 {
				p.Markdown = fmt.Sprintf("Round %d of %s holds %s.", round, p.URL, apartWord(i))
				if _, err := s.Put(t.Context(), p); err != nil {
					t.Errorf("Put %s: %v", p.URL, err)
				}
			}
		})
	}
	wg.Wait()
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, p := range pages {
		if other, ok := seen[fold(p.Path)]; ok {
			t.Errorf("%s and %s share %s", p.URL, other, p.Path)
		}
		seen[fold(p.Path)] = p.URL
	}
	checkApart(t, s, pages)
}

// Should another URL's row have the hashed name too (a collision of
// hashes, or an index written by hand), Put refuses the snapshot plainly
// and writes nothing.
func TestPagesApartOrRefused(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	if _, err := s.Put(ctx, snap("https://e.com/Readme", "A", "Page A.")); err != nil {
		t.Fatal(err)
	}
	b := snap("https://e.com/readme", "B", "Page B.")
	hashed := "docs/e.com/readme~" + heed.IDOf(b.URL) + ".md"
	if _, err := s.db.ExecContext(ctx, `INSERT INTO docs (id, url, source, path) VALUES ('z', 'https://z.com/', 'docs', ?)`, strings.ToUpper(hashed)); err != nil {
		t.Fatal(err)
	}
	_, err := s.Put(ctx, b)
	if err == nil || !strings.Contains(err.Error(), "no file of its own") {
		t.Errorf("Put where both names are taken: %v", err)
	}
	for _, p := range []string{"docs/e.com/readme.md", hashed} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s written", p)
		}
	}
	if got, err := s.Get(ctx, b.URL); err == nil {
		t.Errorf("Get of the refused snapshot: %+v", got)
	}
}

// TestPagesApartMovingAtOnce: on a case-insensitive file system, pages
// whose names differ only in case, with both schemes, and named
// snapshots that move between names alike but for case and names that
// are not, are put at once by six writers (each URL by one, so that its
// last version is known). Each reads back as its last version, and no
// two rows name one file, nor does a file lack a row, case folded.
func TestPagesApartMovingAtOnce(t *testing.T) {
	caseInsensitive(t, func(t *testing.T, mnt string) {
		dir := filepath.Join(mnt, "stash")
		s := open(t, dir)
		s.SetBatch(4)
		var urls []string
		for _, scheme := range []string{"https", "http"} {
			for _, v := range []string{"Readme", "README", "readme", "rEADME", "ReadMe", "readME"} {
				urls = append(urls, scheme+"://e.com/"+v)
			}
		}
		for i := range 6 {
			urls = append(urls, fmt.Sprintf("https://f.com/feed%d", i))
		}
		names := []string{"docs/e.com/README", "docs/e.com/readme", "docs/e.com/Other", "docs/e.com/other", "docs/E.COM/readme"}
		last := make([]map[string]string, 6)
		var wg sync.WaitGroup
		for w := range 6 {
			last[w] = map[string]string{}
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(w), 7))
				for i := range 40 {
					u := urls[w+6*r.IntN(len(urls)/6)] // this writer's URLs only
					sn := snap(u, "T", fmt.Sprintf("w%d i%d of %s", w, i, u))
					if strings.HasPrefix(u, "https://f.com/") {
						sn.Source, sn.Name = "feeds", names[r.IntN(len(names))]
					}
					if _, err := s.Put(t.Context(), sn); err != nil {
						t.Errorf("Put %s: %v", u, err)
						continue
					}
					last[w][u] = sn.Markdown
				}
			})
		}
		wg.Wait()
		if err := s.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
		for _, m := range last {
			for u, md := range m {
				if got, err := s.Get(t.Context(), u); err != nil || got.Markdown != md {
					t.Errorf("Get %s = %+v, %v; want %q", u, got, err, md)
				}
			}
		}
		s.Close()
		checkStressAgree(t, dir)
		foldedAgree(t, dir)
	})
}

// foldedAgree: after Open, no two rows name one file once case is
// folded, and every snapshot file is named by a row, and holds its URL.
func foldedAgree(t *testing.T, dir string) {
	t.Helper()
	s := open(t, dir)
	defer s.Close()
	rows := map[string]string{}
	for _, r := range docRows(t, s) {
		if other, ok := rows[fold(r.path)]; ok {
			t.Errorf("%s and %s name one file, %s", r.url, other, r.path)
		}
		rows[fold(r.path)] = r.url
	}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == ".heed":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		u, ok := rows[fold(filepath.ToSlash(rel))]
		if sn, err := readFile(p); !ok || err != nil || sn.URL != u {
			t.Errorf("file %s: %+v, %v; its row's URL is %q", rel, sn, err, u)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
