package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/ingest"
)

// closeBound is how long a test waits for the server to close a
// connection it should close: generous, so that a busy machine does not
// fail the test; a connection left open fails it only once this passes.
const closeBound = time.Minute

// serveTCP runs s.Serve on a loopback port until the test ends, and
// returns its address.
func serveTCP(t *testing.T, s *Server, o HTTPOptions) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return serveOn(t, s, ln, o)
}

// serveOn serves s on ln, as serveTCP does, until the test ends.
func serveOn(t *testing.T, s *Server, ln net.Listener, o HTTPOptions) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, o) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// rawConn is a TCP connection to the server, on which a test writes
// requests by hand.
type rawConn struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func dial(t *testing.T, addr string) *rawConn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &rawConn{t: t, conn: conn, r: bufio.NewReader(conn)}
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// post writes a POST of body to /mcp, with the headers given ("Name:
// value" lines; a Host line replaces the server's address), on a
// connection kept alive.
func (c *rawConn) post(body string, headers ...string) {
	c.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n", len(body))
	host := "Host: " + c.conn.RemoteAddr().String()
	for _, h := range headers {
		if strings.HasPrefix(h, "Host:") {
			host = h
		} else {
			b.WriteString(h + "\r\n")
		}
	}
	b.WriteString(host + "\r\n")
	b.WriteString("\r\n" + body)
	if _, err := io.WriteString(c.conn, b.String()); err != nil {
		c.t.Fatal(err)
	}
}

// response reads a response whole, within closeBound.
func (c *rawConn) response() (*http.Response, string) {
	c.t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(closeBound))
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		c.t.Fatalf("reading a response: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("reading a response's body: %v", err)
	}
	return resp, string(body)
}

// closed reports whether the server closed the connection within
// closeBound: a read ends with EOF (or a reset), not a timeout.
func (c *rawConn) closed() error {
	c.conn.SetReadDeadline(time.Now().Add(closeBound))
	n, err := c.r.Read(make([]byte, 1))
	switch {
	case n > 0:
		return errors.New("the server sent more")
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		return nil
	case err == nil:
		return errors.New("a read returned nothing")
	}
	return fmt.Errorf("the connection is still open after %v: %v", closeBound, err)
}

// TestHTTPRefusedConnectionCloses: over TCP, a request refused for want
// of the token (401), for its Origin (403), or by the SDK for a Host
// other than loopback on a loopback address (403), is answered with
// Connection: close, and the server closes the connection, so that a
// client without the token cannot hold connections open.
func TestHTTPRefusedConnectionCloses(t *testing.T) {
	const token = "0123456789abcdef-the-token"
	s := newServer(t, Limits{}, loopback)
	addr := serveTCP(t, s, HTTPOptions{Token: token})
	for _, tt := range []struct {
		name    string
		headers []string
		status  int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"a wrong token", []string{"Authorization: Bearer 0123456789abcdef-the-tokeX"}, http.StatusUnauthorized},
		{"a web page's Origin", []string{"Origin: https://evil.example"}, http.StatusForbidden},
		{"the token, from a web page", []string{"Authorization: Bearer " + token, "Origin: https://evil.example"}, http.StatusForbidden},
		{"the token, to another host", []string{"Authorization: Bearer " + token, "Host: rebind.evil.example"}, http.StatusForbidden},
	} {
		c := dial(t, addr)
		c.post(initializeBody, tt.headers...)
		resp, body := c.response()
		if resp.StatusCode != tt.status || !resp.Close {
			t.Errorf("%s: %s, Connection %q, %q; want %d and Connection: close", tt.name, resp.Status, resp.Header.Get("Connection"), body, tt.status)
		}
		if err := c.closed(); err != nil {
			t.Errorf("%s: refused with %d: %v", tt.name, resp.StatusCode, err)
		}
	}
}

