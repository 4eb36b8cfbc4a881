package stash

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/mdtext"
	"github.com/heedhq/heed/internal/printable"
)

func open(t *testing.T, dir string) *Stash {
	t.Helper()
	s, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func snap(url, title, md string) *heed.Snapshot {
	return &heed.Snapshot{Source: "docs", URL: url, Title: title, Markdown: md, FetchedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Tags: []string{"web", "docs"}}
}

func TestPathFor(t *testing.T) {
	tests := []struct{ url, want string }{
		{"https://Docs.Example.com/", "docs/docs.example.com/_index.md"},
		{"https://docs.example.com", "docs/docs.example.com/_index.md"},
		{"https://docs.example.com/guide/", "docs/docs.example.com/guide/_index.md"},
		{"https://docs.example.com/guide/intro", "docs/docs.example.com/guide/intro.md"},
		{"https://docs.example.com/guide/intro.html", "docs/docs.example.com/guide/intro.html.md"},
		{"https://docs.example.com/page.md", "docs/docs.example.com/page.md.md"},
		{"https://docs.example.com/index", "docs/docs.example.com/%69ndex.md"},
		{"https://docs.example.com/index.md", "docs/docs.example.com/index.md.md"},
		{"https://docs.example.com/LOG", "docs/docs.example.com/%4COG.md"},
		{"https://docs.example.com/_index", "docs/docs.example.com/__index.md"},
		{"https://docs.example.com/a//b", "docs/docs.example.com/a/_/b.md"},
		{"https://docs.example.com/x/y.md/z", "docs/docs.example.com/x/y%2Emd/z.md"},
		{"https://docs.example.com/a/../../etc/passwd", "docs/docs.example.com/a/etc/passwd.md"},
		{"https://docs.example.com/caf%C3%A9", "docs/docs.example.com/caf%C3%A9.md"},
		{"https://docs.example.com/a%2Fb", "docs/docs.example.com/a%2Fb.md"},
		{"https://docs.example.com/.hidden", "docs/docs.example.com/%2Ehidden.md"},
		{"https://docs.example.com/a~b", "docs/docs.example.com/a%7Eb.md"},
		{"https://docs.example.com:8080/x?b=1", "docs/docs.example.com%3A8080/x~"},
		{"https://docs.example.com/X.MD/y", "docs/docs.example.com/X%2EMD/y.md"},
		{"https://docs.example.com/con", "docs/docs.example.com/%63on.md"},
		{"https://docs.example.com/AUX.html", "docs/docs.example.com/%41UX.html.md"},
		{"https://docs.example.com/nul/x", "docs/docs.example.com/%6Eul/x.md"},
		{"https://docs.example.com/Com1.tar.gz", "docs/docs.example.com/%43om1.tar.gz.md"},
		{"https://docs.example.com/lpt9", "docs/docs.example.com/%6Cpt9.md"},
		{"https://docs.example.com/com10", "docs/docs.example.com/com10.md"},
		{"https://docs.example.com/console", "docs/docs.example.com/console.md"},
		{"https://docs.example.com/dot./x", "docs/docs.example.com/dot%2E/x.md"},
		{"https://docs.example.com/x.", "docs/docs.example.com/x%2E.md"},
		{"https://log.md/", "docs/log%2Emd/_index.md"},
		{"https://docs.example.com/r%C3%A9sume", "docs/docs.example.com/r%C3%A9sume.md"},
		{"https://docs.example.com/re%CC%81sume", "docs/docs.example.com/re%CC%81sume.md"},
		{"https://docs.example.com/r\u00e9sume", "docs/docs.example.com/r%C3%A9sume.md"},
	}
	// No two of these URLs share a file.
	seen := map[string]string{}
	for _, u := range []string{"https://e.com/docs/", "https://e.com/docs/index", "https://e.com/docs/index.md", "https://e.com/page",
		"https://e.com/page.md", "https://e.com/a/b", "https://e.com/a//b", "https://e.com/x/y.md/z", "https://e.com/x/y.md",
		"https://e.com/x/y", "https://e.com/p?q=1", "https://e.com/p%7E" + "0", "https://e.com/_index", "https://e.com/"} {
		p := must(PathFor("docs", u))
		if other, ok := seen[p]; ok {
			t.Errorf("%s and %s share %s", u, other, p)
		}
		seen[p] = u
	}
	for _, tt := range tests {
		got, err := PathFor("docs", tt.url)
		if err != nil || !strings.HasPrefix(got, tt.want) {
			t.Errorf("PathFor(%q) got %q, %v, want %q", tt.url, got, err, tt.want)
		}
		for _, seg := range strings.Split(got, "/") {
			if seg == ".." || seg == "." || seg == "" {
				t.Errorf("PathFor(%q) = %q has segment %q", tt.url, got, seg)
			}
		}
		if base := filepath.Base(got); base == "index.md" || base == "log.md" {
			t.Errorf("PathFor(%q) = %q, a reserved name", tt.url, got)
		}
	}
	if a, b := must(PathFor("docs", "https://e.com/x?a=1")), must(PathFor("docs", "https://e.com/x?a=2")); a == b {
		t.Errorf("two queries share a path: %s", a)
	}
	long := "https://e.com/" + strings.Repeat("x", 300)
	if p := must(PathFor("docs", long)); len(filepath.Base(p)) > 120 {
		t.Errorf("long name kept: %d bytes", len(filepath.Base(p)))
	}
	for _, tt := range []struct{ source, want string }{{"log.md", "log%2Emd/"}, {"INDEX.MD", "INDEX%2EMD/"}, {"con", "%63on/"}} {
		if got := must(PathFor(tt.source, "https://e.com/a")); !strings.HasPrefix(got, tt.want) {
			t.Errorf("source %q: %s, want it in %s", tt.source, got, tt.want)
		}
	}
	// Names are ASCII, which no Unicode normalization changes: a composed
	// and a decomposed é are two names.
	if a, b := must(PathFor("docs", "https://e.com/r\u00e9sume")), must(PathFor("docs", "https://e.com/re\u0301sume")); a == b || strings.ContainsFunc(a+b, func(r rune) bool { return r >= utf8.RuneSelf }) {
		t.Errorf("é composed and decomposed: %s and %s", a, b)
	}
	if _, err := PathFor("docs", "/relative"); err == nil {
		t.Errorf("PathFor(relative) did not fail")
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

func TestPutGetSearch(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	tides := snap("https://docs.example.com/tides", "Tides", "# Tides\n\nTides rise and fall with the moon.\n\nSpring tides are the highest.")
	tides.ETag = `"v1"`
	tides.Author, tides.Published = "The Harbour Office", time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	changed, err := s.Put(ctx, tides)
	if err != nil || !changed {
		t.Fatalf("Put: %v, %v", changed, err)
	}
	if _, err := s.Put(ctx, snap("https://docs.example.com/waves", "Waves", "Waves are made by wind over water.")); err != nil {
		t.Fatal(err)
	}
	other := snap("https://blog.example.com/moon", "The Moon", "The moon pulls the oceans.")
	other.Source = "blog"
	if _, err := s.Put(ctx, other); err != nil {
		t.Fatal(err)
	}

	got, err := s.Get(ctx, "https://docs.example.com/tides")
	if err != nil || got.Markdown != tides.Markdown || got.Title != "Tides" || got.ETag != `"v1"` || strings.Join(got.Tags, ",") != "web,docs" ||
		got.Author != "The Harbour Office" || !got.Published.Equal(tides.Published) || !got.Modified.IsZero() {
		t.Fatalf("Get: %+v, %v", got, err)
	}
	if byID, err := s.Get(ctx, heed.IDOf("https://docs.example.com/tides")); err != nil || byID.URL != tides.URL {
		t.Errorf("Get by ID: %v, %v", byID, err)
	}
	if _, err := s.Get(ctx, "https://nowhere.example/"); !errors.Is(err, heed.ErrNotFound) {
		t.Errorf("Get missing: %v", err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "docs/docs.example.com/tides.md"))
	for _, want := range []string{`title: "Tides"`, `author: "The Harbour Office"`, `published: "2025-03-04T05:06:07Z"`, `url: "https://docs.example.com/tides"`, `source: "docs"`, `fetched_at: "2026-01-02T03:04:05Z"`, `tags: ["web", "docs"]`, `hash: "sha256:`, `etag: "\"v1\""`, "# Tides"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("file lacks %s:\n%s", want, data)
		}
	}

	hits, err := s.Search(ctx, heed.Query{Text: "moon"})
	if err != nil || len(hits) != 2 {
		t.Fatalf("Search(moon): %v, %v", hits, err)
	}
	if hits[0].Title != "The Moon" {
		t.Errorf("title match should rank first: %+v", hits)
	}
	if sn := printable.Marked(hits[1].Snippet, hits[1].Matches, "**", "**"); !strings.Contains(sn, "**moon**") {
		t.Errorf("snippet %q does not mark the match", sn)
	}
	if hits, _ := s.Search(ctx, heed.Query{Text: "moon", Source: "docs"}); len(hits) != 1 || hits[0].Source != "docs" {
		t.Errorf("Search by source: %+v", hits)
	}
	for q, n := range map[string]int{"tide": 1, "rising": 1, `"spring tides"`: 1, `"tides spring"`: 0, "wav*": 1, "moon AND NOT": 0, `"unclosed`: 0, "OR": 0, "tides waves": 0} {
		hits, err := s.Search(ctx, heed.Query{Text: q})
		if err != nil || len(hits) != n {
			t.Errorf("Search(%q): %d hits, %v; want %d", q, len(hits), err, n)
		}
	}
	if _, err := s.Search(ctx, heed.Query{Text: "  ***  "}); err == nil {
		t.Errorf("empty query did not fail")
	}

	// Unchanged content is not rewritten.
	info, _ := os.Stat(filepath.Join(dir, "docs/docs.example.com/tides.md"))
	again := snap(tides.URL, "Tides", tides.Markdown)
	again.ETag = `"v2"`
	time.Sleep(10 * time.Millisecond)
	if changed, err := s.Put(ctx, again); err != nil || changed {
		t.Errorf("Put unchanged: %v, %v", changed, err)
	}
	info2, _ := os.Stat(filepath.Join(dir, "docs/docs.example.com/tides.md"))
	if !info2.ModTime().Equal(info.ModTime()) {
		t.Errorf("unchanged snapshot rewritten")
	}
	if etag, _, ok := s.Validators(ctx, "docs", tides.URL); !ok || etag != `"v2"` {
		t.Errorf("validators not updated: %q", etag)
	}

	list, err := s.List(ctx, "docs")
	if err != nil || len(list) != 2 || list[0].URL != "https://docs.example.com/tides" {
		t.Errorf("List(docs): %+v, %v", list, err)
	}
	n, err := s.Remove(ctx, "docs")
	if err != nil || n != 2 {
		t.Errorf("Remove: %d, %v", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "docs")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("source directory left behind")
	}
	if hits, _ := s.Search(ctx, heed.Query{Text: "tides"}); len(hits) != 0 {
		t.Errorf("removed snapshots still found")
	}
	if srcs, _ := s.Sources(ctx); srcs["blog"] != 1 || len(srcs) != 1 {
		t.Errorf("Sources: %v", srcs)
	}
}

// TestInterruptedWrites simulates a crash at each step of a write, by
// leaving the index and files as the crash would, and checks that opening
// the stash makes them agree again.
func TestInterruptedWrites(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := s.Put(ctx, snap(fmt.Sprintf("https://e.com/p%d", i), fmt.Sprintf("Page %d", i), fmt.Sprintf("Body %d about tides.", i))); err != nil {
			t.Fatal(err)
		}
	}
	// p0: crash after the index said "writing", before the file changed.
	s.db.Exec(`UPDATE docs SET state = 'writing', hash = 'new', title = 'Never written' WHERE url = 'https://e.com/p0'`)
	// p1: crash after the file was written, before the index settled.
	newer := snap("https://e.com/p1", "Page 1, edited", "Body 1 edited about currents.")
	os.WriteFile(filepath.Join(dir, "docs/e.com/p1.md"), encode(newer, nil), 0o644)
	s.db.Exec(`UPDATE docs SET state = 'writing' WHERE url = 'https://e.com/p1'`)
	// p2: crash in the middle of removing it.
	s.db.Exec(`UPDATE docs SET state = 'removing' WHERE url = 'https://e.com/p2'`)
	// p3: a write that never reached the disk at all.
	s.db.Exec(`INSERT INTO docs (id, url, source, path, state) VALUES ('x', 'https://e.com/p3', 'docs', 'docs/e.com/p3.md', 'writing')`)
	s.Close()

	s = open(t, dir)
	if got, err := s.Get(ctx, "https://e.com/p0"); err != nil || got.Title != "Page 0" {
		t.Errorf("p0: %+v, %v; want the file as it was", got, err)
	}
	if hits, _ := s.Search(ctx, heed.Query{Text: "currents"}); len(hits) != 1 || hits[0].Title != "Page 1, edited" {
		t.Errorf("p1: %+v; want the written file indexed", hits)
	}
	if _, err := s.Get(ctx, "https://e.com/p2"); !errors.Is(err, heed.ErrNotFound) {
		t.Errorf("p2 not removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "docs/e.com/p2.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("p2 file left behind")
	}
	if _, err := s.Get(ctx, "https://e.com/p3"); !errors.Is(err, heed.ErrNotFound) {
		t.Errorf("p3 indexed without a file: %v", err)
	}
	// Every file is indexed and every indexed file exists.
	entries, _ := s.List(ctx, "")
	if len(entries) != 2 {
		t.Errorf("%d entries, want 2: %+v", len(entries), entries)
	}
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Path)); err != nil {
			t.Errorf("indexed %s has no file", e.URL)
		}
	}
}

