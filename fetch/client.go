package fetch

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/heedhq/heed/internal/wait"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/robots"
)

// AcceptPage is the Accept header of a request for a page: Markdown
// first, where a site offers it for the asking (it costs no request more),
// then HTML, then plain text.
const AcceptPage = "text/markdown, text/html;q=0.9, application/xhtml+xml;q=0.9, text/plain;q=0.5, */*;q=0.1"

// Defaults of Config.
const (
	DefaultTimeout        = 60 * time.Second
	DefaultBodyTimeout    = 30 * time.Second
	DefaultMaxBodyBytes   = 10 << 20
	DefaultMaxRedirects   = 10
	DefaultMaxHeaderBytes = 1 << 20
	DefaultRetries        = 2
	DefaultMaxRetryWait   = 30 * time.Second
)

// Config configures a Client. The zero value is usable: every zero field
// takes the default written beside it.
type Config struct {
	// UserAgent is sent with every request; "" means heed.UserAgent().
	UserAgent string
	// AllowNets are networks the user allows beyond the public internet
	// (an intranet, a loopback test server). Nothing else non-public is
	// ever dialled.
	AllowNets []netip.Prefix
	// Timeout bounds a whole request: every redirect, retry and the body.
	// 0 means DefaultTimeout.
	Timeout time.Duration
	// BodyTimeout bounds reading one response body, so that a server
	// dripping a byte a second is cut off. 0 means DefaultBodyTimeout.
	BodyTimeout time.Duration
	// MaxBodyBytes caps a body, counted after decompression. 0 means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// TypeCaps are the caps of the bodies of the media types they name,
	// where a type's is larger than MaxBodyBytes: documents (a PDF of a
	// manual) run larger than pages. A request's own MaxBytes still wins.
	TypeCaps map[string]int64
	// MaxRedirects is how many redirects a request follows. 0 means
	// DefaultMaxRedirects; negative means none.
	MaxRedirects int
	// MaxHeaderBytes caps the response headers. 0 means
	// DefaultMaxHeaderBytes.
	MaxHeaderBytes int64
	// Retries is how often a GET is retried after a 429, a 503 or a
	// transient network error, with backoff. 0 means DefaultRetries;
	// negative means none.
	Retries int
	// MaxRetryWait caps the wait before a retry, including one asked for
	// by Retry-After; a server asking for longer gets no retry. 0 means
	// DefaultMaxRetryWait.
	MaxRetryWait time.Duration
	// Resolver resolves host names; nil means net.DefaultResolver. Every
	// address a name resolves to is judged, and a name with any refused
	// address is refused whole. (*net.Resolver satisfies it; tests hand in
	// their own to make names resolve anywhere without a DNS server.)
	Resolver Resolver
	// ResetOnClose closes each connection with a reset (SO_LINGER 0):
	// what was written and not yet taken by the server is dropped, rather
	// than sent on after the request was given up. A request abandoned
	// while the network was down never reaches the server later, when
	// another worker of a team may be asking the host (a team's worker
	// sets it).
	ResetOnClose bool
	// Proxy, if set, is the HTTP proxy every request goes through. The
	// environment's proxy variables are never read. The proxy itself is
	// trusted; the destinations are checked before each request (a proxy
	// resolves names itself, so the check is of heed's own resolution).
	Proxy *url.URL
}

