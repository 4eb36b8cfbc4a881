package polite

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/testutil"
	"github.com/heedhq/heed/robots"
)

// log is an Arrivals server's log as the tests read it: when each
// request came, its path and its headers.
func log(a *testutil.Arrivals) (at []time.Time, paths []string, headers []http.Header) {
	for _, r := range a.Log() {
		at, paths, headers = append(at, r.At), append(paths, r.Path), append(headers, r.Header)
	}
	return at, paths, headers
}

// newArrivals is a server of arrivals that holds each request 5 ms.
func newArrivals(t *testing.T, h http.HandlerFunc) *testutil.Arrivals {
	return testutil.NewArrivals(t, 5*time.Millisecond, h)
}

func loopbackClient(delay time.Duration) *Client {
	http := fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Retries: -1})
	return New(http, NewSchedule(), delay)
}

// TestOneAtATimeSpaced: requests to one host, made at once from many
// goroutines, arrive one at a time, each at least the delay after the
// one before.
func TestOneAtATimeSpaced(t *testing.T) {
	a := newArrivals(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	const delay = 60 * time.Millisecond
	c := loopbackClient(delay)
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			if _, err := c.Get(t.Context(), fetch.Request{URL: a.URL + "/p"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	at, _, _ := log(a)
	if len(at) != 5 {
		t.Fatalf("%d requests arrived, want 5", len(at))
	}
	if m := a.MostInFlight(); m != 1 {
		t.Errorf("%d requests were in flight at once, want 1", m)
	}
	for i := 1; i < len(at); i++ {
		if gap := at[i].Sub(at[i-1]); gap < delay {
			t.Errorf("request %d came %v after the one before, want at least %v", i, gap, delay)
		}
	}
}

// TestRedirectTakesTheOtherHostsTurn: a redirect to another host waits
// for that host's turn: it comes the delay after the other host's last
// request, and the request's own headers do not go with it.
func TestRedirectTakesTheOtherHostsTurn(t *testing.T) {
	const delay = 150 * time.Millisecond
	b := newArrivals(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("b")) })
	a := newArrivals(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, b.URL+"/landed", http.StatusFound)
	})
	c := loopbackClient(delay)
	if _, err := c.Get(t.Context(), fetch.Request{URL: b.URL + "/first"}); err != nil {
		t.Fatal(err)
	}
	resp, err := c.Get(t.Context(), fetch.Request{URL: a.URL + "/go", Header: http.Header{"Authorization": {"Bearer secret"}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.URL != b.URL+"/landed" || len(resp.Redirects) != 1 || resp.Redirects[0] != a.URL+"/go" {
		t.Errorf("response of %s by way of %v; want %s by way of %s", resp.URL, resp.Redirects, b.URL+"/landed", a.URL+"/go")
	}
	at, paths, headers := log(b)
	if len(at) != 2 || paths[1] != "/landed" {
		t.Fatalf("the other host saw %v", paths)
	}
	if gap := at[1].Sub(at[0]); gap < delay {
		t.Errorf("the redirect reached the other host %v after its last request, want at least %v", gap, delay)
	}
	if got := headers[1].Get("Authorization"); got != "" {
		t.Errorf("the request's credential went to another origin: %q", got)
	}
	if _, _, ah := log(a); ah[0].Get("Authorization") != "Bearer secret" {
		t.Errorf("the request's own origin did not get its header")
	}
}

// TestRetryAfterHoldsTheHost: a 429 with Retry-After keeps the host
// waiting that long before its next request, longer than the delay, and
// never longer than MaxRetryAfter.
func TestRetryAfterHoldsTheHost(t *testing.T) {
	var n atomic.Int32
	a := newArrivals(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Write([]byte("ok"))
	})
	c := loopbackClient(10 * time.Millisecond)
	resp, err := c.Get(t.Context(), fetch.Request{URL: a.URL + "/", NoRetry: true})
	if err != nil || resp.Status != http.StatusTooManyRequests {
		t.Fatalf("first request: %v, %v", resp, err)
	}
	if _, err := c.Get(t.Context(), fetch.Request{URL: a.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	at, _, _ := log(a)
	if gap := at[1].Sub(at[0]); gap < time.Second {
		t.Errorf("the next request came %v after a Retry-After of 1 s", gap)
	}

	c.MaxRetryAfter = 50 * time.Millisecond
	if got := c.after(&fetch.Response{Status: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"3600"}}}); got != 50*time.Millisecond {
		t.Errorf("a Retry-After of an hour held the host %v, want MaxRetryAfter", got)
	}
}

// TestNoTurnPastTheDeadline: a request whose host's turn would come after
// its context's deadline is not made, and says so.
func TestNoTurnPastTheDeadline(t *testing.T) {
	a := newArrivals(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	c := loopbackClient(time.Hour)
	if _, err := c.Get(t.Context(), fetch.Request{URL: a.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	_, err := c.Get(ctx, fetch.Request{URL: a.URL + "/again"})
	if !errors.Is(err, ErrNoTurn) {
		t.Errorf("a request past the deadline: %v, want ErrNoTurn", err)
	}
	if _, paths, _ := log(a); len(paths) != 1 {
		t.Errorf("the host saw %v", paths)
	}
}

// TestRobotsTakesATurn: robots.txt is one more request to its host.
func TestRobotsTakesATurn(t *testing.T) {
	const delay = 80 * time.Millisecond
	a := newArrivals(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("User-agent: *\nDisallow: /x\n")) })
	c := loopbackClient(delay)
	if _, err := c.LoadRobots(t.Context(), a.URL+"/robots.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(t.Context(), fetch.Request{URL: a.URL + "/page"}); err != nil {
		t.Fatal(err)
	}
	at, paths, _ := log(a)
	if len(at) != 2 || paths[0] != "/robots.txt" || at[1].Sub(at[0]) < delay {
		t.Errorf("robots.txt then a page: %v at %v, want them the delay apart", paths, at)
	}
}

// anyName resolves every name to the loopback, asking no one.
type anyName struct{}

func (anyName) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// TestCheckRedirectHoldsNoTurn: a request's CheckRedirect runs with no
// turn held, so it may take one itself, as loading the hop's robots.txt
// does. A redirect to the same host spelled with a trailing dot (one
// turn's key, another robots.txt origin) hung heed add for ever, the
// check waiting for the turn its own request held.
func TestCheckRedirectHoldsNoTurn(t *testing.T) {
	var a *testutil.Arrivals
	a = newArrivals(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/start":
			http.Redirect(w, r, strings.Replace(a.URL, "127.0.0.1", "site.test.", 1)+"/landed", http.StatusFound)
		case "/robots.txt":
			w.Write([]byte("User-agent: *\nAllow: /\n"))
		default:
			w.Write([]byte("landed"))
		}
	})
	c := New(fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Retries: -1, Resolver: anyName{}}), NewSchedule(), 0)
	cache := robots.NewCache(c.LoadRobots, robots.CacheConfig{})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	checked := 0
	resp, err := c.Get(ctx, fetch.Request{URL: strings.Replace(a.URL, "127.0.0.1", "site.test", 1) + "/start", CheckRedirect: func(next string) error {
		checked++
		u, _ := url.Parse(next)
		short, stop := context.WithTimeout(ctx, time.Second)
		defer stop()
		release, err := c.Turns.Acquire(short, HostKey(u))
		if err != nil {
			return fmt.Errorf("the check found the hop's turn held: %w", err)
		}
		release(0)
		d, err := cache.Allowed(ctx, "heed", next)
		if err != nil || !d.Allowed {
			return fmt.Errorf("robots.txt of %s: %v %v", next, d, err)
		}
		return nil
	}})
	if err != nil || string(resp.Body) != "landed" || checked != 1 {
		t.Fatalf("a redirect to the host with a trailing dot: %v, %v (checked %d)", resp, err, checked)
	}
}