func TestReindex(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	for i := range 5 {
		s.Put(ctx, snap(fmt.Sprintf("https://e.com/p%d", i), fmt.Sprintf("Page %d", i), fmt.Sprintf("Body %d about lighthouses.", i)))
	}
	s.Close()
	os.Remove(filepath.Join(dir, indexFile))
	os.WriteFile(filepath.Join(dir, "docs", "notes.md"), []byte("a person's own notes, not a snapshot"), 0o644)
	s = open(t, dir)
	n, err := s.Reindex(ctx)
	if n != 5 || err == nil || !strings.Contains(err.Error(), "notes.md") {
		t.Errorf("Reindex: %d, %v; want 5 and a word about notes.md", n, err)
	}
	if hits, _ := s.Search(ctx, heed.Query{Text: "lighthouses", Limit: 10}); len(hits) != 5 {
		t.Errorf("after reindex: %d hits", len(hits))
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "docs", "notes.md")); string(data) != "a person's own notes, not a snapshot" {
		t.Errorf("reindex touched a file that is not a snapshot")
	}
}

// TestReindexKeepsLinks: the links a re-crawl follows from an unchanged
// page live only in the index; a reindex keeps them, and an index rebuilt
// without them gives no validators, so the page is fetched whole.
func TestReindexKeepsLinks(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	p := snap("https://e.com/a", "A", "Body")
	p.ETag, p.Links = `"1"`, []string{"https://e.com/b", "https://e.com/c"}
	if _, err := s.Put(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if got := s.Links(ctx, "docs", p.URL); strings.Join(got, " ") != "https://e.com/b https://e.com/c" {
		t.Errorf("links after reindex: %q", got)
	}
	if etag, _, ok := s.Validators(ctx, "docs", p.URL); !ok || etag != `"1"` {
		t.Errorf("validators after reindex: %q, %v", etag, ok)
	}
	s.Close()
	os.Remove(filepath.Join(dir, indexFile))
	s = open(t, dir)
	if _, err := s.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := s.Validators(ctx, "docs", p.URL); ok {
		t.Errorf("validators given though the rebuilt index lost the page's links")
	}
	if _, err := s.Get(ctx, p.URL); err != nil {
		t.Errorf("page lost: %v", err)
	}
}

// TestSecondOpenerDoesNotSettle opens a stash while another opener writes
// it: the second can read but not write, and never takes the first's
// writes under way for a crash's leftovers.
func TestSecondOpenerDoesNotSettle(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir)
	ctx := t.Context()
	w.Put(ctx, snap("https://e.com/a", "A", "alpha text"))
	w.db.Exec(`UPDATE docs SET state = 'writing' WHERE url = 'https://e.com/a'`) // a write under way
	r := open(t, dir)
	if !w.Writable() || r.Writable() {
		t.Errorf("Writable: first opener %v, second %v; want true, false", w.Writable(), r.Writable())
	}
	if _, err := r.Put(ctx, snap("https://e.com/b", "B", "beta")); !errors.Is(err, heed.ErrBusy) {
		t.Errorf("second opener wrote: %v", err)
	}
	var state string
	w.db.QueryRow(`SELECT state FROM docs WHERE url = 'https://e.com/a'`).Scan(&state)
	if state != "writing" {
		t.Errorf("the second opener settled the first's write (state %q)", state)
	}
	w.db.Exec(`UPDATE docs SET state = 'ok' WHERE url = 'https://e.com/a'`)
	if hits, err := r.Search(ctx, heed.Query{Text: "alpha"}); err != nil || len(hits) != 1 {
		t.Errorf("the second opener cannot read: %v, %v", hits, err)
	}
}

func TestRemoveKeepsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	s.Put(ctx, snap("https://e.com/a", "A", "alpha"))
	notes := filepath.Join(dir, "docs", "e.com", "my-notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o644)
	if n, err := s.Remove(ctx, "docs"); n != 1 || err != nil {
		t.Fatalf("Remove: %d, %v", n, err)
	}
	if _, err := os.Stat(notes); err != nil {
		t.Errorf("Remove deleted a file that was not a snapshot: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "docs", "e.com", "a.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the snapshot's file is still there")
	}
}

// TestSearchUnspacedScripts: Chinese, Japanese and Korean text is found
// by any run of characters inside it, as a reader of these languages
// searches, and snippets show it as written.
func TestSearchUnspacedScripts(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := t.Context()
	docs := map[string]string{
		"https://e.com/ja":    "東京都に住んでいます。東京タワーは高いです。",
		"https://e.com/zh":    "我们在北京学习中文，北京的冬天很冷。",
		"https://e.com/ko":    "서울에서 만나요. 한국어를 공부합니다.",
		"https://e.com/mixed": "Go言語の入門。Write Go programs.",
		"https://e.com/en":    "Tides rise and fall twice a day in Tokyo Bay.",
		"https://e.com/punct": "我去了北京。大学生活很好。\n\n## 大阪\n\n城の案内",
	}
	for u, body := range docs {
		if _, err := s.Put(ctx, snap(u, "Page", body)); err != nil {
			t.Fatal(err)
		}
	}
	for q, want := range map[string][]string{
		"東京":         {"https://e.com/ja"},
		"京都":         {"https://e.com/ja"}, // inside 東京都
		"東京タワー":      {"https://e.com/ja"},
		"タワー":        {"https://e.com/ja"},
		"北京":         {"https://e.com/zh", "https://e.com/punct"},
		"中文 冬天":      {"https://e.com/zh"},
		"서울":         {"https://e.com/ko"},
		"공부":         {"https://e.com/ko"},
		"言語":         {"https://e.com/mixed"},
		"Go":         {"https://e.com/mixed"},
		"tokyo":      {"https://e.com/en"},
		"京東":         nil, // the characters, but not side by side
		"北京 서울":      nil,
		"\"住んで\"":    {"https://e.com/ja"},
		"北京大学":       nil, // not across punctuation
		"大阪城":        nil, // nor across a line break
		"北京。大学":      {"https://e.com/punct"},
		"大学生活":       {"https://e.com/punct"},
		"大阪":         {"https://e.com/punct"},
		"ฉันกินข้าว": nil, // Thai is not segmented (its marks would be lost); a run is one word
	} {
		hits, err := s.Search(ctx, heed.Query{Text: q})
		if err != nil {
			t.Errorf("Search(%q): %v", q, err)
			continue
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.URL)
			if strings.ContainsRune(h.Snippet, mdtext.ZWSP) {
				t.Errorf("Search(%q): snippet shows the index's separators: %q", q, h.Snippet)
			}
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("Search(%q) = %v, want %v", q, got, want)
		}
	}
	for q, want := range map[string]string{
		"東京":    "**東京**都に住んでいます。**東京**タワーは高いです。",
		"北京":    "我们在**北京**学习中文，**北京**的冬天很冷。",
		"서울":    "**서울**에서 만나요. 한국어를 공부합니다.",
		"言語 go": "**Go言語**の入門。Write **Go** programs.",
	} {
		hits, _ := s.Search(ctx, heed.Query{Text: q})
		if len(hits) == 0 || printable.Marked(hits[0].Snippet, hits[0].Matches, "**", "**") != want {
			t.Errorf("Search(%q) snippet: %+v, want %q", q, hits, want)
		}
	}
}

