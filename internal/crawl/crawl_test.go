package crawl

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/memstore"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/pgtest"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/internal/stash"
	"github.com/heedhq/heed/internal/testutil"
	"github.com/heedhq/heed/robots"
)

// options are a test's crawl from start: crawlopt.Defaults, but for no
// delay between two requests to a host, which the tests that wait on
// one set.
func options(start string) Options {
	o := Options{Options: crawlopt.Defaults()}
	o.Start, o.Delay = start, 0
	return o
}

// site is a loopback web site that records every request it serves.
type site struct {
	*httptest.Server
	mu     sync.Mutex
	pages  map[string]page
	robots string // "" for a 404
	log    []hit
}

type page struct {
	body   string
	header map[string]string
	status int
	etag   string
}

type hit struct {
	path string
	at   time.Time
	cond bool // a conditional request
}

func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{pages: map[string]page{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.log = append(s.log, hit{path: r.URL.RequestURI(), at: time.Now(), cond: r.Header.Get("If-None-Match") != ""})
	p, ok := s.pages[r.URL.RequestURI()]
	robots := s.robots
	s.mu.Unlock()
	if r.URL.Path == "/robots.txt" {
		if robots == "" {
			http.NotFound(w, r)
			return
		}
		if robots == "503" {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, robots)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	for k, v := range p.header {
		w.Header().Set(k, v)
	}
	if p.etag != "" {
		w.Header().Set("ETag", p.etag)
		if r.Header.Get("If-None-Match") == p.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	if p.status != 0 {
		w.WriteHeader(p.status)
	}
	fmt.Fprint(w, p.body)
}

// html is a page with a title, a paragraph of text and links.
func html(title string, links ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<html><head><title>%s</title></head><body><main><h1>%s</h1><p>This page is about %s, and it says so at length, with enough words to be content.</p>", title, title, strings.ToLower(title))
	for _, l := range links {
		fmt.Fprintf(&b, `<p><a href="%s">%s</a></p>`, l, l)
	}
	b.WriteString("</main></body></html>")
	return b.String()
}

func (s *site) set(path string, p page) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[path] = p
}

func (s *site) requests() []hit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

func (s *site) paths() []string {
	var out []string
	for _, h := range s.requests() {
		out = append(out, h.path)
	}
	return out
}

// testStore is what the tests read of a crawl's store.
type testStore interface {
	Store
	Get(ctx context.Context, urlOrID string) (*heed.Snapshot, error)
	List(ctx context.Context, source string) ([]heed.Entry, error)
	Sources(ctx context.Context) (map[string]int, error)
	Search(ctx context.Context, q heed.Query) ([]heed.Hit, error)
	History(ctx context.Context, urlOrID string) (*heed.History, error)
}

// inMemory is set for the second run of the tests (TestMain), which
// crawls into a store in memory instead of a stash of files.
var inMemory bool

// TestMain runs every test twice: crawling into the stash of files and
// SQLite with the frontier in this process, then into a store in memory
// with another frontier, so that the crawler is seen to need of a store
// no more than Store, and of a frontier no more than Frontier.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		inMemory = true
		code = m.Run()
		inMemory = false
	}
	if code == 0 {
		// A third time into a team's database, where PostgreSQL is
		// installed: the crawl keeps its promises whatever the store.
		var err error
		if pg, err = pgtest.StartCluster(); err == nil {
			inPostgres = true
			code = m.Run()
			pg.Stop()
		} else if os.Getenv("HEED_POSTGRES") == "required" {
			fmt.Fprintln(os.Stderr, "crawl tests: PostgreSQL:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// inPostgres is set for the third run of the tests (TestMain), which
// crawls into a store of rows in PostgreSQL, a database a test.
var (
	inPostgres bool
	pg         *pgtest.Cluster
)

func crawler(t *testing.T) (*Crawler, testStore) {
	t.Helper()
	client := polite.New(fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Retries: -1}), polite.NewSchedule(), 0)
	if inPostgres {
		t.Log("crawling into a team's database")
		url := pg.Database(t)
		if _, err := pgstore.Migrate(t.Context(), url); err != nil {
			t.Fatal(err)
		}
		st, err := pgstore.Open(t.Context(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return &Crawler{Client: client, Store: st, Agent: "heed/0.1", Ledger: &ledger.Memory{}}, st
	}
	if inMemory {
		t.Log("crawling into a store in memory, with a frontier of whole URLs")
		st := &memstore.Store{}
		return &Crawler{Client: client, Store: st, Agent: "heed/0.1", NewFrontier: newExactFrontier, Ledger: &ledger.Memory{}}, st
	}
	st, err := stash.Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &Crawler{Client: client, Store: st, Agent: "heed/0.1", Ledger: st}, st
}

// events collects a crawl's events.
type events struct {
	mu  sync.Mutex
	all []Event
}

func (e *events) add(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
}

func (e *events) find(kind Kind, suffix string) *Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range e.all {
		if e.all[i].Kind == kind && strings.HasSuffix(e.all[i].URL, suffix) {
			return &e.all[i]
		}
	}
	return nil
}

func (e *events) urls(kind Kind) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.all {
		if ev.Kind == kind {
			out = append(out, ev.URL)
		}
	}
	sort.Strings(out)
	return out
}

func TestCrawlHeedsRobots(t *testing.T) {
	s := newSite(t)
	s.robots = "User-agent: *\nDisallow: /private/\nDisallow: /secret/\n\nUser-agent: heed\nDisallow: /private/\nDisallow: /secret/\nDisallow: /*.pdf$\nAllow: /private/press/\n"
	s.set("/", page{body: html("Home", "/docs", "/private/x", "/private/press/q3", "/report.pdf", "/secret", "https://elsewhere.example/")})
	s.set("/docs", page{body: html("Docs", "/")})
	s.set("/private/x", page{body: html("Private")})
	s.set("/private/press/q3", page{body: html("Press")})
	s.set("/report.pdf", page{body: "%PDF"})
	// The /secret → /secret/ redirect must not slip past Disallow: /secret/.
	s.set("/secret", page{status: http.StatusMovedPermanently, header: map[string]string{"Location": "/secret/"}})
	s.set("/secret/", page{body: html("Secret")})

	c, st := crawler(t)
	var ev events
	o := options(s.URL + "/")
	o.Source, o.NoSitemaps = "site", true
	sum, err := c.Crawl(t.Context(), o, ev.add)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ev.urls(Stored), []string{s.URL + "/", s.URL + "/docs", s.URL + "/private/press/q3"}; !slices.Equal(got, want) {
		t.Errorf("stored %v, want %v", got, want)
	}
	for _, p := range []string{"/private/x", "/report.pdf"} {
		e := ev.find(Skipped, p)
		if e == nil || e.Reason != ReasonRobots || !strings.Contains(e.Detail, "line") {
			t.Errorf("%s: got %+v, want skipped by a robots rule with its line", p, e)
		}
	}
	if e := ev.find(Skipped, "/secret"); e == nil || e.Reason != ReasonRobots || !strings.Contains(e.Detail, "redirected to") {
		t.Errorf("/secret: got %+v, want skipped after the redirect", e)
	}
	if e := ev.find(Skipped, "elsewhere.example/"); e == nil || e.Reason != ReasonScope {
		t.Errorf("another host: got %+v, want skipped for scope", e)
	}
	for _, p := range s.paths() {
		if p == "/private/x" || p == "/report.pdf" || p == "/secret/" {
			t.Errorf("%s was fetched", p)
		}
	}
	if sum.Stored != 3 || sum.Skipped[ReasonRobots] != 3 {
		t.Errorf("summary %+v", sum)
	}
	if hits, err := st.Search(t.Context(), heed.Query{Text: "press"}); err != nil || len(hits) == 0 || hits[0].Title != "Press" {
		t.Errorf("search: %v, %v", hits, err)
	}
}

func TestCrawlStartRefused(t *testing.T) {
	s := newSite(t)
	s.robots = "User-agent: *\nDisallow: /\n"
	s.set("/", page{body: html("Home")})
	c, _ := crawler(t)
	_, err := c.Crawl(t.Context(), options(s.URL+"/"), nil)
	var d *Disallowed
	if !errors.As(err, &d) || d.Decision.Allowed || d.Decision.Rule == nil || d.Decision.Rule.Line != 2 ||
		!strings.Contains(err.Error(), s.URL+"/") || !strings.Contains(err.Error(), "line 2") || strings.Contains(err.Error(), "--") {
		t.Errorf("disallowed start: %v; want the rule of line 2, and no flag named", err)
	}
	s.robots = "503"
	c, _ = crawler(t)
	_, err = c.Crawl(t.Context(), options(s.URL+"/"), nil)
	if !errors.Is(err, ErrStartRefused) || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "RFC 9309") {
		t.Errorf("unreachable robots.txt: %v", err)
	}
	for _, p := range s.paths() {
		if p == "/" {
			t.Errorf("the refused start page was fetched")
		}
	}
}

func TestCrawlNoRobots(t *testing.T) {
	s := newSite(t)
	s.robots = "User-agent: *\nDisallow: /\n"
	s.set("/", page{body: html("Home", "/a")})
	s.set("/a", page{body: html("A")})
	c, _ := crawler(t)
	var ev events
	o := options(s.URL + "/")
	o.NoRobots = true
	sum, err := c.Crawl(t.Context(), o, ev.add)
	if err != nil || sum.Stored != 2 {
		t.Fatalf("crawl without robots: %+v, %v", sum, err)
	}
	for _, p := range s.paths() {
		if p == "/robots.txt" {
			t.Errorf("%s requested with robots off", p)
		}
	}
}

func TestCrawlDelaySpacing(t *testing.T) {
	s := newSite(t)
	s.robots = "User-agent: *\nCrawl-delay: 0.3\n"
	s.set("/", page{body: html("Home", "/a", "/b", "/c")})
	for _, p := range []string{"/a", "/b", "/c"} {
		s.set(p, page{body: html(p)})
	}
	c, _ := crawler(t)
	o := options(s.URL + "/")
	o.Delay, o.NoSitemaps = 100*time.Millisecond, true
	if _, err := c.Crawl(t.Context(), o, nil); err != nil {
		t.Fatal(err)
	}
	var pages []hit
	for _, h := range s.requests() {
		if h.path != "/robots.txt" && h.path != "/llms.txt" {
			pages = append(pages, h)
		}
	}
	if len(pages) != 4 {
		t.Fatalf("%d page requests, want 4", len(pages))
	}
	// The server's log shows the robots.txt delay (larger than --delay)
	// between requests, with some slack for the request itself.
	for i := 1; i < len(pages); i++ {
		if gap := pages[i].at.Sub(pages[i-1].at); gap < 290*time.Millisecond {
			t.Errorf("request %d came %v after the one before, want at least 300ms", i, gap)
		}
	}
}

// TestCrawlDelayNeverPastDeadline: a request whose host's delay would
// end past the deadline is not waited for. (Without robots.txt, so that
// the start page is the crawl's first request: the one after robots.txt
// waits its Crawl-delay too.)
func TestCrawlDelayNeverPastDeadline(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home", "/a")})
	s.set("/a", page{body: html("A")})
	c, _ := crawler(t)
	var ev events
	begin := time.Now()
	o := options(s.URL + "/")
	o.Delay = 5 * time.Second
	o.Deadline = 500 * time.Millisecond
	o.NoRobots, o.NoSitemaps, o.NoLLMsTxt = true, true, true
	sum, err := c.Crawl(t.Context(), o, ev.add)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stored != 1 || ev.find(Skipped, "/a") == nil || ev.find(Skipped, "/a").Reason != ReasonDeadline {
		t.Errorf("summary %+v, events %+v", sum, ev.all)
	}
	if time.Since(begin) > 3*time.Second {
		t.Errorf("the crawl slept past its deadline")
	}
}

func TestCrawlPageSignals(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home", "/noindex", "/nofollow", "/header-noindex")})
	s.set("/noindex", page{body: strings.Replace(html("Hidden", "/from-noindex"), "<head>", `<head><meta name="robots" content="noindex">`, 1)})
	s.set("/from-noindex", page{body: html("Linked from noindex")})
	s.set("/nofollow", page{body: strings.Replace(html("Nofollow", "/unfollowed"), "<head>", `<head><meta name="heed" content="nofollow">`, 1)})
	s.set("/unfollowed", page{body: html("Unfollowed")})
	s.set("/header-noindex", page{body: html("Header"), header: map[string]string{"X-Robots-Tag": "heed: noindex"}})
	c, _ := crawler(t)
	var ev events
	o := options(s.URL + "/")
	o.NoSitemaps = true
	if _, err := c.Crawl(t.Context(), o, ev.add); err != nil {
		t.Fatal(err)
	}
	if got, want := ev.urls(Stored), []string{s.URL + "/", s.URL + "/from-noindex", s.URL + "/nofollow"}; !slices.Equal(got, want) {
		t.Errorf("stored %v, want %v", got, want)
	}
	for _, p := range []string{"/noindex", "/header-noindex"} {
		if e := ev.find(Skipped, p); e == nil || e.Reason != ReasonNoindex {
			t.Errorf("%s: %+v, want skipped for noindex", p, e)
		}
	}
	if slices.Contains(s.paths(), "/unfollowed") {
		t.Errorf("a nofollow page's link was followed")
	}
	// --ignore-signals stores and follows them all.
	c2, _ := crawler(t)
	o = options(s.URL + "/")
	o.IgnoreSignals, o.NoSitemaps = true, true
	sum, err := c2.Crawl(t.Context(), o, nil)
	if err != nil || sum.Stored != 6 {
		t.Errorf("ignoring signals: %+v, %v", sum, err)
	}
}

func TestCrawlContentSignal(t *testing.T) {
	s := newSite(t)
	s.robots = "User-agent: *\nContent-Signal: search=yes, ai-input=no\nAllow: /\n"
	s.set("/", page{body: html("Home", "/a", "/b")})
	c, st := crawler(t)
	var ev events
	o := options(s.URL + "/")
	o.NoSitemaps = true
	sum, err := c.Crawl(t.Context(), o, ev.add)
	if !errors.Is(err, ErrNothingKept) || !strings.Contains(err.Error(), "the start URL was skipped: signal") || sum.Stored != 0 || sum.Skipped[ReasonSignal] != 1 {
		t.Errorf("content signal: %+v, %v; want nothing kept, saying why", sum, err)
	}
	// No page is asked for that could not be stored.
	if paths := s.paths(); !slices.Equal(paths, []string{"/robots.txt"}) {
		t.Errorf("the site was asked for %v; want its robots.txt alone", paths)
	}
	if e := ev.find(Skipped, "/"); e == nil || !strings.Contains(e.Detail, "ai-input=no") {
		t.Errorf("skip event %+v", e)
	}
	if list, _ := st.List(t.Context(), ""); len(list) != 0 {
		t.Errorf("stored despite ai-input=no: %v", list)
	}
}

func TestCrawlSitemaps(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home")})
	s.set("/orphan", page{body: html("Orphan")})
	s.set("/gz-orphan", page{body: html("Gzipped orphan")})
	s.set("/outside", page{body: html("Outside")})
	s.robots = "User-agent: *\nAllow: /\nSitemap: " + "{{base}}/sitemap-index.xml\n"
	s.mu.Lock()
	s.robots = strings.ReplaceAll(s.robots, "{{base}}", s.URL)
	s.mu.Unlock()
	s.set("/sitemap-index.xml", page{body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>` + s.URL + `/pages.xml.gz</loc></sitemap></sitemapindex>`})
	var gz strings.Builder
	zw := gzip.NewWriter(&gz)
	fmt.Fprintf(zw, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/gz-orphan</loc><lastmod>2025-01-01</lastmod></url><url><loc>https://other.example/x</loc></url></urlset>`, s.URL)
	zw.Close()
	s.set("/pages.xml.gz", page{body: gz.String()})
	s.set("/sitemap.xml", page{body: `<urlset><url><loc>` + s.URL + `/orphan</loc></url></urlset>`})
	c, st := crawler(t)
	var ev events
	o := options(s.URL + "/")
	o.Include = []string{"/", "/orphan", "/gz-orphan"}
	if _, err := c.Crawl(t.Context(), o, ev.add); err != nil {
		t.Fatal(err)
	}
	if got, want := ev.urls(Stored), []string{s.URL + "/", s.URL + "/gz-orphan", s.URL + "/orphan"}; !slices.Equal(got, want) {
		t.Errorf("stored %v, want %v (sitemap pages, within scope)", got, want)
	}
	if slices.Contains(s.paths(), "/outside") {
		t.Errorf("an out-of-scope sitemap URL was fetched")
	}
	if snap, err := st.Get(t.Context(), s.URL+"/gz-orphan"); err != nil || !slices.Contains(snap.Notes, "sitemap lastmod: 2025-01-01") {
		t.Errorf("sitemap lastmod not kept: %+v, %v", snap, err)
	}
}

func TestCrawlIncremental(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home", "/a"), etag: `"h1"`})
	s.set("/a", page{body: html("A"), etag: `"a1"`})
	c, st := crawler(t)
	o := options(s.URL + "/")
	o.NoSitemaps = true
	sum, err := c.Crawl(t.Context(), o, nil)
	if err != nil || sum.Stored != 2 {
		t.Fatalf("first crawl: %+v, %v", sum, err)
	}
	fetchedAt := func() time.Time {
		list, err := st.List(t.Context(), "")
		for _, e := range list {
			if e.URL == s.URL+"/" {
				return e.FetchedAt
			}
		}
		t.Fatalf("the home page is not listed: %v", err)
		return time.Time{}
	}
	first := fetchedAt()
	time.Sleep(1100 * time.Millisecond) // a stash keeps times to the second
	// The second crawl sends conditional requests; only the changed page
	// is rewritten, and the unchanged one is marked fetched again.
	s.set("/a", page{body: html("A, revised"), etag: `"a2"`})
	before := len(s.requests())
	var ev events
	o = options(s.URL + "/")
	o.NoSitemaps = true
	sum, err = c.Crawl(t.Context(), o, ev.add)
	if err != nil || sum.Unchanged != 1 || sum.Stored != 1 {
		t.Fatalf("second crawl: %+v, %v", sum, err)
	}
	conditional := 0
	for _, h := range s.requests()[before:] {
		if h.cond {
			conditional++
		}
	}
	if conditional != 2 {
		t.Errorf("%d conditional requests, want 2", conditional)
	}
	snap, err := st.Get(t.Context(), s.URL+"/a")
	if err != nil || !strings.Contains(snap.Markdown, "revised") || snap.ETag != `"a2"` {
		t.Errorf("revised page: %+v, %v", snap, err)
	}
	if again := fetchedAt(); !again.After(first) {
		t.Errorf("the unchanged page was not marked fetched again: %v, then %v", first, again)
	}
}

func TestCrawlLimitsAndCanonical(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home", "/1", "/2", "/3", "/4", "/dup?utm=x")})
	for _, p := range []string{"/1", "/2", "/3", "/4"} {
		s.set(p, page{body: html("Page "+p, p+"/deeper")})
		s.set(p+"/deeper", page{body: html("Deeper " + p)})
	}
	s.set("/dup?utm=x", page{body: strings.Replace(html("Dup"), "<head>", `<head><link rel="canonical" href="/">`, 1)})
	c, _ := crawler(t)
	var ev events
	o := options(s.URL + "/")
	o.MaxDepth, o.NoSitemaps = 1, true
	sum, err := c.Crawl(t.Context(), o, ev.add)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stored != 5 || sum.Skipped[ReasonLimit] != 4 || sum.Skipped[ReasonDup] != 1 {
		t.Errorf("depth 1: %+v", sum)
	}
	c2, _ := crawler(t)
	o = options(s.URL + "/")
	o.MaxPages, o.NoSitemaps = 3, true
	sum, err = c2.Crawl(t.Context(), o, nil)
	if err != nil || sum.Stored != 3 || sum.Skipped[ReasonLimit] == 0 {
		t.Errorf("max 3 pages: %+v, %v", sum, err)
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"HTTP://Example.COM:80/a/./b/../c?x=1#frag": "http://example.com/a/c?x=1",
		"https://example.com":                       "https://example.com/",
		"https://example.com:443/x":                 "https://example.com/x",
		"https://example.com:8443/x":                "https://example.com:8443/x",
		"https://user:pw@example.com/x":             "https://example.com/x",
		"https://Example.com.:8443/x":               "https://example.com:8443/x",
		"https://example.com.:443/x":                "https://example.com/x",
		// A query is written as a request line may carry it, as WHATWG's
		// URL parser writes it: a space, quotes and angle brackets, controls
		// and bytes past ASCII escaped; escapes already there kept.
		"https://example.com/p?q=a b\"<c>'\u00e9%20": "https://example.com/p?q=a%20b%22%3Cc%3E%27%C3%A9%20",
	} {
		if got, err := Normalize(in); err != nil || got != want {
			t.Errorf("Normalize(%q) got %q, %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"ftp://example.com/", "/relative", "mailto:a@example.com", "http://.", "https://.:8443/x", "http://:80/"} {
		if _, err := Normalize(bad); err == nil {
			t.Errorf("Normalize(%q) did not fail", bad)
		}
	}
}

// TestLinkQueryWithSpaces: a link whose query holds a space and angle
// brackets is asked for as a browser asks for it, escaped, and stored
// under that URL; sent as it is, it made a request line the server
// refused.
func TestLinkQueryWithSpaces(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home", "/p?x=a b&y=<c>")})
	s.set("/p?x=a%20b&y=%3Cc%3E", page{body: html("Found")})
	c, _ := crawler(t)
	var ev events
	o := options(s.URL + "/")
	o.NoSitemaps = true
	if _, err := c.Crawl(t.Context(), o, ev.add); err != nil {
		t.Fatal(err)
	}
	if e := ev.find(Stored, "/p?x=a%20b&y=%3Cc%3E"); e == nil {
		t.Errorf("the page at a query with spaces was not stored: stored %v, requests %q", ev.urls(Stored), s.paths())
	}
}

func TestScopeGlobs(t *testing.T) {
	re, err := globs([]string{"/docs/**", "/blog/*/index.html", "/faq"})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		"/docs/a/b/c": true, "/docs/": true, "/documents": false, "/blog/2025/index.html": true,
		"/blog/2025/x/index.html": false, "/faq": true, "/faq/more": true, "/other": false,
	} {
		got := false
		for _, g := range re {
			got = got || g.re.MatchString(path)
		}
		if got != want {
			t.Errorf("globs match %s: got %v, want %v", path, got, want)
		}
	}
	// A URL excluded says by which glob, as the user wrote it.
	start, _ := url.Parse("https://e.com/")
	sc, err := newScope(start, Options{Options: crawlopt.Options{Exclude: []string{"/private/**"}}})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("https://e.com/private/x")
	if why := sc.check(u); why != "excluded by /private/**" {
		t.Errorf("an excluded URL: %q, want the glob the user wrote", why)
	}
}

// TestCrawlReviewFindings holds the crawler to what review found it
// getting wrong.
func TestCrawlReviewFindings(t *testing.T) {
	t.Run("encoded dot segments do not pass robots.txt", func(t *testing.T) {
		s := newSite(t)
		s.robots = "User-agent: *\nDisallow: /secret/\n"
		s.set("/", page{body: html("Home", "/pub/%2e%2e/secret/x.html", "/pub/%2E%2E/secret/y.html")})
		s.set("/secret/x.html", page{body: html("Secret")})
		c, _ := crawler(t)
		var ev events
		o := options(s.URL + "/")
		o.NoSitemaps = true
		c.Crawl(t.Context(), o, ev.add)
		for _, p := range s.paths() {
			if strings.Contains(p, "secret") || strings.Contains(p, "%2") {
				t.Errorf("%s was fetched", p)
			}
		}
		if e := ev.find(Skipped, "/secret/x.html"); e == nil || e.Reason != ReasonRobots {
			t.Errorf("the encoded path was not skipped by robots: %+v", ev.all)
		}
	})
	t.Run("the start URL is in scope whatever include says", func(t *testing.T) {
		s := newSite(t)
		s.set("/", page{body: html("Home", "/guide/a", "/blog/b")})
		s.set("/guide/a", page{body: html("A")})
		s.set("/blog/b", page{body: html("B")})
		c, _ := crawler(t)
		var ev events
		o := options(s.URL + "/")
		o.Include, o.NoSitemaps = []string{"/guide/**"}, true
		sum, _ := c.Crawl(t.Context(), o, ev.add)
		if got, want := ev.urls(Stored), []string{s.URL + "/", s.URL + "/guide/a"}; !slices.Equal(got, want) {
			t.Errorf("stored %v, want %v (%+v)", got, want, sum)
		}
	})
	t.Run("max_pages counts pages fetched, not URLs skipped", func(t *testing.T) {
		s := newSite(t)
		s.robots = "User-agent: *\nDisallow: /x\n"
		s.set("/", page{body: html("Home", "/x1", "/x2", "/x3", "/a")})
		s.set("/a", page{body: html("A")})
		c, _ := crawler(t)
		o := options(s.URL + "/")
		o.MaxPages, o.NoSitemaps = 2, true
		sum, _ := c.Crawl(t.Context(), o, nil)
		if sum.Stored != 2 || sum.Skipped[ReasonRobots] != 3 {
			t.Errorf("summary %+v, want 2 stored and 3 skipped by robots", sum)
		}
	})
	t.Run("a redirect to another host waits for that host's turn", func(t *testing.T) {
		b := newSite(t)
		b.robots = "User-agent: *\nCrawl-delay: 0.3\n"
		a := newSite(t)
		var links []string
		for i := range 3 {
			p := fmt.Sprintf("/p%d", i)
			a.set(p, page{status: http.StatusFound, header: map[string]string{"Location": b.URL + p}})
			b.set(p, page{body: html("B " + p)})
			links = append(links, p)
		}
		a.set("/", page{body: html("A", links...)})
		c, _ := crawler(t)
		bu := strings.TrimPrefix(b.URL, "http://")
		var ev events
		o := options(a.URL + "/")
		o.AllowHosts, o.NoSitemaps = []string{bu}, true
		sum, err := c.Crawl(t.Context(), o, ev.add)
		if err != nil || sum.Stored != 4 {
			t.Fatalf("summary %+v, %v", sum, err)
		}
		var hits []hit
		for _, h := range b.requests() {
			if h.path != "/robots.txt" {
				hits = append(hits, h)
			}
		}
		for i := 1; i < len(hits); i++ {
			if gap := hits[i].at.Sub(hits[i-1].at); gap < 290*time.Millisecond {
				t.Errorf("host B saw requests %v apart, want its Crawl-delay of 300ms", gap)
			}
		}
	})
	t.Run("no retries inside a host's turn", func(t *testing.T) {
		s := newSite(t)
		s.set("/", page{body: html("Home", "/flaky")})
		s.set("/flaky", page{status: http.StatusServiceUnavailable, body: "busy"})
		c, _ := crawler(t)
		c.Client = polite.New(fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}), polite.NewSchedule(), 0) // retries on by default
		o := options(s.URL + "/")
		o.NoSitemaps = true
		c.Crawl(t.Context(), o, nil)
		n := 0
		for _, p := range s.paths() {
			if p == "/flaky" {
				n++
			}
		}
		// Tried again on later turns of its host (Retry), never by the
		// client within one: the client's retries would make more.
		if n != MaxAttempts {
			t.Errorf("/flaky requested %d times, want %d, one a turn", n, MaxAttempts)
		}
	})
	t.Run("the sitemap request keeps the Crawl-delay", func(t *testing.T) {
		s := newSite(t)
		s.robots = "User-agent: *\nCrawl-delay: 0.3\n"
		s.set("/", page{body: html("Home")})
		s.set("/sitemap.xml", page{body: `<urlset><url><loc>/</loc></url></urlset>`})
		c, _ := crawler(t)
		c.Crawl(t.Context(), options(s.URL+"/"), nil)
		var hits []hit
		for _, h := range s.requests() {
			if h.path != "/robots.txt" {
				hits = append(hits, h)
			}
		}
		for i := 1; i < len(hits); i++ {
			if gap := hits[i].at.Sub(hits[i-1].at); gap < 290*time.Millisecond {
				t.Errorf("%s came %v after %s", hits[i].path, gap, hits[i-1].path)
			}
		}
	})
	t.Run("a canonical URL only seen is no duplicate", func(t *testing.T) {
		s := newSite(t)
		s.set("/", page{body: html("Home", "/a")})
		s.set("/a", page{body: strings.Replace(html("A"), "<head>", `<head><link rel="canonical" href="https://elsewhere.example/a">`, 1)})
		c, _ := crawler(t)
		o := options(s.URL + "/")
		o.NoSitemaps = true
		sum, _ := c.Crawl(t.Context(), o, nil)
		if sum.Stored != 2 {
			t.Errorf("summary %+v, want both pages stored", sum)
		}
	})
	t.Run("a polite re-crawl does not follow links stored by an impolite one", func(t *testing.T) {
		s := newSite(t)
		s.set("/", page{body: strings.Replace(html("Home", "/hidden"), "<head>", `<head><meta name="robots" content="nofollow">`, 1), etag: `"h"`})
		s.set("/hidden", page{body: html("Hidden")})
		c, _ := crawler(t)
		o := options(s.URL + "/")
		o.IgnoreSignals, o.NoSitemaps = true, true
		c.Crawl(t.Context(), o, nil)
		before := len(s.requests())
		o = options(s.URL + "/")
		o.NoSitemaps = true
		c.Crawl(t.Context(), o, nil)
		for _, h := range s.requests()[before:] {
			if h.path == "/hidden" {
				t.Errorf("the polite re-crawl followed a nofollow page's link")
			}
		}
	})
	t.Run("a shared crawler's robots.txt requests keep the host's turn", func(t *testing.T) {
		s := newSite(t)
		s.robots = "User-agent: *\nAllow: /\n"
		var inFlight, most atomic.Int32
		slow := s.Config.Handler
		s.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
			slow.ServeHTTP(w, r)
		})
		for i := range 5 {
			s.set(fmt.Sprintf("/%d", i), page{body: html(fmt.Sprint(i))})
		}
		s.set("/", page{body: html("Home", "/0", "/1", "/2", "/3", "/4")})
		c, _ := crawler(t) // its client's turns are shared by its crawls
		var wg sync.WaitGroup
		for range 2 {
			o := options(s.URL + "/")
			o.NoSitemaps = true
			wg.Go(func() { c.Crawl(t.Context(), o, nil) })
		}
		wg.Wait()
		if m := most.Load(); m > 1 {
			t.Errorf("the host had %d requests at once, want 1", m)
		}
	})
}

