package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/robots"
)

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}

// newClient returns a client allowed to reach 127.0.0.1, recording its
// retry waits instead of sleeping.
func newClient(t *testing.T, cfg Config) (*Client, *[]time.Duration) {
	t.Helper()
	if cfg.AllowNets == nil {
		cfg.AllowNets = loopback
	}
	c := New(cfg)
	var mu sync.Mutex
	waits := &[]time.Duration{}
	c.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		*waits = append(*waits, d)
		return ctx.Err()
	}
	return c, waits
}

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

func TestGetLoopbackOnlyWhenAllowed(t *testing.T) {
	var hits atomic.Int32
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "hello")
	})
	c, _ := newClient(t, Config{})
	resp, err := c.Get(t.Context(), Request{URL: s.URL + "/x"})
	if err != nil || string(resp.Body) != "hello" || resp.Status != 200 || resp.URL != s.URL+"/x" {
		t.Fatalf("allowed loopback: got %+v, %v", resp, err)
	}
	// Without the allowance, nothing reaches the server: not by address,
	// and not by a name that resolves to it (judged where it is dialled).
	strict := New(Config{})
	_, port, _ := net.SplitHostPort(s.Listener.Addr().String())
	for _, u := range []string{s.URL, "http://localhost:" + port + "/"} {
		_, err := strict.Get(t.Context(), Request{URL: u})
		if !errors.Is(err, ErrRefused) || heed.KindOf(err) != heed.Blocked {
			t.Errorf("Get(%s) without allowance: got %v, want refused", u, err)
		}
		var r *RefusedError
		if !errors.As(err, &r) || !r.Addr.IsLoopback() || r.Prefix.String() != "127.0.0.0/8" || strings.Contains(err.Error(), "--") {
			t.Errorf("Get(%s): error %q does not say which network to allow, or names a flag", u, err)
		}
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestGetHeaders(t *testing.T) {
	var got http.Header
	s := serve(t, func(w http.ResponseWriter, r *http.Request) { got = r.Header.Clone() })
	c, _ := newClient(t, Config{})
	if _, err := c.Get(t.Context(), Request{URL: s.URL}); err != nil {
		t.Fatal(err)
	}
	if ua := got.Get("User-Agent"); ua != heed.UserAgent() || !strings.HasPrefix(ua, "heed/") {
		t.Errorf("User-Agent %q, want %q", ua, heed.UserAgent())
	}
	if got.Get("Accept") == "" || got.Get("Cookie") != "" || got.Get("Authorization") != "" {
		t.Errorf("headers %v", got)
	}
	c2, _ := newClient(t, Config{UserAgent: "ExampleAgent/2"})
	if _, err := c2.Get(t.Context(), Request{URL: s.URL}); err != nil {
		t.Fatal(err)
	}
	if ua := got.Get("User-Agent"); ua != "ExampleAgent/2" {
		t.Errorf("User-Agent %q, want the override", ua)
	}
}

func TestEnvironmentProxyIgnored(t *testing.T) {
	s := serve(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "direct") })
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:1")
	t.Setenv("http_proxy", "http://127.0.0.1:1")
	c, _ := newClient(t, Config{})
	resp, err := c.Get(t.Context(), Request{URL: s.URL})
	if err != nil || string(resp.Body) != "direct" {
		t.Errorf("with HTTP_PROXY set: got %v, %v, want a direct request", resp, err)
	}
}

func TestExplicitProxy(t *testing.T) {
	var proxied atomic.Int32
	proxy := serve(t, func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		fmt.Fprintf(w, "via proxy for %s", r.URL)
	})
	pu, _ := url.Parse(proxy.URL)
	c, _ := newClient(t, Config{Proxy: pu})
	resp, err := c.Get(t.Context(), Request{URL: "http://127.0.0.1:9/page"})
	if err != nil || string(resp.Body) != "via proxy for http://127.0.0.1:9/page" {
		t.Fatalf("proxied: got %v, %v", resp, err)
	}
	// The destination is still judged: a refused address never reaches
	// the proxy.
	if _, err := c.Get(t.Context(), Request{URL: "http://169.254.169.254/latest/"}); !errors.Is(err, ErrRefused) {
		t.Errorf("proxied metadata address: got %v, want refused", err)
	}
	if n := proxied.Load(); n != 1 {
		t.Errorf("proxy saw %d requests, want 1", n)
	}
}

