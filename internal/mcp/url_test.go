package mcp

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A URL argument with credentials is refused by every tool, as the CLI
// refuses it, without repeating the password and without a request; a
// URL over 8 KiB is refused with a short message (a 1 MB URL came back
// as a 1,000,058-character error).
func TestURLArgumentsRefused(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Home", []string{"The home page, with words enough to be the main content of it."}))
	s := newServer(t, Limits{MaxPages: 2}, loopback)
	cs := connect(t, s, nil)
	withCreds := strings.Replace(site.URL, "http://", "http://admin:hunter2@", 1) + "/"
	huge := site.URL + "/" + strings.Repeat("x", 1<<20)
	for _, u := range []string{withCreds, huge} {
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"web_fetch", map[string]any{"url": u}},
			{"web_fetch", map[string]any{"url": u, "start_index": 5}},
			{"web_crawl", map[string]any{"url": u}},
			{"web_grep", map[string]any{"url": u, "pattern": "home"}},
			{"web_grep", map[string]any{"url": u, "pattern": "home", "depth": 1}},
			{"stash_read", map[string]any{"url_or_id": u}},
		} {
			text, isErr := call(t, cs, c.tool, c.args, nil)
			if !isErr || strings.Contains(text, "hunter2") || len(text) > 1000 {
				t.Errorf("%s of %.40s: error %v, %.300q; want an error of under 1000 characters without the password", c.tool, u, isErr, text)
			}
		}
	}
	if n := len(site.hits()); n != 0 {
		t.Errorf("the site was asked %d times", n)
	}
	filepath.WalkDir(s.svc.StashDir(), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte("hunter2")) {
				t.Errorf("%s holds the password", path)
			}
		}
		return nil
	})
}