// TestIndexUpgrade: an index written before unspaced scripts were
// segmented is rebuilt when a writer opens it.
func TestIndexUpgrade(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	if _, err := s.Put(ctx, snap("https://e.com/ja", "東京", "東京都に住んでいます。")); err != nil {
		t.Fatal(err)
	}
	// Make it an old index: the body as one token, version 0.
	if _, err := s.db.ExecContext(ctx, `UPDATE fts SET title = '東京', body = '東京都に住んでいます。'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, `PRAGMA user_version = 0`); err != nil {
		t.Fatal(err)
	}
	if hits, _ := s.Search(ctx, heed.Query{Text: "住んで"}); len(hits) != 0 {
		t.Fatalf("the old index found a run inside a token: %+v", hits)
	}
	s.Close()
	s = open(t, dir)
	if hits, err := s.Search(ctx, heed.Query{Text: "住んで"}); err != nil || len(hits) != 1 {
		t.Errorf("after the upgrade: %+v, %v", hits, err)
	}
}

// TestIndexKeepsNoCopy: the full-text index holds terms, not a copy of
// the text; an index of version 1, which held one, is made anew when a
// writer opens it, and snippets come from the files.
func TestIndexKeepsNoCopy(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	if _, err := s.Put(ctx, snap("https://e.com/a", "Lighthouse", "The lighthouse keeper wrote of the storm.")); err != nil {
		t.Fatal(err)
	}
	var copies int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'fts_content'`).Scan(&copies); err != nil || copies != 0 {
		t.Fatalf("a new index has a content table: %d, %v", copies, err)
	}
	// Make it a version 1 index, whose entry and copy say something else.
	old := `DROP TABLE fts;
		CREATE VIRTUAL TABLE fts USING fts5(title, body, tokenize = 'porter unicode61 remove_diacritics 2');
		INSERT INTO fts(rowid, title, body) SELECT rowid, 'Other', 'an old copy about harbours' FROM docs;
		PRAGMA user_version = 1;`
	if _, err := s.db.ExecContext(ctx, old); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, dir)
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'fts_content'`).Scan(&copies); err != nil || copies != 0 {
		t.Errorf("after the upgrade, the index still has a content table: %d, %v", copies, err)
	}
	if hits, err := s.Search(ctx, heed.Query{Text: "harbours"}); err != nil || len(hits) != 0 {
		t.Errorf("the old entry is still found: %+v, %v", hits, err)
	}
	hits, err := s.Search(ctx, heed.Query{Text: "storm"})
	if err != nil || len(hits) != 1 {
		t.Fatalf("after the upgrade: %+v, %v", hits, err)
	}
	if want := "keeper wrote of the **storm**."; !strings.Contains(printable.Marked(hits[0].Snippet, hits[0].Matches, "**", "**"), want) {
		t.Errorf("snippet %q, want it to hold %q, from the file", hits[0].Snippet, want)
	}
	// A file gone (removed by hand) leaves its hit without a snippet.
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(hits[0].Path))); err != nil {
		t.Fatal(err)
	}
	if hits, err := s.Search(ctx, heed.Query{Text: "storm"}); err != nil || len(hits) != 1 || hits[0].Snippet != "" {
		t.Errorf("with its file gone: %+v, %v", hits, err)
	}
	// A path out of the stash, written into the index by hand, is not read.
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("---\nurl: https://e.com/a\n---\nthe storm password is hunter2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(dir, outside)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE docs SET path = ?`, filepath.ToSlash(rel)); err != nil {
		t.Fatal(err)
	}
	if hits, err := s.Search(ctx, heed.Query{Text: "storm"}); err != nil || len(hits) != 1 || strings.Contains(hits[0].Snippet, "hunter2") {
		t.Errorf("a path out of the stash: %+v, %v", hits, err)
	}
}

