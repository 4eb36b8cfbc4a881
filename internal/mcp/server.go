package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/render"
	"github.com/heedhq/heed/robots"
)

// Defaults of Limits.
const (
	DefaultMaxPages = 100
	DefaultMaxDepth = 3
	DefaultDeadline = 5 * time.Minute
	DefaultMaxChars = 100_000
	// DefaultChars is every tool's budget when the agent does not say
	// (max_chars), or the user's MaxChars if lower: the most characters
	// a result takes as JSON, its text and structured content together.
	// At about four characters a token that is some 8,000 tokens, even
	// for a client that hands the model both copies of what a result
	// holds, and half that for one that hands it one: a few percent of a
	// model's context, so that an agent can read many results before it
	// must forget any.
	DefaultChars = 32_000
	// MaxSearchResults caps stash_search's limit.
	MaxSearchResults = 50
	// MaxMatches caps the matches web_grep returns.
	MaxMatches = 200
)

// Limits are what the user allows agents. Zero values take the
// defaults. The least time between two requests to a host is the
// service's (ingest.Config.Delay), for every tool call together.
type Limits struct {
	// MaxPages is the most pages one web_crawl or web_grep fetches; it is
	// also their default.
	MaxPages int
	// MaxDepth is the deepest one web_crawl or web_grep follows links from
	// its start URL; it is also web_crawl's default.
	MaxDepth int
	// Deadline bounds one web_crawl, web_grep or web_fetch.
	Deadline time.Duration
	// MaxChars is the most characters one tool's result takes, as JSON
	// (see DefaultChars); less than MinChars is MinChars.
	MaxChars int
	// Render is the most an agent may ask of the browser (render.Never,
	// render.Auto, render.Always); "" means render.Auto.
	Render render.Mode
	// MaxCrawls is how many crawls one client may have running at once;
	// MaxPagesInAll the most pages they may fetch together (their
	// max_pages summed).
	MaxCrawls     int
	MaxPagesInAll int
}

func (l *Limits) fill() {
	if l.MaxPages <= 0 {
		l.MaxPages = DefaultMaxPages
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.Deadline <= 0 {
		l.Deadline = DefaultDeadline
	}
	if l.MaxChars <= 0 {
		l.MaxChars = DefaultMaxChars
	}
	l.MaxChars = max(l.MaxChars, MinChars)
	if l.Render == "" {
		l.Render = render.Auto
	}
	if l.MaxCrawls <= 0 {
		l.MaxCrawls = DefaultMaxCrawls
	}
	if l.MaxPagesInAll <= 0 {
		l.MaxPagesInAll = DefaultPagesInAllTimes * l.MaxPages
	}
}

// Config is what a Server is made of.
type Config struct {
	// Service does the work: every request, through its polite client
	// (its networks are the user's), and every read and write of the
	// stash. The Server does not close it.
	Service *ingest.Service
	Limits  Limits
	// Logger receives what agents are not told: internal errors with
	// their detail. nil discards it.
	Logger *slog.Logger
}

// Server is heed's MCP server. It is safe for concurrent use, and one
// Server serves any number of sessions.
type Server struct {
	cfg   Config
	svc   *ingest.Service
	pages *pageCache
	res   *resources
	lists *listings
	sjobs sessionJobs // the crawls each session started
	mcp   *sdk.Server
	log   *slog.Logger

	// life ends when the Server closes: every call in flight stops.
	life    context.Context
	stop    context.CancelFunc
	callsMu sync.Mutex
	closed  bool
	calls   sync.WaitGroup

	// progressEvery is the least time between two progress notifications
	// of one call (DefaultProgressEvery; tests set 0).
	progressEvery time.Duration

	// changesPart is how many pages' changes stash_changes reads from
	// the stash at once (changesRead; tests set fewer).
	changesPart int

	// called, if set, when a tool call returns: tests wait on it.
	called func(tool string)
	// wrote, if set, is called after each message a stdio session wrote
	// or held back: tests wait on it.
	wrote func(msg jsonrpc.Message, dropped bool)
	// connState, if set, is the HTTP server's ConnState hook of Serve:
	// tests count connections with it.
	connState func(net.Conn, http.ConnState)
}

// New returns a Server with heed's tools.
func New(cfg Config) *Server {
	cfg.Limits.fill()
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{cfg: cfg, svc: cfg.Service, pages: newPageCache(), lists: newListings(), log: log, progressEvery: DefaultProgressEvery, changesPart: changesRead}
	s.life, s.stop = context.WithCancel(context.Background())
	s.mcp = sdk.NewServer(implementation, &sdk.ServerOptions{
		Instructions: instructions,
		// Tools and resources, as added; no logging capability.
		Capabilities:       &sdk.ServerCapabilities{},
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: s.unsubscribe,
	})
	s.addTools()
	s.addJobTools()
	s.addResources()
	return s
}

// implementation is what heed's MCP server says it is, in its
// initialization and in every result's _meta.
var implementation = &sdk.Implementation{Name: "heed", Title: "heed: the polite web for agents", Version: heed.Version}

const instructions = `heed reads the web politely and keeps what it crawls in a local stash of Markdown.
web_fetch reads one page on purpose (robots.txt is not consulted for a single page); web_crawl
crawls a site into the stash, heeding robots.txt, Crawl-delay and each page's robots directives;
web_grep finds a regular expression in one page, or in a site crawled politely. stash_search,
stash_read and stash_sources read what was crawled, and stash_changes what changed in it since a
time; the same pages are resources too, heed://snapshot/{id} (whole, or in parts as stash_read
gives them) and heed://sources, which a client may subscribe to, and a page's versions,
heed://snapshot/{id}/history and heed://snapshot/{id}/versions/{n}. The user's limits (networks,
pages, depth, delay) bind every call: arguments can narrow them, never widen them.` + "\n" + pageTextRule

// MCP returns the SDK server, to connect to any transport.
func (s *Server) MCP() *sdk.Server { return s.mcp }

// ServeStdio serves one session on standard input and output until the
// client closes it or ctx ends. A message that cannot be read is
// answered with a JSON-RPC error, and the session goes on.
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.serveLines(ctx, os.Stdin, os.Stdout)
}

