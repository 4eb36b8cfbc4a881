package crawl

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/testutil"
)

// mdSite serves pages by path; a path with a Markdown version answers
// with it when the request's Accept names text/markdown first; a path
// of redirects answers with a redirect. Its Arrivals log every request.
type mdSite struct {
	*testutil.Arrivals
	robots    string
	html      map[string]string    // path: HTML
	md        map[string]string    // path: Markdown, negotiated
	files     map[string][2]string // path: Content-Type, body
	redirects map[string]string    // path: where it redirects
}

func newMDSite(t *testing.T) *mdSite {
	s := &mdSite{html: map[string]string{}, md: map[string]string{}, files: map[string][2]string{}, redirects: map[string]string{}}
	s.Arrivals = testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" && s.robots != "" {
			w.Write([]byte(s.robots))
			return
		}
		if to, ok := s.redirects[r.URL.Path]; ok {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		if f, ok := s.files[r.URL.Path]; ok {
			w.Header().Set("Content-Type", f[0])
			w.Write([]byte(f[1]))
			return
		}
		if md, ok := s.md[r.URL.Path]; ok && strings.HasPrefix(r.Header.Get("Accept"), "text/markdown") {
			w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
			w.Header().Set("Vary", "Accept")
			w.Write([]byte(md))
			return
		}
		if h, ok := s.html[r.URL.Path]; ok {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(h))
			return
		}
		http.NotFound(w, r)
	})
	return s
}

func (s *mdSite) paths() []string {
	var out []string
	for _, a := range s.Log() {
		out = append(out, a.Path)
	}
	return out
}

// accept is the Accept header of the last request for path.
func (s *mdSite) accept(path string) string {
	got := ""
	for _, a := range s.Log() {
		if a.Path == path {
			got = a.Header.Get("Accept")
		}
	}
	return got
}

func (s *mdSite) count(path string) int {
	n := 0
	for _, p := range s.paths() {
		if p == path {
			n++
		}
	}
	return n
}

