package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/polite"
)

// exampleSite serves the offline example's site on loopback and counts its
// robots.txt requests.
func exampleSite(t *testing.T) (*httptest.Server, *int) {
	t.Helper()
	robotsHits := new(int)
	files := http.FileServer(http.Dir("../../examples/offline/site"))
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			*robotsHits++
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s, robotsHits
}

// TestCrawlAndSearch runs the README's offline example: crawl the example
// site, served on loopback, into a fresh stash, then search, show, list,
// reindex and remove.
func TestCrawlAndSearch(t *testing.T) {
	s, robotsHits := exampleSite(t)
	stash := t.TempDir()
	base := []string{"--stash", stash, "--allow-net", "127.0.0.1/32"}
	args := func(a ...string) []string { return append(append([]string{}, a...), base...) }

	code, out, stderr := run(t, "", args("crawl", s.URL+"/", "--name", "tidewater", "--delay", "0", "-v")...)
	if code != 0 || !strings.HasPrefix(out, "4 stored (4 new, 0 changed), 0 unchanged, 0 failed, 1 skipped (1 robots)") {
		t.Fatalf("crawl: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "drafts/estuaries.html: robots: disallowed by line 3") {
		t.Errorf("the skipped draft is not reported with its rule (-v):\n%s", stderr)
	}
	if *robotsHits != 1 {
		t.Errorf("robots.txt fetched %d times", *robotsHits)
	}

	logData, err := os.ReadFile(filepath.Join(stash, "log.md"))
	if err != nil || !strings.Contains(string(logData), "crawl of "+s.URL+"/ into tidewater") ||
		!strings.Contains(string(logData), "drafts/estuaries.html: robots: disallowed by line 3") {
		t.Errorf("the stash's log.md lacks the crawl or its skipped URL: %v\n%s", err, logData)
	}
	code, out, _ = run(t, "", args("search", "rip", "current")...)
	if code != 0 || !strings.Contains(out, "Safety at the shore") || !strings.Contains(out, "rip current") || strings.Contains(out, "*") {
		t.Errorf("search: exit %d, want plain text (not a terminal)\n%s", code, out)
	}
	code, out, _ = run(t, "", args("search", "--json", "--limit", "1", "spring", "tides")...)
	var hit map[string]any
	if err := json.Unmarshal([]byte(out), &hit); code != 0 || err != nil || hit["title"] != "Tides" {
		t.Errorf("search --json: exit %d, %v\n%s", code, err, out)
	}
	// --json gives the snippet as clean text, and where the matches are
	// in it (in code points).
	if snip, _ := hit["snippet"].(string); strings.Contains(snip, "*") {
		t.Errorf("search --json: the snippet has Markdown's marks: %q", snip)
	} else if m, _ := hit["matches"].([]any); len(m) == 0 {
		t.Errorf("search --json: no matches in %s", out)
	} else {
		first := m[0].(map[string]any)
		word := string([]rune(snip)[int(first["start"].(float64)):int(first["end"].(float64))])
		if !strings.EqualFold(word, "spring") && !strings.EqualFold(word, "tides") {
			t.Errorf("search --json: the first match is %q of %q", word, snip)
		}
	}
	if code, _, stderr := run(t, "", args("search", "unicorns")...); code != 1 || !strings.Contains(stderr, "nothing in the stash matches") {
		t.Errorf("search without hits: exit %d, %s", code, stderr)
	}
	if code, out, _ := run(t, "", args("search", "--source", "tidewater", "rip", "current")...); code != 0 || !strings.Contains(out, "Safety at the shore") {
		t.Errorf("search --source of the crawl's source: exit %d\n%s", code, out)
	}
	if code, _, stderr := run(t, "", args("search", "--source", "elsewhere", "rip", "current")...); code != 1 || !strings.Contains(stderr, `no source "elsewhere" in the stash`) {
		t.Errorf("search --source of a source the stash does not hold: exit %d, %s", code, stderr)
	}
	if code, _, stderr := run(t, "", args("search", "--source", "tidewater", "unicorns")...); code != 1 || !strings.Contains(stderr, "nothing in the stash matches") {
		t.Errorf("search --source of the crawl's source, without hits: exit %d, %s", code, stderr)
	}

	code, out, _ = run(t, "", args("show", s.URL+"/guide/tides.html")...)
	if code != 0 || !strings.Contains(out, `title: "Tides"`) || !strings.Contains(out, "| Spring | New and full moon | Largest |") {
		t.Errorf("show: exit %d\n%s", code, out)
	}
	if code, _, _ := run(t, "", args("show", "https://nowhere.example/")...); code != 1 {
		t.Errorf("show missing: exit %d", code)
	}
	// A URL with a fragment is its page; an ID may be given by a prefix
	// that no other ID starts with.
	id := heed.IDOf(s.URL + "/guide/tides.html")
	for _, ref := range []string{s.URL + "/guide/tides.html#spring-tides", strings.Replace(s.URL, "http://", "HTTP://", 1) + "/guide/tides.html", id, id[:6], strings.ToUpper(id[:6])} {
		if code, out, stderr := run(t, "", args("show", ref)...); code != 0 || !strings.Contains(out, `title: "Tides"`) {
			t.Errorf("show %s: exit %d, %s", ref, code, stderr)
		}
	}
	code, out, _ = run(t, "", args("ls")...)
	if code != 0 || !strings.Contains(out, "tidewater") || !strings.Contains(out, "4 snapshots") {
		t.Errorf("ls: exit %d\n%s", code, out)
	}
	// --json is a JSON object a line, for the sources as for a source's
	// snapshots.
	for _, a := range [][]string{{"ls", "--json"}, {"ls", "tidewater", "--json"}} {
		code, out, _ = run(t, "", args(a...)...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		for _, l := range lines {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) != nil || len(m) == 0 {
				t.Errorf("heed %v: a line that is not a JSON object: %q", a, l)
			}
		}
		if want := map[int]int{2: 1, 3: 4}[len(a)]; code != 0 || len(lines) != want {
			t.Errorf("heed %v: exit %d, %d lines, want %d\n%s", a, code, len(lines), want, out)
		}
	}

	// A second crawl finds everything unchanged.
	code, out, _ = run(t, "", args("crawl", s.URL+"/", "--name", "tidewater", "--delay", "0")...)
	if code != 0 || !strings.HasPrefix(out, "0 stored (0 new, 0 changed), 4 unchanged") {
		t.Errorf("re-crawl: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "", args("reindex")...)
	if code != 0 || out != "indexed 4 snapshots\n" {
		t.Errorf("reindex: exit %d, %q", code, out)
	}
	code, out, _ = run(t, "", args("rm", "tidewater")...)
	if code != 0 || out != "removed 4 snapshots of tidewater\n" {
		t.Errorf("rm: exit %d, %q", code, out)
	}
	// The log says what rm did, as it says what crawls did, and ends a
	// line.
	if log, err := os.ReadFile(filepath.Join(stash, "log.md")); err != nil || !strings.Contains(string(log), ": removed source tidewater\n\n4 snapshots removed\n") || !strings.HasSuffix(string(log), "\n") {
		t.Errorf("log.md after rm (%v):\n%s", err, log)
	}
	if code, _, _ := run(t, "", args("search", "tides")...); code != 1 {
		t.Errorf("search after rm: exit %d", code)
	}
}

func TestCrawlRefused(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: heed\nDisallow: /\n"))
			return
		}
		w.Write([]byte("<p>page</p>"))
	}))
	defer s.Close()
	code, out, stderr := run(t, "", "crawl", s.URL+"/", "--stash", t.TempDir(), "--allow-net", "127.0.0.1/32")
	if code != 2 || out != "" || !strings.Contains(stderr, "line 2") || !strings.Contains(stderr, "--no-robots") {
		t.Errorf("refused start: exit %d, %q, %s", code, out, stderr)
	}
	code, out, _ = run(t, "", "crawl", s.URL+"/", "--stash", t.TempDir(), "--allow-net", "127.0.0.1/32", "--no-robots", "--json")
	if code != 0 || !strings.Contains(out, `"event":"stored"`) || !strings.Contains(out, `"event":"summary"`) {
		t.Errorf("--no-robots --json: exit %d\n%s", code, out)
	}
}