// TestHTTPIdleConnectionCloses: a connection with nothing more to say
// is closed: one idle after a request served, one that never sends a
// request, one whose request's body stops short.
func TestHTTPIdleConnectionCloses(t *testing.T) {
	s := newServer(t, Limits{}, loopback)
	// The request's body comes with its headers: a second to read them
	// is ample, however busy the machine.
	addr := serveTCP(t, s, HTTPOptions{ReadTimeout: time.Second, IdleTimeout: 100 * time.Millisecond})

	c := dial(t, addr)
	c.post(initializeBody)
	if resp, body := c.response(); resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("initialize: %s %q, Connection %q", resp.Status, body, resp.Header.Get("Connection"))
	}
	if err := c.closed(); err != nil {
		t.Errorf("idle after a request served: %v", err)
	}

	if err := dial(t, addr).closed(); err != nil {
		t.Errorf("a connection that sends nothing: %v", err)
	}

	c = dial(t, addr)
	io.WriteString(c.conn, "POST /mcp HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":")
	c.conn.SetReadDeadline(time.Now().Add(closeBound))
	if resp, err := http.ReadResponse(c.r, nil); err == nil {
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode < 400 || !resp.Close {
			t.Errorf("a body cut short: %s, Connection %q", resp.Status, resp.Header.Get("Connection"))
		}
	} else if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("a body cut short: %v", err)
	}
	if err := c.closed(); err != nil {
		t.Errorf("a body cut short: %v", err)
	}
}

// TestHTTPCallOutlastsReadTimeout: the read timeout bounds reading a
// request, not answering it: a call that takes longer than it, and the
// session's stream of server-sent events, go on.
func TestHTTPCallOutlastsReadTimeout(t *testing.T) {
	const readTimeout = time.Second
	site := newSite(t)
	site.set("/slow", html("Slow", []string{"A page that takes its time to be served, longer than a read timeout."}))
	site.block = func(r *http.Request) {
		if r.URL.Path == "/slow" {
			time.Sleep(2 * readTimeout) // the read timeout passes, surely
		}
	}
	s := newServer(t, Limits{}, loopback)
	addr := serveTCP(t, s, HTTPOptions{ReadTimeout: readTimeout})
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "0"}, nil).Connect(t.Context(),
		&sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var p FetchOutput
	if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/slow"}, &p); isErr || p.Title != "Slow" {
		t.Errorf("web_fetch of a page slower than the read timeout: %s %+v", text, p)
	}
}

// connGauge is a listener that counts the connections it has handed out
// and not yet seen closed, at the peak too. The server's cap wraps it, and
// closes a connection before it frees its place, so the gauge reads what
// the server holds; its ConnState hook reports a connection closed only
// after its place is free, and a new one may be reported first.
type connGauge struct {
	net.Listener
	mu         sync.Mutex
	open, peak int
}

func (g *connGauge) Accept() (net.Conn, error) {
	c, err := g.Listener.Accept()
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	g.open++
	g.peak = max(g.peak, g.open)
	g.mu.Unlock()
	return &gaugedConn{Conn: c, g: g}, nil
}

// gaugedConn is a connection that connGauge counts until it is closed.
type gaugedConn struct {
	net.Conn
	g    *connGauge
	once sync.Once
}

func (c *gaugedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.g.mu.Lock()
		c.g.open--
		c.g.mu.Unlock()
	})
	return err
}

// connCounter counts a server's connections through its ConnState hook.
type connCounter struct {
	mu         sync.Mutex
	open, seen int
	changed    chan struct{}
}

func countConns(s *Server) *connCounter {
	c := &connCounter{changed: make(chan struct{}, 1)}
	s.connState = func(_ net.Conn, st http.ConnState) {
		c.mu.Lock()
		defer c.mu.Unlock()
		switch st {
		case http.StateNew:
			c.open++
			c.seen++
		case http.StateClosed, http.StateHijacked:
			c.open--
		}
		select {
		case c.changed <- struct{}{}:
		default:
		}
	}
	return c
}

// wait waits, within closeBound, until ok holds of the counts.
func (c *connCounter) wait(t *testing.T, what string, ok func(open, seen int) bool) {
	t.Helper()
	deadline := time.After(closeBound)
	for {
		c.mu.Lock()
		open, seen := c.open, c.seen
		c.mu.Unlock()
		if ok(open, seen) {
			return
		}
		select {
		case <-c.changed:
		case <-deadline:
			t.Fatalf("waiting for %s: %d connections open, %d seen", what, open, seen)
		}
	}
}

