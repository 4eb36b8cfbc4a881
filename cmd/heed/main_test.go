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
	"sync/atomic"
	"testing"
	"time"
)

// TestBinary builds heed and runs the README's quick-start example, so
// that the command a new user types first keeps working.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "heed")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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
	bin := filepath.Join(t.TempDir(), "heed")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
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

	// Every file is in the index and every entry has its file.
	ls := exec.Command(bin, "ls", "site", "--json", "--stash", stash)
	ls.Env = cmd.Env
	out, err := ls.Output()
	if err != nil {
		t.Fatalf("heed ls after the kill: %v", err)
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
	filepath.WalkDir(filepath.Join(stash, "site"), func(p string, d os.DirEntry, err error) error {
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
	if len(indexed) == 0 || len(indexed) > pages+1 {
		t.Errorf("%d pages indexed after the kill", len(indexed))
	}

	again := exec.Command(bin, args...)
	again.Env = cmd.Env
	out, err = again.Output()
	if err != nil || !strings.Contains(string(out), fmt.Sprintf("%d stored", pages+1-len(indexed))) {
		t.Errorf("crawling again: %v\n%s", err, out)
	}
}