// serveLines serves one session of JSON-RPC messages, one per line.
func (s *Server) serveLines(ctx context.Context, in io.ReadCloser, out io.Writer) error {
	err := s.mcp.Run(ctx, &lineTransport{in: in, out: out, wrote: s.wrote})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// errClosed is what a call to a closed Server is told.
var errClosed = errors.New("heed's MCP server is shutting down and takes no more calls; start it again (or reconnect) to go on")

// errCancelled is what a call its client cancelled is told, should the
// client still listen.
var errCancelled = errors.New("the call was cancelled")

// cut is the error of a call cut short: by Close, or by its client's
// cancelling it; nil if it was not (a deadline is not a cut). What the
// call was doing when it was cut short is not an internal error, and is
// not logged as one.
func (s *Server) cut(ctx context.Context) error {
	switch {
	case s.life.Err() != nil:
		return errClosed
	case errors.Is(ctx.Err(), context.Canceled):
		return errCancelled
	}
	return nil
}

// failed is what a call is told of an error of the stash: the call cut
// short, what heed says of it (a source it does not hold), or an internal
// error, logged.
func (s *Server) failed(ctx context.Context, what string, err error) error {
	if cut := s.cut(ctx); cut != nil {
		s.log.Debug("heed mcp: a call cut short", "doing", what, "error", err)
		return cut
	}
	if k := heed.KindOf(err); k != heed.Internal && k != heed.Other {
		return s.toolError(err) // heed's own words: a source it does not hold
	}
	return s.internal(what, err)
}

// closeWait bounds how long Close waits for the calls in flight to stop.
const closeWait = 10 * time.Second

// begin starts a tool call: the call's context also ends when the Server
// closes, and Close waits for end. A closed Server refuses the call.
func (s *Server) begin(ctx context.Context, tool string) (context.Context, func(), error) {
	s.callsMu.Lock()
	defer s.callsMu.Unlock()
	if s.closed {
		s.done(tool)
		return ctx, nil, errClosed
	}
	s.calls.Add(1)
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.life, cancel)
	return ctx, func() {
		stop()
		cancel()
		s.calls.Done()
		s.done(tool)
	}, nil
}