// TestHTTPConnectionCap: the server holds at most MaxConns connections
// at once; the others wait to be accepted, and are once the first close.
// An attacker's refused requests do not keep the token's holder out:
// their connections are closed, and the holder is served.
func TestHTTPConnectionCap(t *testing.T) {
	const maxConns = 3
	const token = "0123456789abcdef-the-token"
	site := newSite(t)
	site.set("/", html("Served", []string{"A page for the holder of the token, served whatever others do."}))
	s := newServer(t, Limits{}, loopback)
	count := countConns(s)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gauge := &connGauge{Listener: ln}
	addr := serveOn(t, s, gauge, HTTPOptions{Token: token, MaxConns: maxConns})

	var held []*rawConn
	for range 2 * maxConns {
		held = append(held, dial(t, addr))
	}
	count.wait(t, "the first connections accepted", func(open, _ int) bool { return open == maxConns })
	for _, c := range held {
		c.conn.Close()
	}
	count.wait(t, "every connection accepted and closed", func(open, seen int) bool { return seen == 2*maxConns && open == 0 })
	gauge.mu.Lock()
	peak := gauge.peak
	gauge.mu.Unlock()
	if peak > maxConns {
		t.Errorf("the server held %d connections at once; its cap is %d", peak, maxConns)
	}

	// Many requests without the token at once, their connections left
	// open by the attacker: each is refused, and closed by the server.
	var wg sync.WaitGroup
	statuses := make(chan int, 4*maxConns)
	for range 4 * maxConns {
		c := dial(t, addr)
		wg.Go(func() {
			c.post(initializeBody, "Authorization: Bearer not-the-token-at-all")
			c.conn.SetReadDeadline(time.Now().Add(closeBound))
			resp, err := http.ReadResponse(c.r, nil)
			if err != nil {
				statuses <- 0
				return
			}
			resp.Body.Close()
			statuses <- resp.StatusCode
		})
	}
	wg.Wait()
	close(statuses)
	for status := range statuses {
		if status != http.StatusUnauthorized {
			t.Errorf("a request without the token, among many: status %d, want 401 (0: no answer within %v)", status, closeBound)
		}
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "0"}, nil).Connect(t.Context(),
		&sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: &http.Client{Transport: bearer(token)}}, nil)
	if err != nil {
		t.Fatalf("the token's holder, after the attacker's requests: %v", err)
	}
	defer cs.Close()
	var p FetchOutput
	if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/"}, &p); isErr || p.Title != "Served" {
		t.Errorf("web_fetch by the token's holder: %s %+v", text, p)
	}
}

// liveSessions counts the sessions s holds that were initialized: those
// that last. (A request without a session, such as the SDK client's
// server/discover before it initializes, is served in a session of its
// own, closed as it ends.)
func liveSessions(s *Server) int {
	n := 0
	for ss := range s.mcp.Sessions() {
		if ss.InitializeParams() != nil {
			n++
		}
	}
	return n
}

// connectHTTP opens a session with the SDK's client at endpoint, with
// the client's options and its transport's retries (0 for the SDK's
// default, -1 for none).
func connectHTTP(t *testing.T, endpoint string, opts *sdk.ClientOptions, retries int) (*sdk.ClientSession, error) {
	t.Helper()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "0"}, opts).Connect(t.Context(),
		&sdk.StreamableClientTransport{Endpoint: endpoint, MaxRetries: retries}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// TestHTTPSessionCap: the server holds at most MaxSessions sessions,
// however many are opened: a new session takes the place of the one idle
// the longest (no call in flight), whose client is told, on its next
// request, that its session is gone.
func TestHTTPSessionCap(t *testing.T) {
	const maxSessions = 3
	site := newSite(t)
	site.set("/", html("Page", []string{"A page that sessions read, to show they are alive."}))
	s := newServer(t, Limits{}, loopback)
	hs := httptest.NewServer(s.HTTPHandler(HTTPOptions{MaxSessions: maxSessions}))
	t.Cleanup(hs.Close)
	for i := range 10 * maxSessions {
		(&rawHTTP{t: t, endpoint: hs.URL, header: http.Header{}}).initialize()
		if n := liveSessions(s); n > maxSessions {
			t.Fatalf("after %d sessions opened (and never closed) the server holds %d; its cap is %d", i+1, n, maxSessions)
		}
	}

	var sessions []*sdk.ClientSession
	for range maxSessions {
		cs, err := connectHTTP(t, hs.URL, nil, -1)
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, cs)
	}
	fetchOK := func(cs *sdk.ClientSession) bool {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "web_fetch", Arguments: map[string]any{"url": site.URL + "/"}})
		if err != nil || res.IsError {
			t.Logf("web_fetch: %v %+v", err, res)
		}
		return err == nil && !res.IsError
	}
	// The first is used again: the second is now idle the longest.
	if !fetchOK(sessions[0]) {
		t.Fatal("the first session, within the cap, failed a call")
	}
	late, err := connectHTTP(t, hs.URL, nil, -1)
	if err != nil {
		t.Fatalf("a session past the cap, others idle: %v", err)
	}
	if n := liveSessions(s); n > maxSessions {
		t.Errorf("the server holds %d sessions; its cap is %d", n, maxSessions)
	}
	for i, cs := range append(sessions, late) {
		if ok, want := fetchOK(cs), i != 1; ok != want {
			t.Errorf("session %d: a call succeeded %v, want %v (the one idle the longest makes way)", i, ok, want)
		}
	}
}