// TestUpgradeKeepsRows: an upgrade of a version 1 index (its entries not
// made yet, as one cut short leaves it) rebuilds the full-text index from
// the files, titles and bodies, and keeps the rows, with the links a
// re-crawl follows; a row whose file is gone goes; a removal cut short
// before the upgrade is finished, not undone.
func TestUpgradeKeepsRows(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	put := func(source, url, md string) {
		t.Helper()
		sn := snap(url, "Page", md)
		sn.Source, sn.Links = source, []string{url + "/next"}
		if _, err := s.Put(ctx, sn); err != nil {
			t.Fatal(err)
		}
	}
	put("docs", "https://e.com/a", "The lighthouse keeper wrote of the storm.")
	put("docs", "https://e.com/b", "A second page about tides.")
	put("gone", "https://g.com/c", "A zebra page being removed.")
	hits, _ := s.Search(ctx, heed.Query{Text: "tides"})
	if len(hits) != 1 {
		t.Fatalf("tides: %+v", hits)
	}
	bFile := filepath.Join(dir, filepath.FromSlash(hits[0].Path))
	// A version 1 index whose upgrade was cut short (its table made anew,
	// empty, the version still 1), a removal cut short, and a file gone.
	cut := `DROP TABLE fts;
		CREATE VIRTUAL TABLE fts USING fts5(title, body, tokenize = 'porter unicode61 remove_diacritics 2');
		PRAGMA user_version = 1;
		UPDATE docs SET state = 'removing' WHERE source = 'gone';`
	if _, err := s.db.ExecContext(ctx, cut); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := os.Remove(bFile); err != nil {
		t.Fatal(err)
	}
	s = open(t, dir)
	if hits, err := s.Search(ctx, heed.Query{Text: "storm"}); err != nil || len(hits) != 1 {
		t.Errorf("storm after the upgrade: %+v, %v", hits, err)
	}
	if got := s.Links(ctx, "docs", "https://e.com/a"); !slices.Equal(got, []string{"https://e.com/a/next"}) {
		t.Errorf("links after the upgrade: %v", got)
	}
	if hits, _ := s.Search(ctx, heed.Query{Text: "zebra"}); len(hits) != 0 {
		t.Errorf("a removal cut short came back: %+v", hits)
	}
	if _, err := s.Get(ctx, "https://e.com/b"); err == nil {
		t.Errorf("a row whose file is gone was kept")
	}
	var v int
	if err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil || v != indexVersion {
		t.Errorf("version %d, %v", v, err)
	}
	s.Close()
	checkStressAgree(t, dir)
}

// TestSnippetOfItsOwnFile: http:// and https:// of a page prefer one
// file, and get one each; a hit's snippet is never the other's text.
func TestSnippetOfItsOwnFile(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := t.Context()
	if _, err := s.Put(ctx, snap("http://e.com/a", "A", "The alpha page about zebras.")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, snap("https://e.com/a", "A", "The beta page about giraffes.")); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, heed.Query{Text: "zebras"})
	if err != nil || len(hits) != 1 || hits[0].URL != "http://e.com/a" {
		t.Fatalf("zebras: %+v, %v", hits, err)
	}
	if strings.Contains(hits[0].Snippet, "giraffes") {
		t.Errorf("the http page's snippet is the https page's text: %q", hits[0].Snippet)
	}
}

