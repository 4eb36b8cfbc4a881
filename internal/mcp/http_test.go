package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawHTTP is a raw client of heed's streamable HTTP endpoint: it posts
// JSON-RPC messages and reads the answers' server-sent events, so that a
// test sees every message the server sends, whatever an SDK client would
// make of it.
type rawHTTP struct {
	t        *testing.T
	endpoint string
	session  string
	header   http.Header // sent with every request
}

// post posts one JSON-RPC message (or a batch).
func (c *rawHTTP) post(body string) *http.Response {
	c.t.Helper()
	req, err := http.NewRequestWithContext(c.t.Context(), http.MethodPost, c.endpoint, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp
}

// initialize opens a session.
func (c *rawHTTP) initialize() {
	c.t.Helper()
	resp := c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	events := readEvents(c.t, resp)
	if resp.StatusCode != http.StatusOK || len(events) != 1 || !strings.Contains(string(events[0]), `"protocolVersion"`) {
		c.t.Fatalf("initialize: %s %q", resp.Status, events)
	}
	c.session = resp.Header.Get("Mcp-Session-Id")
	if resp := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		c.t.Fatalf("notifications/initialized: %s", resp.Status)
	} else {
		resp.Body.Close()
	}
}

// events sends the data of each server-sent event of resp on a channel,
// closed at the end of the response.
func events(t *testing.T, resp *http.Response) <-chan json.RawMessage {
	ch := make(chan json.RawMessage, 1000)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 4<<20)
		var data strings.Builder
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if data.Len() > 0 {
					ch <- json.RawMessage(data.String())
				}
				data.Reset()
			case strings.HasPrefix(line, "data:"):
				data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			}
		}
		if data.Len() > 0 {
			ch <- json.RawMessage(data.String())
		}
	}()
	return ch
}

// readEvents reads every event of resp to its end.
func readEvents(t *testing.T, resp *http.Response) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	ch := events(t, resp)
	for {
		ev, ok := <-ch
		if !ok {
			return out
		}
		out = append(out, ev)
	}
}

// TestHTTPOrigin: over streamable HTTP, a request whose Origin is a web
// page's other than the machine's own is refused before it reaches the
// MCP session, as the MCP specification asks against DNS rebinding; a
// request without Origin (a client that is not a browser) or from a page
// of localhost is served.
func TestHTTPOrigin(t *testing.T) {
	s := newServer(t, Limits{}, loopback)
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	for _, tt := range []struct {
		origin string
		status int
	}{
		{"", http.StatusOK},
		{"http://localhost:6274", http.StatusOK},
		{"http://127.0.0.1:3000", http.StatusOK},
		{"http://[::1]", http.StatusOK},
		{"https://evil.example", http.StatusForbidden},
		{"http://rebind.evil.example:" + strings.TrimPrefix(hs.URL, "http://127.0.0.1:"), http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"http://127.0.0.1.evil.example", http.StatusForbidden},
		{"http://localhost.evil.example", http.StatusForbidden},
		{"not a URL at all", http.StatusForbidden},
	} {
		c := &rawHTTP{t: t, endpoint: hs.URL, header: http.Header{}}
		if tt.origin != "" {
			c.header.Set("Origin", tt.origin)
		}
		resp := c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("Origin %q: %s %q, want %d", tt.origin, resp.Status, body, tt.status)
		}
		if tt.status == http.StatusForbidden && !strings.Contains(string(body), "Origin") {
			t.Errorf("Origin %q refused without saying why: %s", tt.origin, body)
		}
	}
}

