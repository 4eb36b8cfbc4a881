package team

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/internal/wait"
	"github.com/heedhq/heed/robots"
)

// renderPatience is how long a rendered page's request waits for a host
// that another job holds (it asks the holder to let it go before its
// next request), at most.
const renderPatience = 5 * time.Second

// errDisallowed refuses a browser's request that robots.txt disallows.
var errDisallowed = errors.New("robots.txt disallows it")

// pageRequests makes a rendered page's requests as the team makes its
// own: each on its host's turn in the database (Turns), hop by hop, the
// page's own host too (its job let the lease go while the page renders);
// each spaced by its host's delay (the crawl's, or its Crawl-delay);
// and, unless the crawl ignores robots.txt, only where the resource's
// robots.txt allows it, for every hop. Another origin's robots.txt is
// read as any worker stored it, or fetched once, hop by hop on the hops'
// hosts' turns, and stored for the team (loadRobots). A pageRequests
// serves one page, and is safe for the browser's concurrent requests.
type pageRequests struct {
	s     *slice
	it    item
	delay time.Duration // the page's own host's
	turns *Turns        // the database's

	mu     sync.Mutex
	silent map[string]error         // origins whose robots.txt got no answer, asked once a page
	delays map[string]time.Duration // by host, from the hosts' robots.txt

	busy  atomic.Int32     // requests not made: their host was held by another job
	local *polite.Schedule // the page's requests to a host wait here first, one at a time
}

// pageRequests are the requests of a page of it; delay is its own host's.
// The robots.txt it reads are the slice's (slice.outcomes).
func (s *slice) pageRequests(it item, delay time.Duration) *pageRequests {
	return &pageRequests{s: s, it: it, delay: delay, turns: s.w.turns,
		silent: map[string]error{}, delays: map[string]time.Duration{},
		local: polite.NewSchedule()}
}

// Acquire takes the host's turn in the database, and lets it go after
// the host's delay. The page's requests to one host wait for each other
// here first, so that the time a request waits for a host another job
// holds (renderPatience at most) is not spent behind its own page's.
func (p *pageRequests) Acquire(ctx context.Context, host string) (func(time.Duration), error) {
	free, err := p.local.Acquire(ctx, host)
	if err != nil {
		return nil, err
	}
	release, err := p.turns.Acquire(ctx, host)
	if errors.Is(err, ErrBusy) {
		p.busy.Add(1)
	}
	if err != nil {
		free(0)
		return nil, err
	}
	return func(d time.Duration) {
		p.mu.Lock()
		d = max(d, p.delays[host])
		p.mu.Unlock()
		if host == p.s.host {
			d = max(d, p.delay)
		}
		release(d)
		free(0) // the delay is kept in the database's turns
	}, nil
}

// robots is what the robots.txt of u's origin says.
func (p *pageRequests) robots(ctx context.Context, u *url.URL) (robots.Outcome, error) {
	o := p.it.c.o
	origin := u.Scheme + "://" + u.Host
	out, ok := p.s.outcomes.get(origin)
	p.mu.Lock()
	err := p.silent[origin]
	p.mu.Unlock()
	if ok || err != nil {
		p.pace(u, out)
		return out, err
	}
	out, err = p.s.w.storedRobots(ctx, origin, p, o.Delay, o.MaxCrawlDelay)
	switch {
	case err == nil:
		p.s.outcomes.put(origin, out)
		p.pace(u, out)
	case heed.KindOf(err) == heed.Transient:
		// Asked once a page: its other requests there are refused.
		p.mu.Lock()
		p.silent[origin] = err
		p.mu.Unlock()
	}
	return out, err
}

// pace keeps u's host's Crawl-delay, as out says it, for the page's
// requests there.
func (p *pageRequests) pace(u *url.URL, out robots.Outcome) {
	if out.Robots == nil {
		return
	}
	if cd, ok := out.CrawlDelay(p.s.w.Agent); ok {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.delays[polite.HostKey(u)] = polite.Pace(p.delays[polite.HostKey(u)], cd, p.it.c.o.MaxCrawlDelay)
	}
}

