package team

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/robots"
)

// errDisallowed refuses a browser's request that robots.txt disallows.
var errDisallowed = errors.New("robots.txt disallows it")

// browserGet makes a rendered page's requests as the team makes its own:
// a request to the slice's host on the turns its lease holds, one to
// another host on that host's turn in the database (Turns), each spaced
// by its host's delay; and, unless the crawl ignores robots.txt, only
// where the resource's robots.txt allows it, for every hop. Another
// origin's robots.txt is read as any worker stored it, or fetched once on
// its host's turn and stored for the team.
func (s *slice) browserGet(it item, own string, out robots.Outcome, delay time.Duration) func(ctx context.Context, req fetch.Request) (*fetch.Response, error) {
	o := it.c.o
	var mu sync.Mutex
	outcomes := map[string]robots.Outcome{own: out}
	robotsOf := func(ctx context.Context, u *url.URL) (robots.Outcome, error) {
		origin := u.Scheme + "://" + u.Host
		mu.Lock()
		out, ok := outcomes[origin]
		mu.Unlock()
		if ok {
			return out, nil
		}
		out, err := s.storedRobots(ctx, origin, s.turnsOf(u), o.Delay, o.MaxCrawlDelay)
		if err == nil {
			mu.Lock()
			outcomes[origin] = out
			mu.Unlock()
		}
		return out, err
	}
	allowed := func(ctx context.Context, raw string) (robots.Outcome, error) {
		u, err := url.Parse(raw)
		if err != nil {
			return robots.Outcome{}, err
		}
		if o.NoRobots {
			return robots.Outcome{Status: robots.Unavailable}, nil
		}
		out, err := robotsOf(ctx, u)
		if err != nil {
			return out, err
		}
		if d := out.Allowed(s.w.Agent, raw); !d.Allowed {
			return out, &heed.Error{Kind: heed.Blocked, Op: "render", URL: fetch.Redact(raw), Err: errDisallowed}
		}
		return out, nil
	}
	return func(ctx context.Context, req fetch.Request) (*fetch.Response, error) {
		out, err := allowed(ctx, req.URL)
		if err != nil {
			return nil, err
		}
		u, _ := url.Parse(req.URL)
		d := o.Delay
		if cd, ok := out.CrawlDelay(s.w.Agent); ok && min(cd, o.MaxCrawlDelay) > d {
			d = min(cd, o.MaxCrawlDelay)
		}
		if polite.HostKey(u) == s.host {
			d = max(d, delay)
		}
		req.CheckRedirect = func(next string) error {
			_, err := allowed(ctx, next)
			return err
		}
		if req.Accept == "" {
			req.Accept = "*/*"
		}
		resp, err := polite.New(s.w.HTTP, s.turnsOf(u), d).Get(ctx, req)
		if err == nil && resp.Status == http.StatusNotModified {
			return nil, errors.New("not modified")
		}
		return resp, err
	}
}

// turnsOf are the turns of u's host: the slice's own, which its lease
// holds, or the database's.
func (s *slice) turnsOf(u *url.URL) polite.Turns {
	if polite.HostKey(u) == s.host {
		return s.turns
	}
	return s.w.turns
}

// storedRobots is what an origin's robots.txt says, as any worker stored
// it while it lives, or fetched now on its host's turn (and read again
// from the database first, in case another fetched it meanwhile) and
// stored for the team.
func (s *slice) storedRobots(ctx context.Context, origin string, turns polite.Turns, delay, maxCrawlDelay time.Duration) (robots.Outcome, error) {
	read := func() (robots.Outcome, bool, error) {
		var status, cause string
		var httpStatus int
		var body []byte
		err := s.w.Pool.QueryRow(ctx, `SELECT status, http_status, cause, body FROM heed_robots WHERE origin = $1 AND until > now()`,
			origin).Scan(&status, &httpStatus, &cause, &body)
		if errors.Is(err, pgx.ErrNoRows) {
			return robots.Outcome{}, false, nil
		}
		if err != nil {
			return robots.Outcome{}, false, err
		}
		return outcomeOf(status, httpStatus, cause, body), true, nil
	}
	if out, ok, err := read(); ok || err != nil {
		return out, err
	}
	u, _ := url.Parse(origin)
	release, err := turns.Acquire(ctx, polite.HostKey(u))
	if err != nil {
		return robots.Outcome{}, err
	}
	if out, ok, err := read(); ok || err != nil {
		release(0)
		return out, err
	}
	out, body, err := s.w.HTTP.LoadRobotsFile(ctx, origin+"/robots.txt")
	if cd, ok := out.CrawlDelay(s.w.Agent); ok && min(cd, maxCrawlDelay) > delay {
		delay = min(cd, maxCrawlDelay)
	}
	release(delay)
	if err != nil {
		return robots.Outcome{}, err
	}
	if out.Status == robots.Unreachable && out.HTTPStatus == 0 {
		// No answer at all: not the site's word, not kept.
		return robots.Outcome{}, &heed.Error{Kind: heed.Transient, Op: "get", URL: origin + "/robots.txt", Err: errors.New(out.Cause)}
	}
	_, err = s.w.Pool.Exec(context.WithoutCancel(ctx), `
		INSERT INTO heed_robots (origin, status, http_status, cause, body, until)
		VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))
		ON CONFLICT (origin) DO UPDATE SET status = EXCLUDED.status, http_status = EXCLUDED.http_status,
			cause = EXCLUDED.cause, body = EXCLUDED.body, fetched_at = now(), until = EXCLUDED.until`,
		origin, out.Status.String(), out.HTTPStatus, pgstore.Clean(out.Cause), body, out.Lifetime.Seconds())
	return out, err
}
