package main

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFullDiskReads crawls a site into a stash on a small file system
// until the disk is full, and then reads it at every door that reads:
// heed search, ls and show, and the stash tools of heed mcp. Reading a
// stash writes nothing, so what the crawl stored before the disk filled
// is found, listed and read.
func TestFullDiskReads(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system (tmpfs) to fill needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mounting a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("unmounting %s: %v: %s", dir, err, out)
		}
	})
	bin := build(t)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		if r.URL.Path != "/" {
			if _, err := fmt.Sscanf(r.URL.Path, "/p%d", &n); err != nil || n > 400 {
				http.NotFound(w, r)
				return
			}
		}
		// 30 KB of words from a small vocabulary: files that take room,
		// and an index that does not.
		b := make([]byte, 4<<10)
		rand.Read(b)
		var words strings.Builder
		for _, c := range b {
			fmt.Fprintf(&words, "w%d ", c%200)
		}
		fmt.Fprintf(w, `<html><head><title>Harbour %d</title></head><body><main><h1>Harbour %d</h1><p>Lighthouse keepers log the tides of harbour %d.</p><p>%s</p>`, n, n, n, words.String())
		if n == 0 {
			for i := 1; i <= 400; i++ {
				fmt.Fprintf(w, `<a href="/p%d">%d</a> `, i, i)
			}
		}
		fmt.Fprint(w, `</main></body></html>`)
	}))
	defer s.Close()
	stash := filepath.Join(dir, "stash")
	env := append(os.Environ(), "HEED_CONFIG="+filepath.Join(t.TempDir(), "none.yaml"))
	run := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append(args, "--stash", stash)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("crawl", s.URL+"/", "--allow-net", "127.0.0.1/32", "--delay", "0s", "--name", "site")
	if err == nil || !strings.Contains(out, "the stash could not be written") {
		t.Fatalf("the crawl did not fill the disk: %v\n%s", err, out)
	}

	if out, err := run("search", "lighthouse", "keepers"); err != nil || !strings.Contains(out, s.URL+"/") {
		t.Errorf("heed search on a full disk: %v\n%s", err, out)
	}
	if out, err := run("ls"); err != nil || !strings.Contains(out, "site") {
		t.Errorf("heed ls on a full disk: %v\n%s", err, out)
	}
	if out, err := run("ls", "site"); err != nil || !strings.Contains(out, s.URL+"/") {
		t.Errorf("heed ls site on a full disk: %v\n%s", err, out)
	}
	if out, err := run("show", s.URL+"/"); err != nil || !strings.Contains(out, "Lighthouse keepers log the tides of harbour 0") {
		t.Errorf("heed show on a full disk: %v\n%s", err, out)
	}

	cmd := exec.Command(bin, "mcp", "--stash", stash)
	cmd.Env = env
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "0"}, nil).Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"stash_search", map[string]any{"query": "lighthouse keepers"}, s.URL + "/"},
		{"stash_sources", map[string]any{}, "site"},
		{"stash_read", map[string]any{"url_or_id": s.URL + "/"}, "Lighthouse keepers log the tides of harbour 0"},
	} {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Errorf("%s: %v", c.tool, err)
			continue
		}
		var text strings.Builder
		for _, ct := range res.Content {
			if tc, ok := ct.(*sdk.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		if res.IsError || !strings.Contains(text.String(), c.want) {
			t.Errorf("%s on a full disk: %s", c.tool, text.String())
		}
	}
}

// TestCrawlThroughLink crawls into a stash whose host folder was made a
// symbolic link to a folder outside it, which holds a README.md: the
// crawl writes nothing through the link, says which pages it could not
// write, and the folder outside is as it was.
func TestCrawlThroughLink(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := build(t)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/", "/README":
			fmt.Fprintf(w, `<html><head><title>%s</title></head><body><main><h1>%s</h1><p>A page of the site, at length enough to keep.</p><a href="/README">readme</a></main></body></html>`, r.URL.Path, r.URL.Path)
		default:
			http.NotFound(w, r)
		}
	}))
	defer s.Close()
	stash, outside := t.TempDir(), t.TempDir()
	readme := filepath.Join(outside, "README.md")
	if err := os.WriteFile(readme, []byte("the project's own readme\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(s.URL, "http://")
	if err := os.MkdirAll(filepath.Join(stash, "site"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(stash, "site", strings.ReplaceAll(host, ":", "%3A"))); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "crawl", s.URL+"/", "--stash", stash, "--allow-net", "127.0.0.1/32", "--delay", "0s", "--name", "site")
	cmd.Env = append(os.Environ(), "HEED_CONFIG="+filepath.Join(t.TempDir(), "none.yaml"))
	out, _ := cmd.CombinedOutput()
	if data, err := os.ReadFile(readme); err != nil || string(data) != "the project's own readme\n" {
		t.Errorf("the crawl wrote through a link out of the stash: README.md is %q, %v\n%s", data, err, out)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("the crawl made files outside the stash: %d entries\n%s", len(entries), out)
	}
	if !strings.Contains(string(out), "failed") {
		t.Errorf("the crawl does not say it could not write the pages:\n%s", out)
	}
	if !strings.Contains(string(out), "is a symbolic link") {
		t.Errorf("the crawl does not say why it could not write the pages:\n%s", out)
	}
}