// allowed fails for a URL that robots.txt disallows.
func (p *pageRequests) allowed(ctx context.Context, raw string) error {
	if p.it.c.o.NoRobots {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	out, err := p.robots(ctx, u)
	if err != nil {
		return err
	}
	if d := out.Allowed(p.s.w.Agent, raw); !d.Allowed {
		return &heed.Error{Kind: heed.Blocked, Op: "render", URL: fetch.Redact(raw), Err: errDisallowed}
	}
	return nil
}

// Get makes one of the page's requests (a render.Get).
func (p *pageRequests) Get(ctx context.Context, req fetch.Request) (*fetch.Response, error) {
	if err := p.allowed(ctx, req.URL); err != nil {
		return nil, err
	}
	req.CheckRedirect = func(next string) error { return p.allowed(ctx, next) }
	if req.Accept == "" {
		req.Accept = "*/*"
	}
	resp, err := polite.New(p.s.w.HTTP, p, p.it.c.o.Delay).Get(ctx, req)
	if err == nil && resp.Status == http.StatusNotModified {
		return nil, errors.New("not modified")
	}
	return resp, err
}

// storedRobots is what an origin's robots.txt says, as the team stored
// it (loadRobots).
func (w *Worker) storedRobots(ctx context.Context, origin string, turns polite.Turns, delay, maxCrawlDelay time.Duration) (robots.Outcome, error) {
	out, err := loadRobots(ctx, w.ledger, w.HTTP, w.Agent, origin, turns, delay, maxCrawlDelay)
	if err == nil && noAnswer(out) {
		err = silentError(origin, out)
	}
	return out, err
}

// loadRobots is what an origin's robots.txt says, as any process of the
// team stored it while it lives, or fetched now and stored for the team.
// It is fetched hop by hop, each hop on its host's turn (turns, which
// must hold no host's lease for the caller: a hop to another host waits
// for that host's turn, and two robots.txt files that redirect to each
// other's hosts would keep their fetches waiting on each other). The
// origin's own turn is taken first and the store read again (another
// may have fetched it meanwhile); it is let go when the file is stored,
// or when a redirect asks for another host's turn. An origin that gave
// no answer at all (a timeout, the network down), or whose redirect's
// host could not be had, is Unreachable, and not stored: that is not the
// site's word.
func loadRobots(ctx context.Context, l ledger.Ledger, client *fetch.Client, agent, origin string, turns polite.Turns, delay, maxCrawlDelay time.Duration) (robots.Outcome, error) {
	read := func() (robots.Outcome, bool, error) { return readRobots(ctx, l, origin) }
	if out, ok, err := read(); ok || err != nil {
		return out, err
	}
	u, err := url.Parse(origin)
	if err != nil {
		return robots.Outcome{}, err
	}
	rt := &robotsTurns{Turns: turns, host: polite.HostKey(u)}
	if rt.release, err = turns.Acquire(ctx, rt.host); err != nil {
		return robots.Outcome{}, err
	}
	defer rt.let()
	if out, ok, err := read(); ok || err != nil {
		rt.delay = 0
		return out, err
	}
	out, body, err := polite.New(client, rt, delay).LoadRobotsFile(polite.WithCrawlDelay(ctx, agent, maxCrawlDelay), origin+"/robots.txt")
	if err != nil || noAnswer(out) {
		return out, err
	}
	// Kept for the team, for its lifetime, in its ledger.
	kept := ledger.Robots{Origin: origin, Status: out.Status.String(), HTTPStatus: out.HTTPStatus, Cause: out.Cause, Body: body, Until: time.Now().Add(out.Lifetime)}
	return out, l.PutRobots(context.WithoutCancel(ctx), kept)
}

// readRobots is an origin's robots.txt as the team's ledger keeps it,
// while it lives; stored is false when it has none.
func readRobots(ctx context.Context, l ledger.Ledger, origin string) (o robots.Outcome, stored bool, err error) {
	kept, ok, err := l.Robots(ctx, origin)
	if !ok || err != nil {
		return robots.Outcome{}, false, err
	}
	return kept.Outcome(), true, nil
}

// robotsTurns are the turns of a robots.txt's hops: its own host's turn,
// taken already, serves the first hop, and is let go (let) only when
// another hop's turn is asked for, or when the fetch is over, so that the
// file is stored before another may take the host's turn to fetch it.
type robotsTurns struct {
	polite.Turns
	host string

	mu      sync.Mutex
	release func(time.Duration) // the own host's turn while held
	used    bool                // the first hop took it
	delay   time.Duration       // its release's delay, once the first hop is done
}

func (r *robotsTurns) Acquire(ctx context.Context, host string) (func(time.Duration), error) {
	r.mu.Lock()
	if host == r.host && !r.used && r.release != nil {
		r.used = true
		r.mu.Unlock()
		return func(d time.Duration) {
			r.mu.Lock()
			r.delay = d
			r.mu.Unlock()
		}, nil
	}
	r.mu.Unlock()
	r.let()
	return r.Turns.Acquire(ctx, host)
}

// let lets the own host's turn go, once.
func (r *robotsTurns) let() {
	r.mu.Lock()
	release, delay := r.release, r.delay
	r.release = nil
	r.mu.Unlock()
	if release != nil {
		release(delay)
	}
}

// RobotsLoader loads robots.txt as a team's workers do (a robots.Loader
// for work beside them: heed mcp --db): the team's stored copy while it
// lives, or fetched on the host's turn (turns, the team's) and stored
// for the team. After the request the host is left alone for delay, or
// its Crawl-delay (at most maxCrawlDelay).
func RobotsLoader(pool *pgxpool.Pool, client *fetch.Client, turns polite.Turns, agent string, delay, maxCrawlDelay time.Duration) robots.Loader {
	l := pgstore.NewLedger(pool)
	return func(ctx context.Context, robotsURL string) (robots.Outcome, error) {
		u, err := url.Parse(robotsURL)
		if err != nil || u.Host == "" {
			return robots.Outcome{}, fmt.Errorf("robots.txt URL %q: not absolute", robotsURL)
		}
		if err := fetch.CheckURL(robotsURL); err != nil {
			return robots.Outcome{}, err
		}
		return loadRobots(ctx, l, client, agent, u.Scheme+"://"+u.Host, turns, delay, maxCrawlDelay)
	}
}

// lend lets the host's lease go while its page renders, its next turn
// kept.
func (s *slice) lend(ctx context.Context) error {
	tag, err := s.w.Pool.Exec(ctx, `
		UPDATE heed_host SET lease_owner = NULL, lease_until = NULL,
			next_at = greatest(next_at, now() + make_interval(secs => $3))
		WHERE host = $1 AND lease_owner = $2`, s.host, s.owner, max(s.turns.until(), 0).Seconds())
	if err == nil && tag.RowsAffected() == 0 {
		err = errLost
	}
	return err
}

// retake takes back the host's lease that lend let go: a request beside
// the job holds it for one request at most. The page rendered is kept,
// though the job's context ended; it waits one lease's time at most (a
// holder that died).
func (s *slice) retake(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.w.LeaseTTL+time.Second)
	defer cancel()
	for {
		d, ok, err := takeLease(ctx, s.w.Pool, s.host, s.owner, s.w.LeaseTTL)
		if err != nil {
			return err
		}
		if ok {
			s.turns.mu.Lock()
			s.turns.next = time.Now().Add(d)
			s.turns.mu.Unlock()
			return nil
		}
		if err := wait.Sleep(ctx, min(max(d, 10*time.Millisecond), pollMax)); err != nil {
			return err
		}
	}
}