// TestBatch: with a batch, Put writes the file and leaves the index entry
// waiting; the batch's last Put, Flush and Close index what waits, and a
// process that dies first leaves rows the next Open settles.
func TestBatch(t *testing.T) {
	defer func(d time.Duration) { maxWait = d }(maxWait)
	maxWait = time.Hour // only the batch's size flushes it here
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	s.SetBatch(3)
	count := func() int {
		hits, err := s.Search(ctx, heed.Query{Text: "lighthouse", Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits)
	}
	for i := range 2 {
		if changed, err := s.Put(ctx, snap(fmt.Sprintf("https://e.com/%d", i), "Lighthouse", "A lighthouse.")); err != nil || !changed {
			t.Fatalf("Put: %v, %v", changed, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "docs/e.com/1.md")); err != nil {
		t.Errorf("the file of a waiting snapshot is not written: %v", err)
	}
	if n := count(); n != 0 {
		t.Errorf("%d waiting snapshots searchable before the batch is full", n)
	}
	if got, err := s.Get(ctx, "https://e.com/1"); err != nil || got.Title != "Lighthouse" {
		t.Errorf("Get of a waiting snapshot: %+v, %v", got, err)
	}
	s.Put(ctx, snap("https://e.com/2", "Lighthouse", "A lighthouse."))
	if n := count(); n != 3 {
		t.Errorf("%d searchable after a full batch, want 3", n)
	}
	s.Put(ctx, snap("https://e.com/3", "Lighthouse", "A lighthouse."))
	if err := s.Flush(ctx); err != nil || count() != 4 {
		t.Errorf("Flush: %v, %d searchable", err, count())
	}

	// An entry left waiting by a process that died is settled by the
	// next Open, from the file.
	s.Put(ctx, snap("https://e.com/4", "Lighthouse", "A lighthouse."))
	s.waiting = nil // as if the process had died here
	s.Close()
	s = open(t, dir)
	if n := count(); n != 5 {
		t.Errorf("%d searchable after reopening, want 5", n)
	}
}

func TestNamedSnapshots(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"feeds/blog-example-com-feed", "feeds/blog-example-com-feed.md"},
		{"bluesky/alice.example.com", "bluesky/alice.example.com.md"},
		{"bluesky/did:plc:abc", "bluesky/did%3Aplc%3Aabc.md"},
		{"x/_jack", "x/__jack.md"},
		{"index", ""}, {"", ""}, {"a/../b", ""}, {"a//b", ""}, {"/abs", ""},
	} {
		got, err := NamedPath(c.name)
		if c.want == "" {
			if err == nil {
				t.Errorf("NamedPath(%q) got %q, want an error", c.name, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("NamedPath(%q) got %q, %v, want %q", c.name, got, err, c.want)
		}
	}
	dir := t.TempDir()
	s := open(t, dir)
	sn := snap("https://blog.example.com/feed.xml", "Blog", "## Post\n\nA lighthouse keeper's notes.")
	sn.Source, sn.Name = "blog", "feeds/blog-example-com-feed-xml"
	if _, err := s.Put(t.Context(), sn); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "feeds/blog-example-com-feed-xml.md")); err != nil {
		t.Errorf("the named file is missing: %v", err)
	}
	if hits, err := s.Search(t.Context(), heed.Query{Text: "lighthouse"}); err != nil || len(hits) != 1 || hits[0].Path != "feeds/blog-example-com-feed-xml.md" {
		t.Errorf("Search: %+v, %v", hits, err)
	}
	// Reindexing from the files finds it where it is.
	if n, err := s.Reindex(t.Context()); err != nil || n != 1 {
		t.Errorf("Reindex: %d, %v", n, err)
	}
	if n, err := s.Remove(t.Context(), "blog"); err != nil || n != 1 {
		t.Errorf("Remove: %d, %v", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "feeds/blog-example-com-feed-xml.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the named file outlived its source: %v", err)
	}
}

// TestLinksKeepSpaces: a link is one line of the index, whatever spaces
// it holds.
func TestLinksKeepSpaces(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := t.Context()
	p := snap("https://e.com/a", "A", "Body")
	p.Links = []string{"https://e.com/search?q=tide tables", "https://e.com/b?x=a\u00a0b", "https://e.com/c"}
	if _, err := s.Put(ctx, p); err != nil {
		t.Fatal(err)
	}
	if got := s.Links(ctx, "docs", p.URL); !slices.Equal(got, p.Links) {
		t.Errorf("Links = %q, want %q", got, p.Links)
	}
}

