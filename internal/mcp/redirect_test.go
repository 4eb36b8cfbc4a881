package mcp

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/polite"
)

// hops redirects to other until the path has n h's, and then answers.
func hops(other func() string, n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if strings.Count(r.URL.Path, "h") >= n {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "arrived")
			return
		}
		http.Redirect(w, r, other()+r.URL.Path+"h", http.StatusFound)
	}
}

// TestTenRedirects: web_fetch follows ten redirects, across hosts as on
// one, and refuses the eleventh, saying where to go on from.
func TestTenRedirects(t *testing.T) {
	a, b, c := newSite(t), newSite(t), newSite(t)
	a.Config.Handler = hops(func() string { return b.URL }, 10)
	b.Config.Handler = hops(func() string { return a.URL }, 10)
	c.Config.Handler = hops(func() string { return c.URL }, 11)
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	var out FetchOutput
	if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": a.URL + "/"}, &out); isErr || out.Markdown != "arrived" {
		t.Errorf("ten redirects across hosts: %v %q", isErr, text)
	}
	if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": c.URL + "/"}, nil); !isErr ||
		!strings.Contains(text, "more than 10 redirects; the last followed led to "+c.URL+"/hhhhhhhhhh, which redirects again. To follow them further, call web_fetch with that URL") {
		t.Errorf("eleven redirects on one host: %v %q", isErr, text)
	}
	if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": c.URL + "/hhhhhhhhhh"}, &out); isErr || out.Markdown != "arrived" {
		t.Errorf("going on from the tenth: %v %q", isErr, text)
	}
	a.Config.Handler = hops(func() string { return b.URL }, 11)
	b.Config.Handler = hops(func() string { return a.URL }, 11)
	if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": a.URL + "/"}, nil); !isErr ||
		!strings.Contains(text, "more than 10 redirects; the last followed led to "+a.URL+"/hhhhhhhhhh") {
		t.Errorf("eleven redirects across hosts: %v %q", isErr, text)
	}
}

// anyName resolves every name to the loopback, and asks no one.
type anyName struct{}

func (anyName) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// TestRedirectTakesTurnOfNormalHost: a redirect to a host written in
// other case and with a trailing dot waits for the turn of the host a
// crawl of it takes.
func TestRedirectTakesTurnOfNormalHost(t *testing.T) {
	b, inSlow, overlap := heldSite(t)
	bURL := strings.Replace(b.URL, "127.0.0.1", "b.test", 1)
	a := newSite(t)
	a.Config.Handler = http.RedirectHandler(strings.Replace(b.URL, "127.0.0.1", "B.Test.", 1)+"/x", http.StatusFound)
	s := testServer(t, fetch.Config{AllowNets: loopback, Retries: -1, Resolver: anyName{}}, 0, Limits{}, nil)
	crawler, fetcher := connect(t, s, nil), connect(t, s, nil)
	crawled := make(chan struct{})
	go func() {
		defer close(crawled)
		crawler.CallTool(t.Context(), &sdk.CallToolParams{Name: "web_crawl", Arguments: map[string]any{"url": bURL + "/"}})
	}()
	waitFor(t, inSlow, "the crawl's request for /slow")
	var p FetchOutput
	if text, isErr := call(t, fetcher, "web_fetch", map[string]any{"url": a.URL + "/"}, &p); isErr || p.Title != "X" {
		t.Fatalf("web_fetch through the redirect: %s %q", text, p.URL)
	}
	if waitFor(t, overlap, "the held request") {
		t.Errorf("B served %s (web_fetch via A's redirect to B.Test.) while the crawl's request for /slow was still out", p.URL)
	}
	waitFor(t, crawled, "the crawl")
}

// TestContentTypeCut: a page of another type is refused, repeating no
// more than the start of its Content-Type.
func TestContentTypeCut(t *testing.T) {
	site := newSite(t)
	site.set("/blob", "x")
	site.types["/blob"] = "application/x-" + strings.Repeat("y", 5000)
	s := newServer(t, Limits{}, loopback)
	text, isErr := call(t, connect(t, s, nil), "web_fetch", map[string]any{"url": site.URL + "/blob"}, nil)
	if !isErr || !strings.Contains(text, "not an HTML or text page") || strings.Contains(text, strings.Repeat("y", 100)) {
		t.Errorf("a page with a long Content-Type: %v %.300q (%d bytes)", isErr, text, len(text))
	}
}

