package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
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
	addr := serveTCP(t, s, HTTPOptions{ReadTimeout: 100 * time.Millisecond, IdleTimeout: 100 * time.Millisecond})

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
	const readTimeout = 100 * time.Millisecond
	site := newSite(t)
	site.set("/slow", html("Slow", []string{"A page that takes its time to be served, longer than a read timeout."}))
	site.block = func(r *http.Request) {
		if r.URL.Path == "/slow" {
			time.Sleep(5 * readTimeout) // the read timeout passes, surely
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

// connCounter counts a server's connections through its ConnState hook.
type connCounter struct {
	mu               sync.Mutex
	open, peak, seen int
	changed          chan struct{}
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
			c.peak = max(c.peak, c.open)
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
	addr := serveTCP(t, s, HTTPOptions{Token: token, MaxConns: maxConns})

	var held []*rawConn
	for range 2 * maxConns {
		held = append(held, dial(t, addr))
	}
	count.wait(t, "the first connections accepted", func(open, _ int) bool { return open == maxConns })
	for _, c := range held {
		c.conn.Close()
	}
	count.wait(t, "every connection accepted and closed", func(open, seen int) bool { return seen == 2*maxConns && open == 0 })
	if count.peak > maxConns {
		t.Errorf("the server held %d connections at once; its cap is %d", count.peak, maxConns)
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