func TestCrawlUnderANewSourceName(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home", "/a"), etag: `"h"`})
	s.set("/a", page{body: html("A"), etag: `"a"`})
	c, st := crawler(t)
	o := options(s.URL + "/")
	o.Source, o.NoSitemaps = "first", true
	c.Crawl(t.Context(), o, nil)
	o = options(s.URL + "/")
	o.Source, o.NoSitemaps = "second", true
	sum, err := c.Crawl(t.Context(), o, nil)
	// Stored under the second source: new to it.
	if err != nil || sum.Stored != 2 || sum.New != 2 {
		t.Errorf("second source: %+v, %v; want both pages stored under it, new to it", sum, err)
	}
	if list, _ := st.List(t.Context(), "second"); len(list) != 2 {
		t.Errorf("second source lists %d pages", len(list))
	}
}

// TestCrawlPageHook: Options.Page sees the pages a crawl keeps, and no
// others; without a stash nothing is written, and the pages still count.
func TestCrawlPageHook(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home", "/kept", "/noindex")})
	s.set("/kept", page{body: html("Kept")})
	s.set("/noindex", page{body: strings.Replace(html("Hidden"), "<head>", `<head><meta name="robots" content="noindex">`, 1)})
	c, st := crawler(t)
	c.Store = nil
	var mu sync.Mutex
	seen := map[string]string{}
	o := options(s.URL + "/")
	o.NoSitemaps = true
	o.Page = func(u string, doc *extract.Document) {
		mu.Lock()
		defer mu.Unlock()
		seen[u] = doc.Title
	}
	sum, err := c.Crawl(t.Context(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{s.URL + "/": "Home", s.URL + "/kept": "Kept"}
	if !maps.Equal(seen, want) || sum.Stored != 2 || sum.Skipped[ReasonNoindex] != 1 {
		t.Errorf("Page saw %v (summary %+v), want %v", seen, sum, want)
	}
	if srcs, _ := st.Sources(t.Context()); len(srcs) != 0 {
		t.Errorf("a crawl without a stash wrote to one: %v", srcs)
	}
}

// TestOnePageThatCannotBeStored: a page whose file cannot be written (a
// file stands where its folder must go) fails alone; the crawl goes on.
// A URL too long to keep is out of scope.
func TestOnePageThatCannotBeStored(t *testing.T) {
	s := newSite(t)
	long := "/" + strings.Repeat(strings.Repeat("x", 90)+"/", 50) + "page"
	s.set("/", page{body: html("Home", "/sub/page", "/b", long)})
	s.set("/sub/page", page{body: html("Sub", "/c")})
	s.set("/b", page{body: html("B", "/c")})
	s.set("/c", page{body: html("C")})
	c, store := crawler(t)
	st, ok := store.(*stash.Stash)
	if !ok {
		t.Skip("a page that cannot be stored is a file's failure: the store in memory has none")
	}
	u, _ := url.Parse(s.URL)
	p, err := stash.PathFor(u.Host, s.URL+"/sub/page")
	if err != nil {
		t.Fatal(err)
	}
	blocker := filepath.Join(st.Dir(), filepath.Dir(filepath.FromSlash(p)))
	if err := os.MkdirAll(filepath.Dir(blocker), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blocker, []byte("a file where a folder must go"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ev events
	o := options(s.URL + "/")
	o.NoSitemaps = true
	sum, err := c.Crawl(t.Context(), o, ev.add)
	if err != nil {
		t.Fatalf("crawl: %v", err)
	}
	if sum.Stored != 3 || sum.Failed != 1 || ev.find(Failed, "/sub/page") == nil {
		t.Errorf("summary %+v; want /, /b and /c stored and /sub/page failed", sum)
	}
	if e := ev.find(Skipped, long); e == nil || e.Reason != ReasonScope {
		t.Errorf("a URL too long: %+v", e)
	}
	if slices.Contains(s.paths(), long) {
		t.Errorf("a URL too long was fetched")
	}
}

// TestSitemapLimits: a child sitemap's relative URL is resolved against
// its index; a crawl of the start URL alone reads no sitemap; and a crawl
// whose queue holds max_pages URLs reads no more of them.
func TestSitemapLimits(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home")})
	s.set("/deep/child.xml", page{body: `<urlset><url><loc>` + "/orphan" + `</loc></url></urlset>`})
	s.set("/deep/index.xml", page{body: `<sitemapindex><sitemap><loc>child.xml</loc></sitemap></sitemapindex>`})
	s.set("/orphan", page{body: html("Orphan")})
	s.mu.Lock()
	s.robots = "User-agent: *\nAllow: /\nSitemap: " + s.URL + "/deep/index.xml\n"
	s.mu.Unlock()
	for i := range 5 {
		s.set(fmt.Sprintf("/more%d.xml", i), page{body: fmt.Sprintf(`<urlset><url><loc>%s/m%d</loc></url></urlset>`, s.URL, i)})
	}
	var more strings.Builder
	for i := range 5 {
		fmt.Fprintf(&more, `<sitemap><loc>%s/more%d.xml</loc></sitemap>`, s.URL, i)
	}
	s.set("/sitemap.xml", page{body: `<sitemapindex>` + more.String() + `</sitemapindex>`})

	c, _ := crawler(t)
	var ev events
	if _, err := c.Crawl(t.Context(), options(s.URL+"/"), ev.add); err != nil {
		t.Fatal(err)
	}
	if ev.find(Stored, "/orphan") == nil {
		t.Errorf("the page of a relative child sitemap was not found: requests %v", s.paths())
	}

	before := len(s.requests())
	c, _ = crawler(t)
	o := options(s.URL + "/")
	o.MaxDepth = 0
	if _, err := c.Crawl(t.Context(), o, nil); err != nil {
		t.Fatal(err)
	}
	for _, h := range s.requests()[before:] {
		if strings.HasSuffix(h.path, ".xml") {
			t.Errorf("a crawl of the start URL alone read %s", h.path)
		}
	}

	before = len(s.requests())
	c, _ = crawler(t)
	o = options(s.URL + "/")
	o.MaxPages = 2
	if _, err := c.Crawl(t.Context(), o, nil); err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, h := range s.requests()[before:] {
		if strings.HasPrefix(h.path, "/more") {
			read++
		}
	}
	if read > 1 {
		t.Errorf("%d more sitemaps read for a crawl of 2 pages whose queue was full", read)
	}
}

// A redirect from http to https on the same host is queued, as one to
// another host is: the https origin's robots.txt is asked before its
// turn, never by a request that holds the host's turn (whose load would
// wait for that turn until the deadline).
func TestRedirectToAnotherSchemeOnTheSameHost(t *testing.T) {
	s := newSite(t)
	https := strings.Replace(s.URL, "http://", "https://", 1)
	s.robots = "User-agent: *\nAllow: /\n"
	s.set("/", page{body: html("Home", "/moved")})
	s.set("/moved", page{status: http.StatusMovedPermanently, header: map[string]string{"Location": https + "/moved"}})
	c, _ := crawler(t)
	var ev events
	// The host is allowed, so its https origin is in scope too.
	host := strings.TrimPrefix(s.URL, "http://")
	o := options(s.URL + "/")
	o.MaxPages, o.Deadline = 3, 10*time.Second
	o.AllowHosts = []string{host}
	o.NoSitemaps = true
	sum, err := c.Crawl(t.Context(), o, ev.add)
	if err != nil {
		t.Fatal(err)
	}
	queued := ev.find(Skipped, s.URL+"/moved")
	if queued == nil || queued.Reason != ReasonRedirect || !strings.Contains(queued.Detail, "queued") {
		t.Errorf("want /moved's redirect to https queued: %+v", ev.all)
	}
	// The https robots.txt cannot be read from a plain server: the https
	// URL is refused for it, and nothing waits for the deadline.
	target := ev.find(Skipped, https+"/moved")
	if sum.Stored != 1 || target == nil || target.Reason != ReasonRobots || !strings.Contains(target.Detail, "unreachable") {
		t.Errorf("want the home page stored and %s/moved refused by its robots.txt: %+v\n%+v", https, sum, ev.all)
	}
	for _, e := range ev.all {
		if strings.Contains(e.Detail, "deadline") {
			t.Errorf("the crawl waited for its deadline: %+v", e)
		}
	}
}

// A redirect queued for another origin was a request: it counts against
// max_pages, and its target's request does too. With max_pages 3, the
// home page, the redirect and its target are fetched; with 2, the target
// is left for the limit.
func TestQueuedRedirectCounts(t *testing.T) {
	a, b := newSite(t), newSite(t)
	a.set("/", page{body: html("Home", "/moved")})
	a.set("/moved", page{status: http.StatusMovedPermanently, header: map[string]string{"Location": b.URL + "/page"}})
	b.set("/page", page{body: html("Page")})
	c, _ := crawler(t)
	var ev events
	o := options(a.URL + "/")
	o.MaxPages, o.AllowHosts, o.NoSitemaps = 3, []string{strings.TrimPrefix(b.URL, "http://")}, true
	sum, err := c.Crawl(t.Context(), o, ev.add)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stored != 2 || ev.find(Stored, b.URL+"/page") == nil {
		t.Errorf("want the home page and the redirect's target stored within max_pages 3: %+v\n%+v", sum, ev.all)
	}
	c, _ = crawler(t)
	ev = events{}
	o = options(a.URL + "/")
	o.MaxPages, o.AllowHosts, o.NoSitemaps = 2, []string{strings.TrimPrefix(b.URL, "http://")}, true
	sum, err = c.Crawl(t.Context(), o, ev.add)
	if err != nil {
		t.Fatal(err)
	}
	if e := ev.find(Skipped, b.URL+"/page"); sum.Stored != 1 || e == nil || e.Reason != ReasonLimit {
		t.Errorf("want the redirect's target left for max_pages 2: %+v\n%+v", sum, ev.all)
	}
}

// A redirect on the origin is judged by the robots.txt read before the
// request's turn, even when the cache's copy expires meanwhile: loading it
// again on the turn would wait for the turn until the deadline.
func TestRedirectWhileRobotsExpire(t *testing.T) {
	s := newSite(t)
	s.robots = "User-agent: *\nAllow: /\n"
	s.set("/", page{body: html("Home", "/a")})
	s.set("/a", page{status: http.StatusMovedPermanently, header: map[string]string{"Location": s.URL + "/b"}})
	s.set("/b", page{body: html("B")})
	c, _ := crawler(t)
	var hours atomic.Int64
	clock := func() time.Time { return time.Unix(0, 0).Add(time.Duration(hours.Add(25)) * time.Hour) } // every copy is stale when next asked
	c.Robots = robots.NewCache(c.Client.LoadRobots, robots.CacheConfig{Now: clock})
	var ev events
	o := options(s.URL + "/")
	o.MaxPages, o.Deadline, o.NoSitemaps = 10, 10*time.Second, true
	sum, err := c.Crawl(t.Context(), o, ev.add)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stored != 2 || ev.find(Stored, s.URL+"/b") == nil {
		t.Errorf("want / and /b stored: %+v\n%+v", sum, ev.all)
	}
	for _, e := range ev.all {
		if strings.Contains(e.Detail, "deadline") {
			t.Errorf("the crawl waited for its deadline: %+v", e)
		}
	}
}

// TestHostsCrawledAtOnce: different hosts are crawled at the same time,
// as many as Options.Hosts, each still one request at a time.
func TestHostsCrawledAtOnce(t *testing.T) {
	for _, hosts := range []int{1, 2} {
		t.Run(fmt.Sprint(hosts), func(t *testing.T) {
			var inFlight, most atomic.Int32
			var sites []*site
			var links, allow []string
			for h := range 3 {
				s := newSite(t)
				var own atomic.Int32
				serve := s.Config.Handler
				s.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path != "/robots.txt" {
						if n := own.Add(1); n > 1 {
							t.Errorf("host %d had %d requests at once", h, n)
						}
						defer own.Add(-1)
						n := inFlight.Add(1)
						defer inFlight.Add(-1)
						for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
						}
						time.Sleep(30 * time.Millisecond)
					}
					serve.ServeHTTP(w, r)
				})
				for i := range 3 {
					p := fmt.Sprintf("/%d", i)
					s.set(p, page{body: html(fmt.Sprintf("Host %d page %d", h, i))})
					links = append(links, s.URL+p)
				}
				sites = append(sites, s)
				allow = append(allow, strings.TrimPrefix(s.URL, "http://"))
			}
			sites[0].set("/", page{body: html("Home", links...)})
			c, _ := crawler(t)
			o := options(sites[0].URL + "/")
			o.AllowHosts, o.Hosts, o.NoSitemaps = allow, hosts, true
			sum, err := c.Crawl(t.Context(), o, nil)
			if err != nil || sum.Stored != 10 {
				t.Fatalf("summary %+v, %v", sum, err)
			}
			if m := most.Load(); int(m) != hosts {
				t.Errorf("at most %d requests at once across the hosts, want %d (Hosts)", m, hosts)
			}
		})
	}
}

// TestCrawlDelayRule: the delay between two requests to a host is the
// larger of the configured delay and the robots.txt Crawl-delay, the
// Crawl-delay capped at MaxCrawlDelay; there is none before the first
// request to the host (its robots.txt).
func TestCrawlDelayRule(t *testing.T) {
	for _, tc := range []struct {
		name       string
		crawlDelay string
		delay, max time.Duration
		want       time.Duration
	}{
		{"a Crawl-delay over the cap waits the cap", "100", 0, 200 * time.Millisecond, 200 * time.Millisecond},
		{"a configured delay over the Crawl-delay wins", "0.05", 250 * time.Millisecond, 0, 250 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t)
			s.robots = "User-agent: *\nCrawl-delay: " + tc.crawlDelay + "\n"
			s.set("/", page{body: html("Home", "/a", "/b")})
			s.set("/a", page{body: html("A")})
			s.set("/b", page{body: html("B")})
			c, _ := crawler(t)
			start := time.Now()
			o := options(s.URL + "/")
			o.Delay = tc.delay
			o.Deadline = 5 * time.Second
			o.MaxCrawlDelay, o.NoSitemaps = tc.max, true
			if _, err := c.Crawl(t.Context(), o, nil); err != nil {
				t.Fatal(err)
			}
			all := s.requests()
			var pages []hit
			for _, h := range all {
				if h.path != "/robots.txt" && h.path != "/llms.txt" {
					pages = append(pages, h)
				}
			}
			if len(pages) != 3 {
				t.Fatalf("%d page requests, want 3", len(pages))
			}
			if first := all[0].at.Sub(start); first >= tc.want {
				t.Errorf("the first request (%s) came %v after the start, want no delay before it", all[0].path, first)
			}
			for i := 1; i < len(pages); i++ {
				if gap := pages[i].at.Sub(pages[i-1].at); gap < tc.want-10*time.Millisecond || gap > tc.want+time.Second {
					t.Errorf("request %d came %v after the one before, want about %v", i, gap, tc.want)
				}
			}
		})
	}
}

