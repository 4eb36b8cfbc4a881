package team

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/testutil"
)

// chainSite serves on every host name a chain of pages, /p0 to the last
// of pages(host), each linking to the next; robots answers /robots.txt
// and the paths it claims (true), with the host named without its port.
func chainSite(t *testing.T, pages func(host string) int, robots func(w http.ResponseWriter, r *http.Request, host string) bool) (*testutil.Arrivals, string) {
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		host := r.Host[:strings.IndexByte(r.Host, ':')]
		if robots(w, r, host) {
			return
		}
		var i int
		if _, err := fmt.Sscanf(r.URL.Path, "/p%d", &i); err != nil || i >= pages(host) || r.URL.Path != fmt.Sprintf("/p%d", i) {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `<html><title>%s page %d</title><main><h1>Page %d of %s</h1><p>One page of a chain of pages, each linking to the next one.</p><a href="/p%d">next</a></main></html>`, host, i, i, host, i+1)
	})
	return site, site.URL[strings.LastIndexByte(site.URL, ':')+1:]
}

// gaps fails the test for two requests to one host (robots.txt and its
// redirects included) closer than delay, the end of one to the start of
// the next.
func gaps(t *testing.T, site *testutil.Arrivals, delay time.Duration) {
	t.Helper()
	last := map[string]testutil.Arrival{}
	for _, a := range site.Log() {
		if l, ok := last[a.Host]; ok && a.At.Sub(l.End) < delay {
			t.Errorf("%s%s asked %v after %s ended, want at least %v", a.Host, a.Path, a.At.Sub(l.End), l.Path, delay)
		}
		last[a.Host] = a
	}
}

// A robots.txt that redirects to another host's robots.txt: the hop
// there takes that host's turn, as the team keeps it, though a worker
// crawls that host meanwhile, and keeps the host waiting the Crawl-delay
// it read there; no two requests to it come closer than its
// Crawl-delay, and the crawl whose robots.txt redirected is done, its
// pages stored.
func TestWorkersRobotsRedirectTakesTheOtherHostsTurn(t *testing.T) {
	pool := database(t)
	var port string
	site, port := chainSite(t, func(host string) int {
		if host == "b.team.test" {
			return 8
		}
		return 2
	}, func(w http.ResponseWriter, r *http.Request, host string) bool {
		switch {
		case r.URL.Path != "/robots.txt":
			return false
		case host == "a.team.test":
			http.Redirect(w, r, "http://b.team.test:"+port+"/robots.txt", http.StatusMovedPermanently)
		default:
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 0.4\nAllow: /\n")
		}
		return true
	})
	startWorkers(t, pool, 2, nil)
	const delay, crawlDelay = 100 * time.Millisecond, 400 * time.Millisecond
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = "http://b.team.test:"+port+"/p0", "b", delay
	o.MaxPages, o.MaxDepth = 20, 20
	bid, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	// Host b's crawl is under way when host a's begins.
	for asked := 0; asked < 2; time.Sleep(20 * time.Millisecond) {
		asked = len(site.Log())
	}
	o = crawlopt.Defaults()
	o.Start, o.Source, o.Delay = "http://a.team.test:"+port+"/p0", "a", delay
	o.MaxPages, o.MaxDepth = 20, 20
	aid, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	if p := waitDone(t, pool, aid, 2*time.Minute); p.Stored != 2 {
		t.Errorf("host a's crawl: %+v; want its 2 pages stored", p)
	}
	if p := waitDone(t, pool, bid, 2*time.Minute); p.Stored != 8 {
		t.Errorf("host b's crawl: %+v; want its 8 pages stored", p)
	}
	robots := 0
	for _, a := range site.Log() {
		if strings.HasPrefix(a.Host, "b.team.test:") && a.Path == "/robots.txt" {
			robots++
		}
	}
	if robots != 2 {
		t.Errorf("host b's robots.txt asked %d times, want 2 (its own crawl's, and a's by way of the redirect)", robots)
	}
	gaps(t, site, crawlDelay)
}

