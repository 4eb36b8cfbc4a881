package mcp

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/ingest"
)

// jobsSite is a site of a start page and n more whose robots.txt asks
// for a Crawl-delay of delay seconds.
func jobsSite(t *testing.T, n, delay int) *site {
	site := newSite(t)
	site.robots = fmt.Sprintf("User-agent: *\nAllow: /\nCrawl-delay: %d\n", delay)
	var links []string
	for i := range n {
		links = append(links, fmt.Sprintf("/p%d", i))
		site.set(links[i], html(fmt.Sprintf("Page %d", i), []string{fmt.Sprintf("The page %d, about the tides, long enough to be content.", i)}))
	}
	site.set("/", html("Start", []string{"The start of a site the crawl waits on."}, links...))
	return site
}

// TestCrawlJobOverHTTP: over streamable HTTP with the SDK's client, a
// crawl of a site whose robots.txt asks for Crawl-delay: 2 returns
// within its wait with an ID, is followed to its end, lists its pages in
// pages of two, and one of them reads as a resource.
func TestCrawlJobOverHTTP(t *testing.T) {
	site := jobsSite(t, 3, 2)
	s := newServer(t, Limits{}, loopback)
	cs := serveHTTP(t, s, nil)
	var started CrawlOutput
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "wait_seconds": 1}, &started); isErr || started.Crawl == 0 || started.State != "running" || !strings.Contains(text, "crawl_status") {
		t.Fatalf("web_crawl with a wait of 1 s on a site of Crawl-delay 2: %s %+v", text, started)
	}
	var st CrawlOutput
	for range 10 {
		if text, isErr := call(t, cs, "crawl_status", map[string]any{"crawl": started.Crawl, "wait_seconds": 50}, &st); isErr {
			t.Fatal(text)
		}
		if st.State != "running" {
			break
		}
	}
	if st.State != "done" || st.Stored != 4 || st.Requests != 4 || st.Limits.MaxPages == 0 || st.Robots == "" {
		t.Fatalf("at its end: %+v", st)
	}
	var urls []string
	cursor := ""
	for range 10 {
		var pg PagesOutput
		args := map[string]any{"crawl": started.Crawl, "limit": 2}
		if cursor != "" {
			args["cursor"] = cursor
		}
		if text, isErr := call(t, cs, "crawl_pages", args, &pg); isErr || len(pg.Pages) > 2 {
			t.Fatalf("crawl_pages: %s %+v", text, pg)
		}
		for _, p := range pg.Pages {
			urls = append(urls, strings.TrimPrefix(p.URL, site.URL))
		}
		if cursor = pg.Next; cursor == "" {
			break
		}
	}
	slices.Sort(urls)
	if want := []string{"/", "/p0", "/p1", "/p2"}; !slices.Equal(urls, want) {
		t.Errorf("pages listed %q, want %q", urls, want)
	}
	var pg PagesOutput
	call(t, cs, "crawl_pages", map[string]any{"crawl": started.Crawl, "limit": 1}, &pg)
	res, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: "heed://snapshot/" + pg.Pages[0].ID})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "Start") {
		t.Errorf("reading the first page as a resource: %v %+v", err, res)
	}
	if text, isErr := call(t, cs, "crawl_status", map[string]any{"crawl": 999}, nil); !isErr || !strings.Contains(text, "no crawl has that ID") {
		t.Errorf("crawl_status of no crawl: %v %s", isErr, text)
	}
	if text, isErr := call(t, cs, "crawl_pages", map[string]any{"crawl": started.Crawl, "cursor": "forged"}, nil); !isErr || !strings.Contains(text, "cursor") {
		t.Errorf("crawl_pages with a forged cursor: %v %s", isErr, text)
	}
}

// TestCrawlJobsBounded: a client may have so many crawls running, and so
// many pages among them; past either, web_crawl says which bound.
func TestCrawlJobsBounded(t *testing.T) {
	s := newServer(t, Limits{MaxPages: 10, MaxCrawls: 2, MaxPagesInAll: 15}, loopback)
	cs := connect(t, s, nil)
	var sites []*site
	for range 3 {
		sites = append(sites, jobsSite(t, 3, 2))
	}
	var first CrawlOutput
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": sites[0].URL + "/", "wait_seconds": 0}, &first); isErr {
		t.Fatal(text)
	}
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": sites[1].URL + "/", "wait_seconds": 0}, nil); !isErr || !strings.Contains(text, "15 in all") {
		t.Errorf("a second crawl of 10 pages past 15 in all: %v %s", isErr, text)
	}
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": sites[1].URL + "/", "wait_seconds": 0, "max_pages": 5}, nil); isErr {
		t.Errorf("a second crawl within the bounds: %s", text)
	}
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": sites[2].URL + "/", "wait_seconds": 0, "max_pages": 1}, nil); !isErr || !strings.Contains(text, "2 crawls running") {
		t.Errorf("a third crawl past 2 at once: %v %s", isErr, text)
	}
	// Another client has bounds of its own.
	other := connect(t, s, nil)
	if text, isErr := call(t, other, "web_crawl", map[string]any{"url": sites[2].URL + "/", "wait_seconds": 0, "max_pages": 1}, nil); isErr {
		t.Errorf("another client's crawl: %s", text)
	}
	if text, isErr := call(t, cs, "crawl_cancel", map[string]any{"crawl": first.Crawl}, nil); isErr {
		t.Fatal(text)
	}
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": sites[2].URL + "/", "wait_seconds": 0, "max_pages": 1}, nil); isErr {
		t.Errorf("a crawl once one was cancelled: %s", text)
	}
}