// TestHTTPSessionCapOddBodies: a body the SDK reads as an initialize,
// though it is not JSON as the standard library reads it (a batch with
// text after it, which the SDK's decoder leaves unread), opens a session
// within the cap like any other.
func TestHTTPSessionCapOddBodies(t *testing.T) {
	const maxSessions = 2
	for _, body := range []string{
		"[" + initializeBody + "] x",
		"[" + initializeBody + "]]",
		"[" + initializeBody + "]{}",
	} {
		s := newServer(t, Limits{}, loopback)
		hs := httptest.NewServer(s.HTTPHandler(HTTPOptions{MaxSessions: maxSessions}))
		for range 3 * maxSessions {
			resp := (&rawHTTP{t: t, endpoint: hs.URL, header: http.Header{}}).post(body)
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if n := liveSessions(s); n > maxSessions {
			t.Errorf("after %d posts of %q the server holds %d sessions; its cap is %d", 3*maxSessions, body, n, maxSessions)
		}
		hs.Close()
	}
}

// TestHTTPSessionCapBusy: when every session the cap allows has a call
// in flight, a new session is refused with 503 and a JSON-RPC error that
// says why, and is served once a call ends.
func TestHTTPSessionCapBusy(t *testing.T) {
	const maxSessions = 2
	// A site a session: requests to one host go one at a time.
	inFlight := make(chan struct{}, maxSessions)
	release := make(chan struct{})
	var sites []*site
	for range maxSessions {
		site := newSite(t)
		site.set("/", html("Held", []string{"A page held until the test lets it go, to keep calls in flight."}))
		site.block = func(r *http.Request) {
			if r.URL.Path == "/" {
				inFlight <- struct{}{}
				<-release
			}
		}
		sites = append(sites, site)
	}
	s := newServer(t, Limits{}, loopback)
	hs := httptest.NewServer(s.HTTPHandler(HTTPOptions{MaxSessions: maxSessions}))
	t.Cleanup(hs.Close)
	var wg sync.WaitGroup
	for _, site := range sites {
		cs, err := connectHTTP(t, hs.URL, nil, -1)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "web_fetch", Arguments: map[string]any{"url": site.URL + "/"}})
		})
	}
	for range maxSessions {
		waitFor(t, inFlight, "a call in flight")
	}
	resp := (&rawHTTP{t: t, endpoint: hs.URL, header: http.Header{}}).post(initializeBody)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `"error"`) || !strings.Contains(string(body), "sessions") || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a session past the cap, every other busy: %s %q, Retry-After %q", resp.Status, body, resp.Header.Get("Retry-After"))
	}
	if _, err := connectHTTP(t, hs.URL, nil, -1); err == nil {
		t.Error("the SDK's client opened a session past the cap, every other busy")
	}
	if n := liveSessions(s); n > maxSessions {
		t.Errorf("the server holds %d sessions; its cap is %d", n, maxSessions)
	}
	close(release)
	wg.Wait()
	if _, err := connectHTTP(t, hs.URL, nil, -1); err != nil {
		t.Errorf("a session once the calls ended: %v", err)
	}
}

// BenchmarkHTTPSessions opens b.N sessions that are never closed, and
// reports the sessions held after and the heap they left: both level
// once b.N passes the cap.
//
//	go test -run '^$' -bench HTTPSessions -benchtime 20000x ./internal/mcp
func BenchmarkHTTPSessions(b *testing.B) {
	svc := ingest.New(ingest.Config{HTTP: fetch.New(fetch.Config{}), Agent: "heed/0.1", StashDir: b.TempDir()})
	s := New(Config{Service: svc})
	defer svc.Close()
	defer s.Close()
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, hs.URL, strings.NewReader(initializeBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("initialize: %s", resp.Status)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	n := 0
	for range s.mcp.Sessions() {
		n++
	}
	b.ReportMetric(float64(n), "sessions")
	b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/(1<<20), "heap-MB")
}