func (c *Config) fill() {
	if c.UserAgent == "" {
		c.UserAgent = heed.UserAgent()
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.BodyTimeout == 0 {
		c.BodyTimeout = DefaultBodyTimeout
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.MaxRedirects == 0 {
		c.MaxRedirects = DefaultMaxRedirects
	}
	if c.MaxHeaderBytes == 0 {
		c.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if c.Retries == 0 {
		c.Retries = DefaultRetries
	}
	if c.MaxRetryWait == 0 {
		c.MaxRetryWait = DefaultMaxRetryWait
	}
}

// Resolver resolves a host name to its addresses.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Client makes every request heed makes. It refuses, before connecting,
// URLs it must never fetch and addresses that are not public; follows
// redirects itself, checking every hop; and reads bodies under caps and
// deadlines. A Client is safe for concurrent use.
type Client struct {
	cfg   Config
	guard *guard
	// plain does pages; robots does robots.txt, without asking for
	// compression, so that its requests carry only User-Agent and Accept.
	plain, robots *http.Client
	resolver      Resolver
	dialer        *net.Dialer
	sleep         func(ctx context.Context, d time.Duration) error
}

// New returns a Client configured by cfg.
func New(cfg Config) *Client {
	cfg.fill()
	c := &Client{cfg: cfg, guard: newGuard(cfg.AllowNets), resolver: cfg.Resolver, sleep: wait.Sleep}
	if c.resolver == nil {
		c.resolver = net.DefaultResolver
	}
	c.dialer = &net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second, ControlContext: c.guard.control}
	c.plain = &http.Client{Transport: c.transport(false), CheckRedirect: noRedirects}
	c.robots = &http.Client{Transport: c.transport(true), CheckRedirect: noRedirects}
	return c
}

func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func (c *Client) transport(noCompression bool) *http.Transport {
	dial := c.dial
	var proxy func(*http.Request) (*url.URL, error)
	if c.cfg.Proxy != nil {
		proxy = http.ProxyURL(c.cfg.Proxy)
		proxyAddr := proxyHostPort(c.cfg.Proxy)
		direct := &net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}
		dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if addr == proxyAddr {
				return direct.DialContext(ctx, network, addr)
			}
			return c.dial(ctx, network, addr)
		}
	}
	return &http.Transport{
		Proxy:                  proxy,
		DialContext:            dial,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    15 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: c.cfg.MaxHeaderBytes,
		DisableCompression:     noCompression,
	}
}