// TestFailedFlushKeepsWaiting: entries whose batch failed to index stay
// waiting, and the next flush indexes them.
func TestFailedFlushKeepsWaiting(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := t.Context()
	s.SetBatch(3)
	for i := range 2 {
		if _, err := s.Put(ctx, snap(fmt.Sprintf("https://e.com/%d", i), "Lighthouse", "A lighthouse.")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.db.ExecContext(ctx, `CREATE TRIGGER fail BEFORE UPDATE OF state ON docs BEGIN SELECT RAISE(ABORT, 'disk on fire'); END`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, snap("https://e.com/2", "Lighthouse", "A lighthouse.")); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("Put completing a batch that fails: %v", err)
	}
	if _, err := s.db.ExecContext(ctx, `DROP TRIGGER fail`); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if hits, _ := s.Search(ctx, heed.Query{Text: "lighthouse", Limit: 10}); len(hits) != 3 {
		t.Errorf("%d searchable after the retried flush, want 3", len(hits))
	}
}

func TestQueryLimits(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := t.Context()
	if _, err := s.Search(ctx, heed.Query{Text: strings.Repeat("a", heed.MaxQuery+1)}); !errors.Is(err, heed.ErrQueryTooLong) {
		t.Errorf("a query over the limit: %v", err)
	}
	// A long run of characters is matched as phrases of maxPhrase.
	long := strings.Repeat("あいうえお", 10) // 50 characters
	if _, err := s.Put(ctx, snap("https://e.com/a", "A", "前"+long+"後")); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(ftsQuery(long), `"`); got != 4 {
		t.Errorf("ftsQuery of 50 characters: %d quotes, want two phrases", got)
	}
	if hits, err := s.Search(ctx, heed.Query{Text: long}); err != nil || len(hits) != 1 {
		t.Errorf("a 50-character run: %v, %v", hits, err)
	}
}

// TestBatchWaitsLittle: entries of a batch that does not fill are indexed
// maxWait after the first, without another Put.
func TestBatchWaitsLittle(t *testing.T) {
	defer func(d time.Duration) { maxWait = d }(maxWait)
	maxWait = 10 * time.Millisecond
	s := open(t, t.TempDir())
	ctx := t.Context()
	s.SetBatch(64)
	if _, err := s.Put(ctx, snap("https://e.com/a", "Lighthouse", "A lighthouse.")); err != nil {
		t.Fatal(err)
	}
	for range 500 { // at most 5 s
		if hits, _ := s.Search(ctx, heed.Query{Text: "lighthouse"}); len(hits) == 1 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("a lone waiting entry was never indexed")
}

// TestReaderDoesNotWrite: opening a stash to read it writes nothing, so it
// does not wait for another process's write.
func TestReaderDoesNotWrite(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir)
	ctx := t.Context()
	if _, err := w.Put(ctx, snap("https://e.com/a", "Lighthouse", "A lighthouse.")); err != nil {
		t.Fatal(err)
	}
	conn, err := w.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, `ROLLBACK`)
	r, err := Open(ctx, dir) // not the writer: w holds the lock
	if err != nil {
		t.Fatalf("opening to read while a write is under way: %v", err)
	}
	defer r.Close()
	if hits, err := r.Search(ctx, heed.Query{Text: "lighthouse"}); err != nil || len(hits) != 1 {
		t.Errorf("search while a write is under way: %v, %v", hits, err)
	}
}

// Two URLs that prefer one name (x.com/Jack and twitter.com/jack, a
// Bluesky handle and its DID) never share a file: the second gets the
// name with a hash of its URL, each URL reads back its own snapshot, and
// removing one's source leaves the other's file.
func TestNamedSnapshotsNeverShareAFile(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := t.Context()
	a := &heed.Snapshot{Source: "x-jack", URL: "https://x.com/Jack", Name: "x/jack", Markdown: "from x.com"}
	b := &heed.Snapshot{Source: "tw-jack", URL: "https://twitter.com/jack", Name: "x/jack", Markdown: "from twitter.com"}
	for _, snap := range []*heed.Snapshot{a, b, a, b} {
		snap.Markdown += "!" // changed, so written again
		if _, err := s.Put(ctx, snap); err != nil {
			t.Fatal(err)
		}
	}
	if a.Path != "x/jack.md" || b.Path != "x/jack~"+heed.IDOf(b.URL)+".md" {
		t.Errorf("paths %q and %q", a.Path, b.Path)
	}
	for _, snap := range []*heed.Snapshot{a, b} {
		got, err := s.Get(ctx, snap.URL)
		if err != nil || got.Markdown != snap.Markdown {
			t.Errorf("Get(%s) = %v, %v", snap.URL, got, err)
		}
	}
	if _, err := s.Remove(ctx, "tw-jack"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, a.URL); err != nil || got.Markdown != a.Markdown {
		t.Errorf("after removing the other source: %v, %v", got, err)
	}
	// With the preferred name free again, the second URL keeps its file.
	c := &heed.Snapshot{Source: "tw-jack", URL: "https://twitter.com/jack", Name: "x/jack", Markdown: "again"}
	if _, err := s.Put(ctx, c); err != nil || c.Path != "x/jack~"+heed.IDOf(c.URL)+".md" {
		t.Errorf("put again: %q, %v", c.Path, err)
	}
	if got, err := s.Get(ctx, a.URL); err != nil || got.Markdown != a.Markdown {
		t.Errorf("the first URL's snapshot: %v, %v", got, err)
	}
}

// HasValidators is Validators for a whole source: true once one of its
// pages has them, for that source only.
func TestHasValidators(t *testing.T) {
	ctx := t.Context()
	s := open(t, t.TempDir())
	if s.HasValidators(ctx, "docs") {
		t.Fatal("an empty stash has validators")
	}
	p := snap("https://docs.example.com/a", "A", "a")
	p.ETag = `"1"`
	if _, err := s.Put(ctx, p); err != nil {
		t.Fatal(err)
	}
	_, _, ok := s.Validators(ctx, "docs", p.URL)
	if !ok || !s.HasValidators(ctx, "docs") {
		t.Errorf("a stored page: Validators ok %v, HasValidators %v; want both true", ok, s.HasValidators(ctx, "docs"))
	}
	if s.HasValidators(ctx, "other") {
		t.Error("another source has the validators of docs")
	}
}