// TestCrawlJobResumesAfterRestart: a crawl an agent started, cut short
// by the server's close, goes on when a server starts again on the
// stash, and asks for no page twice but the one in flight.
func TestCrawlJobResumesAfterRestart(t *testing.T) {
	site := jobsSite(t, 4, 1)
	dir := t.TempDir()
	open := func() (*Server, *ingest.Service) {
		svc := ingest.New(ingest.Config{HTTP: fetch.New(fetch.Config{AllowNets: loopback, Retries: -1}), Agent: "heed/0.1", StashDir: dir, Delay: -1})
		return New(Config{Service: svc}), svc
	}
	s, svc := open()
	cs := connect(t, s, nil)
	var started CrawlOutput
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "wait_seconds": 2}, &started); isErr || started.State != "running" {
		t.Fatalf("web_crawl: %s %+v", text, started)
	}
	s.Close()
	svc.Close()

	s, svc = open()
	t.Cleanup(func() {
		s.Close()
		svc.Close()
	})
	ids, err := s.ResumeCrawls(t.Context())
	if err != nil || !slices.Equal(ids, []int64{started.Crawl}) {
		t.Fatalf("taken up: %v, %v; want [%d]", ids, err, started.Crawl)
	}
	cs = connect(t, s, nil)
	var st CrawlOutput
	for range 10 {
		if call(t, cs, "crawl_status", map[string]any{"crawl": started.Crawl, "wait_seconds": 50}, &st); st.State != "running" {
			break
		}
	}
	if st.State != "done" || st.Stored != 5 {
		t.Fatalf("after the restart: %+v; want it done, 5 stored over both runs", st)
	}
	for _, p := range []string{"/", "/p0", "/p1", "/p2", "/p3"} {
		if n := site.count(p); n < 1 || n > 2 {
			t.Errorf("%s asked %d times", p, n)
		}
	}
	twice := 0
	for _, p := range []string{"/", "/p0", "/p1", "/p2", "/p3"} {
		if site.count(p) == 2 {
			twice++
		}
	}
	if twice > 1 {
		t.Errorf("%d pages asked twice: only the one in flight at the close may be", twice)
	}
}

// TestWebMap: web_map lists a site's URLs in the crawl's scope, allowed
// by robots.txt, each once with where it was found, cut to fit max_chars
// with a cursor that lists the rest without asking the site again.
func TestWebMap(t *testing.T) {
	site := newSite(t)
	site.robots = "User-agent: *\nDisallow: /docs/private\n"
	var links []string
	for i := range 300 {
		links = append(links, fmt.Sprintf("/docs/page-with-a-long-name-%03d", i))
	}
	links = append(links, "/docs/private", "/blog/")
	site.set("/docs/", html("Docs", []string{"The docs' home."}, links...))
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	var out MapOutput
	text, isErr := call(t, cs, "web_map", map[string]any{"url": site.URL + "/docs/", "max_chars": 4000, "limit": 1000}, &out)
	if isErr || out.Found != 301 || out.NextCursor == "" || len(out.URLs) >= 301 || out.Disallowed != 1 || out.OutOfScope < 1 {
		t.Fatalf("web_map: %s %+v", text, out)
	}
	asked := len(site.hits())
	seen := map[string]int{}
	for _, u := range out.URLs {
		seen[u.URL]++
	}
	for next := out.NextCursor; next != ""; next = out.NextCursor {
		out = MapOutput{}
		if text, isErr := call(t, cs, "web_map", map[string]any{"url": site.URL + "/docs/", "max_chars": 4000, "cursor": next}, &out); isErr {
			t.Fatalf("web_map with a cursor: %s", text)
		}
		for _, u := range out.URLs {
			seen[u.URL]++
		}
	}
	if len(seen) != 301 || seen[site.URL+"/docs/"] != 1 {
		t.Errorf("%d URLs listed over the pages, want 301 (the start and its links in scope, allowed)", len(seen))
	}
	for u, n := range seen {
		if n != 1 {
			t.Errorf("%s listed %d times", u, n)
		}
	}
	if n := len(site.hits()); n != asked {
		t.Errorf("paging asked the site %d more times", n-asked)
	}
	if text, isErr := call(t, cs, "web_map", map[string]any{"url": site.URL + "/other/", "cursor": "AQ"}, nil); !isErr || !strings.Contains(text, "cursor") {
		t.Errorf("a forged cursor: %v %s", isErr, text)
	}
}

// TestWaitFitsAClientTimeout: web_crawl waits 40 s unless asked, and no
// call waits past 50 s, inside the 60 s an SDK client waits for a call
// by default; an agent's wait is bounded, and 0 returns at once.
func TestWaitFitsAClientTimeout(t *testing.T) {
	const clientTimeout = 60 * time.Second
	if DefaultWait >= clientTimeout || MaxWait >= clientTimeout {
		t.Errorf("waits of %v (default) and %v (most): not inside a client's %v", DefaultWait, MaxWait, clientTimeout)
	}
	for _, c := range []struct {
		asked *int
		want  time.Duration
	}{{nil, DefaultWait}, {ptr(0), 0}, {ptr(5), 5 * time.Second}, {ptr(1000), MaxWait}, {ptr(-3), 0}} {
		if got := waitSeconds(c.asked, DefaultWait); got != c.want {
			t.Errorf("waitSeconds(%v) = %v, want %v", c.asked, got, c.want)
		}
	}
}
