package mcp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A regression test: before the fix, a redirect whose Location Go cannot read comes back to the
// agent whole, password included: web_fetch, web_crawl and web_grep.
func TestRedirectLocationNotEchoed(t *testing.T) {
	loc := "http://admin:hunter2@bad host/" + strings.Repeat("z", 300_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Location", loc)
		w.WriteHeader(http.StatusFound)
	}))
	defer srv.Close()
	s := newServer(t, Limits{MaxPages: 2}, loopback)
	cs := connect(t, s, nil)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"web_fetch", map[string]any{"url": srv.URL + "/"}},
		{"web_crawl", map[string]any{"url": srv.URL + "/"}},
		{"web_grep", map[string]any{"url": srv.URL + "/", "pattern": "x"}},
	} {
		text, _ := call(t, cs, c.tool, c.args, nil)
		if strings.Contains(text, "hunter2") || len(text) > 20_000 {
			t.Errorf("%s: %d characters, password echoed %v: %.200q", c.tool, len(text), strings.Contains(text, "hunter2"), text)
		}
	}
}
