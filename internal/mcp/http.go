package mcp

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// SessionTimeout is how long a streamable HTTP session may be idle (no
// request from its client, none in flight) before it is closed.
const SessionTimeout = 30 * time.Minute

// DefaultMaxSessions is the most streamable HTTP sessions held at once.
const DefaultMaxSessions = 100

// HTTPOptions say who may use the streamable HTTP handler.
type HTTPOptions struct {
	// Token, if set, is the bearer token every request must carry, as
	// "Authorization: Bearer TOKEN". It is compared in constant time.
	Token string
	// Origins are hosts, besides localhost and the loopback addresses,
	// that a request's Origin header may name (the host heed listens on,
	// say). The port is not compared.
	Origins []string

	// MaxConns, ReadTimeout and IdleTimeout bound the connections of
	// Serve; zero takes DefaultMaxConns, DefaultReadTimeout and
	// DefaultIdleTimeout.
	MaxConns    int
	ReadTimeout time.Duration
	IdleTimeout time.Duration
	// MaxSessions is the most sessions held at once; zero takes
	// DefaultMaxSessions.
	MaxSessions int
}

func (o *HTTPOptions) fill() {
	if o.MaxConns <= 0 {
		o.MaxConns = DefaultMaxConns
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = DefaultReadTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
}

// Handler serves MCP over streamable HTTP with no token: HTTPHandler
// with zero HTTPOptions, for a loopback address.
func (s *Server) Handler() http.Handler { return s.HTTPHandler(HTTPOptions{}) }

// HTTPHandler serves MCP over streamable HTTP, every session sharing this
// Server. A session idle for SessionTimeout is closed, so that clients
// that go away without saying so do not hold sessions for ever; and at
// most o.MaxSessions are held at once (see serveNew).
//
// A request whose Origin header names a web page other than the
// machine's own (localhost, a loopback address, or one of o.Origins) is
// refused with 403, as the MCP specification asks against DNS rebinding;
// a request without Origin (a client that is not a browser) is served. A
// request without the bearer token, when o.Token is set, is refused with
// 401. The SDK refuses, besides, a request that reaches a loopback
// address naming another host. Once a client cancels a call, nothing
// more is sent for it on its stream: no progress, no response.
func (s *Server) HTTPHandler(o HTTPOptions) http.Handler {
	o.fill()
	h := &httpHandler{
		next:        sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp }, &sdk.StreamableHTTPOptions{SessionTimeout: SessionTimeout}),
		mcp:         s.mcp,
		origins:     map[string]bool{},
		streams:     map[streamKey]*calls{},
		sessions:    map[string]*liveSession{},
		maxSessions: o.MaxSessions,
	}
	if o.Token != "" {
		sum := sha256.Sum256([]byte(o.Token))
		h.token = sum[:]
	}
	for _, host := range o.Origins {
		h.origins[canonicalHost(host)] = true
	}
	return h
}

type httpHandler struct {
	next        http.Handler
	mcp         *sdk.Server
	token       []byte // SHA-256 of the token, or nil
	origins     map[string]bool
	maxSessions int

	mu       sync.Mutex
	streams  map[streamKey]*calls // the calls in flight, by session and id
	sessions map[string]*liveSession
	opening  int // sessions being opened: requests without a session
}

// liveSession is what the handler knows of a session it opened.
type liveSession struct {
	posts int       // its POSTs in flight
	last  time.Time // when it was opened, or a POST of it last began or ended
}

type streamKey struct {
	session string
	id      jsonrpc.ID
}

