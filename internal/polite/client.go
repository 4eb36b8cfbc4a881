package polite

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/robots"
)

// Turns gives the requests to each host their turns: one at a time, and
// a delay between the end of one and the start of the next. Schedule is
// the one in this process; a team's crawl holds its hosts' turns in a
// database.
type Turns interface {
	// Acquire waits until the host may be asked, and returns the release
	// to call when the request is done, with the delay to keep before the
	// next. It fails when ctx ends first, or when the wait would end past
	// ctx's deadline.
	Acquire(ctx context.Context, host string) (release func(delay time.Duration), err error)
}

var _ Turns = (*Schedule)(nil)

// DefaultMaxRetryAfter is the longest a Retry-After answer keeps a host
// waiting, when Client.MaxRetryAfter is 0.
const DefaultMaxRetryAfter = time.Minute

// Client makes requests politely: each takes its host's turn, keyed by
// HostKey, and the next request to the host waits for the delay, or for
// as long as the host's Retry-After asked, up to MaxRetryAfter. Each hop
// of a redirect is a request of its own, on its host's turn. Every
// request still goes through the guarded client, HTTP, which checks
// every hop. The zero value is not usable; use New. A Client is safe for
// concurrent use.
type Client struct {
	// HTTP is the guarded client that makes the requests.
	HTTP *fetch.Client
	// Turns spaces the requests to each host.
	Turns Turns
	// Delay is the least time between two requests to one host.
	Delay time.Duration
	// MaxRetryAfter caps the wait a Retry-After asks for; 0 means
	// DefaultMaxRetryAfter.
	MaxRetryAfter time.Duration
}

// New returns a Client that makes its requests through http, on the
// turns, spaced by delay.
func New(http *fetch.Client, turns Turns, delay time.Duration) *Client {
	return &Client{HTTP: http, Turns: turns, Delay: delay}
}

// Spaced is the client with another delay: a crawl's requests to a host
// whose robots.txt asks for a longer Crawl-delay are spaced by it.
func (c *Client) Spaced(delay time.Duration) *Client {
	cc := *c
	cc.Delay = delay
	return &cc
}

// ErrNoTurn is wrapped by the error of a request that never went out:
// its context ended (or its deadline would have passed) while it waited
// for its host's turn.
var ErrNoTurn = errors.New("no turn to ask the host")

// errHop stops a request at a redirect, which is followed on a turn of
// its own.
var errHop = errors.New("a redirect, followed on a turn of its own")

// Get makes a GET, following redirects as the guarded client would (at
// most fetch.DefaultMaxRedirects, or req.MaxRedirects), one request at a
// time: each hop takes its host's turn, and is let go before the next.
// req.CheckRedirect is asked of every hop before it is followed, with no
// turn held, so that it may ask the hop's robots.txt, which takes a turn
// of its own. A request's own headers go to its origin only. The requests
// of a chain take at most the client's timeout in all (the waits for
// turns are not counted); an error names the URL asked for.
func (c *Client) Get(ctx context.Context, req fetch.Request) (*fetch.Response, error) {
	return c.get(ctx, req, func(_ *url.URL, resp *fetch.Response) time.Duration { return c.after(resp) })
}

// get is Get, each hop's host then left alone for after(the hop's URL,
// its response): nil for a hop that redirected or failed.
func (c *Client) get(ctx context.Context, req fetch.Request, after func(*url.URL, *fetch.Response) time.Duration) (*fetch.Response, error) {
	maxHops := fetch.DefaultMaxRedirects
	if req.MaxRedirects > 0 {
		maxHops = req.MaxRedirects
	}
	origin, err := url.Parse(req.URL)
	if err != nil || origin.Host == "" {
		// The guarded client says what is wrong with it, in its words.
		return c.HTTP.Get(ctx, req)
	}
	budget := c.HTTP.Timeout()
	next := req.URL
	var chain []string
	// fail is an error of the chain, named by the URL asked for.
	fail := func(kind heed.Kind, err error) error {
		if len(chain) > 0 {
			err = fmt.Errorf("redirected to %s: %w", fetch.Redact(next), err)
		}
		return &heed.Error{Kind: kind, Op: "get", URL: fetch.Redact(req.URL), Err: err}
	}
	for {
		u, err := url.Parse(next)
		if err != nil {
			return nil, fail(heed.Invalid, err)
		}
		if len(chain) > 0 && req.CheckRedirect != nil {
			if err := req.CheckRedirect(next); err != nil {
				return nil, fail(heed.Blocked, err)
			}
		}
		release, err := c.Turns.Acquire(ctx, HostKey(u))
		if errors.Is(err, ErrHostTooLong) {
			return nil, fail(heed.Invalid, err)
		}
		if err != nil {
			return nil, fail(heed.Transient, fmt.Errorf("%w: %w", ErrNoTurn, err))
		}
		var target string
		hop := req
		hop.URL = next
		if !sameOrigin(u, origin) {
			hop.Header = nil // a credential stays with its service
		}
		hop.CheckRedirect = func(to string) error {
			target = to
			return errHop // followed on a turn of its own
		}
		hctx, cancel := context.WithTimeout(ctx, budget)
		began := time.Now()
		resp, err := c.HTTP.Get(hctx, hop)
		budget -= time.Since(began)
		cancel()
		release(after(u, resp))
		if target != "" && errors.Is(err, errHop) {
			if len(chain) >= maxHops {
				return nil, fail(heed.Blocked, &fetch.RedirectLimitError{Max: maxHops, Last: fetch.Redact(next)})
			}
			chain = append(chain, next)
			next = target
			if budget <= 0 {
				return nil, fail(heed.Transient, fmt.Errorf("the redirects took longer than %v", c.HTTP.Timeout()))
			}
			continue
		}
		if err != nil {
			if len(chain) > 0 {
				var he *heed.Error
				if errors.As(err, &he) {
					return nil, fail(he.Kind, he.Err)
				}
			}
			return nil, err
		}
		resp.Redirects = append(chain, resp.Redirects...)
		return resp, nil
	}
}