func TestRedirects(t *testing.T) {
	var cookies []string
	var mu sync.Mutex
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		cookies = append(cookies, r.Header.Get("Cookie"))
		mu.Unlock()
		switch {
		case strings.HasPrefix(r.URL.Path, "/hop/"):
			var n int
			fmt.Sscanf(r.URL.Path, "/hop/%d", &n)
			if n == 0 {
				fmt.Fprint(w, "arrived")
				return
			}
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "secret"})
			http.Redirect(w, r, fmt.Sprintf("/hop/%d#frag", n-1), http.StatusFound)
		case r.URL.Path == "/to-metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusMovedPermanently)
		case r.URL.Path == "/to-creds":
			http.Redirect(w, r, "http://user:pw@127.0.0.1/", http.StatusFound)
		case r.URL.Path == "/to-ftp":
			http.Redirect(w, r, "ftp://example.com/", http.StatusFound)
		}
	})
	c, _ := newClient(t, Config{})
	resp, err := c.Get(t.Context(), Request{URL: s.URL + "/hop/10"})
	if err != nil || string(resp.Body) != "arrived" || len(resp.Redirects) != 10 || resp.URL != s.URL+"/hop/0" {
		t.Fatalf("10 redirects: got %+v, %v", resp, err)
	}
	if resp.Redirects[0] != s.URL+"/hop/10" {
		t.Errorf("redirect chain starts at %q", resp.Redirects[0])
	}
	for i, ck := range cookies {
		if ck != "" {
			t.Errorf("request %d carried cookie %q", i, ck)
		}
	}
	_, err = c.Get(t.Context(), Request{URL: s.URL + "/hop/11"})
	if !errors.Is(err, ErrTooManyRedirects) || heed.KindOf(err) != heed.Blocked {
		t.Errorf("11 redirects: got %v, want too many redirects", err)
	}
	if _, err := c.Get(t.Context(), Request{URL: s.URL + "/hop/3", MaxRedirects: 2}); !errors.Is(err, ErrTooManyRedirects) {
		t.Errorf("per-request cap of 2: got %v", err)
	}
	for _, path := range []string{"/to-metadata", "/to-creds", "/to-ftp"} {
		if _, err := c.Get(t.Context(), Request{URL: s.URL + path}); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: got %v, want refused", path, err)
		}
	}
}

// TestRedirectToDisallowedAddress checks that every hop is judged where it
// is dialled: an allowed server redirects to a loopback address that is
// not allowed, which never sees a request.
func TestRedirectToDisallowedAddress(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	var reached atomic.Int32
	other := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) })}}
	other.Start()
	t.Cleanup(other.Close)
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/", http.StatusFound)
	})
	c, _ := newClient(t, Config{}) // allows 127.0.0.1 only
	_, err = c.Get(t.Context(), Request{URL: s.URL})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "127.0.0.2") {
		t.Errorf("redirect to 127.0.0.2: got %v, want refused", err)
	}
	if reached.Load() != 0 {
		t.Errorf("the refused address was reached")
	}
}

func TestHTTPSNeverRedirectsToHTTP(t *testing.T) {
	plain := serve(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "insecure") })
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/same" {
			http.Redirect(w, r, "/final", http.StatusFound)
			return
		}
		if r.URL.Path == "/final" {
			fmt.Fprint(w, "secure")
			return
		}
		http.Redirect(w, r, plain.URL+"/", http.StatusFound)
	}))
	t.Cleanup(secure.Close)
	c, _ := newClient(t, Config{})
	trusted := secure.Client().Transport.(*http.Transport).TLSClientConfig
	c.plain.Transport.(*http.Transport).TLSClientConfig = trusted
	resp, err := c.Get(t.Context(), Request{URL: secure.URL + "/same"})
	if err != nil || string(resp.Body) != "secure" {
		t.Fatalf("https to https: got %v, %v", resp, err)
	}
	_, err = c.Get(t.Context(), Request{URL: secure.URL + "/down"})
	if !errors.Is(err, ErrDowngrade) || heed.KindOf(err) != heed.Blocked {
		t.Errorf("https to http: got %v, want a refused downgrade", err)
	}
}

