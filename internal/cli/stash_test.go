package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heedhq/heed"
)

// TestNoStash: the commands that only read a stash, on a directory that
// holds none (never made, or mistyped), say so with exit 2 and make
// nothing there; on a stash whose index is gone but whose files are
// there, they say so and name heed reindex, which rebuilds it.
func TestNoStash(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mistyped")
	for _, args := range [][]string{
		{"search", "tides"}, {"ls"}, {"ls", "docs"}, {"show", "https://example.com/"}, {"rm", "docs"}, {"reindex"},
	} {
		code, out, stderr := run(t, "", append(args, "--stash", dir)...)
		if code != ExitUsage || out != "" || !strings.Contains(stderr, "no stash at "+dir) || !strings.Contains(stderr, "--stash") {
			t.Errorf("heed %v on no stash: exit %d, %q, %q; want exit 2 saying there is no stash there", args, code, out, stderr)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Fatalf("heed %v made the stash it was asked to read", args)
		}
	}

	// A directory of Markdown that is no stash (a project's docs) is not
	// taken for a stash whose index is gone, and reindex makes nothing.
	proj := t.TempDir()
	os.MkdirAll(filepath.Join(proj, "docs"), 0o755)
	os.WriteFile(filepath.Join(proj, "README.md"), []byte("# A project\n"), 0o644)
	os.WriteFile(filepath.Join(proj, "docs", "notes.md"), []byte("---\ntitle: notes\n---\nNotes.\n"), 0o644)
	for _, args := range [][]string{{"search", "notes"}, {"reindex"}} {
		code, _, stderr := run(t, "", append(args, "--stash", proj)...)
		if code != ExitUsage || !strings.Contains(stderr, "no stash at "+proj) {
			t.Errorf("heed %v in a directory of Markdown: exit %d, %q", args, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(proj, ".heed")); err == nil {
		t.Errorf("heed made a stash in a directory of Markdown")
	}

	s, _ := exampleSite(t)
	stash := t.TempDir()
	if code, _, stderr := run(t, "", "crawl", s.URL+"/", "--stash", stash, "--allow-net", "127.0.0.1/32", "--delay", "0s", "--name", "site"); code != 0 {
		t.Fatalf("crawl: exit %d: %s", code, stderr)
	}
	if err := os.RemoveAll(filepath.Join(stash, ".heed")); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "", "search", "tides", "--stash", stash)
	if code != ExitUsage || !strings.Contains(stderr, "has no index") || !strings.Contains(stderr, "heed reindex") {
		t.Errorf("search of a stash without its index: exit %d, %q; want exit 2 naming heed reindex", code, stderr)
	}
	if code, out, stderr := run(t, "", "reindex", "--stash", stash); code != 0 || !strings.Contains(out, "indexed") {
		t.Fatalf("reindex of a stash without its index: exit %d, %q, %q", code, out, stderr)
	}
	if code, out, stderr := run(t, "", "search", "tides", "--stash", stash); code != 0 || !strings.Contains(out, "site") {
		t.Errorf("search after reindex: exit %d, %q, %q", code, out, stderr)
	}
}

// TestSnippetBoldOnATerminal: on a terminal a snippet's matches are in
// the terminal's bold, and what the page says is escaped around them.
func TestSnippetBoldOnATerminal(t *testing.T) {
	h := heed.Hit{Snippet: "Spring tides \x1b[2J are high", Matches: []heed.Span{{Start: 0, End: 6}, {Start: 7, End: 12}}}
	if got, want := snippetLine(h, true), "\033[1mSpring\033[0m \033[1mtides\033[0m \\x1b[2J are high"; got != want {
		t.Errorf("snippetLine on a terminal = %q, want %q", got, want)
	}
	if got := snippetLine(h, false); got != "Spring tides \\x1b[2J are high" {
		t.Errorf("snippetLine elsewhere = %q", got)
	}
}

// sharedPrefix finds two paths of base whose pages' IDs start with the
// same n hex digits (and not n+1), for tests of reading by an ID's start.
func sharedPrefix(base string, n int) (a, b, prefix string) {
	seen := map[string]string{}
	for i := 0; ; i++ {
		p := fmt.Sprintf("/p%d.html", i)
		id := heed.IDOf(base + p)
		if q, ok := seen[id[:n]]; ok && heed.IDOf(base + q)[n] != id[n] {
			return q, p, id[:n]
		}
		seen[id[:n]] = p
	}
}

// TestShowAmbiguousID: heed show of a start of an ID that two snapshots'
// IDs have says so and lists them (exit 2), however short the start; a
// start only one ID has, or a whole ID in capitals, shows its page.
func TestShowAmbiguousID(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<html><head><title>Page %s</title></head><body><main><p>The page %s has words enough to be the content.</p></main></body></html>", r.URL.Path, r.URL.Path)
	}))
	t.Cleanup(s.Close)
	for _, n := range []int{2, 3, 4} {
		stash := t.TempDir()
		a, b, prefix := sharedPrefix(s.URL, n)
		for _, p := range []string{a, b} {
			if code, _, stderr := run(t, "", "crawl", s.URL+p, "--max-depth", "0", "--delay", "0", "--stash", stash, "--allow-net", "127.0.0.1/32", "--name", "site"); code != 0 {
				t.Fatalf("crawl %s: exit %d %s", p, code, stderr)
			}
		}
		code, out, stderr := run(t, "", "show", prefix, "--stash", stash)
		if code != ExitUsage || out != "" || !strings.Contains(stderr, "IDs start with "+prefix) || !strings.Contains(stderr, heed.IDOf(s.URL+a)) || strings.Contains(stderr, "no snapshot") {
			t.Errorf("heed show %s (the start of two IDs): exit %d, %q, %q; want exit 2 saying it is ambiguous", prefix, code, out, stderr)
		}
		id := heed.IDOf(s.URL + b)
		for _, ref := range []string{id[:n+1], strings.ToUpper(id)} {
			if code, out, stderr := run(t, "", "show", ref, "--stash", stash); code != 0 || !strings.Contains(out, s.URL+b) {
				t.Errorf("heed show %s: exit %d, %q, %q; want the page of %s", ref, code, out, stderr, b)
			}
		}
	}
}