// TestFetchDeadline: web_fetch takes at most the user's deadline, over
// all its requests.
func TestFetchDeadline(t *testing.T) {
	site := newSite(t)
	site.set("/slow", "never")
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	site.block = func(r *http.Request) { <-release }
	s := newServer(t, Limits{Deadline: 200 * time.Millisecond}, loopback)
	text, isErr := call(t, connect(t, s, nil), "web_fetch", map[string]any{"url": site.URL + "/slow"}, nil)
	if !isErr || !strings.Contains(text, "the user's deadline of 200ms passed before the page was read") {
		t.Errorf("web_fetch of a page that does not answer: %v %q", isErr, text)
	}
}

// syncBuffer is a log the server and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestCloseAmidCalls: calls of every tool cut short by Close are told
// that the server is shutting down (or that they were cancelled), not of
// an internal error, and nothing is logged as an error.
func TestCloseAmidCalls(t *testing.T) {
	site := newSite(t)
	var links []string
	for i := range 20 {
		links = append(links, fmt.Sprintf("/p%d", i))
		site.set(fmt.Sprintf("/p%d", i), html(fmt.Sprintf("P%d", i), []string{"A page of the site with words enough to be content, harbour."}))
	}
	site.set("/", html("Start", []string{"The start page with words enough to be content, harbour."}, links...))
	calls := []*sdk.CallToolParams{
		{Name: "web_crawl", Arguments: map[string]any{"url": site.URL + "/"}},
		{Name: "stash_search", Arguments: map[string]any{"query": "harbour"}},
		{Name: "stash_read", Arguments: map[string]any{"url_or_id": site.URL + "/p1"}},
		{Name: "stash_sources"},
		{Name: "web_grep", Arguments: map[string]any{"url": site.URL + "/", "pattern": "harbour", "depth": 1}},
		{Name: "web_fetch", Arguments: map[string]any{"url": site.URL + "/p2"}},
	}
	for round := range 8 {
		var log syncBuffer
		s := testServer(t, fetch.Config{AllowNets: loopback, Retries: -1}, 0, Limits{}, slog.New(slog.NewTextHandler(&log, nil)))
		returned := make(chan struct{}, 64)
		s.called = func(string) {
			select {
			case returned <- struct{}{}:
			default:
			}
		}
		var wg sync.WaitGroup
		started := make(chan struct{}, 2*len(calls))
		for i := range 2 * len(calls) {
			cs := connect(t, s, nil)
			p := *calls[i%len(calls)] // the client writes to the params it sends
			wg.Add(1)
			go func() {
				defer wg.Done()
				started <- struct{}{}
				for range 3 {
					res, err := cs.CallTool(t.Context(), &p)
					if err != nil {
						return
					}
					if !res.IsError {
						continue
					}
					text := res.Content[0].(*sdk.TextContent).Text
					if !strings.Contains(text, "shutting down") && !strings.Contains(text, "cancelled") && !strings.Contains(text, "no page") && !strings.Contains(text, "stash is empty") {
						t.Errorf("round %d %s: %s", round, p.Name, text)
					}
				}
			}()
		}
		for range 2 * len(calls) {
			<-started
		}
		for range 2 * round { // Close at various points of the calls
			waitFor(t, returned, "a call")
		}
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		wg.Wait()
		if strings.Contains(log.String(), "level=ERROR") {
			t.Errorf("round %d: logged as errors:\n%s", round, log.String())
		}
	}
}

func TestHostKey(t *testing.T) {
	for in, want := range map[string]string{
		"http://B.Test.:8080/x":  "b.test:8080",
		"http://b.test:80/":      "b.test",
		"https://B.TEST.:443/":   "b.test",
		"https://b.test:80/":     "b.test:80",
		"http://[::1]:8080/":     "[::1]:8080",
		"http://Example.COM./a/": "example.com",
	} {
		u, _ := url.Parse(in)
		if got := polite.HostKey(u); got != want {
			t.Errorf("polite.HostKey(%s) = %q, want %q", in, got, want)
		}
	}
}
