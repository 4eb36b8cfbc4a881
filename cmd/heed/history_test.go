package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/stash"
)

// TestRecrawlKilledKeepsEveryVersion crawls a site of 311 pages, then
// changes every page and crawls it again, killed with kill -9 halfway
// and run again to its end, twice over: every page then has its three
// versions, numbered 1 to 3, each text kept and the one its edition
// served, none lost and none twice.
func TestRecrawlKilledKeepsEveryVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := build(t)
	const chapters, sections = 10, 30
	const pages = 1 + chapters + chapters*sections
	var mu sync.Mutex
	edition, asked := 1, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ed := edition
		asked++
		mu.Unlock()
		var links []string
		var ch, sec int
		switch {
		case r.URL.Path == "/robots.txt":
			http.NotFound(w, r)
			return
		case r.URL.Path == "/":
			for i := range chapters {
				links = append(links, fmt.Sprintf("/c%d/", i))
			}
		case strings.HasSuffix(r.URL.Path, "/"):
			if _, err := fmt.Sscanf(r.URL.Path, "/c%d/", &ch); err != nil {
				http.NotFound(w, r)
				return
			}
			for j := range sections {
				links = append(links, fmt.Sprintf("/c%d/s%d", ch, j))
			}
		default:
			if _, err := fmt.Sscanf(r.URL.Path, "/c%d/s%d", &ch, &sec); err != nil {
				http.NotFound(w, r)
				return
			}
		}
		fmt.Fprintf(w, "<html><head><title>Part %s</title></head><body><main><h1>Part %s</h1><p>Edition %d of the part %s of the manual, with words enough to be content.</p>", r.URL.Path, r.URL.Path, ed, r.URL.Path)
		for _, l := range links {
			fmt.Fprintf(w, `<p><a href="%s">%s</a></p>`, l, l)
		}
		fmt.Fprint(w, "</main></body></html>")
	}))
	defer srv.Close()
	dir := t.TempDir()
	env := append(os.Environ(), "HEED_CONFIG="+filepath.Join(t.TempDir(), "none.yaml"))
	args := []string{"crawl", srv.URL + "/", "--stash", dir, "--allow-net", "127.0.0.1/32", "--delay", "0s", "--max-pages", "1000", "--name", "manual"}
	crawl := func() {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("crawl: %v\n%s", err, out)
		}
	}
	crawl()
	for ed := 2; ed <= 3; ed++ {
		mu.Lock()
		edition, asked = ed, 0
		mu.Unlock()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(2 * time.Millisecond) {
			mu.Lock()
			n := asked
			mu.Unlock()
			if n >= pages/2 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatal("the crawl did not reach half of the site") // a guard against a hang, not a measure
			}
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		crawl() // resumes, to its end
	}

	st, err := stash.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	entries, err := st.List(context.Background(), "manual")
	if err != nil || len(entries) != pages {
		t.Fatalf("%d pages in the stash (%v), want %d", len(entries), err, pages)
	}
	for _, e := range entries {
		h, err := st.History(context.Background(), e.URL)
		if err != nil {
			t.Fatalf("%s: %v", e.URL, err)
		}
		if len(h.Versions) != 3 || len(h.Unreadable) > 0 {
			t.Errorf("%s: %d versions, %d unreadable entries; want 3 versions", e.URL, len(h.Versions), len(h.Unreadable))
			continue
		}
		for i, v := range h.Versions {
			text, err := st.VersionText(context.Background(), e.URL, v.N)
			if v.N != i+1 || err != nil || heed.HashOf(text) != v.Hash || !strings.Contains(text, fmt.Sprintf("Edition %d of", i+1)) {
				t.Errorf("%s: version %d (numbered %d): %v, %.60q", e.URL, i+1, v.N, err, text)
			}
		}
	}
}