// TestLinkTargetsUnindexed: a word only in a link's target finds nothing;
// the link's text is found, and its snippet shows the text, not the URL.
func TestLinkTargetsUnindexed(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := t.Context()
	if _, err := s.Put(ctx, snap("https://e.com/a", "Guide", "Read [the lighthouse guide](https://github.com/keepers/guide) before the storm.")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, snap("https://e.com/b", "Hosting", "The code is hosted on GitHub.")); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, heed.Query{Text: "github"})
	if err != nil || len(hits) != 1 || hits[0].URL != "https://e.com/b" {
		t.Errorf("github: %+v, %v; want the page that says it, not the one that links there", hits, err)
	}
	hits, err = s.Search(ctx, heed.Query{Text: "lighthouse"})
	if err != nil || len(hits) != 1 {
		t.Fatalf("lighthouse: %+v, %v", hits, err)
	}
	if sn := printable.Marked(hits[0].Snippet, hits[0].Matches, "**", "**"); !strings.Contains(sn, "the **lighthouse** guide before") || strings.Contains(sn, "github.com") {
		t.Errorf("snippet %q: want the link's text without its target", sn)
	}
}

// A crash of the system before a batch's sync can leave a part of a new
// file: empty, cut, or zeroes. Open knows one by its row ('creating':
// there was no file) and its hash, and drops it with its row, as if it
// had never been written. Whole files stay, and so do a file a person
// edited since it was indexed, and one whose rewrite failed.
func TestTornNewFiles(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	s := open(t, dir)
	for i := range 6 {
		if _, err := s.Put(ctx, snap(fmt.Sprintf("https://e.com/p%d", i), fmt.Sprintf("Page %d", i), fmt.Sprintf("Body %d about tides and currents.", i))); err != nil {
			t.Fatal(err)
		}
	}
	file := func(i int) string { return filepath.Join(dir, fmt.Sprintf("docs/e.com/p%d.md", i)) }
	whole := mustRead(t, file(1))
	for i, data := range map[int][]byte{
		0: nil,                                                                      // empty
		1: whole[:len(whole)-10],                                                    // cut in its body
		4: make([]byte, len(whole)),                                                 // zeroes
		2: bytes.Replace(mustRead(t, file(2)), []byte("tides"), []byte("waves"), 1), // edited, its row settled
		5: bytes.Replace(mustRead(t, file(5)), []byte("tides"), []byte("waves"), 1), // edited, then rewritten
	} {
		if err := os.WriteFile(file(i), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// p5's rewrite fails (a full disk): its row is left pending over the
	// edited file.
	orig := writeFile
	writeFile = func(*os.Root, string, []byte, bool) error { return syscall.ENOSPC }
	if _, err := s.Put(ctx, snap("https://e.com/p5", "Page 5", "Body 5, rewritten.")); err == nil {
		t.Fatal("a Put whose write fails: no error")
	}
	writeFile = orig
	s.db.Exec(`UPDATE docs SET state = 'creating' WHERE url IN ('https://e.com/p0', 'https://e.com/p1', 'https://e.com/p3', 'https://e.com/p4')`)
	s.Close()

	s = open(t, dir)
	for _, i := range []int{0, 1, 4} {
		if _, err := s.Get(ctx, fmt.Sprintf("https://e.com/p%d", i)); !errors.Is(err, heed.ErrNotFound) {
			t.Errorf("p%d, torn: %v; want not found", i, err)
		}
		if _, err := os.Stat(file(i)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("p%d, torn: its file is left: %v", i, err)
		}
	}
	for _, i := range []int{2, 5} {
		if got, err := s.Get(ctx, fmt.Sprintf("https://e.com/p%d", i)); err != nil || !strings.Contains(got.Markdown, "waves") {
			t.Errorf("p%d, edited: %+v, %v; want the edited file", i, got, err)
		}
	}
	if got, err := s.Get(ctx, "https://e.com/p3"); err != nil || got.Title != "Page 3" {
		t.Errorf("p3, whole and pending: %+v, %v; want it indexed", got, err)
	}
	if hits, err := s.Search(ctx, heed.Query{Text: "currents"}); err != nil || len(hits) != 3 {
		t.Errorf("search: %+v, %v; want p2, p3 and p5", hits, err)
	}
	if _, err := s.Reindex(ctx); err != nil {
		t.Errorf("reindex after the torn files went: %v", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestSnippetIsPlainText: a snippet is what the page says, without its
// Markdown's marks (which, with a match marked inside them, read as
// **[25.1.1. **Vacuuming** Basics]**), and its matches are spans of it.
func TestSnippetIsPlainText(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := t.Context()
	for _, sn := range []*heed.Snapshot{
		snap("https://e.com/vacuum", "Routine", "## Routine\n\n**[25.1.1. Vacuuming Basics](https://e.com/vacuum#basics)** and `VACUUM FULL` | x |"),
		snap("https://e.com/window", "Windows", "A ***window function*** computes over rows; *see* _below_."),
		snap("https://e.com/escapes", "Escapes", "In snake\\_case, 2 + 3 = 5: \\[brackets\\] and \\<tag\\> stay as written."),
	} {
		if _, err := s.Put(ctx, sn); err != nil {
			t.Fatal(err)
		}
	}
	for q, want := range map[string]string{
		"vacuuming": "Routine 25.1.1. [Vacuuming] Basics and [VACUUM] FULL x",
		"window":    "A [window] function computes over rows; see below.",
		"brackets":  "…+ 3 = 5: [brackets] and <tag> stay as written.",
	} {
		hits, err := s.Search(ctx, heed.Query{Text: q})
		if err != nil || len(hits) != 1 {
			t.Fatalf("Search(%q): %v, %v", q, hits, err)
		}
		if got := printable.Marked(hits[0].Snippet, hits[0].Matches, "[", "]"); got != want {
			t.Errorf("Search(%q) snippet %q, want %q", q, got, want)
		}
	}
}

// readFile reads the snapshot file at path, for a test to look at.
func readFile(path string) (*heed.Snapshot, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseFile(path, data)
}