// TestProgressOnATerminal: on a terminal, a crawl shows a status line of
// pages done, queued and the host's delay (the site's Crawl-delay of
// 0.2 s, larger than the 20 ms asked), redrawn in place, and the skipped
// URLs above it; the line is cleared at the end.
func TestProgressOnATerminal(t *testing.T) {
	s, _ := exampleSite(t)
	var stderr strings.Builder
	p := &progress{e: &env{stdout: io.Discard, stderr: &stderr}, terminal: true, verbose: true, counts: map[crawl.Kind]int{}, reasons: map[reasonKey]int{}}
	c := &crawl.Crawler{Client: polite.New(fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}), polite.NewSchedule(), 0), Agent: "heed"}
	o := crawl.Options{Options: crawlopt.Defaults()}
	o.Start, o.Delay, o.NoSitemaps = s.URL+"/", 20*time.Millisecond, true
	if _, err := c.Crawl(t.Context(), o, p.event); err != nil {
		t.Fatal(err)
	}
	p.done()
	out := stderr.String()
	lines := strings.Split(out, "\r\033[K")
	// The last status line drawn, before done cleared it. The URL skipped
	// may be the crawl's last event: its line then stands above the status.
	last := lines[len(lines)-2]
	last = last[strings.LastIndex(last, "\n")+1:]
	if !strings.HasPrefix(last, "4 stored · 0 unchanged · 1 skipped · 0 failed · 0 queued · delay 200ms") {
		t.Errorf("last status line %q", last)
	}
	if !strings.Contains(out, "queued · delay 200ms") || !strings.Contains(out, "skipped "+s.URL+"/drafts/estuaries.html: robots") {
		t.Errorf("the status lines or the skipped URL are missing:\n%q", out)
	}
	if strings.Contains(out, "delay \r") {
		t.Errorf("a status line without the host's delay (after a URL skipped unfetched):\n%q", out)
	}
	if !strings.HasSuffix(out, "\r\033[K") {
		t.Errorf("the status line is not cleared at the end: %q", out[max(0, len(out)-80):])
	}
	if strings.Count(out, "stored ·") < 5 {
		t.Errorf("the status line was drawn %d times, want once per URL", strings.Count(out, "stored ·"))
	}
}