// TestRedirectChainBounded: a chain of redirects stops at the cap, and
// the error names the URL asked for and the last one followed.
func TestRedirectChainBounded(t *testing.T) {
	a := newArrivals(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
	})
	c := loopbackClient(0)
	_, err := c.Get(t.Context(), fetch.Request{URL: a.URL + "/r", MaxRedirects: 3})
	var limit *fetch.RedirectLimitError
	var he *heed.Error
	if !errors.As(err, &limit) || limit.Max != 3 || limit.Last != a.URL+"/rxxx" || !errors.As(err, &he) || he.URL != a.URL+"/r" {
		t.Fatalf("a chain past its cap: %v", err)
	}
	if _, paths, _ := log(a); len(paths) != 4 {
		t.Errorf("the host saw %v, want 4 requests", paths)
	}
	long := "http://" + strings.Repeat("a", 300) + ".example/"
	if _, err := c.Get(t.Context(), fetch.Request{URL: long}); heed.KindOf(err) != heed.Invalid || errors.Is(err, ErrNoTurn) {
		t.Errorf("a host longer than any: %v (kind %v), want Invalid", err, heed.KindOf(err))
	}
}

// TestRobotsKeepsTheAskersDelay: robots.txt loaded for work with a delay
// of its own (WithDelay) keeps the host waiting that delay, shorter or
// longer than the client's (here 2 s, which neither waits).
func TestRobotsKeepsTheAskersDelay(t *testing.T) {
	for _, d := range []time.Duration{0, 300 * time.Millisecond} {
		a := newArrivals(t, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("User-agent: *\nAllow: /\n")) })
		c := loopbackClient(2 * time.Second)
		ctx := WithDelay(t.Context(), d)
		if _, err := c.LoadRobots(ctx, a.URL+"/robots.txt"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Spaced(d).Get(ctx, fetch.Request{URL: a.URL + "/page"}); err != nil {
			t.Fatal(err)
		}
		at, _, _ := log(a)
		gap := at[1].Sub(at[0])
		if gap < d || gap >= time.Second {
			t.Errorf("work with a delay of %v: the page came %v after robots.txt", d, gap)
		}
	}
}