func TestBodyCaps(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 2<<20)
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zeros := make([]byte, 1<<20)
	for range 64 { // 64 MiB of zeros, about 64 KiB compressed
		zw.Write(zeros)
	}
	zw.Close()
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			w.Write(big)
		case "/big-chunked":
			w.(http.Flusher).Flush() // no Content-Length
			w.Write(big)
		case "/bomb":
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(bomb.Bytes())
		case "/small":
			fmt.Fprint(w, "ok")
		}
	})
	c, _ := newClient(t, Config{MaxBodyBytes: 1 << 20})
	for _, path := range []string{"/big", "/big-chunked", "/bomb"} {
		_, err := c.Get(t.Context(), Request{URL: s.URL + path})
		if !errors.Is(err, ErrTooLarge) || heed.KindOf(err) != heed.TooLarge {
			t.Errorf("%s: got %v, want too large", path, err)
		}
	}
	resp, err := c.Get(t.Context(), Request{URL: s.URL + "/big", Truncate: true, MaxBytes: 1000})
	if err != nil || len(resp.Body) != 1000 || !resp.Truncated {
		t.Errorf("truncated: got %d bytes, %v", len(resp.Body), err)
	}
	if resp, err := c.Get(t.Context(), Request{URL: s.URL + "/small"}); err != nil || resp.Truncated {
		t.Errorf("small: got %v, %v", resp, err)
	}
}

func TestSlowServers(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/drip":
			w.Header().Set("Content-Length", "1000")
			for range 1000 {
				w.Write([]byte("x"))
				w.(http.Flusher).Flush()
				select {
				case <-release:
					return
				case <-r.Context().Done():
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		case "/stall":
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	})
	c, _ := newClient(t, Config{BodyTimeout: 300 * time.Millisecond, Retries: -1})
	_, err := c.Get(t.Context(), Request{URL: s.URL + "/drip"})
	if !errors.Is(err, errBodyDeadline) || heed.KindOf(err) != heed.Transient {
		t.Errorf("dripping body: got %v, want the body deadline", err)
	}
	c, _ = newClient(t, Config{Timeout: 300 * time.Millisecond, Retries: -1})
	_, err = c.Get(t.Context(), Request{URL: s.URL + "/stall"})
	if !errors.Is(err, context.DeadlineExceeded) || heed.KindOf(err) != heed.Transient {
		t.Errorf("stalled headers: got %v, want the request deadline", err)
	}
}

func TestHeaderCap(t *testing.T) {
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Big", strings.Repeat("h", 256<<10))
	})
	c, _ := newClient(t, Config{MaxHeaderBytes: 64 << 10})
	if _, err := c.Get(t.Context(), Request{URL: s.URL}); err == nil || !strings.Contains(err.Error(), "header") {
		t.Errorf("huge header: got %v, want an error about headers", err)
	}
}