// Close stops the calls in flight (a crawl keeps what it stored), waits
// for them to return, up to a bound. Calls after Close are refused. The
// service lets go of the stash when the last call using it returns.
func (s *Server) Close() error {
	s.callsMu.Lock()
	if s.closed {
		s.callsMu.Unlock()
		return nil
	}
	s.closed = true
	s.callsMu.Unlock()
	s.stop()
	returned := make(chan struct{})
	go func() {
		s.calls.Wait()
		// The crawls its clients started stop too, interrupted: the
		// next heed mcp takes them up again (ResumeCrawls).
		ctx, cancel := context.WithTimeout(context.Background(), closeWait)
		defer cancel()
		for _, id := range s.startedCrawls() {
			s.svc.StopCrawl(ctx, id)
		}
		close(returned)
	}()
	select {
	case <-returned:
		return nil
	case <-time.After(closeWait):
		return fmt.Errorf("heed mcp: tool calls still running %v after the server closed; the stash is closed when they return", closeWait)
	}
}

// internal logs an error agents are not shown, and returns the one they are.
func (s *Server) internal(what string, err error) error {
	s.log.Error("heed mcp: "+what, "error", err)
	return fmt.Errorf("heed could not %s (an internal error; the details are in heed's own log, for the user)", what)
}

// crawlError is what an agent is told of a crawl that failed: a start
// URL refused because the site's robots.txt could not be read is told as
// such, not as a rule that disallows it.
func (s *Server) crawlError(ctx context.Context, start string, err error) error {
	var d *crawl.Disallowed
	if errors.As(err, &d) && d.HostUnreachable() {
		host := start
		if u, perr := url.Parse(start); perr == nil && u.Host != "" {
			host = u.Host
		}
		return fmt.Errorf("cannot reach %s: %s. Check the host name, or try again later", host, clean(d.Decision.Cause))
	}
	if errors.As(err, &d) && d.Decision.Reason == robots.ReasonUnreachable {
		why := "could not be reached"
		switch {
		case d.Decision.HTTPStatus != 0 && d.Decision.Cause == "rate limited":
			why = fmt.Sprintf("answered HTTP %d (too many requests)", d.Decision.HTTPStatus)
		case d.Decision.HTTPStatus != 0:
			why = fmt.Sprintf("answered HTTP %d", d.Decision.HTTPStatus)
		}
		origin := start
		if n, nerr := crawl.Normalize(start); nerr == nil {
			origin = n
		}
		return fmt.Errorf("cannot crawl %s now: the site's robots.txt could not be read (it %s), and while it cannot be read heed treats the whole site as closed to crawlers, as RFC 9309 asks. Try again later (heed asks for robots.txt again within the hour), or use web_fetch to read a single page on purpose, which does not need robots.txt", origin, why)
	}
	return s.toolError(err)
}

// toolError turns an error of the service into what an agent is told:
// what was refused or failed and why, and what it can do, in an agent's
// terms (never a flag), without internal detail. It is MCP's one table
// from kinds and causes to messages; the command line has its own. Only
// heed's own errors are told, their causes in words of heed's choosing
// where they would show detail of the machine (a resolver's address, a
// local address); anything else is an internal error, logged for the
// user.
func (s *Server) toolError(err error) error {
	if err == nil {
		return nil
	}
	var oe *crawlopt.Error
	if errors.As(err, &oe) {
		return fmt.Errorf("%s must be %s. Check the arguments", oe.Name, oe.Want)
	}
	var missing *ingest.NoStashError
	if errors.As(err, &missing) {
		if missing.Files {
			return errors.New("heed's stash has no index, though its pages are there: the user can rebuild it with heed reindex")
		}
		return errors.New("heed's stash is empty: web_crawl crawls a site into it")
	}
	var ns *ingest.NoSourceError
	if errors.As(err, &ns) {
		return fmt.Errorf("%v: stash_sources lists the sources", ns)
	}
	if errors.Is(err, heed.ErrBusy) {
		return errors.New("heed cannot store pages now: another heed process (such as a crawl the user started) is writing the stash. Try again when it is done; stash_search, stash_read and web_fetch work meanwhile")
	}
	var he *heed.Error
	if !errors.As(err, &he) || he.Kind == heed.Internal {
		return s.internal("finish this call", err)
	}
	msg := he.Op
	if he.URL != "" {
		msg += " " + he.URL
	}
	if he.Err != nil {
		msg += ": " + cause(he.Err)
	}
	var refused *fetch.RefusedError
	var status *fetch.StatusError
	var redirects *fetch.RedirectLimitError
	var dns *net.DNSError
	switch {
	case errors.As(err, &redirects):
		return fmt.Errorf("%s %s: more than %d redirects; the last followed led to %s, which redirects again. To follow them further, call %s with that URL", he.Op, he.URL, redirects.Max, redirects.Last, "web_fetch")
	case errors.As(err, &status):
		return errors.New(msg)
	case errors.Is(err, fetch.ErrInvalidURL):
		return fmt.Errorf("%s. Give an absolute http or https URL, such as https://example.com/page", msg)
	case errors.As(err, &refused):
		// The network guard: only the user can allow another network.
		return fmt.Errorf("%s. heed reaches non-public networks only where the user allows them (allow_net in heed's config file, or --allow-net when heed mcp starts); no tool argument can allow one", msg)
	case he.Kind == heed.Transient:
		return fmt.Errorf("%s. This may pass: try again later", msg)
	case errors.Is(err, crawl.ErrStartRefused):
		return fmt.Errorf("%s. Crawls always heed robots.txt, and no tool argument turns that off; to read this one page on purpose, use web_fetch", msg)
	case he.Kind == heed.TooLarge:
		return fmt.Errorf("%s. heed does not read pages this large", msg)
	case errors.As(err, &dns) && dns.IsNotFound, he.Kind == heed.NotFound:
		return fmt.Errorf("%s. Check the host name", msg)
	case he.Kind == heed.Invalid:
		return fmt.Errorf("%s. Check the arguments", msg)
	}
	return errors.New(msg)
}

