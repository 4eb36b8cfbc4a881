package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/pgtest"
)

// longSite is a site whose start page links to n pages with long paths
// and long titles: what a hostile (or merely verbose) site serves.
func longSite(t *testing.T, n int) *site {
	site := newSite(t)
	site.robots = "User-agent: *\nAllow: /\n"
	var links []string
	for i := range n {
		p := fmt.Sprintf("/p%d-%s", i, strings.Repeat("x", 900))
		links = append(links, p)
		site.set(p, html(fmt.Sprintf("Page %d %s", i, strings.Repeat("T", 300)), []string{fmt.Sprintf("The page %d, about the tides, long enough to be content.", i)}))
	}
	site.set("/", html("Start", []string{"The start of a site with long URLs."}, links...))
	return site
}

// TestCrawlResultOfLongURLsFits: a crawl of pages with long URLs and
// titles lists as many of its first pages as fit its budget, and says
// so; web_crawl, crawl_status and crawl_cancel never fail for their size
// (an agent would not learn the ID of the crawl that started).
func TestCrawlResultOfLongURLsFits(t *testing.T) {
	site := longSite(t, 25)
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	var out CrawlOutput
	text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "wait_seconds": 30}, &out)
	if isErr {
		t.Errorf("web_crawl of a site of long URLs, default max_chars: error %q (the crawl ran: %d requests to the site)", text, len(site.hits()))
	}
	text, isErr = call(t, cs, "crawl_status", map[string]any{"crawl": 1}, &out)
	if isErr {
		t.Errorf("crawl_status of that crawl: error %q", text)
	}
	text, isErr = call(t, cs, "crawl_status", map[string]any{"crawl": 1, "max_chars": MinChars}, &out)
	if isErr {
		t.Errorf("crawl_status, max_chars %d: error %q", MinChars, text)
	}
}

// TestConcurrentCrawlsBounded: calls of one client made at once cannot
// start more crawls than it may have running: admit reserves each.
func TestConcurrentCrawlsBounded(t *testing.T) {
	s := newServer(t, Limits{MaxPages: 10, MaxCrawls: 1}, loopback)
	cs := connect(t, s, nil)
	var sites []*site
	for range 4 {
		sites = append(sites, jobsSite(t, 3, 2))
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "web_crawl", Arguments: map[string]any{"url": sites[i].URL + "/", "wait_seconds": 0}})
			if err == nil && !res.IsError {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ok > 1 {
		t.Errorf("MaxCrawls 1, 4 web_crawl calls at once: %d crawls started (running now: %v)", ok, s.svc.Running())
	}
}

// TestCancelOnlyOwnCrawl: a client of an HTTP server cannot cancel
// another's crawl by its ID (IDs are small integers counting up).
func TestCancelOnlyOwnCrawl(t *testing.T) {
	s := newServer(t, Limits{}, loopback)
	a := connect(t, s, nil)
	b := connect(t, s, nil)
	site := jobsSite(t, 3, 2)
	var started CrawlOutput
	if text, isErr := call(t, a, "web_crawl", map[string]any{"url": site.URL + "/", "wait_seconds": 0}, &started); isErr {
		t.Fatal(text)
	}
	if text, isErr := call(t, b, "crawl_cancel", map[string]any{"crawl": started.Crawl}, nil); !isErr {
		t.Errorf("client b cancelled client a's crawl %d: %s", started.Crawl, text)
	}
}

// TestTeamCrawlsBounded: with a team's database, crawls are not jobs of
// the service, and a client's bounds count those its crawls' rows say
// run.
func TestTeamCrawlsBounded(t *testing.T) {
	c := pgtest.Start(t)
	t.Cleanup(c.Stop)
	url := c.Database(t)
	if _, err := ingest.Migrate(context.Background(), url, 0); err != nil {
		t.Fatal(err)
	}
	svc := ingest.New(ingest.Config{HTTP: fetch.New(fetch.Config{AllowNets: loopback, Retries: -1}), Agent: "heed/0.1", DB: url, Delay: -1})
	s := New(Config{Service: svc, Limits: Limits{MaxPages: 10, MaxCrawls: 1}})
	t.Cleanup(func() {
		s.Close()
		svc.Close()
	})
	cs := connect(t, s, nil)
	n := 0
	for i := range 3 {
		site := jobsSite(t, 3, 2)
		var out CrawlOutput
		text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "wait_seconds": 0}, &out)
		if !isErr {
			n++
			t.Logf("crawl %d: %d, %s", i, out.Crawl, out.State)
		}
		_ = text
	}
	time.Sleep(10 * time.Millisecond)
	if n > 1 {
		t.Errorf("MaxCrawls 1 with a team's database (no worker: every crawl stays running): %d crawls started", n)
	}
}