// countingTurns is a Turns of its own, as a team's schedule in a
// database would be: it counts the turns asked, by host.
type countingTurns struct {
	mu    sync.Mutex
	asked map[string]int
}

func (c *countingTurns) Acquire(_ context.Context, host string) (func(time.Duration), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked[host]++
	return func(time.Duration) {}, nil
}

// TestTurnsAreHandedIn: the client takes every turn of the Turns it is
// handed, not a schedule of its own: one for robots.txt and one for each
// hop of a redirect.
func TestTurnsAreHandedIn(t *testing.T) {
	a := newArrivals(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/from" {
			http.Redirect(w, r, "/to", http.StatusFound)
			return
		}
		w.Write([]byte("ok"))
	})
	turns := &countingTurns{asked: map[string]int{}}
	c := New(fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Retries: -1}), turns, 0)
	if _, err := c.LoadRobots(t.Context(), a.URL+"/robots.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(t.Context(), fetch.Request{URL: a.URL + "/from"}); err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(a.URL, "http://")
	if turns.asked[host] != 3 || len(turns.asked) != 1 {
		t.Errorf("turns asked %v; want 3 of %s", turns.asked, host)
	}
}

// TestRobotsKeepsItsCrawlDelay: work that heeds Crawl-delay leaves the
// host alone for robots.txt's Crawl-delay after loading it, capped, not
// only for its own shorter delay: the request after robots.txt (a
// sitemap's, in a crawl) waits for it as every other does.
func TestRobotsKeepsItsCrawlDelay(t *testing.T) {
	const delay = 50 * time.Millisecond
	for _, c := range []struct {
		crawlDelay string
		max, want  time.Duration
	}{
		{"0.4", 10 * time.Second, 400 * time.Millisecond},
		{"30", 300 * time.Millisecond, 300 * time.Millisecond}, // capped
	} {
		a := newArrivals(t, func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "User-agent: *\nCrawl-delay: %s\nAllow: /\n", c.crawlDelay)
		})
		cl := loopbackClient(0)
		ctx := WithCrawlDelay(WithDelay(t.Context(), delay), "heed", c.max)
		if _, err := cl.LoadRobots(ctx, a.URL+"/robots.txt"); err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Spaced(c.want).Get(ctx, fetch.Request{URL: a.URL + "/sitemap.xml"}); err != nil {
			t.Fatal(err)
		}
		at, paths, _ := log(a)
		if len(at) != 2 || paths[0] != "/robots.txt" {
			t.Fatalf("requests %v, want robots.txt then the sitemap", paths)
		}
		if gap := at[1].Sub(at[0]); gap < c.want {
			t.Errorf("Crawl-delay %s (capped at %v): the request after robots.txt came %v after it, want at least %v", c.crawlDelay, c.max, gap, c.want)
		}
		if gap := at[1].Sub(at[0]); gap > 5*time.Second {
			t.Errorf("Crawl-delay %s capped at %v: the request after robots.txt waited %v, the Crawl-delay uncapped", c.crawlDelay, c.max, gap)
		}
	}
}

