package teamtest

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/testutil"
)

// Site is N pages spread over Hosts host names, page i on host i mod
// Hosts at /p/i. Page i links to pages 3i+1 to 3i+3 (a tree, so that
// the crawl reaches every page), to its parent (seen already) and to a
// page under /private/, which robots.txt disallows.
type Site struct {
	*testutil.Arrivals
	N, Hosts int
	// Robots is each host's robots.txt; "" means one that disallows
	// /private/.
	Robots func(host string) string
	// Down are hosts whose robots.txt answers 503.
	Down map[string]bool
}

// Start starts a site of n pages on hosts host names, each request held
// for hold.
func Start(tb testing.TB, n, hosts int, hold time.Duration) *Site {
	return StartOn(tb, "127.0.0.1:0", n, hosts, hold)
}

// StartOn is Start, the server listening on addr.
func StartOn(tb testing.TB, addr string, n, hosts int, hold time.Duration) *Site {
	s := &Site{N: n, Hosts: hosts}
	s.Arrivals = testutil.NewArrivalsOn(tb, addr, hold, s.serve)
	return s
}

// Host is the name of host h.
func Host(h int) string { return fmt.Sprintf("h%02d.team.test", h) }

// Names are the site's host names.
func (s *Site) Names() []string {
	var names []string
	for h := range s.Hosts {
		names = append(names, Host(h))
	}
	return names
}

// HostPorts are the site's hosts as a crawl's allowed hosts name them:
// with the server's port.
func (s *Site) HostPorts() []string {
	var hosts []string
	for _, h := range s.Names() {
		hosts = append(hosts, h+":"+s.Port())
	}
	return hosts
}

// Port is the server's port.
func (s *Site) Port() string { return s.URL[strings.LastIndexByte(s.URL, ':')+1:] }

// URL is the URL of page i.
func (s *Site) PageURL(i int) string {
	return fmt.Sprintf("http://%s:%s/p/%d", Host(i%s.Hosts), s.Port(), i)
}

// Words is the word that page i alone holds, for searches.
func Words(i int) string { return fmt.Sprintf("marker%dword", i) }

func (s *Site) serve(w http.ResponseWriter, r *http.Request) {
	host, _, _ := strings.Cut(r.Host, ":")
	switch {
	case r.URL.Path == "/robots.txt" && s.Down[host]:
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		return
	case r.URL.Path == "/robots.txt":
		body := "User-agent: *\nDisallow: /private/\n"
		if s.Robots != nil {
			body = s.Robots(host)
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, body)
		return
	case r.URL.Path == "/about":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>About %s</title><main><h1>About %s</h1><p>A page no crawl links to, for requests beside the crawl's.</p></main>", host, host)
		return
	case !strings.HasPrefix(r.URL.Path, "/p/"):
		http.NotFound(w, r)
		return
	}
	i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
	if err != nil || i < 0 || i >= s.N || Host(i%s.Hosts) != host {
		http.NotFound(w, r)
		return
	}
	var links strings.Builder
	for c := 3*i + 1; c <= 3*i+3 && c < s.N; c++ {
		fmt.Fprintf(&links, `<li><a href="%s">Page %d</a></li>`, s.PageURL(c), c)
	}
	if i > 0 {
		fmt.Fprintf(&links, `<li><a href="%s">Up</a></li>`, s.PageURL((i-1)/3))
	}
	fmt.Fprintf(&links, `<li><a href="/private/%d">Private</a></li>`, i)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><html><head><title>Page %d</title></head><body>
<nav><ul>%s</ul></nav>
<main><article><h1>Page %d</h1>
<p>This is page %d of the team site. It holds the word %s, which no other page holds, so that a search finds it alone.</p>
<p>Crawlers that share one schedule per host keep every host's delay, whichever worker asks. This paragraph is here so that the page has text enough to be read as an article.</p>
</article></main></body></html>`, i, links.String(), i, i, Words(i))
}

// Check is what the log says of the crawl: each host's least gap between
// the end of one request and the start of the next, the most requests
// to one host in flight at once, the pages requested more than once, and
// how often each host's robots.txt was asked for.
type Check struct {
	MinGap      time.Duration
	MinGapAt    string
	MaxInFlight int
	Twice       []string
	Robots      map[string]int
	Private     int // requests under /private/, which robots.txt disallows
	Pages       int // distinct pages requested
}

// Checked reads the log.
func (s *Site) Checked() Check {
	c := Check{MinGap: time.Hour, Robots: map[string]int{}}
	byHost := map[string][]testutil.Arrival{}
	seen := map[string]bool{}
	for _, a := range s.Log() {
		host, _, _ := strings.Cut(a.Host, ":")
		byHost[host] = append(byHost[host], a)
		switch {
		case a.Path == "/robots.txt":
			c.Robots[host]++
		case strings.HasPrefix(a.Path, "/private/"):
			c.Private++
		case strings.HasPrefix(a.Path, "/p/"):
			if seen[host+a.Path] {
				c.Twice = append(c.Twice, host+a.Path)
			}
			seen[host+a.Path] = true
		}
	}
	c.Pages = len(seen)
	for host, log := range byHost {
		slices.SortFunc(log, func(a, b testutil.Arrival) int { return a.At.Compare(b.At) })
		for i := 1; i < len(log); i++ {
			if log[i].At.Before(log[i-1].End) {
				c.MaxInFlight = max(c.MaxInFlight, 2)
			}
			if gap := log[i].At.Sub(log[i-1].End); gap < c.MinGap {
				c.MinGap, c.MinGapAt = gap, host+log[i].Path
			}
		}
		if len(log) > 0 {
			c.MaxInFlight = max(c.MaxInFlight, 1)
		}
	}
	return c
}

// Resolver makes the site's names resolve to loopback, as a user's
// resolve setting would.
type Resolver struct{}

// LookupNetIP resolves every name to 127.0.0.1.
func (Resolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}
