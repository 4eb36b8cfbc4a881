package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// TestMain removes the binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binary != "" {
		os.RemoveAll(filepath.Dir(binary))
	}
	os.Exit(code)
}

// build builds heed once for the tests that run it.
func build(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "heed-test-")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "heed")
		// Built as the README builds it: CGO_ENABLED=0, a static binary
		// that starts without the dynamic loader.
		cmd := exec.Command("go", "build", "-o", binary, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

// TestBinary builds heed and runs the robots check of the example
// robots.txt that the README and docs/robots.md show, with the output
// docs/robots.md gives, so that a command a new user types keeps working.
// (The README's quick start crawls go.dev; TestCrawlAndSearch in
// internal/cli runs its offline example.)
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := build(t)
	cmd := exec.Command(bin, "robots", "check", "--file", "../../examples/robots.txt",
		"https://docs.example.com/guide/install", "https://docs.example.com/forum/t/123")
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("heed robots check: got %v, want exit status 1\n%s", err, out)
	}
	want := `https://docs.example.com/guide/install: allowed: no rule matches (group "User-agent: heed, User-agent: ExampleAgent" at line 11)
https://docs.example.com/forum/t/123: disallowed by line 13 "Disallow: /forum/" (group "User-agent: heed, User-agent: ExampleAgent" at line 11)
`
	if string(out) != want {
		t.Errorf("heed robots check printed\n%s\nwant\n%s", out, want)
	}
	out, err = exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "heed ") {
		t.Errorf("heed --version: %v, %q", err, out)
	}
}

// TestKilledCrawl kills a crawl with SIGKILL half way, checks that the
// stash's files and index agree, and that crawling again finishes the job.
func TestKilledCrawl(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := build(t)
	const pages = 40
	var served atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Path, "/p/%d", &n)
		if r.URL.Path == "/" || n > 0 {
			served.Add(1)
			fmt.Fprintf(w, "<html><head><title>Page %d</title></head><body><main><h1>Page %d</h1><p>Page %d of a site that is crawled, killed and crawled again, with words enough.</p>", n, n, n)
			for i := 1; i <= pages; i++ {
				fmt.Fprintf(w, `<a href="/p/%d">p%d</a> `, i, i)
			}
			fmt.Fprint(w, "</main></body></html>")
			return
		}
		http.NotFound(w, r)
	}))
	defer s.Close()
	stash := t.TempDir()
	args := []string{"crawl", s.URL + "/", "--stash", stash, "--allow-net", "127.0.0.1/32", "--delay", "50ms", "--name", "site"}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HEED_CONFIG="+filepath.Join(t.TempDir(), "none.yaml"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for served.Load() < pages/2 {
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()

	indexed := checkStash(t, bin, cmd.Env, stash, "site")
	if len(indexed) == 0 || len(indexed) > pages+1 {
		t.Errorf("%d pages indexed after the kill", len(indexed))
	}

	again := exec.Command(bin, args...)
	again.Env = cmd.Env
	out, err := again.Output()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("%d stored", pages+1-len(indexed))) {
		t.Errorf("crawling again: %v\n%s", err, out)
	}
}

// checkStash checks that a source's files and index entries agree, and
// that no partial file is left; it returns the indexed paths.
func checkStash(t *testing.T, bin string, env []string, stash, source string) map[string]bool {
	t.Helper()
	ls := exec.Command(bin, "ls", source, "--json", "--stash", stash)
	ls.Env = env
	out, err := ls.Output()
	if err != nil {
		t.Fatalf("heed ls: %v", err)
	}
	indexed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var e struct{ Path string }
		if line == "" || json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		indexed[e.Path] = true
		if _, err := os.Stat(filepath.Join(stash, e.Path)); err != nil {
			t.Errorf("indexed %s has no file", e.Path)
		}
	}
	filepath.WalkDir(filepath.Join(stash, source), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(stash, p)
			if strings.HasSuffix(p, ".tmp") {
				t.Errorf("a partial file was left: %s", rel)
			} else if !indexed[filepath.ToSlash(rel)] {
				t.Errorf("file %s is not in the index", rel)
			}
		}
		return nil
	})
	return indexed
}