// TestRobotsRedirectTakesTheOtherHostsTurn: a robots.txt that redirects
// to another host is read from there on that host's turn, the delay
// after its last request; and robots.txt's own host then keeps the
// Crawl-delay the file asks for.
func TestRobotsRedirectTakesTheOtherHostsTurn(t *testing.T) {
	const delay = 150 * time.Millisecond
	const crawlDelay = 400 * time.Millisecond
	b := newArrivals(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("User-agent: *\nCrawl-delay: 0.4\nAllow: /\n"))
	})
	a := newArrivals(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.Redirect(w, r, b.URL+"/robots.txt", http.StatusMovedPermanently)
			return
		}
		w.Write([]byte("page"))
	})
	c := loopbackClient(delay)
	ctx := WithCrawlDelay(WithDelay(t.Context(), delay), "heed", 10*time.Second)
	if _, err := c.Get(ctx, fetch.Request{URL: b.URL + "/first"}); err != nil {
		t.Fatal(err)
	}
	o, err := c.LoadRobots(ctx, a.URL+"/robots.txt")
	if err != nil {
		t.Fatal(err)
	}
	if cd, ok := o.CrawlDelay("heed"); !ok || cd != crawlDelay {
		t.Errorf("robots.txt read by way of its redirect: Crawl-delay %v, %v; want %v", cd, ok, crawlDelay)
	}
	if _, err := c.Get(ctx, fetch.Request{URL: a.URL + "/page"}); err != nil {
		t.Fatal(err)
	}
	bat, bpaths, _ := log(b)
	if len(bat) != 2 || bpaths[1] != "/robots.txt" {
		t.Fatalf("the other host saw %v", bpaths)
	}
	if gap := bat[1].Sub(bat[0]); gap < delay {
		t.Errorf("robots.txt's redirect reached the other host %v after its last request, want at least %v", gap, delay)
	}
	aat, apaths, _ := log(a)
	if len(aat) != 2 || apaths[1] != "/page" {
		t.Fatalf("robots.txt's host saw %v", apaths)
	}
	if gap := aat[1].Sub(aat[0]); gap < crawlDelay {
		t.Errorf("the page came %v after robots.txt's request to its host, want at least its Crawl-delay %v", gap, crawlDelay)
	}
}

// TestRobotsRedirectKeepsTheOtherHostsCrawlDelay: a robots.txt
// redirected to another host's own robots.txt keeps that host waiting
// the Crawl-delay read there, as that host's robots.txt read for itself
// would: the next request to it waits for it.
func TestRobotsRedirectKeepsTheOtherHostsCrawlDelay(t *testing.T) {
	const delay = 50 * time.Millisecond
	const crawlDelay = 400 * time.Millisecond
	b := newArrivals(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Write([]byte("User-agent: *\nCrawl-delay: 0.4\nAllow: /\n"))
			return
		}
		w.Write([]byte("page"))
	})
	a := newArrivals(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, b.URL+"/robots.txt", http.StatusMovedPermanently)
	})
	c := loopbackClient(delay)
	ctx := WithCrawlDelay(WithDelay(t.Context(), delay), "heed", 10*time.Second)
	if _, err := c.LoadRobots(ctx, a.URL+"/robots.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, fetch.Request{URL: b.URL + "/page"}); err != nil {
		t.Fatal(err)
	}
	log := b.Log()
	if len(log) != 2 || log[1].Path != "/page" {
		t.Fatalf("the other host saw %v", log)
	}
	if gap := log[1].At.Sub(log[0].End); gap < crawlDelay {
		t.Errorf("the other host was asked %v after its robots.txt, want at least its Crawl-delay %v", gap, crawlDelay)
	}
}

// TestRobotsRedirectToASilentHost: a robots.txt that redirects to a
// host that does not answer holds that host's turn, not its own: a
// request to robots.txt's host is made meanwhile, on its own turn.
func TestRobotsRedirectToASilentHost(t *testing.T) {
	asked, answer := make(chan struct{}), make(chan struct{})
	var once sync.Once
	b := newArrivals(t, func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(asked) })
		select {
		case <-answer:
		case <-r.Context().Done():
		}
	})
	a := newArrivals(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.Redirect(w, r, b.URL+"/robots.txt", http.StatusMovedPermanently)
			return
		}
		w.Write([]byte("page"))
	})
	c := loopbackClient(0)
	ctx := WithCrawlDelay(t.Context(), "heed", time.Second)
	loaded := make(chan error, 1)
	go func() {
		_, err := c.LoadRobots(ctx, a.URL+"/robots.txt")
		loaded <- err
	}()
	<-asked
	// robots.txt hangs at the other host; its own host is free.
	if _, err := c.Get(ctx, fetch.Request{URL: a.URL + "/page"}); err != nil {
		t.Fatal(err)
	}
	close(answer)
	<-loaded
}