// Two hosts whose robots.txt files redirect to each other's host, asked
// at once by two workers: neither waits on the other for good; both
// crawls are done, their pages stored, each host's requests spaced.
func TestWorkersRobotsRedirectToEachOther(t *testing.T) {
	pool := database(t)
	var port string
	var mu sync.Mutex
	both := make(chan struct{})
	arrived := map[string]bool{}
	site, port := chainSite(t, func(string) int { return 2 }, func(w http.ResponseWriter, r *http.Request, host string) bool {
		switch r.URL.Path {
		case "/robots.txt":
			// Each waits for the other's: both workers are in the
			// middle of a robots.txt at once.
			mu.Lock()
			if arrived[host] = true; len(arrived) == 2 && !isClosed(both) {
				close(both)
			}
			mu.Unlock()
			select {
			case <-both:
			case <-time.After(10 * time.Second):
			}
			other := "a.team.test"
			if host == other {
				other = "b.team.test"
			}
			http.Redirect(w, r, "http://"+other+":"+port+"/robots-of-"+host+".txt", http.StatusFound)
		case "/robots-of-a.team.test.txt", "/robots-of-b.team.test.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		default:
			return false
		}
		return true
	})
	startWorkers(t, pool, 2, nil)
	const delay = 200 * time.Millisecond
	var ids []int64
	for _, host := range []string{"a.team.test", "b.team.test"} {
		o := crawlopt.Defaults()
		o.Start, o.Source, o.Delay = "http://"+host+":"+port+"/p0", host, delay
		o.MaxPages, o.MaxDepth = 20, 20
		id, err := Start(context.Background(), pool, o)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for _, id := range ids {
		if p := waitDone(t, pool, id, 2*time.Minute); p.Stored != 2 {
			t.Errorf("crawl %d: %+v; want its 2 pages stored", id, p)
		}
	}
	gaps(t, site, delay)
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// A robots.txt that redirects to a host another holds for longer than a
// request beside the jobs waits: the host is not asked meanwhile; the
// robots.txt is unread for now, its URL tried again, and stored once the
// host is let go.
func TestWorkersRobotsRedirectToAHeldHost(t *testing.T) {
	pool := database(t)
	var port string
	site, port := chainSite(t, func(string) int { return 1 }, func(w http.ResponseWriter, r *http.Request, host string) bool {
		switch {
		case r.URL.Path != "/robots.txt":
			return false
		case host == "a.team.test":
			http.Redirect(w, r, "http://b.team.test:"+port+"/robots.txt", http.StatusMovedPermanently)
		default:
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		}
		return true
	})
	ctx := context.Background()
	b := "b.team.test:" + port
	if _, err := pool.Exec(ctx, `INSERT INTO heed_host (host) VALUES ($1)`, b); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := takeLease(ctx, pool, b, "another", time.Hour); !ok || err != nil {
		t.Fatalf("hold host b: %v, %v", ok, err)
	}
	startWorkers(t, pool, 1, func(w *Worker) { w.Slice = 30 * time.Second })
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = "http://a.team.test:"+port+"/p0", "a", 50*time.Millisecond
	o.MaxPages = 5
	id, err := Start(ctx, pool, o)
	if err != nil {
		t.Fatal(err)
	}
	for attempts := 0; attempts == 0; time.Sleep(50 * time.Millisecond) {
		if err := pool.QueryRow(ctx, `SELECT attempts FROM heed_frontier WHERE crawl = $1`, id).Scan(&attempts); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range site.Log() {
		if a.Host == b {
			t.Errorf("host b asked for %s while another held it", a.Path)
		}
	}
	if _, err := pool.Exec(ctx, `UPDATE heed_host SET lease_owner = NULL, lease_until = NULL WHERE host = $1`, b); err != nil {
		t.Fatal(err)
	}
	if p := waitDone(t, pool, id, 2*time.Minute); p.Stored != 1 {
		t.Errorf("progress %+v; want the page stored once host b was let go", p)
	}
}

// A robots.txt that never answers (the connection closed at once): the
// host's queued URLs are not each tried crawl.MaxAttempts times, each time
// after a request for robots.txt of its own; a slice asks for it once,
// and every URL of the origin it holds fails that attempt. The crawl
// ends with them failed, robots.txt asked crawl.MaxAttempts times at most.
func TestWorkersSilentRobotsAskedOnceASlice(t *testing.T) {
	pool := database(t)
	const n = 10
	site, port := chainSite(t, func(string) int { return 1 }, func(w http.ResponseWriter, r *http.Request, host string) bool {
		switch {
		case host == "a.team.test" && r.URL.Path == "/p0":
			fmt.Fprint(w, `<html><title>Links</title><main><h1>Links</h1><p>Links to another host's pages, each of them a page to read.</p>`)
			for i := range n {
				fmt.Fprintf(w, `<a href="http://c.team.test:%s/c%d">c%d</a>`, r.Host[strings.IndexByte(r.Host, ':')+1:], i, i)
			}
			fmt.Fprint(w, `</main></html>`)
		case host == "c.team.test" && r.URL.Path == "/robots.txt":
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		case r.URL.Path == "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		default:
			return false
		}
		return true
	})
	startWorkers(t, pool, 1, nil)
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = "http://a.team.test:"+port+"/p0", "a", 10*time.Millisecond
	o.MaxPages, o.MaxDepth = 50, 2
	o.AllowHosts, o.WholeSite = []string{"a.team.test:" + port, "c.team.test:" + port}, true
	o.NoSitemaps, o.NoLLMsTxt = true, true
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	p := waitDone(t, pool, id, 3*time.Minute)
	if p.Stored != 1 || p.Failed[heed.Transient.String()] != n {
		t.Errorf("progress %+v; want /p0 stored and the %d pages of c failed", p, n)
	}
	asked := 0
	for _, a := range site.Log() {
		if strings.HasPrefix(a.Host, "c.team.test") {
			if a.Path != "/robots.txt" {
				t.Errorf("%s%s asked, though its robots.txt never answered", a.Host, a.Path)
			}
			asked++
		}
	}
	if asked > crawl.MaxAttempts {
		t.Errorf("c's robots.txt asked %d times for its %d pages; want %d at most", asked, n, crawl.MaxAttempts)
	}
}

// A robots.txt that redirects to a host whose holder lets it go at its
// next request, which comes later than a request beside the jobs waits
// (renderPatience) but within the host's delay: the hop waits for it,
// and the page is stored, not failed for a host the team itself held.
// The holder here acts as a job's slice does: it heeds a wish made
// since its last request, when its delay (6 s) is over.
func TestWorkersRobotsRedirectWaitsTheHoldersDelay(t *testing.T) {
	pool := database(t)
	var port string
	_, port = chainSite(t, func(string) int { return 1 }, func(w http.ResponseWriter, r *http.Request, host string) bool {
		switch {
		case r.URL.Path != "/robots.txt":
			return false
		case host == "a.team.test":
			http.Redirect(w, r, "http://b.team.test:"+port+"/robots.txt", http.StatusMovedPermanently)
		default:
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		}
		return true
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := "b.team.test:" + port
	const holderDelay = 6 * time.Second
	if _, err := pool.Exec(ctx, `INSERT INTO heed_host (host, delay_ms) VALUES ($1, $2)`, b, holderDelay.Milliseconds()); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := takeLease(ctx, pool, b, "holder", time.Hour); !ok || err != nil {
		t.Fatalf("hold host b: %v, %v", ok, err)
	}
	released := make(chan struct{})
	go func() {
		defer close(released)
		var since time.Time // when a wish was first seen since the last look
		for ctx.Err() == nil {
			time.Sleep(50 * time.Millisecond)
			var fresh bool
			if err := pool.QueryRow(ctx, `SELECT coalesce(wanted_at > now() - make_interval(secs => $2), false) FROM heed_host WHERE host = $1`, b, wantedFor.Seconds()).Scan(&fresh); err != nil {
				return
			}
			switch {
			case !fresh:
				since = time.Time{}
			case since.IsZero():
				since = time.Now()
			case time.Since(since) >= holderDelay:
				pool.Exec(ctx, `UPDATE heed_host SET lease_owner = NULL, lease_until = NULL, wanted_at = NULL WHERE host = $1`, b)
				return
			}
		}
	}()
	startWorkers(t, pool, 1, nil)
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = "http://a.team.test:"+port+"/p0", "a", 50*time.Millisecond
	o.MaxPages = 5
	id, err := Start(ctx, pool, o)
	if err != nil {
		t.Fatal(err)
	}
	if p := waitDone(t, pool, id, 2*time.Minute); p.Stored != 1 {
		t.Errorf("progress %+v; want the page stored once b's holder let it go", p)
	}
	cancel()
	<-released
}