// hostileLoc is a sitemap whose one <loc> is n bytes of text, each cut
// from the next by an empty comment: a reader that appends each piece of
// text to what it has copies n²/2 bytes.
func hostileLoc(n int) string {
	return "<urlset><url><loc>" + strings.Repeat("a<!---->", n) + "</loc></url><url><loc>/after</loc></url></urlset>"
}

// A sitemap's reading is linear in its size: a <loc> of a million pieces
// of text costs what its bytes do, not the square of them; and it stops
// at the crawl's context.
func TestSitemapReadingIsLinear(t *testing.T) {
	for _, n := range []int{1 << 17, 1 << 19} {
		body := []byte(hostileLoc(n))
		var got []sitemapEntry
		alloc := testutil.Allocated(func() {
			err := readSitemap(t.Context(), body, func(e sitemapEntry) bool { got = append(got, e); return true })
			if err != nil {
				t.Fatal(err)
			}
		})
		// The over-long <loc> is dropped (no URL is that long); the next
		// one is read.
		if len(got) != 1 || got[0].Loc != "/after" {
			t.Errorf("%d pieces: entries %+v, want only /after", n, got)
		}
		if alloc > uint64(len(body))+1<<20 {
			t.Errorf("reading a %d-byte sitemap allocated %d bytes", len(body), alloc)
		}
	}

	// A cancelled crawl stops the reading: of a million entries, it reads
	// at most the few before its first look at the context.
	var many strings.Builder
	for i := range 1_000_000 {
		fmt.Fprintf(&many, "<url><loc>/p%d</loc></url>", i)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	n := 0
	err := readSitemap(ctx, []byte("<urlset>"+many.String()+"</urlset>"), func(sitemapEntry) bool { n++; return true })
	if !errors.Is(err, context.Canceled) || n > 1000 {
		t.Errorf("a cancelled reading read %d entries and returned %v", n, err)
	}
}

// The same through a crawl: the hostile sitemap of TestSitemapReadingIsLinear,
// 4 MB, costs a crawl about its size (before, it kept a crawl with a
// deadline of 3 s busy for half a minute).
func TestCrawlHostileSitemap(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home")})
	s.set("/after", page{body: html("After")})
	body := hostileLoc(1 << 19)
	s.set("/sitemap.xml", page{body: body})
	c, _ := crawler(t)
	var ev events
	alloc := testutil.Allocated(func() {
		o := options(s.URL + "/")
		o.Deadline = time.Minute
		if _, err := c.Crawl(t.Context(), o, ev.add); err != nil {
			t.Fatal(err)
		}
	})
	if ev.find(Stored, "/after") == nil {
		t.Errorf("the sitemap's page after the hostile <loc> was not crawled: %+v", ev.all)
	}
	if alloc > 4*uint64(len(body))+64<<20 {
		t.Errorf("a crawl with a %d-byte sitemap allocated %d bytes", len(body), alloc)
	}
}

// A crawl reads of its sitemaps what it can use: once as many URLs as
// max_pages are queued, it stops, and says how many sitemaps it left;
// URLs of sitemaps out of scope are counted, not listed or kept.
func TestSitemapsReadNoMoreThanNeeded(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home")})
	var lines strings.Builder
	for i := range 3 {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		fmt.Fprint(zw, "<urlset>")
		for j := range 100_000 {
			fmt.Fprintf(zw, "<url><loc>%s/s%d/p%d</loc></url>", s.URL, i, j)
		}
		fmt.Fprint(zw, "</urlset>")
		zw.Close()
		s.set(fmt.Sprintf("/s%d.xml.gz", i), page{body: gz.String()})
		fmt.Fprintf(&lines, "Sitemap: %s/s%d.xml.gz\n", s.URL, i)
	}
	var out strings.Builder
	out.WriteString("<urlset>")
	for j := range 100_000 {
		fmt.Fprintf(&out, "<url><loc>https://elsewhere.example/p%d</loc></url>", j)
	}
	out.WriteString("</urlset>")
	s.set("/sitemap.xml", page{body: out.String()})
	s.mu.Lock()
	s.robots = "User-agent: *\nAllow: /\n" + lines.String()
	s.mu.Unlock()

	c, _ := crawler(t)
	var ev events
	o := options(s.URL + "/")
	o.MaxPages = 5
	sum, err := c.Crawl(t.Context(), o, ev.add)
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, p := range s.paths() {
		if strings.HasPrefix(p, "/s") && strings.HasSuffix(p, ".xml.gz") {
			read++
		}
	}
	if read != 1 || sum.Left.Sitemaps != 3 || !strings.Contains(sum.Text(), "3 sitemaps not read to their end") {
		t.Errorf("read %d sitemaps, left %d; want 1 read, and it and the 2 others left", read, sum.Left.Sitemaps)
	}
	if n := len(ev.all); n > 20 {
		t.Errorf("a crawl of 5 pages reported %d URLs", n)
	}

	// The out-of-scope sitemap alone: the 50,000 URLs a sitemap may list
	// are counted as skipped for scope, none reported one by one, and the
	// file is left unread past them.
	s.mu.Lock()
	s.robots = "User-agent: *\nAllow: /\n"
	s.mu.Unlock()
	c, _ = crawler(t)
	ev = events{}
	o = options(s.URL + "/")
	o.MaxPages = 5
	sum, err = c.Crawl(t.Context(), o, ev.add)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped[ReasonScope] != maxSitemapURLs || len(ev.all) > 2 || sum.Left.Sitemaps != 1 {
		t.Errorf("skipped %v with %d events, left %+v; want 50000 for scope, no event each, one sitemap left", sum.Skipped, len(ev.all), sum.Left)
	}
}

// Every request of a crawl counts against max_pages, a redirect's too:
// two hosts that redirect to each other with fresh URLs get no more
// requests than max_pages (before, thousands in a few seconds).
func TestRedirectsCountAgainstMaxPages(t *testing.T) {
	var a, b *httptest.Server
	var requests atomic.Int64
	bounce := func(other **httptest.Server) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/robots.txt" || r.URL.Path == "/sitemap.xml" {
				http.NotFound(w, r)
				return
			}
			n := requests.Add(1)
			http.Redirect(w, r, fmt.Sprintf("%s/hop%d", (*other).URL, n), http.StatusFound)
		}
	}
	a = httptest.NewServer(bounce(&b))
	defer a.Close()
	b = httptest.NewServer(bounce(&a))
	defer b.Close()
	c, _ := crawler(t)
	o := options(a.URL + "/")
	o.MaxPages, o.Deadline, o.AllowHosts = 5, 5*time.Second, []string{strings.TrimPrefix(b.URL, "http://")}
	sum, err := c.Crawl(t.Context(), o, nil)
	if !errors.Is(err, ErrNothingKept) { // a chain of redirects keeps no page
		t.Fatal(err)
	}
	if n := requests.Load(); n > 5 {
		t.Errorf("%d page requests under max_pages 5: %+v", n, sum)
	}

	// A redirect followed on the same host counts too: a chain of hops
	// stops at the limit.
	requests.Store(0)
	same := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" || r.URL.Path == "/sitemap.xml" {
			http.NotFound(w, r)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop%d", requests.Add(1)), http.StatusFound)
	}))
	defer same.Close()
	c, _ = crawler(t)
	o = options(same.URL + "/")
	o.MaxPages, o.Deadline = 3, 5*time.Second
	if _, err := c.Crawl(t.Context(), o, nil); !errors.Is(err, ErrNothingKept) {
		t.Fatal(err)
	}
	if n := requests.Load(); n > 3 {
		t.Errorf("%d requests along a redirect chain under max_pages 3", n)
	}
}

