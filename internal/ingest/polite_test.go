package ingest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/config"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/render"
	"github.com/heedhq/heed/internal/source/kinds"
	"github.com/heedhq/heed/internal/testutil"
)

// newHost is one loopback host that serves every kind of source: a
// website with a page naming a feed, the feed, the Bluesky AppView, the X
// API and a feed of X posts; it logs when each request arrived and was
// answered, and how many were in flight at once.
const xToken = "AAAAAAAAAAAAAAAAAAAAApoliteTestBearerToken0123456789"

func newHost(t *testing.T) *testutil.Arrivals {
	rss := func(title string) string {
		return `<?xml version="1.0"?><rss version="2.0"><channel><title>` + title + `</title><link>https://shore.example.com/</link><description>Notes</description>
<item><title>Oystercatchers at dawn</title><link>https://shore.example.com/oystercatchers</link><pubDate>Mon, 02 Mar 2026 06:00:00 GMT</pubDate><description>A pair of oystercatchers probing the mud.</description></item>
</channel></rss>`
	}
	page := func(title, head string, links ...string) string {
		var b strings.Builder
		for _, l := range links {
			fmt.Fprintf(&b, `<a href="%s">%s</a> `, l, l)
		}
		return `<!doctype html><html><head><title>` + title + `</title>` + head + `</head><body><main><h1>` + title +
			`</h1><p>The tides of the harbour, with words enough to be the content of a page.</p>` + b.String() + `</main></body></html>`
	}
	return testutil.NewArrivals(t, 2*time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		case p == "/site/":
			fmt.Fprint(w, page("Home", "", "/site/a", "/site/b"))
		case p == "/busy":
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
		case p == "/site/a", p == "/site/b", p == "/page":
			fmt.Fprint(w, page("Page "+p, ""))
		case p == "/blog/":
			fmt.Fprint(w, page("Blog", `<link rel="alternate" type="application/rss+xml" href="/blog/feed.xml">`))
		case p == "/blog/feed.xml", p == "/xrss/tidewatch":
			w.Header().Set("Content-Type", "application/rss+xml")
			fmt.Fprint(w, rss("Feed "+p))
		case p == "/xrpc/com.atproto.identity.resolveHandle":
			fmt.Fprint(w, `{"did":"did:plc:alicexyz"}`)
		case p == "/xrpc/app.bsky.actor.getProfile":
			fmt.Fprint(w, `{"did":"did:plc:alicexyz","handle":"alice.example.com","displayName":"Alice","postsCount":1}`)
		case p == "/xrpc/app.bsky.feed.getAuthorFeed":
			fmt.Fprint(w, `{"feed":[{"post":{"uri":"at://did:plc:alicexyz/app.bsky.feed.post/3kstar","cid":"bafy","author":{"did":"did:plc:alicexyz","handle":"alice.example.com"},
"record":{"$type":"app.bsky.feed.post","text":"A starfish in the rock pool","createdAt":"2026-03-01T10:00:00.000Z"},"indexedAt":"2026-03-01T10:00:00.000Z"}}]}`)
		case p == "/2/users/by/username/tidewatch" && r.Header.Get("Authorization") == "Bearer "+xToken:
			fmt.Fprint(w, `{"data":{"id":"42","name":"Tide Watch","username":"tidewatch","public_metrics":{"tweet_count":1}}}`)
		case p == "/2/users/42/tweets" && r.Header.Get("Authorization") == "Bearer "+xToken:
			fmt.Fprint(w, `{"data":[{"id":"7","text":"Seals hauled out on the sandbank","created_at":"2026-03-03T09:00:00.000Z"}],"meta":{"result_count":1}}`)
		default:
			http.NotFound(w, r)
		}
	})
}