func TestRetries(t *testing.T) {
	var n atomic.Int32
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/flaky":
			if n.Add(1) <= 2 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			fmt.Fprint(w, "up")
		case "/after":
			if n.Add(1) == 1 {
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			fmt.Fprint(w, "up")
		case "/long":
			n.Add(1)
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
		case "/date":
			if n.Add(1) == 1 {
				w.Header().Set("Retry-After", time.Now().Add(5*time.Second).UTC().Format(http.TimeFormat))
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			fmt.Fprint(w, "up")
		case "/gone":
			n.Add(1)
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	tests := []struct {
		path   string
		status int
		calls  int32
		check  func([]time.Duration) bool
	}{
		{"/flaky", 200, 3, func(w []time.Duration) bool {
			return len(w) == 2 && w[0] >= 250*time.Millisecond && w[0] <= 500*time.Millisecond && w[1] >= 500*time.Millisecond && w[1] <= time.Second
		}},
		{"/after", 200, 2, func(w []time.Duration) bool { return slices.Equal(w, []time.Duration{7 * time.Second}) }},
		{"/long", 429, 1, func(w []time.Duration) bool { return len(w) == 0 }},
		{"/date", 200, 2, func(w []time.Duration) bool { return len(w) == 1 && w[0] > 3*time.Second && w[0] <= 5*time.Second }},
		{"/gone", 500, 1, func(w []time.Duration) bool { return len(w) == 0 }},
	}
	for _, tt := range tests {
		n.Store(0)
		c, waits := newClient(t, Config{})
		resp, err := c.Get(t.Context(), Request{URL: s.URL + tt.path})
		if err != nil || resp.Status != tt.status || n.Load() != tt.calls || !tt.check(*waits) {
			t.Errorf("%s: got status %v, %v after %d calls, waits %v; want %d after %d calls", tt.path, resp, err, n.Load(), *waits, tt.status, tt.calls)
		}
	}
	// Network errors are retried too.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	c, waits := newClient(t, Config{})
	if _, err := c.Get(t.Context(), Request{URL: "http://" + addr + "/"}); err == nil || heed.KindOf(err) != heed.Transient {
		t.Errorf("closed port: got %v, want a transient error", err)
	}
	if len(*waits) != 2 {
		t.Errorf("closed port: %d retries, want 2", len(*waits))
	}
}

func TestConditional(t *testing.T) {
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT")
		if r.Header.Get("If-None-Match") == `"v1"` || r.Header.Get("If-Modified-Since") == "Mon, 02 Jan 2006 15:04:05 GMT" {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprint(w, "body")
	})
	c, _ := newClient(t, Config{})
	first, err := c.Get(t.Context(), Request{URL: s.URL})
	if err != nil || first.NotModified || string(first.Body) != "body" {
		t.Fatalf("first: %v, %v", first, err)
	}
	for _, req := range []Request{
		{URL: s.URL, ETag: first.ETag()},
		{URL: s.URL, LastModified: first.LastModified()},
	} {
		again, err := c.Get(t.Context(), req)
		if err != nil || !again.NotModified || again.Status != 304 || len(again.Body) != 0 {
			t.Errorf("conditional %+v: got %+v, %v", req, again, err)
		}
	}
}

func TestLoadRobots(t *testing.T) {
	var mu sync.Mutex
	var headers []http.Header
	other := serve(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /from-other-origin\n")
	})
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		headers = append(headers, r.Header.Clone())
		mu.Unlock()
		switch {
		case strings.HasPrefix(r.URL.Path, "/ok/"):
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		case strings.HasPrefix(r.URL.Path, "/missing/"):
			http.NotFound(w, r)
		case strings.HasPrefix(r.URL.Path, "/down/"):
			w.WriteHeader(http.StatusServiceUnavailable)
		case strings.HasPrefix(r.URL.Path, "/limited/"):
			w.WriteHeader(http.StatusTooManyRequests)
		case strings.HasPrefix(r.URL.Path, "/hops5/"):
			hopTo(w, r, 5, "/ok/robots.txt")
		case strings.HasPrefix(r.URL.Path, "/hops6/"):
			hopTo(w, r, 6, "/ok/robots.txt")
		case strings.HasPrefix(r.URL.Path, "/elsewhere/"):
			http.Redirect(w, r, other.URL+"/robots.txt", http.StatusMovedPermanently)
		case strings.HasPrefix(r.URL.Path, "/metadata/"):
			http.Redirect(w, r, "http://169.254.169.254/robots.txt", http.StatusMovedPermanently)
		case strings.HasPrefix(r.URL.Path, "/huge/"):
			fmt.Fprint(w, "User-agent: *\nDisallow: /early\n")
			w.Write(bytes.Repeat([]byte("# padding padding padding padding padding padding\n"), robots.MaxBytes/50))
			fmt.Fprint(w, "Disallow: /late\n")
		}
	})
	c, waits := newClient(t, Config{})
	tests := []struct {
		path   string
		status robots.Status
		url    string // checked against the outcome
		allow  bool
	}{
		{"/ok/robots.txt", robots.Parsed, "/private/x", false},
		{"/ok/robots.txt", robots.Parsed, "/public", true},
		{"/missing/robots.txt", robots.Unavailable, "/private/x", true},
		{"/down/robots.txt", robots.Unreachable, "/public", false},
		{"/limited/robots.txt", robots.Unreachable, "/public", false},
		{"/hops5/robots.txt", robots.Parsed, "/private/x", false},
		{"/hops6/robots.txt", robots.Unavailable, "/private/x", true},
		{"/elsewhere/robots.txt", robots.Parsed, "/from-other-origin", false},
		{"/huge/robots.txt", robots.Parsed, "/early", false},
		{"/huge/robots.txt", robots.Parsed, "/late", true},
	}
	for _, tt := range tests {
		o, err := c.LoadRobots(t.Context(), s.URL+tt.path)
		if err != nil || o.Status != tt.status || o.Allowed("heed", tt.url).Allowed != tt.allow {
			t.Errorf("%s: got %v, %v, %s allowed %v; want %v, allowed %v", tt.path, o, err, tt.url, o.Allowed("heed", tt.url).Allowed, tt.status, tt.allow)
		}
	}
	if len(*waits) == 0 {
		t.Errorf("503 and 429 were not retried")
	}
	for _, h := range headers {
		var names []string
		for k := range h {
			names = append(names, k)
		}
		slices.Sort(names)
		if !slices.Equal(names, []string{"Accept", "User-Agent"}) || h.Get("Accept") != "text/plain" {
			t.Errorf("robots.txt request headers %v, want only Accept: text/plain and User-Agent", h)
			break
		}
	}
	// A refused address is an error, never "allow all".
	strict := New(Config{})
	if o, err := strict.LoadRobots(t.Context(), s.URL+"/ok/robots.txt"); !errors.Is(err, ErrRefused) {
		t.Errorf("refused robots.txt: got %v, %v, want an error", o, err)
	}
	if o, err := c.LoadRobots(t.Context(), s.URL+"/metadata/robots.txt"); !errors.Is(err, ErrRefused) {
		t.Errorf("robots.txt redirected to a refused address: got %v, %v, want an error", o, err)
	}
	// A server that is not there is unreachable.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	o, err := c.LoadRobots(t.Context(), "http://"+addr+"/robots.txt")
	if err != nil || o.Status != robots.Unreachable || o.Cause == "" {
		t.Errorf("closed port: got %v, %v, want unreachable with a cause", o, err)
	}
}