// exactFrontier is a Frontier of whole URLs, as a database keeps them,
// for the second run of the tests.
type exactFrontier struct {
	seen   map[string]bool
	max    int
	queues map[string][]Item
}

func newExactFrontier(maxPages int) Frontier {
	return &exactFrontier{seen: map[string]bool{}, max: max(200*maxPages, 100_000), queues: map[string][]Item{}}
}

func (f *exactFrontier) Seen(url string) bool      { return f.seen[url] }
func (f *exactFrontier) Mark(url string)           { f.seen[url] = true }
func (f *exactFrontier) Room() bool                { return len(f.seen) < f.max }
func (f *exactFrontier) Push(host string, it Item) { f.queues[host] = append(f.queues[host], it) }
func (f *exactFrontier) Pop(host string) (Item, bool) {
	q := f.queues[host]
	if len(q) == 0 {
		return Item{}, false
	}
	f.queues[host] = q[1:]
	return q[0], true
}

// TestStopReasons: URLs left when the crawl's caller cancelled it are
// skipped as "interrupted", and those left when its deadline came as
// "deadline".
func TestStopReasons(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home", "/a", "/b", "/c", "/d")})
	for _, p := range []string{"/a", "/b", "/c", "/d"} {
		s.set(p, page{body: html("Page")})
	}
	for _, c := range []struct {
		name   string
		ctx    func() (context.Context, context.CancelFunc)
		reason string
	}{
		{"cancelled", func() (context.Context, context.CancelFunc) { return context.WithCancel(t.Context()) }, ReasonInterrupted},
		{"deadline", func() (context.Context, context.CancelFunc) { return t.Context(), func() {} }, ReasonDeadline},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := c.ctx()
			defer cancel()
			c2, _ := crawler(t)
			var ev events
			o := options(s.URL + "/")
			o.Delay, o.NoSitemaps = 300*time.Millisecond, true
			if c.reason == ReasonDeadline {
				o.Deadline = 500 * time.Millisecond
			}
			_, err := c2.Crawl(ctx, o, func(e Event) {
				ev.add(e)
				if e.Kind == Stored && e.URL == s.URL+"/" {
					cancel()
				}
			})
			if err != nil && !errors.Is(err, ErrStartFailed) {
				t.Fatal(err)
			}
			n := 0
			for _, e := range ev.all {
				if e.Kind == Skipped {
					n++
					if e.Reason != c.reason {
						t.Errorf("%s skipped as %q: %s; want %q", e.URL, e.Reason, e.Detail, c.reason)
					}
				}
			}
			if n == 0 {
				t.Errorf("nothing was left: %+v", ev.all)
			}
		})
	}
}