// cause is an error's text, cleaned as clean cleans it.
func cause(err error) string { return clean(err.Error()) }

var (
	// lookupError is a failed name lookup as net.DNSError says it:
	// "lookup NAME on SERVER: ERR", or without " on SERVER".
	lookupError = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`lookup (\S+?)(?: on \S+?)?: ([^;"\n]*)`) })
	// opError is a failed network operation as net.OpError says it:
	// "OP NET SOURCE->ADDR: ERR", each address optional, and the system
	// call that failed, if it is said.
	opError = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b([a-z]+) (?:tcp|udp|ip)[46]?(?: \S+?)?: (?:(?:read|write|connect|accept|socket|sendto|recvfrom|sendmsg|recvmsg|setsockopt|getsockopt|bind|listen|wsarecv|wsasend|connectex): )?(i/o timeout)?`)
	})
)

// clean is an error's text (a tool error's, or the detail of a URL a
// crawl failed) with what would show detail of the machine heed runs on
// put in other words: a failed name lookup without the resolver's
// address, a failed connection without the local address, the remote
// one or a proxy's. Tool errors and a crawl's details are cleaned alike.
func clean(msg string) string {
	msg = lookupError().ReplaceAllStringFunc(msg, func(m string) string {
		sub := lookupError().FindStringSubmatch(m)
		name, why := sub[1], sub[2]
		switch {
		case why == "no such host":
			return fmt.Sprintf("the name %s does not resolve", name)
		case strings.Contains(why, "timeout"):
			return fmt.Sprintf("looking up the name %s timed out", name)
		}
		return fmt.Sprintf("the name %s could not be looked up", name)
	})
	return opError().ReplaceAllStringFunc(msg, func(m string) string {
		sub := opError().FindStringSubmatch(m)
		if sub[2] != "" {
			return sub[1] + ": timed out"
		}
		return sub[1] + ": "
	})
}

// skipDetail is what an agent is told of why a crawl skipped or failed a
// URL: the crawl's words, cleaned as a tool error is (whatever the
// reason), with an internal failure's detail (such as a path in the
// stash) kept for heed's log, and a depth limit in the agent's own terms.
func (s *Server) skipDetail(ev crawl.Event) string {
	dir := s.svc.StashDir()
	if ev.Kind == crawl.Failed && (ev.Reason == heed.Internal.String() || strings.Contains(ev.Detail, dir)) {
		s.log.Error("heed mcp: a crawl failed a URL", "url", ev.URL, "error", ev.Detail)
		return "heed could not store this page (an internal error; the details are in heed's own log, for the user)"
	}
	if strings.Contains(ev.Detail, dir) {
		s.log.Warn("heed mcp: a crawl skipped a URL", "url", ev.URL, "detail", ev.Detail)
		return "the crawl stopped before the page was stored (an internal error; the details are in heed's own log, for the user)"
	}
	return clean(ev.Detail)
}

func (s *Server) done(tool string) {
	if s.called != nil {
		s.called(tool)
	}
}
