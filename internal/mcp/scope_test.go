package mcp

import (
	"strings"
	"testing"
)

// manuals is a site of two manuals, /py/library/ and /pg/, whose pages
// link to each other's, and to the site's root.
func manuals(t *testing.T) *site {
	s := newSite(t)
	links := []string{"/py/library/os.html", "/pg/intro.html", "/"}
	s.set("/", html("Home", []string{"The home page of a site of manuals, grep me."}, links...))
	s.set("/py/library/", html("Library", []string{"The library's index, grep me."}, links...))
	s.set("/py/library/os.html", html("Os", []string{"The os module, grep me."}, links...))
	s.set("/pg/intro.html", html("Pg", []string{"The other manual, grep me."}, links...))
	return s
}

// outsideOf lists the paths a site was asked for that are not under dir,
// but its robots.txt, sitemap and llms.txt.
func outsideOf(s *site, dir string) []string {
	var out []string
	for _, h := range s.hits() {
		switch p := h.path; {
		case strings.HasPrefix(p, dir), p == "/robots.txt", p == "/sitemap.xml", p == "/llms.txt":
		default:
			out = append(out, p)
		}
	}
	return out
}

// TestCrawlToolsStayInTheDirectory: web_crawl and web_grep of
// /py/library/ fetch nothing outside it, and say their scope;
// whole_site widens them to the origin.
func TestCrawlToolsStayInTheDirectory(t *testing.T) {
	for _, tool := range []string{"web_crawl", "web_grep"} {
		args := map[string]any{"url": "", "depth": 2, "pattern": "grep me"}
		if tool == "web_crawl" {
			args = map[string]any{"url": ""}
		}
		s := manuals(t)
		cs := connect(t, newServer(t, Limits{}, loopback), nil)
		args["url"] = s.URL + "/py/library/"
		var out struct {
			Scope  string `json:"scope"`
			Stored int    `json:"stored"`
		}
		text, isErr := call(t, cs, tool, args, &out)
		if isErr {
			t.Fatalf("%s: %s", tool, text)
		}
		if o := outsideOf(s, "/py/library/"); len(o) > 0 {
			t.Errorf("%s of /py/library/ asked for %q", tool, o)
		}
		if want := s.URL + "/py/library/ and below"; out.Scope != want || !strings.Contains(text, want) {
			t.Errorf("%s: scope %q, want %q said\n%s", tool, out.Scope, want, text)
		}

		s = manuals(t)
		cs = connect(t, newServer(t, Limits{}, loopback), nil)
		args["url"], args["whole_site"] = s.URL+"/py/library/", true
		if text, isErr := call(t, cs, tool, args, &out); isErr || out.Scope != "all of "+s.URL || s.count("/pg/intro.html") != 1 || s.count("/") != 1 {
			t.Errorf("%s with whole_site: scope %q, /pg/intro.html asked %d times, / %d\n%s", tool, out.Scope, s.count("/pg/intro.html"), s.count("/"), text)
		}
	}
}