// after is how long the host is left alone after a response: the delay,
// or longer when the host answered 429 or 503 with a Retry-After.
func (c *Client) after(resp *fetch.Response) time.Duration {
	if resp == nil || resp.Status != http.StatusTooManyRequests && resp.Status != http.StatusServiceUnavailable {
		return c.Delay
	}
	d, ok := fetch.RetryAfter(resp.Header.Get("Retry-After"), time.Now())
	if !ok {
		return c.Delay
	}
	limit := c.MaxRetryAfter
	if limit <= 0 {
		limit = DefaultMaxRetryAfter
	}
	return max(c.Delay, min(d, limit))
}

// LoadRobots loads an origin's robots.txt on its host's turn, as one more
// request to the host, so that the one-at-a-time rule holds for
// robots.txt too; a redirect to another host is followed on that host's
// turn. It is a robots.Loader. The host is then left alone for the
// delay of the work that asked (WithDelay), or else the client's: a
// robots.Cache shared by several crawls loads with the client it was made
// with, and the crawl that asked keeps its own delay, longer or shorter.
// Work that heeds Crawl-delay (WithCrawlDelay) keeps the host waiting the
// Crawl-delay robots.txt asks for, capped, when it is longer: the
// request after robots.txt waits for it as every other does. So does
// the host of a redirect's target that is that host's own robots.txt.
func (c *Client) LoadRobots(ctx context.Context, robotsURL string) (robots.Outcome, error) {
	o, _, err := c.LoadRobotsFile(ctx, robotsURL)
	return o, err
}

// LoadRobotsFile is LoadRobots, with the body that was read (nil for an
// outcome without one), for a cache that keeps the file itself.
func (c *Client) LoadRobotsFile(ctx context.Context, robotsURL string) (robots.Outcome, []byte, error) {
	u, err := url.Parse(robotsURL)
	if err != nil || u.Host == "" {
		return robots.Outcome{}, nil, fmt.Errorf("robots.txt URL %q: not absolute", robotsURL)
	}
	delay := c.Delay
	if d, ok := ctx.Value(delayKey{}).(time.Duration); ok {
		delay = d
	}
	cd, heeds := ctx.Value(crawlDelayKey{}).(crawlDelay)
	host := HostKey(u)
	paced := delay // the delay robots.txt asks of its own host
	onHost := false
	var out robots.Outcome
	spaced := c.Spaced(delay)
	resp, err := spaced.get(ctx, fetch.RobotsRequest(robotsURL), func(hu *url.URL, resp *fetch.Response) time.Duration {
		d := spaced.after(resp)
		if resp == nil {
			return d // a redirect, or no answer
		}
		out = robots.OutcomeOf(resp.Status, resp.Body, nil)
		if asked, ok := out.CrawlDelay(cd.agent); ok && heeds {
			paced = Pace(delay, asked, cd.max)
		}
		// robots.txt's host, or the host whose own robots.txt it was
		// redirected to, waits its Crawl-delay.
		if onHost = HostKey(hu) == host; onHost || hu.Path == "/robots.txt" {
			d = max(d, paced)
		}
		return d
	})
	if err == nil && !onHost && paced > delay {
		// robots.txt came from another host: its own host, let go
		// before the Crawl-delay was known, is held for it now.
		if release, err := c.Turns.Acquire(ctx, host); err == nil {
			release(paced)
		}
	}
	switch {
	case err == nil:
		return out, resp.Body, nil // fetch.RobotsOutcome's, read once
	case errors.Is(err, ErrNoTurn), errors.Is(err, ErrHostTooLong):
		// No request went out: that says nothing about the origin.
		return robots.Outcome{}, nil, err
	}
	return fetch.RobotsOutcome(ctx, resp, err)
}

// Pace is how long a host is left alone after a request: the delay, or
// the Crawl-delay its robots.txt asks for, capped at limit, when that is
// longer. It is the one rule of every crawl's pace.
func Pace(delay, crawlDelay, limit time.Duration) time.Duration {
	return max(delay, min(crawlDelay, limit))
}

type crawlDelayKey struct{}

type crawlDelay struct {
	agent string
	max   time.Duration
}

// WithCrawlDelay is ctx carrying the agent whose robots.txt Crawl-delay
// the work done under it heeds, at most max: a robots.txt it has loaded
// keeps its host waiting that long, when longer than the work's delay.
func WithCrawlDelay(ctx context.Context, agent string, max time.Duration) context.Context {
	return context.WithValue(ctx, crawlDelayKey{}, crawlDelay{agent, max})
}

type delayKey struct{}

// WithDelay is ctx carrying the delay of the work done under it: a
// robots.txt that work has loaded keeps its host waiting that long.
func WithDelay(ctx context.Context, delay time.Duration) context.Context {
	return context.WithValue(ctx, delayKey{}, delay)
}

// sameOrigin reports whether u has the scheme and host of o.
func sameOrigin(u, o *url.URL) bool {
	return strings.EqualFold(u.Scheme, o.Scheme) && HostKey(u) == HostKey(o)
}