// A URL with credentials is refused at every door of the CLI, as a usage
// error that never repeats the password; nothing is fetched and nothing
// written. A URL over 8 KiB is refused the same way, and echoed in part.
func TestURLRefusedAtEveryDoor(t *testing.T) {
	hits := 0
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		w.Write([]byte("<p>page</p>"))
	}))
	defer s.Close()
	withCreds := strings.Replace(s.URL, "http://", "http://admin:hunter2@", 1) + "/"
	long := s.URL + "/" + strings.Repeat("x", 9000)
	stash := t.TempDir()
	config := writeFile(t, "heed.yaml", "")
	for _, u := range []string{withCreds, long} {
		for _, args := range [][]string{
			{"crawl", u},
			{"crawl", u, "--json"},
			{"fetch", u},
			{"add", u, "--kind", "website"},
			{"add", u},
		} {
			args = append(args, "--stash", stash, "--config", config, "--allow-net", "127.0.0.1/32")
			code, out, stderr := run(t, "", args...)
			if code != 2 || strings.Contains(out+stderr, "hunter2") || len(stderr) > 1000 {
				t.Errorf("heed %s %.40s: exit %d, stdout %q, stderr %.300q; want exit 2, no password, a short message", args[0], u, code, out, stderr)
			}
		}
	}
	if hits != 0 {
		t.Errorf("the site was asked %d times", hits)
	}
	filepath.WalkDir(stash, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte("hunter2")) {
				t.Errorf("%s holds the password", path)
			}
		}
		return nil
	})
	if b, err := os.ReadFile(config); err == nil && bytes.Contains(b, []byte("hunter2")) {
		t.Errorf("the config holds the password:\n%s", b)
	}
}

