package crawl

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/config"
	"github.com/heedhq/heed/internal/crawlopt"
)

func TestGlobBounds(t *testing.T) {
	many := make([]string, MaxGlobs+1)
	for i := range many {
		many[i] = fmt.Sprintf("/p%d/", i)
	}
	for _, c := range []struct {
		globs []string
		want  string
	}{
		{many, "at most 32"},
		{[]string{"/" + strings.Repeat("a", maxGlobLen)}, "longer than"},
		{[]string{"/a*b*c*d*e*f*g*h*i*"}, "9 wildcards"},
		{[]string{"/**a**a**a**a**a**a**a**a**b"}, "9 wildcards"},
	} {
		if _, err := globs(c.globs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("globs(%.60q): %v, want an error saying %q", c.globs, err, c.want)
		}
	}
	if _, err := globs([]string{"/docs/**", "/guide/*/intro", "/a?c"}); err != nil {
		t.Errorf("ordinary globs refused: %v", err)
	}
}

// TestSourceName: a source is named after its start URL's host, in a
// name a source may have, whatever the host.
func TestSourceName(t *testing.T) {
	for in, want := range map[string]string{
		"https://www.docs.example.com/guide/": "docs.example.com",
		"http://127.0.0.1:8080/":              "127.0.0.1_8080",
		"http://bücher.example/":              "xn--bcher-kva.example",
		"http://[::1]:8080/":                  "__1_8080",
		"not a url":                           "web",
	} {
		got := SourceName(in)
		if got != want {
			t.Errorf("SourceName(%q) = %q, want %q", in, got, want)
		}
		if !config.ValidName(got) {
			t.Errorf("SourceName(%q) = %q, not a valid source name", in, got)
		}
	}
}