// TestOnePageOneSnapshot: / and /index.html serving the same page are
// one snapshot, the first fetched; a page of other content is its own.
func TestOnePageOneSnapshot(t *testing.T) {
	s := newSite(t)
	home := strings.Replace(html("Home", "/index.html", "/other"), "</h1>", "</h1><p>"+strings.Repeat("The harbour's tide tables, and what they say of the moon. ", 5)+"</p>", 1)
	s.set("/", page{body: home})
	s.set("/index.html", page{body: home})
	s.set("/other", page{body: html("Other")})
	c, st := crawler(t)
	var ev events
	o := options(s.URL + "/")
	o.NoSitemaps = true
	sum, err := c.Crawl(t.Context(), o, ev.add)
	if err != nil || sum.Stored != 2 || sum.Skipped[ReasonDup] != 1 {
		t.Fatalf("a crawl of / and /index.html: %+v, %v", sum, err)
	}
	if e := ev.find(Skipped, "/index.html"); e == nil || !strings.Contains(e.Detail, "the same content as "+s.URL+"/") {
		t.Errorf("the twin's skip: %+v", e)
	}
	if list, _ := st.List(t.Context(), ""); len(list) != 2 {
		t.Errorf("stored %v", list)
	}
	// Crawled again, the first copy answers "not modified": its twin is
	// still a duplicate.
	s.set("/", page{body: home, etag: `"h"`})
	o = options(s.URL + "/")
	o.NoSitemaps = true
	c.Crawl(t.Context(), o, nil) // stores the validator
	o = options(s.URL + "/")
	o.NoSitemaps = true
	sum, err = c.Crawl(t.Context(), o, nil)
	if err != nil || sum.Unchanged < 1 || sum.Skipped[ReasonDup] != 1 {
		t.Errorf("a re-crawl whose first copy is not modified: %+v, %v", sum, err)
	}
	if list, _ := st.List(t.Context(), ""); len(list) != 2 {
		t.Errorf("stored after the re-crawl %v", list)
	}
}

// TestShellsAreNotDuplicates: pages with next to no text of their own
// (shells a script fills) are not taken for one another.
func TestShellsAreNotDuplicates(t *testing.T) {
	s := newSite(t)
	shell := func(title string) string {
		return `<!doctype html><html><head><title>` + title + `</title></head><body><div id="root">Loading…</div></body></html>`
	}
	s.set("/", page{body: html("Home", "/app/a", "/app/b")})
	s.set("/app/a", page{body: shell("A")})
	s.set("/app/b", page{body: shell("B")})
	c, _ := crawler(t)
	o := options(s.URL + "/")
	o.NoSitemaps = true
	sum, err := c.Crawl(t.Context(), o, nil)
	if err != nil || sum.Skipped[ReasonDup] != 0 || sum.Stored != 3 {
		t.Errorf("a crawl of shells: %+v, %v; want them stored apart", sum, err)
	}
}