// Control characters in a page's title and text never reach the reader
// raw: heed search, ls, show, fetch and the crawl's own lines show them
// escaped (before, ESC retitled the terminal, cleared the screen and, by
// OSC 52, wrote the clipboard).
func TestOutputCannotAttackTheTerminal(t *testing.T) {
	evil := "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;aGk=\x07\u009b31m\u202e"
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprintf(w, `<html><head><title>Terminal %s title</title></head><body><main><h1>Terminal %s heading</h1>
<p>The terminal page says zebra %s in its text, with words enough to be content of its own.</p>
<p><a href="/x%s">a link</a></p></main></body></html>`, evil, evil, evil, "%1b%07")
		default:
			http.NotFound(w, r)
		}
	}))
	defer s.Close()
	stash := t.TempDir()
	flags := []string{"--stash", stash, "--allow-net", "127.0.0.1/32"}
	var all strings.Builder
	for _, args := range [][]string{
		{"crawl", s.URL + "/", "--no-robots", "--delay", "0s"},
		{"search", "zebra"},
		{"search", "zebra", "--json"},
		{"ls"},
		{"ls", "127.0.0.1_" + strings.Split(s.URL, ":")[2]},
		{"show", s.URL + "/"},
		{"fetch", s.URL + "/"},
	} {
		code, out, stderr := run(t, "", append(args, flags...)...)
		if code != 0 {
			t.Errorf("heed %v: exit %d, %s", args, code, stderr)
		}
		all.WriteString(out + stderr)
	}
	if !strings.Contains(all.String(), "zebra") {
		t.Fatalf("the page was not found:\n%s", all.String())
	}
	for _, bad := range []string{"\x1b", "\x07", "\u009b", "\u202e"} {
		if i := strings.Index(all.String(), bad); i >= 0 {
			t.Errorf("%q reached the output: %q", bad, all.String()[max(0, i-60):min(len(all.String()), i+60)])
		}
	}
}