// dial resolves addr's host, refuses it if any of its addresses is
// refused, and connects to the first address that answers. The dialer's
// control function judges each address again as it is dialled.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		ips, err = c.resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, err
		}
		if len(ips) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
	}
	for _, ip := range ips {
		if err := c.guard.check(ip); err != nil {
			if host != ip.String() {
				return nil, fmt.Errorf("%s resolves to %s: %w", host, ip, err)
			}
			return nil, err
		}
	}
	var first error
	for _, ip := range ips {
		conn, err := c.dialer.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			if tc, ok := conn.(*net.TCPConn); ok && c.cfg.ResetOnClose {
				tc.SetLinger(0)
			}
			return conn, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

func proxyHostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// Request is one GET.
type Request struct {
	URL string
	// Accept is the Accept header; "" means AcceptPage.
	Accept string
	// ETag and LastModified are validators from an earlier response; with
	// either, the request is conditional and an unchanged resource answers
	// 304 (Response.NotModified).
	ETag, LastModified string
	// MaxBytes lowers the client's body cap for this request; 0 keeps it.
	MaxBytes int64
	// Truncate keeps the first MaxBytes of a longer body instead of
	// failing with a TooLarge error.
	Truncate bool
	// MaxRedirects lowers the client's redirect cap for this request; 0
	// keeps it.
	MaxRedirects int
	// CheckRedirect, if set, is asked before each redirect is followed,
	// with the URL it leads to; an error stops the request with that
	// error (a crawler uses it to check robots.txt and its scope before
	// it fetches anything there).
	CheckRedirect func(next string) error
	// NoRetry makes one attempt only. A crawler sets it: its schedule,
	// not the client, decides when a host is asked again.
	NoRetry bool
	// Header holds more request headers, such as an API's Authorization.
	// They go to the origin (scheme, host and port) of URL only: a
	// redirect to any other origin is followed without them, so that a
	// credential never leaves the service it is meant for.
	Header http.Header

	robots bool // a robots.txt request: only User-Agent and Accept
}

// Response is the final response of a request, after redirects.
type Response struct {
	URL       string   // the final URL
	Redirects []string // the URLs redirected from, in order
	Status    int
	Header    http.Header
	Body      []byte
	// Truncated is true when Request.Truncate cut the body at its cap.
	Truncated bool
	// NotModified is true for a 304 answer to a conditional request.
	NotModified bool
}

// ETag and LastModified return the response's validators, to make the
// next request for the same URL conditional.
func (r *Response) ETag() string         { return r.Header.Get("ETag") }
func (r *Response) LastModified() string { return r.Header.Get("Last-Modified") }

// ErrDowngrade is wrapped by the error of an https request redirected to
// http, which is never followed.
var ErrDowngrade = errors.New("refused: redirect from https to http")

// ErrTooManyRedirects is wrapped by the error of a request that was
// redirected more often than its cap allows.
var ErrTooManyRedirects = errors.New("too many redirects")

// RedirectLimitError is the cause of a request stopped at its redirect
// cap: Last is the URL last followed, which redirects again.
type RedirectLimitError struct {
	Max  int
	Last string
}

func (e *RedirectLimitError) Error() string {
	return fmt.Sprintf("%v: more than %d", ErrTooManyRedirects, e.Max)
}

func (e *RedirectLimitError) Unwrap() error { return ErrTooManyRedirects }

// StatusError is the cause of a failure that is an HTTP answer: a page
// asked for that answered 404, a robots.txt that answered 503.
type StatusError struct {
	Status int
}

func (e *StatusError) Error() string { return fmt.Sprintf("the server answered HTTP %d", e.Status) }

// Kind is the kind of failure the status is: NotFound for 404 and 410,
// Transient for 429 and 5xx, Blocked for 401 and 403, Other else.
func (e *StatusError) Kind() heed.Kind {
	switch {
	case e.Status == http.StatusNotFound || e.Status == http.StatusGone:
		return heed.NotFound
	case e.Status == http.StatusTooManyRequests || e.Status >= 500:
		return heed.Transient
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		return heed.Blocked
	}
	return heed.Other
}

// Timeout is how long one Get may take, every redirect, retry and body
// included (Config.Timeout).
func (c *Client) Timeout() time.Duration { return c.cfg.Timeout }

// Get fetches req.URL, following redirects. A response of any status is a
// Response, not an error; errors are *heed.Error values that say what was
// refused or what failed, with a hint where the user can do something.
func (c *Client) Get(ctx context.Context, req Request) (*Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	fail := func(kind heed.Kind, u string, err error) (*Response, error) {
		// Go's client names the URL in its own error ("Get \"URL\": ...");
		// heed's names it already.
		if ue, ok := err.(*url.Error); ok {
			err = ue.Err
		}
		return nil, &heed.Error{Kind: kind, Op: "get", URL: Redact(u), Err: Safe(err)}
	}
	u, err := c.guard.checkURL(req.URL)
	if err != nil {
		return fail(kindOf(err), req.URL, err)
	}
	maxRedirects := c.cfg.MaxRedirects
	switch {
	case req.robots:
		maxRedirects = robots.MaxRedirects // RFC 9309 §2.3.1.2: at least five
	case req.MaxRedirects > 0 && (maxRedirects < 0 || req.MaxRedirects < maxRedirects):
		maxRedirects = req.MaxRedirects
	}
	maxRedirects = max(maxRedirects, 0)
	origin := *u
	var chain []string
	for {
		if err := c.checkProxied(ctx, u); err != nil {
			return fail(kindOf(err), u.String(), err)
		}
		resp, err := c.send(ctx, u, req, sameOrigin(u, origin))
		if err != nil {
			return fail(kindOf(err), u.String(), err)
		}
		loc := resp.Header.Get("Location")
		if !isRedirect(resp.StatusCode) || loc == "" {
			out, err := c.read(ctx, resp, req)
			if err != nil {
				return fail(kindOf(err), u.String(), err)
			}
			out.URL, out.Redirects = u.String(), chain
			return out, nil
		}
		discard(resp)
		if len(chain) >= maxRedirects {
			return fail(heed.Blocked, req.URL, &RedirectLimitError{Max: maxRedirects, Last: Redact(u.String())})
		}
		next, err := u.Parse(loc)
		if err != nil {
			return fail(heed.Invalid, u.String(), fmt.Errorf("redirect to an invalid URL %q: %w", Redact(loc), parseCause(err)))
		}
		next.Fragment, next.RawFragment = "", ""
		if u.Scheme == "https" && strings.EqualFold(next.Scheme, "http") {
			return fail(heed.Blocked, u.String(), fmt.Errorf("%w to %s", ErrDowngrade, Redact(next.String())))
		}
		checked, err := c.guard.checkURL(next.String())
		if err != nil {
			return fail(kindOf(err), Redact(next.String()), fmt.Errorf("redirect: %w", err))
		}
		if req.CheckRedirect != nil {
			if err := req.CheckRedirect(checked.String()); err != nil {
				return fail(heed.Blocked, u.String(), fmt.Errorf("redirect to %s: %w", checked, err))
			}
		}
		chain = append(chain, u.String())
		u = checked
	}
}

// checkProxied judges the destination before a proxied request: a proxy
// dials for us, so the dialer's check cannot see the address.
func (c *Client) checkProxied(ctx context.Context, u *url.URL) error {
	if c.cfg.Proxy == nil {
		return nil
	}
	if _, ok := hostAddr(u.Hostname()); ok {
		return nil // checked by checkURL
	}
	addrs, err := c.resolver.LookupNetIP(ctx, "ip", u.Hostname())
	if err != nil {
		return err
	}
	for _, a := range addrs {
		if err := c.guard.check(a); err != nil {
			return err
		}
	}
	return nil
}

// sameOrigin reports whether u has the scheme, host and port of o.
func sameOrigin(u *url.URL, o url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if strings.EqualFold(u.Scheme, "https") {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(u.Scheme, o.Scheme) && strings.EqualFold(u.Hostname(), o.Hostname()) && port(u) == port(&o)
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// send makes one request to u, retrying a GET after a 429, a 503 or a
// transient network error.
// Request.Header goes with it when withHeader is true.
func (c *Client) send(ctx context.Context, u *url.URL, req Request, withHeader bool) (*http.Response, error) {
	hc := c.plain
	if req.robots {
		hc = c.robots
	}
	for attempt := 0; ; attempt++ {
		hr, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, err
		}
		if withHeader && !req.robots {
			for k, vs := range req.Header {
				for _, v := range vs {
					hr.Header.Add(k, v)
				}
			}
		}
		hr.Header.Set("User-Agent", c.cfg.UserAgent)
		switch {
		case req.Accept != "":
			hr.Header.Set("Accept", req.Accept)
		default:
			hr.Header.Set("Accept", AcceptPage)
		}
		if !req.robots {
			if req.ETag != "" {
				hr.Header.Set("If-None-Match", req.ETag)
			}
			if req.LastModified != "" {
				hr.Header.Set("If-Modified-Since", req.LastModified)
			}
		}
		resp, err := hc.Do(hr)
		if req.NoRetry || attempt >= c.cfg.Retries || !retryable(resp, err) {
			return resp, err
		}
		wait := c.backoff(attempt, resp)
		deadline, ok := ctx.Deadline()
		if wait > c.cfg.MaxRetryWait || ok && time.Until(deadline) < wait {
			return resp, err // not worth waiting for: give the caller what we have
		}
		if resp != nil {
			discard(resp)
		}
		if err := c.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func retryable(resp *http.Response, err error) bool {
	if err != nil {
		if errors.Is(err, ErrRefused) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return false
		}
		var ne net.Error
		return errors.As(err, &ne) && ne.Timeout() ||
			errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
			errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
	}
	return resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable
}

// backoff is the wait before retry attempt+1: what Retry-After asks, or
// an exponential backoff with jitter from half a second.
func (c *Client) backoff(attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := RetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return d
		}
	}
	base := 500 * time.Millisecond << attempt
	return base/2 + rand.N(base/2+1)
}

// RetryAfter reads a Retry-After header, in seconds or as an HTTP date,
// as a wait from now.
func RetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseUint(v, 10, 32); err == nil {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// errBodyDeadline is the cause of a body that took longer than
// Config.BodyTimeout to read.
var errBodyDeadline = errors.New("body read deadline exceeded")

// read reads the body of the final response under its cap and deadline.
func (c *Client) read(ctx context.Context, resp *http.Response, req Request) (*Response, error) {
	defer resp.Body.Close()
	out := &Response{Status: resp.StatusCode, Header: resp.Header, NotModified: resp.StatusCode == http.StatusNotModified}
	limit := c.cfg.MaxBodyBytes
	// The media type decides, as it does for a reader of the body, even
	// where its parameters are not well written (a file's name unquoted).
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); (err == nil || errors.Is(err, mime.ErrInvalidMediaParameter)) && c.cfg.TypeCaps[mt] > limit {
		limit = c.cfg.TypeCaps[mt]
	}
	if req.MaxBytes > 0 && req.MaxBytes < limit {
		limit = req.MaxBytes
	}
	if resp.ContentLength > limit && !req.Truncate {
		return nil, fmt.Errorf("%w: the body is %d bytes, over the %d-byte cap", ErrTooLarge, resp.ContentLength, limit)
	}
	timer := time.AfterFunc(c.cfg.BodyTimeout, func() { resp.Body.Close() })
	var r io.Reader = resp.Body
	if req.robots && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		// robots.txt requests do not ask for compression, so the transport
		// does not undo it; a server that compresses anyway is read all
		// the same, under the same cap.
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			timer.Stop()
			return nil, fmt.Errorf("reading the gzipped body: %w", err)
		}
		r = zr
	}
	body, err := io.ReadAll(io.LimitReader(r, limit+1))
	fired := !timer.Stop()
	switch {
	case fired:
		return nil, fmt.Errorf("%w after %v (%d bytes read)", errBodyDeadline, c.cfg.BodyTimeout, len(body))
	case err != nil:
		if ctx.Err() != nil {
			return nil, fmt.Errorf("reading the body: %w", ctx.Err())
		}
		return nil, fmt.Errorf("reading the body: %w", err)
	case int64(len(body)) > limit && req.Truncate:
		body, out.Truncated = body[:limit], true
	case int64(len(body)) > limit:
		return nil, fmt.Errorf("%w: the body is over the %d-byte cap", ErrTooLarge, limit)
	}
	out.Body = body
	return out, nil
}

// ErrTooLarge is wrapped by the error of a body over its cap.
var ErrTooLarge = errors.New("too large")

// discard drops a response we do not read (a redirect, a retried 429 or
// 503). Its body is not read, so that a server dripping it cannot hold the
// request past its body deadline; the connection is given up.
func discard(resp *http.Response) {
	resp.Body.Close()
}

// kindOf classifies a request error.
func kindOf(err error) heed.Kind {
	var ne net.Error
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, ErrRefused), errors.Is(err, ErrTooManyRedirects), errors.Is(err, ErrDowngrade):
		return heed.Blocked
	case errors.Is(err, ErrTooLarge):
		return heed.TooLarge
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return heed.NotFound
	case errors.Is(err, ErrInvalidURL):
		return heed.Invalid
	case errors.Is(err, errBodyDeadline), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout(), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED):
		return heed.Transient
	}
	return heed.Other
}