func (h *httpHandler) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	// A request refused, here or by the SDK, closes its connection.
	w := &refusalWriter{ResponseWriter: rw}
	if origin := r.Header.Get("Origin"); origin != "" && !h.allowedOrigin(origin) {
		http.Error(w, fmt.Sprintf("Forbidden: heed's MCP server does not serve web pages of Origin %q, only clients on this machine (localhost) and clients that send no Origin; this guards against DNS rebinding", origin), http.StatusForbidden)
		return
	}
	if h.token != nil && !h.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="heed mcp"`)
		http.Error(w, "Unauthorized: heed's MCP server asks for its bearer token: send the header Authorization: Bearer TOKEN, with the token heed printed when it started, or the one its user set (HEED_MCP_TOKEN, or mcp.token in the config file)", http.StatusUnauthorized)
		return
	}
	if r.Method != http.MethodPost || r.Body == nil {
		unbound(w)
		h.next.ServeHTTP(w, r)
		return
	}
	// The messages are read here, as the SDK reads them, to follow their
	// calls and cancellations; the SDK reads them again from the copy.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, sdk.DefaultMaxRequestBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", tooLarge.Limit), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "failed to read body", http.StatusBadRequest)
		return
	}
	unbound(w)
	r.Body = io.NopCloser(bytes.NewReader(body))
	session := r.Header.Get("Mcp-Session-Id")
	messages, whole := postedMessages(body)
	// A body not read whole here may still be an initialize as the SDK
	// reads it (its decoder is more lenient): it is counted as one.
	if session == "" && (!whole || slices.ContainsFunc(messages, isInitialize)) {
		h.serveNew(w, r, messages)
		return
	}
	h.used(session, 1)
	defer h.used(session, -1)
	stream := &calls{related: true}
	var ids []jsonrpc.ID
	for _, msg := range messages {
		req, ok := msg.(*jsonrpc.Request)
		switch {
		case !ok || session == "":
			// A request without a session has no cancellation to
			// follow: the SDK serves it in a session of its own, closed
			// when it ends.
		case req.IsCall():
			stream.add(req)
			ids = append(ids, req.ID)
		case req.Method == methodCancelled:
			if id, ok := cancelledID(req); ok {
				h.cancel(session, id)
			}
		}
	}
	if len(ids) == 0 {
		h.next.ServeHTTP(w, r)
		return
	}
	h.follow(session, ids, stream)
	defer h.forget(session, ids, stream)
	fw := &filterWriter{ResponseWriter: w, calls: stream}
	h.next.ServeHTTP(fw, r)
	fw.end()
}

// isInitialize reports whether msg is an initialize request, the one
// request that opens a session that lasts.
func isInitialize(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	return ok && req.Method == "initialize"
}

// serveNew serves an initialize request, which opens a session: within
// the cap of sessions, making way if need be by closing the session idle
// the longest (none of its POSTs in flight; its client is told, on its
// next request, that its session is gone, and opens another). If every
// session has a call in flight, the request is refused with 503 and a
// JSON-RPC error.
func (h *httpHandler) serveNew(w http.ResponseWriter, r *http.Request, messages []jsonrpc.Message) {
	victim, ok := h.open()
	if !ok {
		var id jsonrpc.ID
		if i := slices.IndexFunc(messages, isInitialize); i >= 0 {
			id = messages[i].(*jsonrpc.Request).ID
		}
		data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
			Code:    codeTooManySessions,
			Message: fmt.Sprintf("heed's MCP server holds as many sessions as it takes (%d), and every one has a call in flight; try again when a call ends, or end a session no longer used (an HTTP DELETE with its Mcp-Session-Id)", h.maxSessions),
		}})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write(data)
		return
	}
	if victim != nil {
		victim.Close()
	}
	ow := &openWriter{ResponseWriter: w, h: h}
	h.next.ServeHTTP(ow, r)
	ow.opened()
}

// openWriter records the session an initialize request opened when the
// SDK writes its response's header, which names it: before its client
// can send another request of it.
type openWriter struct {
	http.ResponseWriter
	h    *httpHandler
	once sync.Once
}

func (w *openWriter) opened() {
	w.once.Do(func() {
		id := w.Header().Get("Mcp-Session-Id")
		w.h.mu.Lock()
		defer w.h.mu.Unlock()
		w.h.opening--
		if id != "" {
			w.h.sessions[id] = &liveSession{last: time.Now()}
		}
	})
}

func (w *openWriter) WriteHeader(status int) {
	w.opened()
	w.ResponseWriter.WriteHeader(status)
}

func (w *openWriter) Write(p []byte) (int, error) {
	w.opened()
	return w.ResponseWriter.Write(p)
}

func (w *openWriter) Flush() {
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *openWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// codeTooManySessions is the JSON-RPC error code of a session refused
// for the cap: one of the codes JSON-RPC leaves to servers.
const codeTooManySessions = -32000

// open makes room for a session to be opened, and counts it as opening.
// At the cap it forgets the sessions the SDK has closed (on their
// timeout, or their client's DELETE); if the cap is still reached, it
// picks the session idle the longest to close (victim), or, if none is
// idle, refuses (ok false).
func (h *httpHandler) open() (victim *sdk.ServerSession, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.sessions)+h.opening >= h.maxSessions {
		live := map[string]*sdk.ServerSession{}
		for ss := range h.mcp.Sessions() {
			live[ss.ID()] = ss
		}
		for id := range h.sessions {
			if live[id] == nil {
				delete(h.sessions, id)
			}
		}
		if len(h.sessions)+h.opening >= h.maxSessions {
			oldest := ""
			for id, ls := range h.sessions {
				if ls.posts == 0 && (oldest == "" || ls.last.Before(h.sessions[oldest].last)) {
					oldest = id
				}
			}
			if oldest == "" {
				return nil, false
			}
			delete(h.sessions, oldest)
			victim = live[oldest]
		}
	}
	h.opening++
	return victim, true
}

// used marks a POST of a session beginning (posts 1) or ending (-1). A
// session's GET, the stream it listens on, is not a use of it: an SDK
// client keeps one open all along.
func (h *httpHandler) used(session string, posts int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ls := h.sessions[session]; ls != nil {
		ls.posts += posts
		ls.last = time.Now()
	}
}

// unbound lifts the read deadline of a request read whole, which bounds
// reading it, not answering it: a call's response streams for as long as
// the call runs, and the server would take the deadline passing as the
// client's going away.
func unbound(w http.ResponseWriter) {
	http.NewResponseController(w).SetReadDeadline(time.Time{})
}

// refusalWriter closes the connection of a request refused (401, 403,
// or a body that could not be read), so that a client refused cannot
// hold it open for more.
type refusalWriter struct {
	http.ResponseWriter
}

func (w *refusalWriter) WriteHeader(status int) {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		w.Header().Set("Connection", "close")
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *refusalWriter) Flush() {
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *refusalWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// follow records a request's calls, so that a cancellation posted on
// another request finds them. A call whose id is in flight already is
// left to the SDK, which refuses it.
func (h *httpHandler) follow(session string, ids []jsonrpc.ID, stream *calls) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, id := range ids {
		k := streamKey{session, id}
		if _, ok := h.streams[k]; !ok {
			h.streams[k] = stream
		}
	}
}

func (h *httpHandler) forget(session string, ids []jsonrpc.ID, stream *calls) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, id := range ids {
		k := streamKey{session, id}
		if h.streams[k] == stream {
			delete(h.streams, k)
		}
	}
}

// cancel marks a session's call as cancelled, before the SDK reads the
// cancellation: from then on nothing more is sent for the call.
func (h *httpHandler) cancel(session string, id jsonrpc.ID) {
	h.mu.Lock()
	stream := h.streams[streamKey{session, id}]
	h.mu.Unlock()
	if stream != nil {
		stream.cancel(id)
	}
}

// authorized reports whether r carries the bearer token.
func (h *httpHandler) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	// Hashes of equal length: the comparison takes as long whatever the
	// token sent, its length included.
	sum := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(sum[:], h.token) == 1
}

// allowedOrigin reports whether a browser page of this origin may use the
// server: one of localhost, of a loopback address, or of a host the
// server was given.
func (h *httpHandler) allowedOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.User != nil || u.Path != "" && u.Path != "/" {
		return false // "null", among others
	}
	host := canonicalHost(u.Hostname())
	if host == "localhost" || h.origins[host] {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// canonicalHost is a host name in lower case without a trailing dot, or
// an address in its normal form.
func canonicalHost(host string) string {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap().String()
	}
	return host
}

// postedMessages are the JSON-RPC messages of a POST body, one or a
// batch, and whether every one of them was read (whole): what cannot be
// read is left for the SDK to refuse, or to read otherwise.
func postedMessages(body []byte) (msgs []jsonrpc.Message, whole bool) {
	body = bytes.TrimSpace(body)
	raws := []json.RawMessage{body}
	if len(body) > 0 && body[0] == '[' {
		if json.Unmarshal(body, &raws) != nil {
			return nil, false
		}
	}
	whole = true
	for _, raw := range raws {
		if msg, err := jsonrpc.DecodeMessage(raw); err == nil {
			msgs = append(msgs, msg)
		} else {
			whole = false
		}
	}
	return msgs, whole
}

// filterWriter passes on a POST's stream of server-sent events, but for
// the events of calls the client cancelled, which it holds back.
type filterWriter struct {
	http.ResponseWriter
	calls *calls
	buf   []byte // an event not yet whole
}

func (w *filterWriter) Write(p []byte) (int, error) {
	if !strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		return w.ResponseWriter.Write(p)
	}
	w.buf = append(w.buf, p...)
	for {
		i := bytes.Index(w.buf, []byte("\n\n"))
		if i < 0 {
			return len(p), nil
		}
		event := w.buf[:i+2]
		if !w.calls.sent(eventMessage(event)) {
			if _, err := w.ResponseWriter.Write(event); err != nil {
				return 0, err
			}
		}
		w.buf = w.buf[i+2:]
	}
}

// end writes what is left of an event cut short.
func (w *filterWriter) end() {
	if len(w.buf) > 0 {
		w.ResponseWriter.Write(w.buf)
		w.buf = nil
	}
}

func (w *filterWriter) Flush() {
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *filterWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// eventMessage is the JSON-RPC message of a server-sent event's data, or
// nil.
func eventMessage(event []byte) jsonrpc.Message {
	var data []byte
	for line := range bytes.Lines(event) {
		if d, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data:")); ok {
			data = append(data, bytes.TrimPrefix(d, []byte(" "))...)
		}
	}
	if len(data) == 0 {
		return nil
	}
	msg, _ := jsonrpc.DecodeMessage(data)
	return msg
}