// TestDir: a crawl stays within its start URL's directory, the path up
// to and including its last "/".
func TestDir(t *testing.T) {
	for in, want := range map[string]string{
		"/py/library/":     "/py/library/",
		"/doc/intro.html":  "/doc/",
		"/doc":             "/",
		"/":                "/",
		"/a/b/c?q=1":       "/a/b/",
		"/py/library/os.x": "/py/library/",
	} {
		if got := Dir(strings.SplitN(in, "?", 2)[0]); got != want {
			t.Errorf("Dir(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCrawlStaysInStartDirectory: a crawl from /py/library/ fetches no
// page outside it, whether a link, a redirect, a sitemap or llms.txt
// leads there; its first event says so. WholeSite widens it to the
// origin.
func TestCrawlStaysInStartDirectory(t *testing.T) {
	s := newSite(t)
	s.set("/py/library/", page{body: html("Library", "os.html", "../other.html", "/pg/x", "/", "old")})
	s.set("/py/library/os.html", page{body: html("Os", "/py/library/")})
	s.set("/py/library/json.html", page{body: html("Json")})
	s.set("/py/library/old", page{status: http.StatusMovedPermanently, header: map[string]string{"Location": "/pg/moved"}})
	s.set("/py/other.html", page{body: html("Other")})
	s.set("/pg/x", page{body: html("Pg")})
	s.set("/pg/moved", page{body: html("Moved")})
	s.set("/pg/y", page{body: html("Pg y")})
	s.set("/", page{body: html("Home")})
	s.set("/sitemap.xml", page{body: `<urlset><url><loc>` + s.URL + `/py/library/json.html</loc></url><url><loc>` + s.URL + `/pg/y</loc></url></urlset>`})
	s.set("/llms.txt", page{body: "# Site\n\n- [Pg](/pg/x)\n- [Re](/py/library/json.html)\n", header: map[string]string{"Content-Type": "text/plain"}})
	outside := []string{"/py/other.html", "/pg/x", "/pg/y", "/pg/moved", "/"}

	c, _ := crawler(t)
	var ev events
	sum, err := c.Crawl(t.Context(), options(s.URL+"/py/library/"), ev.add)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ev.urls(Stored), []string{s.URL + "/py/library/", s.URL + "/py/library/json.html", s.URL + "/py/library/os.html"}; !slices.Equal(got, want) {
		t.Errorf("stored %v, want %v", got, want)
	}
	for _, p := range outside {
		if slices.Contains(s.paths(), p) {
			t.Errorf("%s, outside /py/library/, was fetched (requests %q)", p, s.paths())
		}
	}
	if sum.Skipped[ReasonScope] < 4 {
		t.Errorf("%d URLs skipped for scope, want the links, the redirect and the sitemap's out of /py/library/ counted: %v", sum.Skipped[ReasonScope], sum.Skipped)
	}
	if e := ev.find(Skipped, "/py/library/old"); e == nil || e.Reason != ReasonScope || !strings.Contains(e.Detail, "outside /py/library/") {
		t.Errorf("the redirect out of /py/library/: %+v, want skipped for scope, saying so", e)
	}
	ev.mu.Lock()
	first := ev.all[0]
	ev.mu.Unlock()
	if first.Kind != Began || !first.Narrow || first.Detail != s.URL+"/py/library/ and below" {
		t.Errorf("first event %+v, want the crawl's scope, %s/py/library/ and below", first, s.URL)
	}

	c, _ = crawler(t)
	ev = events{}
	o := options(s.URL + "/py/library/")
	o.WholeSite = true
	if _, err := c.Crawl(t.Context(), o, ev.add); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/py/other.html", "/pg/x", "/pg/y", "/pg/moved", "/"} {
		if ev.find(Stored, p) == nil {
			t.Errorf("with WholeSite, %s was not stored (stored %v)", p, ev.urls(Stored))
		}
	}
	if first := ev.all[0]; first.Kind != Began || first.Narrow || first.Detail != "all of "+s.URL {
		t.Errorf("first event %+v, want the crawl's scope, all of %s", first, s.URL)
	}
}

// TestFirstRequestAfterRobotsWaits: the request after robots.txt (the
// sitemap's, or the start page's) waits for robots.txt's Crawl-delay,
// capped, as every request does; and the crawl says why it waits.
func TestFirstRequestAfterRobotsWaits(t *testing.T) {
	s := newSite(t)
	s.robots = "User-agent: *\nCrawl-delay: 30\n"
	s.set("/", page{body: html("Home")})
	s.set("/sitemap.xml", page{body: `<urlset><url><loc>` + s.URL + `/</loc></url></urlset>`})
	const capped = 1500 * time.Millisecond
	c, _ := crawler(t)
	var ev events
	o := options(s.URL + "/")
	o.Delay, o.MaxCrawlDelay, o.NoLLMsTxt = 100*time.Millisecond, capped, true
	if _, err := c.Crawl(t.Context(), o, ev.add); err != nil {
		t.Fatal(err)
	}
	hits := s.requests()
	if len(hits) != 3 || hits[0].path != "/robots.txt" {
		t.Fatalf("requests %q, want robots.txt, the sitemap and the start page", s.paths())
	}
	for i := 1; i < len(hits); i++ {
		if gap := hits[i].at.Sub(hits[i-1].at); gap < capped {
			t.Errorf("%s came %v after %s, want at least the Crawl-delay as capped, %v", hits[i].path, gap, hits[i-1].path, capped)
		}
	}
	host := strings.TrimPrefix(s.URL, "http://")
	w := ev.find(Waiting, host)
	if w == nil || !strings.Contains(w.Detail, "for "+host+": Crawl-delay 30s, capped at 1.5s") || !strings.HasPrefix(w.Detail, "waiting ") {
		t.Errorf("the wait for the host's turn: %+v, want it said with its Crawl-delay and cap", w)
	}
}

// TestLoggedEvents: the stash's log lists URLs that failed and those
// skipped for what they or their site say; those out of scope, or left
// by a limit, the deadline or an interrupt, are counted only.
func TestLoggedEvents(t *testing.T) {
	for _, c := range []struct {
		ev   Event
		want bool
	}{
		{Event{Kind: Failed, Reason: "not-found"}, true},
		{Event{Kind: Skipped, Reason: ReasonRobots}, true},
		{Event{Kind: Skipped, Reason: ReasonSignal}, true},
		{Event{Kind: Skipped, Reason: ReasonNoindex}, true},
		{Event{Kind: Skipped, Reason: ReasonScope}, false},
		{Event{Kind: Skipped, Reason: ReasonLimit}, false},
		{Event{Kind: Skipped, Reason: ReasonDeadline}, false},
		{Event{Kind: Skipped, Reason: ReasonInterrupted}, false},
		{Event{Kind: Stored}, false},
		{Event{Kind: Began}, false},
		{Event{Kind: Waiting}, false},
	} {
		if got := c.ev.Logged(); got != c.want {
			t.Errorf("%s %s: logged %v, want %v", c.ev.Kind, c.ev.Reason, got, c.want)
		}
	}
}

// TestWaitSaidOncePerHost: a host's Crawl-delay makes every request to
// it wait; the crawl says so once, not once a page, so that a crawl of
// hundreds of pages at 10 s apiece is not hundreds of lines saying the
// same.
func TestWaitSaidOncePerHost(t *testing.T) {
	s := newSite(t)
	s.robots = "User-agent: *\nCrawl-delay: 30\n"
	s.set("/", page{body: html("Home", "/a", "/b", "/c")})
	for _, p := range []string{"/a", "/b", "/c"} {
		s.set(p, page{body: html("Page " + p)})
	}
	c, _ := crawler(t)
	var ev events
	o := options(s.URL + "/")
	o.MaxCrawlDelay, o.NoSitemaps, o.NoLLMsTxt = 1200*time.Millisecond, true, true
	if _, err := c.Crawl(t.Context(), o, ev.add); err != nil {
		t.Fatal(err)
	}
	if got := len(ev.urls(Stored)); got != 4 {
		t.Fatalf("%d pages stored, want 4", got)
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	var waits []string
	for _, e := range ev.all {
		if e.Kind == Waiting {
			waits = append(waits, e.Detail)
		}
	}
	if len(waits) != 1 {
		t.Errorf("the waits said: %q, want the one host's Crawl-delay said once", waits)
	}
}

// TestScopeByThePathAsSent: the start URL's directory is the path the
// server is sent, escapes and all: a redirect to
// /py/library/%2e%2e/%2e%2e/pg/x (which a server that resolves dot
// segments serves as /pg/x) is outside /py/library/, and a crawl from
// /py%2Flibrary/ (one segment) is not one from /py/library/.
func TestScopeByThePathAsSent(t *testing.T) {
	for _, c := range []struct {
		start, u string
		in       bool
	}{
		{"https://e.com/py/library/", "https://e.com/py/library/%2e%2e/%2e%2e/pg/x", false},
		{"https://e.com/py/library/", "https://e.com/py/library/%2E%2E/pg/x", false},
		{"https://e.com/py/library/", "https://e.com/py/library/%6Fs.html", true},
		{"https://e.com/py/library/", "https://e.com/py%2Flibrary/os.html", false},
		{"https://e.com/py%2Flibrary/", "https://e.com/py/library/os.html", false},
		{"https://e.com/py%2Flibrary/", "https://e.com/py%2flibrary/os.html", true},
		{"https://e.com/a%2Fb.html", "https://e.com/c.html", true},
		{"https://e.com/~user/", "https://e.com/%7euser/x", true},
	} {
		sc, err := ScopeOf(crawlopt.Options{Start: c.start})
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(c.u)
		if err != nil {
			t.Fatal(err)
		}
		if why := sc.Check(u); (why == "") != c.in {
			t.Errorf("from %s, %s: %q, want in scope %v (scope %s)", c.start, c.u, why, c.in, sc)
		}
	}
}

// TestScopeSaysTheSlash: a start URL such as https://go.dev/doc is a
// page in / (as wget -np has it), so its crawl is the whole site; the
// scope says so, and that https://go.dev/doc/ keeps to /doc/, which is
// what a user who typed it likely meant.
func TestScopeSaysTheSlash(t *testing.T) {
	for start, want := range map[string]string{
		"https://go.dev/doc":            "all of https://go.dev (https://go.dev/doc/, with its slash, keeps to /doc/)",
		"https://go.dev/doc?x=1":        "all of https://go.dev (https://go.dev/doc/, with its slash, keeps to /doc/)",
		"https://go.dev/doc/":           "https://go.dev/doc/ and below",
		"https://go.dev/":               "all of https://go.dev",
		"https://go.dev/index.html":     "all of https://go.dev",
		"https://go.dev/doc/intro":      "https://go.dev/doc/ and below",
		"https://go.dev/doc/index.html": "https://go.dev/doc/ and below",
	} {
		sc, err := ScopeOf(crawlopt.Options{Start: start})
		if err != nil {
			t.Fatal(err)
		}
		if got := sc.String(); got != want {
			t.Errorf("scope of %s: %q, want %q", start, got, want)
		}
	}
	sc, _ := ScopeOf(crawlopt.Options{Start: "https://go.dev/doc", WholeSite: true})
	if got := sc.String(); got != "all of https://go.dev" {
		t.Errorf("scope of the whole site from /doc: %q", got)
	}
}

// TestScopeSaysAnIncludeOutsideItsDirectory: --include narrows the
// directory, never widens it; a glob that no path under the directory
// can match is said to match nothing, rather than
// leave the user to wonder why the crawl stored only its start page.
func TestScopeSaysAnIncludeOutsideItsDirectory(t *testing.T) {
	for _, c := range []struct {
		include []string
		whole   bool
		want    string
	}{
		{[]string{"/api/**"}, false, "https://e.com/docs/ and below; paths /api/** (nothing under /docs/ matches /api/**)"},
		{[]string{"/docs/v1/**", "**/*.html"}, false, "https://e.com/docs/ and below; paths /docs/v1/** **/*.html"},
		{[]string{"/do*"}, false, "https://e.com/docs/ and below; paths /do*"},
		{[]string{"api/**", "/docs/x"}, false, "https://e.com/docs/ and below; paths api/** /docs/x (nothing under /docs/ matches api/**)"},
		{[]string{"/api/**"}, true, "all of https://e.com; paths /api/**"},
	} {
		sc, err := ScopeOf(crawlopt.Options{Start: "https://e.com/docs/", Include: c.include, WholeSite: c.whole})
		if err != nil {
			t.Fatal(err)
		}
		if got := sc.String(); got != c.want {
			t.Errorf("include %q: %q, want %q", c.include, got, c.want)
		}
	}
}

// TestStartRedirectedOutOfItsDirectory: a start URL that redirects out
// of its directory (/py/library/ moved to /3/library/) keeps nothing;
// the crawl's error says where to start instead, not only that the
// target was out of scope.
func TestStartRedirectedOutOfItsDirectory(t *testing.T) {
	s := newSite(t)
	s.set("/py/library/", page{status: http.StatusMovedPermanently, header: map[string]string{"Location": "/3/library/"}})
	s.set("/3/library/", page{body: html("Library")})
	c, _ := crawler(t)
	o := options(s.URL + "/py/library/")
	o.NoSitemaps, o.NoLLMsTxt = true, true
	_, err := c.Crawl(t.Context(), o, nil)
	if err == nil || !strings.Contains(err.Error(), "crawl from "+s.URL+"/3/library/ to crawl there") {
		t.Errorf("crawl of a start URL moved out of its directory: %v, want it to say where to start", err)
	}
	if slices.Contains(s.paths(), "/3/library/") {
		t.Errorf("the redirect out of the directory was followed: %q", s.paths())
	}
}

// TestStartRedirectedToAnotherOrigin: a start URL that redirects to
// another origin (http to https, example.com to www.example.com) keeps
// nothing, the target being out of scope; the error says where to
// start instead.
func TestStartRedirectedToAnotherOrigin(t *testing.T) {
	a, b := newSite(t), newSite(t)
	a.set("/docs/", page{status: http.StatusMovedPermanently, header: map[string]string{"Location": b.URL + "/docs/"}})
	b.set("/docs/", page{body: html("Docs")})
	c, _ := crawler(t)
	o := options(a.URL + "/docs/")
	o.NoSitemaps, o.NoLLMsTxt = true, true
	_, err := c.Crawl(t.Context(), o, nil)
	if err == nil || !strings.Contains(err.Error(), "crawl from "+b.URL+"/docs/ to crawl there") {
		t.Errorf("crawl of a start URL moved to another origin: %v, want it to say where to start", err)
	}
}

// TestInterruptedWhileRobotsLoads: Ctrl-C while a host's robots.txt is
// being read leaves that host's URLs skipped as interrupted, not failed
// ("context canceled" in the summary and the stash's log).
func TestInterruptedWhileRobotsLoads(t *testing.T) {
	a := newSite(t)
	asked := make(chan struct{})
	var once sync.Once
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			once.Do(func() { close(asked) })
			<-r.Context().Done() // no answer until the crawl gives up
			return
		}
		fmt.Fprint(w, html("Page"))
	}))
	t.Cleanup(b.Close)
	a.set("/", page{body: html("Home", b.URL+"/page")})
	c, _ := crawler(t)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-asked
		cancel()
	}()
	var ev events
	o := options(a.URL + "/")
	o.AllowHosts, o.NoSitemaps, o.NoLLMsTxt = []string{strings.TrimPrefix(b.URL, "http://")}, true, true
	sum, err := c.Crawl(ctx, o, ev.add)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 {
		t.Errorf("interrupted while robots.txt loaded: %d failed (%+v), want none: the crawl stopped, nothing failed", sum.Failed, ev.all)
	}
	if e := ev.find(Skipped, b.URL+"/page"); e == nil || e.Reason != ReasonInterrupted {
		t.Errorf("the page whose robots.txt was loading: %+v, want skipped as interrupted", e)
	}
}
