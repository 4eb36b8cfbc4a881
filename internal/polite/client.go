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
// as long as the host's Retry-After asked, up to MaxRetryAfter. A
// redirect is followed on its host's turn: on the same turn while it
// stays on the host, on another host's own turn when it leaves. Every
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

// errOtherHost stops a request at a redirect to another origin, which is
// asked on its host's own turn.
var errOtherHost = errors.New("a redirect to another host, asked on its own turn")

// Get makes a GET on its host's turn, following redirects as the guarded
// client does (at most fetch.DefaultMaxRedirects, or req.MaxRedirects):
// on the same turn while they stay on the origin, and on the new host's
// own turn when they leave it. req.CheckRedirect is asked of every hop
// before it is followed; of a hop to another origin, between the turns,
// so that it may ask that origin's robots.txt, which takes a turn of its
// own. A request's own headers go to its origin only.
func (c *Client) Get(ctx context.Context, req fetch.Request) (*fetch.Response, error) {
	maxHops := fetch.DefaultMaxRedirects
	if req.MaxRedirects > 0 {
		maxHops = req.MaxRedirects
	}
	origin, err := url.Parse(req.URL)
	if err != nil || origin.Host == "" {
		// The guarded client says what is wrong with it, in its words.
		return c.HTTP.Get(ctx, req)
	}
	next, hops := req.URL, 0
	var chain []string
	for {
		u, err := url.Parse(next)
		if err != nil {
			return nil, err
		}
		if len(chain) > 0 && req.CheckRedirect != nil {
			if err := req.CheckRedirect(next); err != nil {
				from := chain[len(chain)-1]
				return nil, &heed.Error{Kind: heed.Blocked, Op: "get", URL: fetch.Redact(from), Err: fmt.Errorf("redirect to %s: %w", fetch.Redact(next), err)}
			}
		}
		release, err := c.Turns.Acquire(ctx, HostKey(u))
		if err != nil {
			return nil, &heed.Error{Kind: heed.Transient, Op: "get", URL: fetch.Redact(next), Err: fmt.Errorf("%w: %w", ErrNoTurn, err)}
		}
		var other string
		hop := req
		hop.URL = next
		if !sameOrigin(u, origin) {
			hop.Header = nil // a credential stays with its service
		}
		last := next
		hop.CheckRedirect = func(to string) error {
			if hops >= maxHops {
				return &fetch.RedirectLimitError{Max: maxHops, Last: fetch.Redact(last)}
			}
			tu, err := url.Parse(to)
			if err != nil {
				return err
			}
			if !sameOrigin(tu, u) {
				hops++
				other = to
				return errOtherHost
			}
			if req.CheckRedirect != nil {
				if err := req.CheckRedirect(to); err != nil {
					return err
				}
			}
			hops++
			last = to
			return nil
		}
		resp, err := c.HTTP.Get(ctx, hop)
		release(c.after(resp))
		if other != "" && errors.Is(err, errOtherHost) {
			chain = append(chain, next)
			next = other
			continue
		}
		if resp != nil && len(chain) > 0 {
			resp.Redirects = append(chain, resp.Redirects...)
		}
		return resp, err
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
// robots.txt too. It is a robots.Loader. The host is then left alone for
// the client's delay, or for the delay of the work that asked (WithDelay)
// if that is longer: a robots.Cache shared by several crawls loads with
// the client it was made with, and the crawl that asked keeps its own.
func (c *Client) LoadRobots(ctx context.Context, robotsURL string) (robots.Outcome, error) {
	u, err := url.Parse(robotsURL)
	if err != nil {
		return robots.Outcome{}, err
	}
	release, err := c.Turns.Acquire(ctx, HostKey(u))
	if err != nil {
		return robots.Outcome{}, err
	}
	delay := c.Delay
	if d, ok := ctx.Value(delayKey{}).(time.Duration); ok {
		delay = max(delay, d)
	}
	defer release(delay)
	return c.HTTP.LoadRobots(ctx, robotsURL)
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