// TestEverySourceTakesItsTurn: every kind of source, and a page fetched
// on purpose, asking one host at once through one service, reach it one
// request at a time, each at least the delay after the one before was
// answered (the website's own, longer delay after its pages; a second
// after a 429 that asked for one): the
// polite client is a layer every request goes through, not a habit of
// some callers. (Before it, Bluesky, X, its feed path and a single fetch
// took no turn.)
func TestEverySourceTakesItsTurn(t *testing.T) {
	const delay, siteDelay = 40 * time.Millisecond, 200 * time.Millisecond
	for _, x := range []struct {
		name   string
		getenv func(string) string
		paths  []string // of the X kind
	}{
		{"X through its API", func(k string) string { return map[string]string{"X_BEARER_TOKEN": xToken}[k] }, []string{"/2/users/by/username/tidewatch", "/2/users/42/tweets"}},
		{"X through a feed of posts", nil, []string{"/xrss/tidewatch"}},
	} {
		t.Run(x.name, func(t *testing.T) {
			h := newHost(t)
			conf := &config.Config{Bluesky: &config.Bluesky{APIBase: h.URL}, X: &config.X{APIBase: h.URL}}
			getenv := x.getenv
			if getenv == nil {
				conf.X.RSSTemplate = h.URL + "/xrss/{user}"
				getenv = func(string) string { return "" }
			}
			made, err := kinds.Make(conf, getenv)
			if err != nil {
				t.Fatal(err)
			}
			svc := New(Config{
				HTTP:     fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Retries: -1}),
				StashDir: t.TempDir(), Delay: delay, Kinds: made,
			})
			t.Cleanup(func() { svc.Close() })
			source := func(url, kind string, delay time.Duration) config.Source {
				s := config.Source{URL: url, Kind: kind, Options: crawlopt.Defaults()}
				s.Delay = delay
				return s
			}
			sources := []SourceRequest{
				{Name: "site", Source: source(h.URL+"/site/", "website", siteDelay)},
				{Name: "blog", Source: source(h.URL+"/blog/", "feed", delay)}, // a page naming its feed
				{Name: "alice", Source: source("https://bsky.app/profile/alice.example.com", "", delay)},
				{Name: "tide", Source: source("https://x.com/tidewatch", "", delay)},
			}
			var wg sync.WaitGroup
			for _, req := range sources {
				wg.Go(func() {
					if _, err := svc.Ingest(t.Context(), req); err != nil {
						t.Errorf("%s: %v", req.Name, err)
					}
				})
			}
			wg.Go(func() {
				if _, err := svc.Fetch(t.Context(), FetchRequest{URL: h.URL + "/page"}); err != nil {
					t.Errorf("fetch: %v", err)
				}
			})
			wg.Go(func() {
				var se *fetch.StatusError
				if _, err := svc.Fetch(t.Context(), FetchRequest{URL: h.URL + "/busy"}); !errors.As(err, &se) || se.Status != http.StatusTooManyRequests {
					t.Errorf("fetch of a busy page: %v", err)
				}
			})
			wg.Wait()

			log := h.Log()
			var paths []string
			for _, a := range log {
				paths = append(paths, a.Path)
			}
			for _, want := range append([]string{
				"/robots.txt", "/site/", "/site/a", "/site/b", "/blog/", "/blog/feed.xml", "/page",
				"/xrpc/com.atproto.identity.resolveHandle", "/xrpc/app.bsky.feed.getAuthorFeed",
			}, x.paths...) {
				if !slices.Contains(paths, want) {
					t.Errorf("the host never saw %s: %v", want, paths)
				}
			}
			if m := h.MostInFlight(); m != 1 {
				t.Errorf("%d requests were in flight at once, want 1", m)
			}
			for i := 1; i < len(log); i++ {
				want := delay
				switch prev := log[i-1].Path; {
				case strings.HasPrefix(prev, "/site/"):
					want = siteDelay
				case prev == "/busy":
					want = time.Second
				}
				if gap := log[i].At.Sub(log[i-1].End); gap < want {
					t.Errorf("%s came %v after %s was answered, want at least %v", log[i].Path, gap, log[i-1].Path, want)
				}
			}
		})
	}
}

// TestCrawlOfAUnicodeHost: a start URL whose host is not ASCII gets a
// source name of its own (its punycode), not a refusal of a name the
// user never gave; and a crawl that stores nothing asks for no name.
func TestCrawlOfAUnicodeHost(t *testing.T) {
	svc := New(Config{HTTP: fetch.New(fetch.Config{Retries: -1, Resolver: nowhere{}}), StashDir: t.TempDir()})
	t.Cleanup(func() { svc.Close() })
	for _, noStore := range []bool{false, true} {
		req := CrawlRequest{Options: crawlopt.Defaults()}
		req.Start = "http://bücher.example/"
		req.NoStore = noStore
		_, err := svc.Crawl(t.Context(), req, nil)
		var oe *crawlopt.Error
		if err == nil || errors.As(err, &oe) || strings.Contains(err.Error(), "name") && !strings.Contains(err.Error(), "bücher") && !strings.Contains(err.Error(), "xn--") {
			t.Errorf("a crawl of a Unicode host (no store %v): %v; want it to reach the host, not refuse a name", noStore, err)
		}
	}
	req := CrawlRequest{Options: crawlopt.Defaults()}
	req.Start = "http://example.com/"
	req.Source = "../etc"
	if _, err := svc.Crawl(t.Context(), req, nil); !errors.As(err, new(*crawlopt.Error)) {
		t.Errorf("a name given that no source may have: %v", err)
	}
}

// nowhere resolves every name to a documentation address, which the
// guarded client refuses: nothing leaves the machine.
type nowhere struct{}

func (nowhere) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("192.0.2.1")}, nil
}

// A recorded source's render: goes with its crawl; none is auto.
func TestCrawlRequestOfRender(t *testing.T) {
	never := &config.Source{URL: "https://docs.example.com/", Options: crawlopt.Defaults()}
	never.Render = "never"
	if got := CrawlRequestOf("docs", never).Render; got != string(render.Never) {
		t.Errorf("render: never gave %q", got)
	}
	req := CrawlRequestOf("docs", &config.Source{URL: "https://docs.example.com/", Options: crawlopt.Defaults()})
	if o, err := New(Config{}).options(req); err != nil || o.Render != string(render.Auto) {
		t.Errorf("no render: %q, %v", o.Render, err)
	}
	req.Render = "sometimes"
	if _, err := New(Config{}).options(req); err == nil || !strings.Contains(err.Error(), "auto, always or never") {
		t.Errorf("render sometimes: %v", err)
	}
}
