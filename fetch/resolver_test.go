package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/heedhq/heed"
)

// hosts is a resolver over a table: each name answers its lists of
// addresses in turn (the last one again once they run out).
type hosts struct {
	mu      sync.Mutex
	answers map[string][][]string
	asked   map[string]int
}

func (h *hosts) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	lists, ok := h.answers[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	if h.asked == nil {
		h.asked = map[string]int{}
	}
	i := min(h.asked[host], len(lists)-1)
	h.asked[host]++
	var out []netip.Addr
	for _, a := range lists[i] {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

// countingServer is a loopback server that counts the connections that
// reach it, so a test can assert that none did.
type countingServer struct {
	*httptest.Server
	conns atomic.Int32
}

type countingListener struct {
	net.Listener
	n *atomic.Int32
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

func startCounting(t *testing.T, addr string, h http.Handler) *countingServer {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	s := &countingServer{}
	s.Server = httptest.NewUnstartedServer(h)
	s.Listener = countingListener{l, &s.conns}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func port(s *httptest.Server) string {
	_, p, _ := net.SplitHostPort(s.Listener.Addr().String())
	return p
}

func TestResolvedAddressesAreJudged(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "public") })
	public := startCounting(t, "127.0.0.1:0", ok)  // stands in for the internet: allowed
	private := startCounting(t, "127.0.0.2:0", ok) // stands in for an intranet: not allowed
	pp, xp := port(public.Server), port(private.Server)
	if pp != xp {
		// Listen on the same port on both addresses, so that one URL can
		// reach either depending on what its name resolves to.
		private.Close()
		private = startCounting(t, "127.0.0.2:"+pp, ok)
	}
	res := &hosts{answers: map[string][][]string{
		"www.public.test": {{"127.0.0.1"}},
		"intranet.test":   {{"127.0.0.2"}},
		"mixed.test":      {{"127.0.0.1", "127.0.0.2"}},
		"mixed-v6.test":   {{"127.0.0.1", "::ffff:127.0.0.2"}},
		"rebind.test":     {{"127.0.0.1"}, {"127.0.0.2"}},
		"metadata.test":   {{"169.254.169.254"}},
		"empty.test":      {{}},
	}}
	c, _ := newClient(t, Config{Resolver: res})
	get := func(host string) error {
		_, err := c.Get(t.Context(), Request{URL: "http://" + host + ":" + pp + "/"})
		return err
	}
	if err := get("www.public.test"); err != nil {
		t.Fatalf("public name: %v", err)
	}
	for _, host := range []string{"intranet.test", "mixed.test", "mixed-v6.test", "metadata.test"} {
		err := get(host)
		if !errors.Is(err, ErrRefused) || heed.KindOf(err) != heed.Blocked || !strings.Contains(err.Error(), host+" resolves to") {
			t.Errorf("%s: got %v, want refused naming what it resolves to", host, err)
		}
	}
	if err := get("empty.test"); err == nil || heed.KindOf(err) != heed.NotFound {
		t.Errorf("a name with no addresses: got %v, want not found", err)
	}
	// Rebinding: the first answer is allowed, the second is not, and the
	// second connection is refused.
	if err := get("rebind.test"); err != nil {
		t.Fatalf("rebind, first answer: %v", err)
	}
	c.plain.CloseIdleConnections()
	if err := get("rebind.test"); !errors.Is(err, ErrRefused) {
		t.Errorf("rebind, second answer: got %v, want refused", err)
	}
	if n := private.conns.Load(); n != 0 {
		t.Errorf("the private address saw %d connections, want 0", n)
	}
	if n := public.conns.Load(); n != 2 {
		t.Errorf("the public address saw %d connections, want 2 (mixed answers must not connect)", n)
	}
}

// A URL whose fragment or query holds an "@" is a URL of the host
// before it (RFC 3986, WHATWG): the client asks that host, and neither
// refuses it as carrying credentials nor reaches the address after the
// "@".
func TestAtInFragmentIsNoCredentials(t *testing.T) {
	var hostsSeen []string
	s := startCounting(t, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hostsSeen = append(hostsSeen, r.Host+r.URL.RequestURI())
		fmt.Fprint(w, "public")
	}))
	p := port(s.Server)
	res := &hosts{answers: map[string][][]string{"public.test": {{"127.0.0.1"}}}}
	c, _ := newClient(t, Config{Resolver: res, AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Retries: -1})
	for _, u := range []string{"http://public.test:" + p + "#@127.0.0.2/", "http://public.test:" + p + "?@127.0.0.2/"} {
		resp, err := c.Get(t.Context(), Request{URL: u})
		if err != nil {
			t.Errorf("Get(%q): %v", u, err)
			continue
		}
		if string(resp.Body) != "public" {
			t.Errorf("Get(%q): body %q", u, resp.Body)
		}
	}
	want := []string{"public.test:" + p + "/", "public.test:" + p + "/?@127.0.0.2/"}
	if fmt.Sprint(hostsSeen) != fmt.Sprint(want) {
		t.Errorf("the server was asked %q, want %q", hostsSeen, want)
	}
}

func TestRedirectIntoPrivateSpace(t *testing.T) {
	private := startCounting(t, "127.0.0.2:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	res := &hosts{answers: map[string][][]string{"intranet.test": {{"127.0.0.2"}}}}
	var hop atomic.Int32
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/chain":
			// Two harmless hops, then into private space by name, by
			// address and by a numeric spelling of it.
			switch hop.Add(1) {
			case 1, 2:
				http.Redirect(w, r, "/chain", http.StatusFound)
			default:
				http.Redirect(w, r, "http://intranet.test:"+port(private.Server)+"/", http.StatusFound)
			}
		case "/by-address":
			http.Redirect(w, r, private.URL+"/", http.StatusFound)
		case "/by-number":
			http.Redirect(w, r, "http://2130706434:"+port(private.Server)+"/", http.StatusFound) // 127.0.0.2
		case "/loop-a":
			http.Redirect(w, r, "/loop-b", http.StatusFound)
		case "/loop-b":
			http.Redirect(w, r, "/loop-a", http.StatusFound)
		}
	})
	c, _ := newClient(t, Config{Resolver: res})
	for _, path := range []string{"/chain", "/by-address", "/by-number"} {
		if _, err := c.Get(t.Context(), Request{URL: s.URL + path}); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: got %v, want refused", path, err)
		}
	}
	if _, err := c.Get(t.Context(), Request{URL: s.URL + "/loop-a"}); !errors.Is(err, ErrTooManyRedirects) {
		t.Errorf("redirect loop: got %v, want too many redirects", err)
	}
	if n := private.conns.Load(); n != 0 {
		t.Errorf("the private address saw %d connections, want 0", n)
	}
}

func TestEncodedAddressesNeverConnect(t *testing.T) {
	srv := startCounting(t, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	p := port(srv.Server)
	strict := New(Config{}) // nothing private allowed
	for _, host := range []string{"127.0.0.1", "2130706433", "0x7f.1", "0x7f000001", "127.1", "127.0.1", "017700000001", "0177.0.0.1", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "localhost"} {
		_, err := strict.Get(t.Context(), Request{URL: "http://" + host + ":" + p + "/"})
		if !errors.Is(err, ErrRefused) {
			t.Errorf("%s: got %v, want refused", host, err)
		}
	}
	if n := srv.conns.Load(); n != 0 {
		t.Errorf("the server saw %d connections, want 0", n)
	}
}