// hopTo redirects /NAME/robots.txt?n=k to itself with k+1 until k reaches
// n, then to final.
func hopTo(w http.ResponseWriter, r *http.Request, n int, final string) {
	var k int
	fmt.Sscanf(r.URL.Query().Get("n"), "%d", &k)
	if k >= n-1 {
		http.Redirect(w, r, final, http.StatusFound)
		return
	}
	http.Redirect(w, r, fmt.Sprintf("%s?n=%d", r.URL.Path, k+1), http.StatusFound)
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"120", 2 * time.Minute, true},
		{"0", 0, true},
		{"Thu, 01 Jan 2026 00:00:30 GMT", 30 * time.Second, true},
		{"Wed, 31 Dec 2025 23:00:00 GMT", 0, true},
		{"", 0, false},
		{"-5", 0, false},
		{"soon", 0, false},
	}
	for _, tt := range tests {
		got, ok := RetryAfter(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("RetryAfter(%q) got %v, %v, want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestDiscardedBodiesDoNotStall checks that a redirect whose body drips
// cannot hold a request past its body deadline.
func TestDiscardedBodiesDoNotStall(t *testing.T) {
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/final" {
			fmt.Fprint(w, "done")
			return
		}
		w.Header().Set("Location", "/final")
		w.WriteHeader(http.StatusFound)
		for range 100 {
			w.Write([]byte("x"))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
	c, _ := newClient(t, Config{BodyTimeout: 200 * time.Millisecond, Timeout: 5 * time.Second})
	resp, err := c.Get(t.Context(), Request{URL: s.URL + "/drip"})
	if err != nil || string(resp.Body) != "done" {
		t.Errorf("redirect with a dripping body: got %v, %v", resp, err)
	}
}

func TestRobotsGzippedAnyway(t *testing.T) {
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		fmt.Fprint(zw, "User-agent: *\nDisallow: /zipped\n")
		zw.Close()
	})
	c, _ := newClient(t, Config{})
	o, err := c.LoadRobots(t.Context(), s.URL+"/robots.txt")
	if err != nil || o.Allowed("heed", "/zipped").Allowed {
		t.Errorf("gzipped robots.txt: got %v, %v, want /zipped disallowed", o, err)
	}
}

func TestHeaderStaysWithItsOrigin(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{} // path -> Authorization
	other := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen["other"+r.URL.Path] = r.Header.Get("Authorization")
		mu.Unlock()
		fmt.Fprint(w, "elsewhere")
	})
	api := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = r.Header.Get("Authorization")
		mu.Unlock()
		switch r.URL.Path {
		case "/a":
			http.Redirect(w, r, "/b", http.StatusFound)
		case "/b":
			http.Redirect(w, r, other.URL+"/c", http.StatusFound)
		}
	})
	c, _ := newClient(t, Config{})
	resp, err := c.Get(t.Context(), Request{URL: api.URL + "/a", Header: http.Header{"Authorization": {"Bearer s3cret"}}})
	if err != nil || string(resp.Body) != "elsewhere" {
		t.Fatalf("Get: %v, %v", resp, err)
	}
	want := map[string]string{"/a": "Bearer s3cret", "/b": "Bearer s3cret", "other/c": ""}
	for k, v := range want {
		if seen[k] != v {
			t.Errorf("%s got Authorization %q, want %q", k, seen[k], v)
		}
	}
}