// TestCrawlFailures: a crawl that could fetch nothing fails with the
// cause (exit 1): a start URL that answers 404, a host that cannot be
// reached (the cause first, and no robots.txt opt-out, which could not
// help). A robots.txt that answers 503 on a host that answers refuses
// the crawl (exit 2) and names the opt-out; a crawl that stored its start
// page but failed another succeeds.
func TestCrawlFailures(t *testing.T) {
	other := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(other.Close)
	var robots503 atomic.Bool
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			if robots503.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
			}
		case "/":
			fmt.Fprint(w, `<html><head><title>Home</title></head><body><main><p>The home page, with words enough to be content.</p><a href="/gone">gone</a></main></body></html>`)
		case "/data":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"a":1}`)
		case "/away":
			http.Redirect(w, r, other.URL+"/missing", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + l.Addr().String()
	l.Close()
	crawlArgs := func(start string, more ...string) (int, string) {
		code, out, stderr := run(t, "", append([]string{"crawl", start, "--stash", t.TempDir(), "--allow-net", "127.0.0.1/32", "--delay", "0s"}, more...)...)
		return code, out + stderr
	}
	crawl := func(start string) (int, string) { return crawlArgs(start) }
	if code, said := crawl(s.URL + "/missing"); code != ExitFailed || !strings.Contains(said, "the start URL could not be fetched: the server answered HTTP 404") {
		t.Errorf("a start URL that answers 404: exit %d\n%s", code, said)
	}
	if code, said := crawl(closed + "/"); code != ExitFailed || !strings.Contains(said, "heed: cannot reach "+l.Addr().String()+": ") || !strings.Contains(said, "connection refused") || strings.Contains(said, "no-robots") {
		t.Errorf("a host that cannot be reached: exit %d\n%s", code, said)
	}
	// Nothing kept, whatever became of the start URL, is a failure that
	// says what: a start that is not HTML, a start that redirects to
	// another origin whose page answers 404.
	if code, said := crawl(s.URL + "/data"); code != ExitFailed || !strings.Contains(said, "nothing was kept: the start URL was skipped: not-html") {
		t.Errorf("a start URL that is not HTML: exit %d\n%s", code, said)
	}
	if code, said := crawlArgs(s.URL+"/away", "--allow-host", strings.TrimPrefix(other.URL, "http://")); code != ExitFailed || !strings.Contains(said, "the start URL could not be fetched: the server answered HTTP 404") {
		t.Errorf("a start URL redirected to a 404 of another origin: exit %d\n%s", code, said)
	}
	if code, said := crawl(s.URL + "/"); code != 0 || !strings.Contains(said, "1 stored") || !strings.Contains(said, "1 failed") {
		t.Errorf("a crawl whose start page was stored: exit %d\n%s", code, said)
	}
	robots503.Store(true)
	if code, said := crawl(s.URL + "/"); code != ExitUsage || !strings.Contains(said, "HTTP 503") || !strings.Contains(said, "--no-robots") {
		t.Errorf("a robots.txt that answers 503: exit %d\n%s", code, said)
	}
}

// TestCrawlSaysWhyInBrief: a crawl prints a line per reason it skipped
// URLs for, with their count and what raises a limit, not a line per URL
// (a default crawl of a large site printed hundreds of "max_pages
// reached"); -v prints a line per URL, and the stash's log.md has them.
func TestCrawlSaysWhyInBrief(t *testing.T) {
	var links strings.Builder
	for i := range 60 {
		fmt.Fprintf(&links, `<a href="/p%d">p%d</a> `, i, i)
	}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nDisallow: /p0$\n")
			return
		}
		more := "" // only the start page links on: a page of depth 1 would race it to name them deeper
		if r.URL.Path == "/" {
			more = links.String()
		}
		fmt.Fprint(w, `<html><head><title>Page `+r.URL.Path+`</title></head><body><main><p>The page `+r.URL.Path+`, with words enough to be content.</p>`+more+`</main></body></html>`)
	}))
	t.Cleanup(s.Close)
	args := []string{"crawl", s.URL + "/", "--stash", t.TempDir(), "--allow-net", "127.0.0.1/32", "--delay", "0s", "--max-pages", "3", "--max-depth", "1"}
	code, out, stderr := run(t, "", args...)
	if code != 0 || !strings.Contains(out, "3 stored") {
		t.Fatalf("crawl: exit %d\n%s\n%s", code, out, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) > 4 || !strings.Contains(stderr, "URLs: limit: max_pages 3 reached, left uncrawled (--max-pages raises it)") ||
		!strings.Contains(stderr, "skipped 1 URL: robots: robots.txt disallows them") || strings.Contains(stderr, "/p10") {
		t.Errorf("a crawl's skips in brief: %d lines\n%s", len(lines), stderr)
	}
	code, _, stderr = run(t, "", append(args, "-v")...)
	if code != 0 || strings.Count(stderr, "max_pages 3 reached") < 50 || !strings.Contains(stderr, "/p0: robots: disallowed by line 2") {
		t.Errorf("-v lists each URL: exit %d\n%.2000s", code, stderr)
	}
	code, _, stderr = run(t, "", "crawl", s.URL+"/", "--stash", t.TempDir(), "--allow-net", "127.0.0.1/32", "--delay", "0s", "--max-depth", "0")
	if code != 0 || !strings.Contains(stderr, "deeper than max_depth 0 (--max-depth raises it)") {
		t.Errorf("--max-depth 0: exit %d\n%s", code, stderr)
	}
}
