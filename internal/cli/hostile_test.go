package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A regression test: before the fix, a page whose redirect Location carries credentials (and is not
// a URL Go reads) has its password written to stderr, the --json events
// and the stash's log.md, and the whole Location (here 300 KB) echoed.
func TestRedirectLocationRedacted(t *testing.T) {
	loc := "http://admin:hunter2@bad host/" + strings.Repeat("z", 300_000)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Write([]byte(`<html><head><title>Home</title></head><body><main><p>Home page with words enough to be content, and a link.</p><a href="/go">go</a></main></body></html>`))
		case "/go":
			w.Header().Set("Location", loc)
			w.WriteHeader(http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer s.Close()
	stash := t.TempDir()
	for _, args := range [][]string{
		{"crawl", s.URL + "/", "--no-robots", "--delay", "0s"},
		{"crawl", s.URL + "/", "--no-robots", "--delay", "0s", "--json"},
		{"fetch", s.URL + "/go"},
	} {
		args = append(args, "--stash", stash, "--allow-net", "127.0.0.1/32")
		_, out, stderr := run(t, "", args...)
		if strings.Contains(out+stderr, "hunter2") {
			i := strings.Index(out+stderr, "hunter2")
			t.Errorf("heed %v: the password reached the output: …%s…", args[:2], (out + stderr)[max(0, i-120):i+10])
		}
		if len(out+stderr) > 20_000 {
			t.Errorf("heed %v: %d bytes of output: the Location is echoed whole", args[:2], len(out+stderr))
		}
	}
	filepath.WalkDir(stash, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte("hunter2")) {
				t.Errorf("%s holds the password (%d bytes)", filepath.Base(path), len(b))
			}
		}
		return nil
	})
}

// A regression test: before the fix, heed robots fmt prints a robots.txt's values (user-agents,
// patterns, sitemaps, other records) with their control characters raw.
func TestRobotsFmtEscapes(t *testing.T) {
	in := "User-agent: a\x1b]0;pwned\x07\nDisallow: /\x1b[2J\nSitemap: http://e.com/s\u009b31m.xml\nHost: e\x1b]52;c;aGk=\x07.com\n"
	_, out, stderr := run(t, in, "robots", "fmt", "-")
	for _, bad := range []string{"\x1b", "\x07", "\u009b"} {
		if strings.Contains(out+stderr, bad) {
			t.Errorf("%q reached the terminal: %q", bad, out+stderr)
		}
	}
}

// A regression test: before the fix, heed extract --url takes a URL with credentials, or of 1 MB,
// and prints it whole in the frontmatter.
func TestExtractURLChecked(t *testing.T) {
	page := writeFile(t, "p.html", "<html><head><title>T</title></head><body><main><p>Words enough to be the content of a page.</p></main></body></html>")
	for _, u := range []string{"http://admin:hunter2@example.com/", "http://example.com/" + strings.Repeat("x", 1<<20)} {
		code, out, stderr := run(t, "", "extract", page, "--url", u)
		if code == 0 && (strings.Contains(out, "hunter2") || len(out) > 1<<20) {
			t.Errorf("extract --url %.40s: exit 0, %d bytes of output, password %v", u, len(out), strings.Contains(out, "hunter2"))
		}
		_ = stderr
	}
}

// A regression test: before the fix, heed sync of a config whose source URL carries credentials, or
// is 1 MB long.
func TestSyncConfigURLRefused(t *testing.T) {
	for _, u := range []string{"http://admin:hunter2@127.0.0.1:1/", "http://127.0.0.1:1/" + strings.Repeat("x", 1<<20), "http://admin:hunter#2@127.0.0.1:1/"} {
		config := writeFile(t, "heed.yaml", "sources:\n  s:\n    url: \""+u+"\"\n")
		code, out, stderr := run(t, "", "sync", "--config", config, "--stash", t.TempDir(), "--allow-net", "127.0.0.1/32")
		if strings.Contains(out+stderr, "hunter") || len(out+stderr) > 2000 {
			t.Errorf("sync of %.40s: exit %d, %.300q", u, code, out+stderr)
		}
	}
}