// TestFullDisk crawls with a cap on the size of any file heed writes
// (RLIMIT_FSIZE, which makes writes fail as a full disk does): pages too
// big to write fail with a clear error and stop the crawl, the pages
// stored before are intact, and the next crawl, with room, finishes the
// job.
func TestFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh for ulimit")
	}
	bin := build(t)
	var big atomic.Bool
	words := strings.Repeat("lighthouse keepers log the tides every night ", 120000) // 5.4 MB
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<html><head><title>Home</title></head><body><main><h1>Home</h1><p>The home page of a small site about harbours.</p><a href="/a">a</a> <a href="/b">b</a></main></body></html>`)
		case "/a":
			body := "Page A tells of harbour walls and the sea beyond them."
			if big.Load() {
				body = "Page A, revised at length: " + words
			}
			fmt.Fprintf(w, `<html><head><title>A</title></head><body><main><h1>A</h1><p>%s</p></main></body></html>`, body)
		case "/b":
			fmt.Fprint(w, `<html><head><title>B</title></head><body><main><h1>B</h1><p>Page B tells of quays and cranes.</p></main></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer s.Close()
	stash := t.TempDir()
	env := append(os.Environ(), "HEED_CONFIG="+filepath.Join(t.TempDir(), "none.yaml"))
	args := []string{"crawl", s.URL + "/", "--stash", stash, "--allow-net", "127.0.0.1/32", "--delay", "0s", "--name", "site"}
	first := exec.Command(bin, args...)
	first.Env = env
	if out, err := first.CombinedOutput(); err != nil || !strings.Contains(string(out), "3 stored") {
		t.Fatalf("first crawl: %v\n%s", err, out)
	}
	before := map[string][]byte{}
	for p := range checkStash(t, bin, env, stash, "site") {
		before[p], _ = os.ReadFile(filepath.Join(stash, p))
	}

	// Page A grows past what may be written: 4096 blocks of 512 bytes
	// (or 1024, as some shells count them) leave room for the index, not
	// for the page.
	big.Store(true)
	full := exec.Command("sh", append([]string{"-c", `ulimit -f 4096 && exec "$0" "$@"`, bin}, args...)...)
	full.Env = env
	var stdout, stderr strings.Builder
	full.Stdout, full.Stderr = &stdout, &stderr
	err := full.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("crawl with a full disk: %v, want exit status 1\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	if msg := stderr.String(); !strings.Contains(msg, "the stash could not be written") || !strings.Contains(msg, "file too large") || !strings.Contains(msg, "intact") {
		t.Errorf("the error does not say what failed and what is left:\n%s", msg)
	}
	after := checkStash(t, bin, env, stash, "site")
	if len(after) != len(before) {
		t.Errorf("%d snapshots after the failed crawl, want %d", len(after), len(before))
	}
	for p, data := range before {
		if now, err := os.ReadFile(filepath.Join(stash, p)); err != nil || string(now) != string(data) {
			t.Errorf("%s changed or lost by the failed crawl: %v", p, err)
		}
	}
	search := exec.Command(bin, "search", "harbour", "--stash", stash)
	search.Env = env
	if out, err := search.Output(); err != nil || !strings.Contains(string(out), s.URL+"/a") {
		t.Errorf("search after the failed crawl: %v\n%s", err, out)
	}

	// With room again, the next crawl stores the revision.
	again := exec.Command(bin, args...)
	again.Env = env
	if out, err := again.CombinedOutput(); err != nil || !strings.Contains(string(out), "1 stored") {
		t.Errorf("crawling again with room: %v\n%s", err, out)
	}
	show := exec.Command(bin, "show", s.URL+"/a", "--stash", stash)
	show.Env = env
	if out, err := show.Output(); err != nil || !strings.Contains(string(out), "revised at length") {
		t.Errorf("the revision was not stored: %v", err)
	}
}