// TestHTTPCancelSendsNothingMore: once a client cancels a web_crawl over
// streamable HTTP, the server sends nothing more for it: no progress
// notification (the crawl's queue marked skipped), and no response.
func TestHTTPCancelSendsNothingMore(t *testing.T) {
	site := newSite(t)
	var links []string
	for i := range 6 {
		links = append(links, fmt.Sprintf("/p%d", i+1))
	}
	site.set("/", html("Start", []string{"The start page of a site with six more pages."}, links...))
	for _, l := range links {
		site.set(l, html("Page "+l, []string{"A page about the sea, " + l + ", long enough to be content."}))
	}
	held := make(chan struct{})
	site.block = func(r *http.Request) {
		if r.URL.Path == "/p1" {
			close(held)
			<-r.Context().Done() // until the crawl gives up on it
		}
	}
	s := newServer(t, Limits{}, loopback)
	called := waitCalled(s)
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	c := &rawHTTP{t: t, endpoint: hs.URL, header: http.Header{}}
	c.initialize()

	resp := c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"web_crawl","arguments":{"url":"` + site.URL + `/"},"_meta":{"progressToken":"crawl"}}}`)
	stream := events(t, resp)
	waitFor(t, held, "the crawl to ask for /p1")
	// The crawl waits on /p1 with nothing else to do once the start page
	// is stored: what the server sent until it said so is all it sends
	// before the cancellation.
	for {
		ev := waitFor(t, stream, "progress saying the start page is stored")
		if strings.Contains(string(ev), `"id":2`) {
			t.Fatalf("web_crawl answered before it was cancelled: %s", ev)
		}
		if strings.Contains(string(ev), "1 stored") {
			break
		}
	}
	cancel := c.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the agent changed its mind"}}`)
	cancel.Body.Close()
	if cancel.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/cancelled: %s", cancel.Status)
	}
	if tool := waitFor(t, called, "web_crawl to return after the cancellation"); tool != "web_crawl" {
		t.Fatalf("called %s", tool)
	}
	// The stream ends when the server is done with the call.
	var after []string
	for ev := range stream {
		after = append(after, string(ev))
	}
	if len(after) > 0 {
		t.Errorf("after the cancellation the server sent %d messages for the call:\n%s", len(after), strings.Join(after, "\n"))
	}
}

// bearer adds a bearer token to every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPToken: with a token, a request without it, or with another, is
// refused with 401 before it reaches the MCP session; an SDK client that
// sends it is served. The Origins given are allowed beside localhost's.
func TestHTTPToken(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Behind a token", []string{"A page read by an agent that knows the token."}))
	const token = "0123456789abcdef-the-token"
	s := newServer(t, Limits{}, loopback)
	hs := httptest.NewServer(s.HTTPHandler(HTTPOptions{Token: token, Origins: []string{"192.0.2.7"}}))
	t.Cleanup(hs.Close)
	for _, tt := range []struct {
		authorization, origin string
		status                int
	}{
		{"", "", http.StatusUnauthorized},
		{"Bearer", "", http.StatusUnauthorized},
		{"Bearer 0123456789abcdef-the-toke", "", http.StatusUnauthorized},
		{"Bearer " + token + "x", "", http.StatusUnauthorized},
		{"Basic " + token, "", http.StatusUnauthorized},
		{token, "", http.StatusUnauthorized},
		{"Bearer " + token, "", http.StatusOK},
		{"bearer " + token, "", http.StatusOK},
		{"Bearer " + token, "http://192.0.2.7:8080", http.StatusOK},
		{"Bearer " + token, "http://192.0.2.8:8080", http.StatusForbidden},
		{"", "https://evil.example", http.StatusForbidden},
	} {
		c := &rawHTTP{t: t, endpoint: hs.URL, header: http.Header{}}
		if tt.authorization != "" {
			c.header.Set("Authorization", tt.authorization)
		}
		if tt.origin != "" {
			c.header.Set("Origin", tt.origin)
		}
		resp := c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("Authorization %q, Origin %q: %s %q, want %d", tt.authorization, tt.origin, resp.Status, body, tt.status)
		}
		if tt.status == http.StatusUnauthorized && (resp.Header.Get("WWW-Authenticate") == "" || !strings.Contains(string(body), "Authorization: Bearer")) {
			t.Errorf("Authorization %q: refused without saying how to authorize: %q %q", tt.authorization, resp.Header, body)
		}
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "0"}, nil).Connect(t.Context(),
		&sdk.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: bearer(token)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var p FetchOutput
	if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/"}, &p); isErr || p.Title != "Behind a token" {
		t.Errorf("web_fetch with the token: %s %+v", text, p)
	}
}
