package cli

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/team"
	"github.com/heedhq/heed/internal/testutil"
)

// manualsSite is a site of two manuals, /py/library/ and /pg/, each page
// linking to the other manual, and to the site's root; it records the
// paths asked for.
func manualsSite(t *testing.T) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var asked []string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt", "/sitemap.xml", "/llms.txt":
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `<html><head><title>Page %s</title></head><body><main><p>The page %s, with words enough to be content.</p>
<a href="/py/library/os.html">os</a> <a href="/py/library/json.html">json</a> <a href="/pg/intro.html">pg</a> <a href="/">home</a></main></body></html>`, r.URL.Path, r.URL.Path)
	}))
	t.Cleanup(s.Close)
	return s, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), asked...)
	}
}

// outside lists the paths asked for that are not under dir, but the
// site's robots.txt, sitemap and llms.txt.
func outside(asked []string, dir string) []string {
	var out []string
	for _, p := range asked {
		switch {
		case strings.HasPrefix(p, dir), p == "/robots.txt", p == "/sitemap.xml", p == "/llms.txt":
		default:
			out = append(out, p)
		}
	}
	return out
}

// TestCrawlStaysInItsDirectory: heed crawl of /py/library/ fetches
// nothing outside it, and says so first; --whole-site crawls the origin.
func TestCrawlStaysInItsDirectory(t *testing.T) {
	s, asked := manualsSite(t)
	args := []string{"crawl", s.URL + "/py/library/", "--stash", t.TempDir(), "--allow-net", "127.0.0.1/32", "--delay", "0s"}
	code, out, stderr := run(t, "", args...)
	if code != 0 || !strings.HasPrefix(out, "3 stored") {
		t.Fatalf("crawl: exit %d\n%s\n%s", code, out, stderr)
	}
	if o := outside(asked(), "/py/library/"); len(o) > 0 {
		t.Errorf("a crawl of /py/library/ asked for %q", o)
	}
	first, _, _ := strings.Cut(stderr, "\n")
	if want := "heed: crawl 1: crawling " + s.URL + "/py/library/ and below (--whole-site widens it to the whole site)"; first != want {
		t.Errorf("the crawl's first line %q, want %q", first, want)
	}
	if !strings.Contains(stderr, "(--whole-site, --include, --exclude and --allow-host set it)") {
		t.Errorf("the URLs skipped for scope do not say what widens it:\n%s", stderr)
	}
	code, out, stderr = run(t, "", append(args, "--whole-site", "--stash", t.TempDir())...)
	if code != 0 || !strings.HasPrefix(out, "5 stored") || !strings.HasPrefix(stderr, "heed: crawl 1: crawling all of "+s.URL+"\n") {
		t.Errorf("crawl --whole-site: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestAddAndSyncStayInTheDirectory: a website added at /py/library/ is
// crawled within it when added and when synced; --whole-site is
// recorded as whole_site, and a source's whole_site: true in the config
// crawls the origin.
func TestAddAndSyncStayInTheDirectory(t *testing.T) {
	t.Setenv("HEED_STASH", "")
	s, asked := manualsSite(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	base := []string{"--config", conf}
	code, out, stderr := run(t, "", append([]string{"add", s.URL + "/py/library/", "--name", "py", "--delay", "0"}, base...)...)
	if code != 0 || !strings.HasPrefix(out, "3 stored") {
		t.Fatalf("add: exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = run(t, "", append([]string{"sync", "py"}, base...)...)
	if code != 0 || !strings.Contains(out, "0 stored (0 new, 0 changed), 3 unchanged") || !strings.Contains(stderr, "(whole_site in the source's config widens it to the whole site)") {
		t.Errorf("sync: exit %d\n%s\n%s", code, out, stderr)
	}
	if o := outside(asked(), "/py/library/"); len(o) > 0 {
		t.Errorf("a source at /py/library/ asked for %q", o)
	}
	code, out, stderr = run(t, "", append([]string{"add", s.URL + "/py/library/os.html", "--name", "all", "--delay", "0", "--whole-site"}, base...)...)
	if code != 0 || len(outside(asked(), "/py/library/")) == 0 {
		t.Errorf("add --whole-site: exit %d, asked for %q\n%s\n%s", code, asked(), out, stderr)
	}
	if data, _ := os.ReadFile(conf); !strings.Contains(string(data), "whole_site: true") {
		t.Errorf("--whole-site not recorded:\n%s", data)
	}
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash2")+"\nsources:\n  site:\n    url: "+s.URL+"/py/library/\n    whole_site: true\n    delay: 0s\n"), 0o644)
	if code, out, stderr := run(t, "", append([]string{"sync", "site"}, base...)...); code != 0 || !strings.Contains(out, "5 stored") {
		t.Errorf("sync of whole_site: true: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestLogKeepsLinesForWhatPagesSay: the stash's log.md lists the URLs
// skipped for robots.txt, not the thousands a limit leaves: those are
// counted.
func TestLogKeepsLinesForWhatPagesSay(t *testing.T) {
	var links strings.Builder
	for i := range 60 {
		fmt.Fprintf(&links, `<a href="/p%d">p%d</a> `, i, i)
	}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nDisallow: /p0$\n")
			return
		}
		fmt.Fprint(w, `<html><head><title>Page `+r.URL.Path+`</title></head><body><main><p>The page `+r.URL.Path+`, with words enough to be content.</p>`+links.String()+`</main></body></html>`)
	}))
	t.Cleanup(s.Close)
	stash := t.TempDir()
	code, out, stderr := run(t, "", "crawl", s.URL+"/", "--stash", stash, "--allow-net", "127.0.0.1/32", "--delay", "0s", "--max-pages", "3", "--max-depth", "1")
	if code != 0 || !strings.Contains(out, "3 stored") {
		t.Fatalf("crawl: exit %d\n%s\n%s", code, out, stderr)
	}
	log, err := os.ReadFile(filepath.Join(stash, "log.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), "max_pages 3 reached") || !strings.Contains(string(log), "/p0: robots: disallowed by line 2") ||
		!strings.Contains(string(log), "limit") {
		t.Errorf("log.md lists the URLs a limit left, or not the one robots.txt disallows, or does not count them:\n%s", log)
	}
}

// TestProgressOffATerminal: off a terminal, a crawl prints a progress
// line every --progress-every and says why it waits for a host; --quiet
// prints neither, nor the scope.
func TestProgressOffATerminal(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 30\n")
		case "/":
			fmt.Fprint(w, `<html><head><title>Home</title></head><body><main><p>Home, with words enough.</p><a href="/a">a</a></main></body></html>`)
		default:
			fmt.Fprint(w, `<html><head><title>A</title></head><body><main><p>A page, with words enough.</p></main></body></html>`)
		}
	}))
	t.Cleanup(s.Close)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("max_crawl_delay: 1500ms\n"), 0o644)
	args := []string{"crawl", s.URL + "/", "--config", conf, "--stash", t.TempDir(), "--allow-net", "127.0.0.1/32", "--delay", "0s", "--progress-every", "200ms"}
	code, out, stderr := run(t, "", args...)
	if code != 0 || !strings.HasPrefix(out, "2 stored") {
		t.Fatalf("crawl: exit %d\n%s\n%s", code, out, stderr)
	}
	host := strings.TrimPrefix(s.URL, "http://")
	if !strings.Contains(stderr, "heed: waiting ") || !strings.Contains(stderr, " for "+host+": Crawl-delay 30s, capped at 1.5s\n") {
		t.Errorf("no line says why the crawl waits:\n%s", stderr)
	}
	if !strings.Contains(stderr, " queued · delay ") || !strings.Contains(stderr, "\nheed: 0 stored · ") && !strings.Contains(stderr, "\nheed: 1 stored · ") {
		t.Errorf("no progress line every 200ms:\n%s", stderr)
	}
	code, out, stderr = run(t, "", append(args, "--quiet", "--stash", t.TempDir())...)
	if code != 0 || !strings.HasPrefix(out, "2 stored") || stderr != "" {
		t.Errorf("crawl --quiet: exit %d\n%s\nstderr: %q", code, out, stderr)
	}
}

// TestProgressLineClearedFirst: on a terminal, the status line is
// cleared before a line of the crawl's own (a wait, say).
func TestProgressLineClearedFirst(t *testing.T) {
	var stderr strings.Builder
	p := &progress{e: &env{stderr: &stderr}, terminal: true, counts: map[crawl.Kind]int{}, reasons: map[reasonKey]int{}}
	p.event(crawl.Event{Kind: crawl.Stored, URL: "https://docs.example.com/", Delay: "10s"})
	p.event(crawl.Event{Kind: crawl.Waiting, URL: "docs.example.com", Detail: "waiting 10s for docs.example.com: Crawl-delay 30s, capped at 10s"})
	if !strings.Contains(stderr.String(), "delay 10s\r\033[Kheed: waiting 10s for docs.example.com: Crawl-delay 30s, capped at 10s\n1 stored") {
		t.Errorf("the status line is not cleared before the wait's, nor drawn again after it: %q", stderr.String())
	}
}

// TestTeamProgressOffATerminal: a team's crawl followed off a terminal
// (heed crawl --db in a script) prints a progress line every
// --progress-every, as a crawl here does, not nothing until it ends.
func TestTeamProgressOffATerminal(t *testing.T) {
	var stderr testutil.Buffer
	e := &env{stderr: &stderr, stdout: io.Discard, progressEvery: 10 * time.Millisecond}
	show, stop := e.teamProgress(false)
	defer stop()
	show(&team.Progress{ID: 7, Stored: 1, Queued: 3, Fetched: 2, Created: time.Now()})
	guard := time.After(time.Minute) // against a hang, not a measure
	for !strings.Contains(stderr.String(), "heed: running · 1 stored · 0 unchanged · 3 queued · 2 requests") {
		select {
		case <-guard:
			t.Fatalf("no progress line off a terminal: %q", stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