// TestErrorNamesTheURLOnce: a request that fails on the network says its
// URL once. Go's client names it in its own error ("Get \"URL\": ..."),
// which heed's error, naming it already, used to repeat.
func TestErrorNamesTheURLOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String() + "/page"
	ln.Close() // nothing listens there now: the connection is refused
	c, _ := newClient(t, Config{Retries: -1})
	_, err = c.Get(t.Context(), Request{URL: u})
	if err == nil {
		t.Fatal("Get of a closed port succeeded")
	}
	if n := strings.Count(err.Error(), ln.Addr().String()+"/page"); n != 1 {
		t.Errorf("error names the URL %d times, want once: %q", n, err)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) || heed.KindOf(err) != heed.Transient {
		t.Errorf("error %q lost its cause or kind (%v)", err, heed.KindOf(err))
	}
}

// TestTypeCaps: a body of a type given a larger cap is read up to it; a
// body of any other type keeps MaxBodyBytes, and a request's own
// MaxBytes still lowers either.
func TestTypeCaps(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 2<<20)
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", strings.TrimPrefix(r.URL.Path, "/type/"))
		w.Write(big)
	})
	c, _ := newClient(t, Config{MaxBodyBytes: 1 << 20, TypeCaps: map[string]int64{"application/pdf": 4 << 20}})
	if resp, err := c.Get(t.Context(), Request{URL: s.URL + "/type/application/pdf"}); err != nil || len(resp.Body) != len(big) {
		t.Errorf("a PDF under its cap: %v", err)
	}
	if _, err := c.Get(t.Context(), Request{URL: s.URL + "/type/text/html"}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a page over the cap: got %v, want too large", err)
	}
	if _, err := c.Get(t.Context(), Request{URL: s.URL + "/type/application/pdf", MaxBytes: 1000}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a PDF over the request's cap: got %v, want too large", err)
	}
}

// TestTypeCapsLooseParameters: a type's cap holds where the type's
// parameters are not as RFC 9110 writes them (a file's name unquoted,
// with a space, as servers send it), since the media type is still
// plain, and the document is read by it.
func TestTypeCapsLooseParameters(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 2<<20)
	s := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf; name=Annual Report.pdf")
		w.Write(big)
	})
	c, _ := newClient(t, Config{MaxBodyBytes: 1 << 20, TypeCaps: map[string]int64{"application/pdf": 4 << 20}})
	if resp, err := c.Get(t.Context(), Request{URL: s.URL}); err != nil || len(resp.Body) != len(big) {
		t.Errorf("a PDF under its cap, its parameters loose: %v", err)
	}
}