// manyPages serves a site of n pages: the start page links to the
// others.
func manyPages(t *testing.T, n int) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/p%d", &i); err != nil && r.URL.Path != "/" || i >= n {
			http.NotFound(w, r)
			return
		}
		links := ""
		for j := 1; r.URL.Path == "/" && j < n; j++ {
			links += fmt.Sprintf("<a href=\"/p%d\">%d</a> ", j, j)
		}
		fmt.Fprintf(w, "<html><head><title>Page %d</title></head><body><main><p>Page %d has words enough to be the content of its own.</p>%s</main></body></html>", i, i, links)
	}))
	t.Cleanup(s.Close)
	return s
}

// TestRmUnrecords: heed rm of a source removes its snapshots and its
// record in the config file (so that heed sync does not bring it back),
// and says so. Not on a terminal, more than manySnapshots are removed
// only with --yes: without, nothing is removed (exit 2), and nothing
// waits for an answer.
func TestRmUnrecords(t *testing.T) {
	t.Setenv("HEED_STASH", "")
	s := manyPages(t, manySnapshots+5)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("# mine\nallow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	small := manyPages(t, 1)
	for _, a := range [][]string{{s.URL + "/", "--name", "docs"}, {small.URL + "/", "--name", "one"}} {
		if code, out, stderr := run(t, "", append([]string{"add", "--delay", "0", "--max-pages", "100", "--config", conf}, a...)...); code != 0 {
			t.Fatalf("add %v: exit %d %s %s", a, code, out, stderr)
		}
	}
	n := manySnapshots + 5
	code, out, stderr := run(t, "y\n", "rm", "docs", "--config", conf)
	if code != ExitUsage || out != "" || !strings.Contains(stderr, fmt.Sprintf("docs has %d snapshots", n)) || !strings.Contains(stderr, "--yes") || strings.Contains(stderr, "[y/N]") {
		t.Errorf("heed rm of %d snapshots without a terminal or --yes: exit %d, %q, %q; want exit 2 naming --yes", n, code, out, stderr)
	}
	if _, out, _ := run(t, "", "ls", "--config", conf); !strings.Contains(out, fmt.Sprintf("%d snapshots\n", n)) || !strings.Contains(out, " 1 snapshot\n") {
		t.Errorf("heed ls after heed rm without --yes: %q; want docs' %d snapshots, and one's 1 snapshot", out, n)
	}
	code, out, stderr = run(t, "", "rm", "docs", "--yes", "--config", conf)
	if code != 0 || out != fmt.Sprintf("removed %d snapshots of docs\n", n) || !strings.Contains(stderr, `removed source "docs" (website, `+s.URL+"/) from "+conf) || !strings.Contains(stderr, "'heed add "+s.URL+"/' records it again") {
		t.Errorf("heed rm --yes: exit %d, %q, %q", code, out, stderr)
	}
	// One snapshot is removed without asking, and said in the singular.
	code, out, stderr = run(t, "", "rm", "one", "--config", conf)
	if code != 0 || out != "removed 1 snapshot of one\n" || !strings.Contains(stderr, `removed source "one"`) {
		t.Errorf("heed rm of one snapshot: exit %d, %q, %q", code, out, stderr)
	}
	if log, err := os.ReadFile(filepath.Join(dir, "stash", "log.md")); err != nil || !strings.Contains(string(log), "removed source one\n\n1 snapshot removed\n") || !strings.Contains(string(log), fmt.Sprintf("\n\n%d snapshots removed\n", n)) {
		t.Errorf("the stash's log of heed rm: %v\n%s", err, log)
	}
	data, _ := os.ReadFile(conf)
	if strings.Contains(string(data), "docs") || strings.Contains(string(data), "one:") || !strings.Contains(string(data), "# mine") {
		t.Errorf("the config after heed rm:\n%s", data)
	}
	if code, _, stderr := run(t, "", "sync", "--config", conf); code != ExitUsage || !strings.Contains(stderr, "no sources are recorded") {
		t.Errorf("heed sync after heed rm: exit %d %s; want nothing to sync", code, stderr)
	}
	if code, _, stderr := run(t, "", "rm", "docs", "--config", conf); code != ExitFailed || !strings.Contains(stderr, "heed ls") {
		t.Errorf("heed rm again: exit %d %s", code, stderr)
	}
	// A source recorded but never stored (its crawl was interrupted) is
	// un-recorded all the same.
	os.WriteFile(conf, append(data, []byte("sources:\n  ghost:\n    url: https://ghost.example/\n")...), 0o644)
	code, out, stderr = run(t, "", "rm", "ghost", "--config", conf)
	if data, _ := os.ReadFile(conf); code != 0 || out != "" || !strings.Contains(stderr, `removed source "ghost"`) || strings.Contains(string(data), "ghost") {
		t.Errorf("heed rm of a source recorded but not stored: exit %d, %q, %q\n%s", code, out, stderr, data)
	}
}

// TestRmWithoutAStash: a source the config file records is un-recorded
// by heed rm where there is no stash (never made, or removed to start
// anew): else nothing but an edit of the file would stop heed sync
// bringing it back. Its record says what it was, its kind or not.
func TestRmWithoutAStash(t *testing.T) {
	t.Setenv("HEED_STASH", "")
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("# mine\nsources:\n  old:\n    url: https://old.example/\n  kept:\n    url: https://kept.example/\n    kind: website\n"), 0o644)
	stash := filepath.Join(dir, "stash")
	code, out, stderr := run(t, "", "rm", "old", "--config", conf, "--stash", stash)
	data, _ := os.ReadFile(conf)
	if code != 0 || out != "" || !strings.Contains(stderr, `removed source "old" (https://old.example/) from `+conf) {
		t.Errorf("heed rm of a recorded source without a stash: exit %d, %q, %q", code, out, stderr)
	}
	if strings.Contains(string(data), "old") || !strings.Contains(string(data), "kept:") {
		t.Errorf("the config after heed rm:\n%s", data)
	}
	if _, err := os.Stat(stash); err == nil {
		t.Errorf("heed rm made a stash")
	}
	if code, _, stderr := run(t, "", "rm", "kept", "--config", conf, "--stash", stash); code != 0 || !strings.Contains(stderr, `removed source "kept" (website, https://kept.example/)`) {
		t.Errorf("heed rm of a recorded website without a stash: exit %d, %q", code, stderr)
	}
	// Of a source neither recorded nor stored, the want of a stash is said.
	if code, _, stderr := run(t, "", "rm", "none", "--config", conf, "--stash", stash); code == 0 || !strings.Contains(stderr, "no stash") {
		t.Errorf("heed rm of nothing without a stash: exit %d, %q", code, stderr)
	}
}
