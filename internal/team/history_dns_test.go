package team

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
)

// hubResolver resolves every name to 127.0.0.1, but the hub's while it
// is down: its name then does not resolve, as a resolver that answers
// NXDOMAIN for a moment does.
type hubResolver struct{ down *atomic.Bool }

func (r hubResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if strings.HasPrefix(host, "hub.") && r.down.Load() {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// TestTeamNameNotResolvedIsNoDeadLink: a team's crawl in which a page
// failed because its host's name did not resolve is no complete crawl:
// only a 404 or a 410 is a dead link that leaves a crawl complete
// (docs/history.md), as on one machine, so the pages linked only from the
// page that failed are not marked removed.
func TestTeamNameNotResolvedIsNoDeadLink(t *testing.T) {
	pool := database(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page := func(title, link string) {
			fmt.Fprintf(w, `<html><head><title>%s</title></head><body><main><p>The page %s, with words enough to be content of its own.</p><a href="%s">on</a></main></body></html>`, title, title, link)
		}
		_, port, _ := net.SplitHostPort(r.Host)
		switch {
		case r.URL.Path == "/robots.txt":
			http.NotFound(w, r)
		case strings.HasPrefix(r.Host, "hub.") && r.URL.Path == "/":
			page("Hub", "http://home.example:"+port+"/child")
		case r.URL.Path == "/":
			page("Home", "http://hub.example:"+port+"/")
		case r.URL.Path == "/child":
			page("Child", "/")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(site.URL, "http://"))
	o := crawl.Options{Options: crawlopt.Defaults()}
	o.Start, o.Source, o.Delay = "http://home.example:"+port+"/", "site", 0
	o.AllowHosts, o.WholeSite = []string{"home.example:" + port, "hub.example:" + port}, true
	o.NoSitemaps, o.NoLLMsTxt = true, true
	var down atomic.Bool
	crawlWith := func() []crawl.Event {
		// A client of its own each crawl: no connection of the last one
		// spares a name its lookup.
		client := fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Resolver: hubResolver{&down}, ResetOnClose: true})
		var mu sync.Mutex
		var events []crawl.Event
		w := &Worker{Pool: pool, HTTP: client, Hosts: 8, Slice: 2 * time.Second, LeaseTTL: 5 * time.Second,
			Event: func(e crawl.Event) { mu.Lock(); defer mu.Unlock(); events = append(events, e) }}
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan error, 1)
		go func() { ran <- w.Run(ctx) }()
		id, err := Start(context.Background(), pool, o.Options)
		if err != nil {
			t.Fatal(err)
		}
		waitDone(t, pool, id, time.Minute)
		cancel()
		if err := <-ran; err != nil {
			t.Fatalf("worker: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		return events
	}
	if events := crawlWith(); len(events) < 3 {
		t.Fatalf("first crawl: %+v", events)
	}
	down.Store(true)
	events := crawlWith()
	var told []string
	for _, e := range events {
		told = append(told, fmt.Sprintf("%s %s %s", e.Kind, e.URL, e.Reason))
	}
	var removed *time.Time
	if err := pool.QueryRow(context.Background(), `SELECT removed FROM heed_snapshot WHERE url = $1`, "http://home.example:"+port+"/child").Scan(&removed); err != nil {
		t.Fatal(err)
	}
	if removed != nil {
		t.Errorf("the child page, there still, was marked removed by a crawl in which its hub failed (its name did not resolve); the crawl told:\n%s", strings.Join(told, "\n"))
	}
}