// A site that answers Accept: text/markdown with Markdown is stored as it
// wrote it, made safe, and the snapshot says so; its links are followed.
func TestCrawlNegotiatesMarkdown(t *testing.T) {
	s := newMDSite(t)
	s.html["/"] = html("Home", "/guide")
	s.md["/"] = "---\ntitle: The home\n---\n# Home\n\nSee the [guide](/guide) and [this](javascript:alert(1)).\n\n<script>steal()</script>\n\n<img src=x onerror=alert(2)>\n"
	s.html["/guide"] = html("Guide")
	c, st := crawler(t)
	o := options(s.URL + "/")
	o.Source, o.NoSitemaps = "md", true
	if _, err := c.Crawl(t.Context(), o, nil); err != nil {
		t.Fatal(err)
	}
	if a := s.accept("/"); !strings.HasPrefix(a, "text/markdown") || !strings.Contains(a, "text/html;q=0.9") {
		t.Errorf("the page was asked for with Accept %q, want Markdown first", a)
	}
	snap, err := st.Get(t.Context(), s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Title != "The home" || !slices.Equal(snap.Via, []string{ViaMarkdown}) || !strings.Contains(snap.Markdown, "See the [guide]("+s.URL+"/guide)") {
		t.Errorf("snapshot %q via %q:\n%s", snap.Title, snap.Via, snap.Markdown)
	}
	for _, bad := range []string{"javascript:", "<script", "steal()", "<img", "onerror"} {
		if strings.Contains(snap.Markdown, bad) {
			t.Errorf("the stored Markdown keeps %q:\n%s", bad, snap.Markdown)
		}
	}
	if g, err := st.Get(t.Context(), s.URL+"/guide"); err != nil || len(g.Via) != 0 {
		t.Errorf("the linked HTML page: %v, via %q", err, g.Via)
	}
}

// A server that says text/markdown but sends an HTML document is read as
// the HTML it sent: no tag of it is stored.
func TestCrawlMarkdownTypeLie(t *testing.T) {
	s := newMDSite(t)
	s.files["/"] = [2]string{"text/markdown", "<!DOCTYPE html><html><head><title>Lie</title><script>steal()</script></head><body><main><h1>Lie</h1><p>Words of a page that said it was Markdown and was not, at some length.</p></main></body></html>"}
	c, st := crawler(t)
	o := options(s.URL + "/")
	o.Source, o.NoSitemaps = "lie", true
	if _, err := c.Crawl(t.Context(), o, nil); err != nil {
		t.Fatal(err)
	}
	snap, err := st.Get(t.Context(), s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(snap.Markdown, "<") || strings.Contains(snap.Markdown, "steal") || !strings.Contains(snap.Markdown, "Words of a page") || len(snap.Via) != 0 {
		t.Errorf("via %q:\n%s", snap.Via, snap.Markdown)
	}
}

// A page's <link rel="alternate" type="text/markdown"> is read in its
// place (served as plain text, as .md files often are), on the host's
// turn after its delay; one that robots.txt disallows, or on another
// origin, is not asked for.
func TestCrawlMarkdownAlternate(t *testing.T) {
	other := newMDSite(t)
	other.files["/x.md"] = [2]string{"text/markdown", "# Other\n"}
	s := newMDSite(t)
	s.robots = "User-agent: *\nDisallow: /secret.md\n"
	alt := func(title, href string) string {
		return strings.Replace(html(title), "</head>", `<link rel="alternate" type="text/markdown" href="`+href+`"></head>`, 1)
	}
	s.html["/"] = strings.Replace(alt("Home", "/index.md"), "</main>", `<a href="/b">b</a><a href="/c">c</a></main>`, 1)
	s.files["/index.md"] = [2]string{"text/plain; charset=utf-8", "# Home, in Markdown\n\nThe site's own words, [linked](https://example.com/x).\n"}
	s.html["/b"] = alt("B", "/secret.md")
	s.files["/secret.md"] = [2]string{"text/markdown", "# Secret\n"}
	s.html["/c"] = alt("C", other.URL+"/x.md")
	c, st := crawler(t)
	const delay = 150 * time.Millisecond
	o := options(s.URL + "/")
	o.Source, o.Delay = "alt", delay
	o.NoSitemaps, o.NoLLMsTxt = true, true
	if _, err := c.Crawl(t.Context(), o, nil); err != nil {
		t.Fatal(err)
	}
	home, err := st.Get(t.Context(), s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(home.Via, []string{ViaMarkdownAlternate}) || home.Title != "Home, in Markdown" || !strings.Contains(home.Markdown, "The site's own words") {
		t.Errorf("home via %q, title %q:\n%s", home.Via, home.Title, home.Markdown)
	}
	if _, err := st.Get(t.Context(), s.URL+"/b"); err != nil {
		t.Errorf("/b, whose alternate is disallowed, was not stored from its HTML: %v", err)
	}
	if n := s.count("/secret.md"); n != 0 {
		t.Errorf("a disallowed alternate was asked for %d times", n)
	}
	if n := other.count("/x.md"); n != 0 {
		t.Errorf("another origin's alternate was asked for %d times", n)
	}
	if s.count("/index.md") != 1 {
		t.Errorf("requests: %q", s.paths())
	}
	if a := s.accept("/index.md"); !strings.HasPrefix(a, "text/markdown") {
		t.Errorf("the alternate was asked for with Accept %q", a)
	}
	// Every request, the alternates' too, keeps the delay after the one
	// before it (robots.txt's is the first; the delay runs from its end).
	log := s.Log()
	for i := 2; i < len(log); i++ {
		if gap := log[i].At.Sub(log[i-1].At); gap < delay-10*time.Millisecond {
			t.Errorf("%s came %v after %s, less than the delay %v", log[i].Path, gap, log[i-1].Path, delay)
		}
	}
}

// The site's /llms.txt seeds the crawl: the pages it lists in scope are
// crawled though no page links them, and their snapshots say so; a site
// without one costs that one request and no other.
func TestCrawlLLMsTxt(t *testing.T) {
	s := newMDSite(t)
	s.html["/docs/"] = html("Docs")
	s.files["/llms.txt"] = [2]string{"text/plain", "# Site\n\n> For agents.\n\n## Docs\n\n- [Hidden](/docs/hidden.md): a page no link reaches\n- [Outside](/blog/post): out of scope\n- [Elsewhere](https://other.example/x)\n"}
	s.files["/docs/hidden.md"] = [2]string{"text/plain", "# Hidden\n\nOnly llms.txt lists this page.\n"}
	s.html["/blog/post"] = html("Post")
	c, st := crawler(t)
	o := options(s.URL + "/docs/")
	o.Source, o.Exclude, o.NoSitemaps = "llms", []string{"/blog/**"}, true
	if _, err := c.Crawl(t.Context(), o, nil); err != nil {
		t.Fatal(err)
	}
	snap, err := st.Get(t.Context(), s.URL+"/docs/hidden.md")
	if err != nil {
		t.Fatalf("the page llms.txt lists was not stored: %v (requests %q)", err, s.paths())
	}
	if !slices.Equal(snap.Via, []string{ViaLLMsTxt, ViaMarkdown}) || snap.Title != "Hidden" {
		t.Errorf("via %q, title %q", snap.Via, snap.Title)
	}
	if s.count("/blog/post") != 0 || s.count("/llms.txt") != 1 {
		t.Errorf("requests: %q", s.paths())
	}

	plain := newMDSite(t)
	plain.html["/"] = html("Home", "/a")
	plain.html["/a"] = html("A")
	c, _ = crawler(t)
	o = options(plain.URL + "/")
	o.Source, o.NoSitemaps = "plain", true
	if _, err := c.Crawl(t.Context(), o, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := plain.paths(), []string{"/robots.txt", "/", "/llms.txt", "/a"}; !slices.Equal(got, want) && !slices.Equal(got, []string{"/robots.txt", "/", "/a", "/llms.txt"}) {
		t.Errorf("a site that offers nothing was asked %q, want %q", got, want)
	}
}

// A site's /llms-full.txt, crawled as a source's start, is one snapshot
// of its Markdown, its links not followed.
func TestCrawlLLMsFullTxt(t *testing.T) {
	s := newMDSite(t)
	s.files["/llms-full.txt"] = [2]string{"text/plain; charset=utf-8", "# Site\n\n## Guide\n\nAll of the guide, see [a page](/a).\n\n```sh\nsite --help\n```\n"}
	s.html["/a"] = html("A")
	c, st := crawler(t)
	o := options(s.URL + "/llms-full.txt")
	o.Source, o.NoSitemaps = "full", true
	if _, err := c.Crawl(t.Context(), o, nil); err != nil {
		t.Fatal(err)
	}
	snap, err := st.Get(t.Context(), s.URL+"/llms-full.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(snap.Via, []string{ViaLLMsFullTxt}) || snap.Title != "Site" || !strings.Contains(snap.Markdown, "```sh\nsite --help\n```") {
		t.Errorf("via %q, title %q:\n%s", snap.Via, snap.Title, snap.Markdown)
	}
	if s.count("/a") != 0 {
		t.Errorf("requests: %q", s.paths())
	}
}

// An alternate's redirect answers to robots.txt as a page's does; an
// alternate that llms.txt also lists is asked for once.
func TestCrawlAlternateRedirectAndOnce(t *testing.T) {
	s := newMDSite(t)
	s.robots = "User-agent: *\nDisallow: /private/\n"
	alt := func(title, href string) string {
		return strings.Replace(html(title), "</head>", `<link rel="alternate" type="text/markdown" href="`+href+`"></head>`, 1)
	}
	s.html["/"] = strings.Replace(alt("Home", "/moved.md"), "</main>", `<a href="/b">b</a></main>`, 1)
	s.files["/private/home.md"] = [2]string{"text/markdown", "# Private\n"}
	s.html["/b"] = alt("B", "/b.md")
	s.files["/b.md"] = [2]string{"text/markdown", "# B, in Markdown\n\nThe words of b.\n"}
	s.files["/llms.txt"] = [2]string{"text/plain", "# Site\n\n- [B](/b.md)\n"}
	s.redirects["/moved.md"] = "/private/home.md"
	c, st := crawler(t)
	o := options(s.URL + "/")
	o.Source, o.NoSitemaps = "alt", true
	if _, err := c.Crawl(t.Context(), o, nil); err != nil {
		t.Fatal(err)
	}
	if n := s.count("/private/home.md"); n != 0 {
		t.Errorf("an alternate's redirect to a disallowed path was followed (%q)", s.paths())
	}
	if home, err := st.Get(t.Context(), s.URL+"/"); err != nil || len(home.Via) != 0 {
		t.Errorf("home: %v, via %q; want it read from its HTML", err, home.Via)
	}
	if n := s.count("/b.md"); n != 1 {
		t.Errorf("/b.md asked for %d times (%q)", n, s.paths())
	}
}

// llms.txt answers to robots.txt; one served as HTML seeds nothing; its
// pages are one link from the start, so max_depth 1 fetches them and no
// link of theirs.
func TestCrawlLLMsTxtRules(t *testing.T) {
	s := newMDSite(t)
	s.robots = "User-agent: *\nDisallow: /llms.txt\n"
	s.html["/"] = html("Home")
	s.files["/llms.txt"] = [2]string{"text/plain", "- [A](/a.md)\n"}
	s.files["/a.md"] = [2]string{"text/markdown", "# A\n"}
	c, _ := crawler(t)
	o := options(s.URL + "/")
	o.Source, o.NoSitemaps = "r", true
	if _, err := c.Crawl(t.Context(), o, nil); err != nil {
		t.Fatal(err)
	}
	if s.count("/llms.txt")+s.count("/a.md") != 0 {
		t.Errorf("a disallowed llms.txt was read: %q", s.paths())
	}

	h := newMDSite(t)
	h.html["/"] = html("Home")
	h.files["/llms.txt"] = [2]string{"text/html", "<!DOCTYPE html><html><body><a href=\"/a.md\">A</a></body></html>"}
	h.files["/a.md"] = [2]string{"text/markdown", "# A\n"}
	c, _ = crawler(t)
	o = options(h.URL + "/")
	o.Source, o.NoSitemaps = "h", true
	if _, err := c.Crawl(t.Context(), o, nil); err != nil {
		t.Fatal(err)
	}
	if h.count("/a.md") != 0 {
		t.Errorf("an llms.txt served as HTML seeded the crawl: %q", h.paths())
	}

	d := newMDSite(t)
	d.html["/"] = html("Home")
	d.files["/llms.txt"] = [2]string{"text/plain", "- [A](/a.md)\n"}
	d.files["/a.md"] = [2]string{"text/markdown", "# A\n\nSee [deeper](/deeper).\n"}
	d.html["/deeper"] = html("Deeper")
	c, _ = crawler(t)
	o = options(d.URL + "/")
	o.Source, o.MaxDepth, o.NoSitemaps = "d", 1, true
	if _, err := c.Crawl(t.Context(), o, nil); err != nil {
		t.Fatal(err)
	}
	if d.count("/a.md") != 1 || d.count("/deeper") != 0 {
		t.Errorf("max_depth 1: %q", d.paths())
	}
}
