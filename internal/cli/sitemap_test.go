package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestMapCommand: heed map prints each URL with where it was found, a
// summary on standard error, and the map as JSON with --json.
func TestMapCommand(t *testing.T) {
	var s *httptest.Server
	s = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nDisallow: /docs/secret\nSitemap: %s/sm.xml\n", s.URL)
		case "/sm.xml":
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/docs/b</loc></url></urlset>`, s.URL)
		case "/docs/":
			fmt.Fprint(w, `<html><body><main><p>Docs.</p><a href="/docs/a">a</a> <a href="/docs/secret">s</a> <a href="/other/">o</a></main></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	t.Setenv("HEED_CONFIG", t.TempDir()+"/none.yaml")
	env := []string{"--allow-net", "127.0.0.0/8", "--stash", t.TempDir()}
	code, out, errOut := run(t, "", append([]string{"map", s.URL + "/docs/", "--delay", "0"}, env...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := s.URL + "/docs/\tstart\n" + s.URL + "/docs/a\tlink\n" + s.URL + "/docs/b\tsitemap\n"
	if out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	if !strings.Contains(errOut, "3 URLs") || !strings.Contains(errOut, "1 disallowed by robots.txt") || !strings.Contains(errOut, "1 out of scope") {
		t.Errorf("summary %q", errOut)
	}
	code, out, _ = run(t, "", append([]string{"map", s.URL + "/docs/", "--delay", "0", "--json", "--limit", "2"}, env...)...)
	var m struct {
		URLs []struct{ URL string }
		Cut  bool
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil || code != 0 || len(m.URLs) != 2 || !m.Cut {
		t.Errorf("--json --limit 2: exit %d, %q, %v", code, out, err)
	}
	if code, _, errOut := run(t, "", append([]string{"map", "not a url"}, env...)...); code != ExitUsage && code != ExitFailed || errOut == "" {
		t.Errorf("a bad URL: exit %d, %q", code, errOut)
	}
}
