package team

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/history"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/internal/render"
	"github.com/heedhq/heed/internal/wait"
	"github.com/heedhq/heed/robots"
)

// slice is one job's run of one host, under a lease of its own (owner):
// two runs of one job, in one process or two, never hold the host at
// once.
type slice struct {
	w     *Worker
	host  string
	owner string
	end   time.Time
	turns *held
	// outcomes are robots.txt by origin as read this slice, by its URLs
	// and its rendered pages' requests alike; silent the origins whose
	// robots.txt was unread for now this slice: their other URLs fail
	// the same attempt without another request, and the slice ends
	// after its batch (errUnread).
	outcomes robotsMemo
	silent   map[string]error
}

// robotsMemo is what a slice read of origins' robots.txt, by origin: the
// one copy its URLs and its rendered pages' requests ask. It is safe for
// concurrent use (a browser's requests).
type robotsMemo struct {
	mu sync.Mutex
	m  map[string]robots.Outcome
}

func (r *robotsMemo) get(origin string) (robots.Outcome, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.m[origin]
	return o, ok
}

func (r *robotsMemo) put(origin string, o robots.Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]robots.Outcome{}
	}
	r.m[origin] = o
}

// held are the turns of a host whose lease a slice holds: one request at
// a time is the slice's, and the delay between them is kept here, and in
// the database at each commit (and when the slice ends) for the next
// holder. A rendered page's requests to the host take their turns here
// too, at once from the browser: held is safe for concurrent use.
type held struct {
	host string
	one  chan struct{} // held by the request in flight

	mu    sync.Mutex
	next  time.Time
	delay time.Duration // the last request's, Retry-After included
}

func newHeld(host string) *held {
	return &held{host: host, one: make(chan struct{}, 1)}
}

func (h *held) Acquire(ctx context.Context, host string) (func(time.Duration), error) {
	if host != h.host {
		return nil, fmt.Errorf("a request to %s on the turn of %s", host, h.host)
	}
	select {
	case h.one <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := h.wait(ctx); err != nil {
		<-h.one
		return nil, err
	}
	return func(delay time.Duration) {
		h.mu.Lock()
		h.next = time.Now().Add(delay)
		h.delay = delay
		h.mu.Unlock()
		<-h.one
	}, nil
}

// last is the last request's delay.
func (h *held) last() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.delay
}

// until is how long until the host's next turn.
func (h *held) until() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return time.Until(h.next)
}

// wait waits for the host's next turn.
func (h *held) wait(ctx context.Context) error {
	d := h.until()
	if d <= 0 {
		return nil
	}
	if dl, ok := ctx.Deadline(); ok && time.Now().Add(d).After(dl) {
		return errors.New("the next request to this host would come after the deadline")
	}
	return wait.Sleep(ctx, d)
}

// item is a queued URL and its crawl.
type item struct {
	url      string
	depth    int
	attempts int // failures so far for a cause that may pass
	c        *crawlInfo
	// The validators its source's snapshot of it was stored with: the
	// request is conditional.
	etag, lastModified string
	via                []string // how it was found, where not by a link
}

// MaxURLLength is the longest URL a team's frontier keeps (its primary
// key's index takes no more): a longer link is not followed.
const MaxURLLength = 2000

func (s *slice) run(ctx context.Context) error {
	for time.Now().Before(s.end) && !s.w.stopped() {
		items, err := s.next(ctx)
		if err != nil || len(items) == 0 {
			return err
		}
		for _, it := range items {
			if !time.Now().Before(s.end) || s.w.stopped() {
				return nil
			}
			// A URL read with the batch may have ended since: its crawl
			// cancelled (team.Cancel), or the URL taken over. It is not
			// asked for.
			var queued bool
			if err := s.w.Pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM heed_frontier WHERE url = $1 AND crawl = $2 AND state = 'queued')`, it.url, it.c.id).Scan(&queued); err != nil {
				return err
			}
			if !queued {
				continue
			}
			if err := s.visit(ctx, it); err != nil {
				return err
			}
		}
		if len(s.silent) > 0 {
			return errUnread
		}
	}
	return nil
}

// next is the host's next queued URLs, in the order they came; those of
// crawls past their deadline are ended first (endPastDeadline).
func (s *slice) next(ctx context.Context) ([]item, error) {
	if err := s.endPastDeadline(ctx); err != nil {
		return nil, err
	}
	// The queued URLs first, then each one's validators by its key: a
	// join the planner may take for a scan of every snapshot.
	rows, err := s.w.Pool.Query(ctx, `
		SELECT f.url, f.depth, f.attempts, f.crawl, coalesce(v.etag, ''), coalesce(v.last_modified, ''), f.via
		FROM (SELECT url, depth, attempts, crawl, seq, via FROM heed_frontier WHERE host = $1 AND state = 'queued' ORDER BY seq LIMIT 32) f
		LEFT JOIN LATERAL (
			SELECT s.etag, s.last_modified FROM heed_snapshot s
			WHERE s.url = f.url AND s.source = (SELECT c.source FROM heed_crawl c WHERE c.id = f.crawl) AND s.removed IS NULL
		) v ON true
		ORDER BY f.seq`, s.host)
	if err != nil {
		return nil, err
	}
	var items []item
	var ids []int64
	for rows.Next() {
		var it item
		var id int64
		var via string
		if err := rows.Scan(&it.url, &it.depth, &it.attempts, &id, &it.etag, &it.lastModified, &via); err != nil {
			rows.Close()
			return nil, err
		}
		if via != "" {
			it.via = strings.Split(via, "\n")
		}
		items = append(items, it)
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range items {
		c, err := s.w.crawl(ctx, ids[i])
		if err != nil {
			return nil, err
		}
		items[i].c = c
	}
	return items, nil
}

// result is what became of a URL, to commit: what the engine's visit
// found, its URLs longer than the frontier keeps ("" then), and its
// links as the frontier takes them.
type result struct {
	*crawl.Result
	links []queued
}

// visit decides what one URL comes to (crawl.Engine.Visit), on the
// host's turn as the slice holds it (sliceTurn), and commits it. A URL
// left before its end (the slice's time, the worker's end, the lease
// lost or wanted) stays queued.
func (s *slice) visit(ctx context.Context, it item) error {
	if _, err := url.Parse(it.url); err != nil {
		return s.commit(ctx, it, &result{Result: &crawl.Result{Kind: crawl.Skipped, Reason: crawl.ReasonScope, Detail: err.Error()}}, 0)
	}
	t := &sliceTurn{s: s, it: it}
	res := it.c.eng.Visit(ctx, t, crawl.Item{URL: it.url, Depth: it.depth, Via: it.via, Attempts: it.attempts})
	if res.Stop != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return res.Stop
	}
	for _, u := range []*string{&res.Final, &res.Canonical, &res.Alternate} {
		if len(*u) > MaxURLLength {
			*u = ""
		}
	}
	out := &result{Result: res}
	out.links = s.links(it, res.Follow, it.depth+1)
	if res.Moved != "" {
		// Another origin's turn takes the redirect's target.
		out.links = append(out.links, s.links(it, []string{res.Moved}, it.depth)...)
	}
	delay := time.Duration(0)
	if res.Requested {
		delay = max(res.Delay, s.turns.last())
	}
	return s.commit(ctx, it, out, delay)
}

// sliceTurn is a URL's turn in a team's crawl (crawl.Turn): its host's
// lease is the slice's, robots.txt the team's, the count of requests the
// crawl's row.
type sliceTurn struct {
	s     *slice
	it    item
	out   robots.Outcome // its origin's robots.txt
	delay time.Duration  // its host's, as the engine paced it
}

var _ crawl.Turn = (*sliceTurn)(nil)

// Robots is the origin's robots.txt (slice.robots); one the slice could
// not read for now fails this attempt and the others of its batch.
func (t *sliceTurn) Robots(ctx context.Context, _ crawl.Item) (robots.Outcome, error) {
	u, _ := url.Parse(t.it.url)
	out, err := t.s.robots(ctx, t.it, u, t.it.c.o.Delay)
	switch {
	case errors.Is(err, errFull):
		return out, crawl.ErrFull
	case err != nil && (errors.Is(err, crawl.ErrTurnOver) || ctx.Err() != nil):
		return out, err
	case err != nil:
		if heed.KindOf(err) == heed.Transient {
			t.s.silent[u.Scheme+"://"+u.Host] = err
		}
		return out, &heed.Error{Kind: heed.KindOf(err), Op: "robots.txt", Err: err}
	}
	t.out = out
	return out, nil
}

// Take waits for the host's turn, renews the lease for the request and
// counts it against the crawl's max_pages (claim); a redirect's hop and
// a page's alternate, parts of a page begun, do not yield the host to a
// request beside the job. A turn the slice could not have (the lease
// lost or wanted, the host's next turn past the job's time, the
// database out of reach) ends the slice's turn, not the URL: it stays
// queued.
func (t *sliceTurn) Take(ctx context.Context, part crawl.Part) (context.Context, func(), bool, error) {
	rctx, cancel, counted, err := t.s.claimFor(ctx, t.it.c.id, part == crawl.PartURL)
	if err != nil {
		if !errors.Is(err, crawl.ErrTurnOver) {
			err = fmt.Errorf("%w: %w", crawl.ErrTurnOver, err)
		}
		return nil, nil, false, err
	}
	return rctx, cancel, counted, nil
}

func (t *sliceTurn) Client(delay time.Duration, _ string) *polite.Client {
	t.delay = delay
	return polite.New(t.s.w.HTTP, t.s.turns, delay)
}

func (t *sliceTurn) Validators(context.Context, crawl.Item) (string, string) {
	return t.it.etag, t.it.lastModified
}

// Mark reports whether the crawl has the URL in its frontier already
// (queued or ended): a redirect to it is a duplicate, and its Markdown
// is not fetched as an alternate. The URL a page redirected to, and its
// Markdown alternate, are ended with it in its commit.
func (t *sliceTurn) Mark(ctx context.Context, rawURL string, _ crawl.Item) bool {
	// Asked though the job's time ran out meanwhile: a page fetched is
	// decided whole, and committed.
	var seen bool
	err := t.s.w.Pool.QueryRow(context.WithoutCancel(ctx), `SELECT EXISTS (SELECT 1 FROM heed_frontier WHERE url = $1 AND crawl = $2)`, pgstore.Clean(rawURL), t.it.c.id).Scan(&seen)
	return err == nil && seen
}

// Unchanged reads the stored page's links, to follow as the page's would
// be.
func (t *sliceTurn) Unchanged(ctx context.Context, _ crawl.Item) ([]string, string, error) {
	var links []string
	if err := t.s.w.Pool.QueryRow(ctx, `SELECT links FROM heed_snapshot WHERE url = $1 AND source = $2`, t.it.url, t.it.c.o.Source).Scan(&links); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, "", &heed.Error{Kind: heed.Transient, Op: "read the stored page's links", Err: err}
	}
	return links, "", nil
}

// Render renders the page where it needs it. While it renders, its
// host's lease is let go: each of its requests takes its host's turn in
// the database, this host too, so that a page of another host being
// rendered meanwhile that needs this host is not kept waiting, nor this
// one by it.
func (t *sliceTurn) Render(ctx context.Context, it crawl.Item, resp *fetch.Response, p *crawl.Page) (*crawl.Page, bool, error) {
	s, o := t.s, t.it.c.o
	requests := s.pageRequests(t.it, t.delay)
	lent := false
	if s.w.Browser != nil && p.Kind == extract.KindHTML && p.Skip == "" && render.Wants(render.Mode(o.Render), resp.Body, p.Doc.Markdown) {
		if err := s.lend(ctx); err != nil {
			return nil, false, &heed.Error{Kind: heed.Transient, Op: "let the host go while its page renders", Err: err}
		}
		lent = true
	}
	p, rendered, err := crawl.Render(ctx, s.w.Browser, render.Mode(o.Render), resp, p, it, s.w.Agent, o.IgnoreSignals, requests.Get)
	if lent {
		if err := s.retake(ctx); err != nil {
			return nil, false, errLost
		}
	}
	if err != nil {
		return nil, false, err
	}
	if n := requests.busy.Load(); n > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("rendered without %d of its requests: their hosts were held by other workers' crawls for longer than %v", n, renderPatience))
	}
	return p, rendered, nil
}

// Began does nothing: a team's crawl reads its seeds (sitemaps,
// llms.txt) in a job of their own.
func (t *sliceTurn) Began(string) {}

// links are a page's links as the frontier takes them: those out of the
// crawl's scope or past its depth are ended as skipped, with why, and
// so are those to an origin whose robots.txt this slice holds and
// disallows them. A link longer than MaxURLLength is not followed.
func (s *slice) links(it item, links []string, depth int) []queued {
	var qs []queued
	for _, l := range links {
		if len(l) > MaxURLLength {
			continue
		}
		lu, err := url.Parse(l)
		if err != nil || lu.Path == "/robots.txt" {
			continue
		}
		q := queued{url: l, host: polite.HostKey(lu), depth: depth, state: "queued"}
		out, known := s.outcomes.get(lu.Scheme + "://" + lu.Host)
		if reason, why := it.c.eng.Admit(lu, depth); reason != "" {
			q.state, q.reason, q.detail = "skipped", reason, why
		} else if known && !it.c.o.NoRobots {
			if d := out.Allowed(s.w.Agent, l); !d.Allowed {
				q.state, q.reason, q.detail = "skipped", crawl.ReasonRobots, d.String()
			}
		}
		qs = append(qs, q)
	}
	return qs
}

// errWanted ends a slice before its next request: a request beside it
// (a rendered page's on another host, heed mcp --db's) waits for its
// host, and has it first. The job comes back on the host's next turn.
var errWanted = fmt.Errorf("the host is wanted by a request beside its job: %w", crawl.ErrTurnOver)

// errUnread ends a slice, after its batch of URLs, where an origin's
// robots.txt could not be read for now, for a cause that may pass (no
// answer; a redirect to a host another job held for longer than a
// request beside the jobs waits): its URLs of the batch, each failing
// that attempt without another request, queued again, are tried in a
// later slice, not again at once. The job comes back on the host's next
// turn.
var errUnread = errors.New("the origin's robots.txt is unread for now")

// wantedFor is how long a request's wish for a host is heeded: the
// waiter asks again more often than that while it waits.
const wantedFor = 2 * time.Second

// errFull is the end of a URL whose crawl made its max_pages requests.
var errFull = errors.New("the crawl's max_pages are spent")

// claim waits for the host's turn, then renews the lease for a request
// (claimFor), counting none.
func (s *slice) claim(ctx context.Context) (rctx context.Context, cancel context.CancelFunc, counted bool, err error) {
	return s.claimFor(ctx, 0, true)
}

// claimFor waits for the host's turn, then renews the lease for a
// request and counts it against the crawl's max_pages (when crawlID is
// not 0): counted is false when the crawl has none left. A crawl that
// ended (a newer one took this URL over, and the rest of its own) does
// not count it: its record is frozen. The context it returns ends before
// the lease would run out, a margin early; it fails with errLost when
// another worker holds the host now. A request that is
// part of a page begun (a redirect's hop, its Markdown alternate) does
// not yield the host to a request beside the job (yield false), which
// has it after the page.
func (s *slice) claimFor(ctx context.Context, crawlID int64, yield bool) (rctx context.Context, cancel context.CancelFunc, counted bool, err error) {
	if err := s.turns.wait(ctx); err != nil {
		return nil, nil, false, err
	}
	sent := time.Now()
	var held, wanted bool
	var left float64
	err = s.w.Pool.QueryRow(ctx, `
		WITH w AS (
			SELECT coalesce($6::boolean AND wanted_at > now() - make_interval(secs => $5), false) AS wanted FROM heed_host WHERE host = $1
		), h AS (
			UPDATE heed_host SET lease_until = now() + make_interval(secs => $3)
			WHERE host = $1 AND lease_owner = $2 RETURNING lease_until
		), c AS (
			UPDATE heed_crawl SET fetched = fetched + (state = 'running')::int
			WHERE id = $4 AND fetched < max_pages AND EXISTS (SELECT 1 FROM h) AND NOT coalesce((SELECT wanted FROM w), false)
			RETURNING 1
		)
		SELECT EXISTS (SELECT 1 FROM h), coalesce((SELECT wanted FROM w), false), EXISTS (SELECT 1 FROM c),
			coalesce((SELECT extract(epoch FROM lease_until - now()) FROM h), 0)::float8`,
		s.host, s.owner, s.w.LeaseTTL.Seconds(), crawlID, wantedFor.Seconds(), yield).Scan(&held, &wanted, &counted, &left)
	switch {
	case err != nil:
		return nil, nil, false, err
	case !held:
		return nil, nil, false, errLost
	case wanted:
		return nil, nil, false, errWanted
	}
	rctx, cancel = context.WithDeadline(ctx, sent.Add(seconds(left)-leaseMargin(s.w.LeaseTTL)))
	return rctx, cancel, counted, nil
}

// leaseMargin is how long before its lease's end a request is given up.
func leaseMargin(ttl time.Duration) time.Duration { return min(time.Second, ttl/4) }

// robots is what the origin's robots.txt says: as read this slice, as
// any worker stored it while it lives, or fetched now (loadRobots) and
// stored for every worker. It is not fetched for a crawl that has made
// its max_pages requests (errFull). An origin whose robots.txt gave no
// answer, or redirected to a host another job held for longer than a
// request beside the jobs waits (renderPatience) and the host's delay
// (when its holder lets it go), is unread for now: its
// URLs fail this slice for a cause that may pass, and the slice ends
// after its batch (errUnread).
func (s *slice) robots(ctx context.Context, it item, u *url.URL, delay time.Duration) (robots.Outcome, error) {
	origin := u.Scheme + "://" + u.Host
	if o, ok := s.outcomes.get(origin); ok {
		return o, nil
	}
	o, stored, err := readRobots(ctx, s.w.ledger, origin)
	if err != nil {
		return robots.Outcome{}, err
	}
	if stored {
		s.outcomes.put(origin, o)
		return o, nil
	}
	// Not stored: fetching it is a request of the crawl's, if it has any
	// left.
	var room bool
	if err := s.w.Pool.QueryRow(ctx, `SELECT fetched < max_pages FROM heed_crawl WHERE id = $1`, it.c.id).Scan(&room); err != nil {
		return robots.Outcome{}, err
	}
	switch {
	case !room:
		return robots.Outcome{}, errFull
	case s.silent[origin] != nil:
		return robots.Outcome{}, s.silent[origin]
	}
	// The host's turn first (the job yields it here to a request beside
	// it that wants it); then its lease is let go while robots.txt is
	// fetched, each hop on its host's turn in the database, as a
	// rendered page's requests are: a hop to another host waits for
	// that host's turn, and holds this host meanwhile for no one.
	_, cancel, _, err := s.claim(ctx)
	if err != nil {
		return robots.Outcome{}, err
	}
	cancel()
	if err := s.lend(ctx); err != nil {
		return robots.Outcome{}, err
	}
	// A hop to a host another job holds waits for the holder's next
	// request, at which it lets the host go: the host's delay, besides
	// a rendered page's patience.
	p := s.pageRequests(it, delay)
	turns := *s.w.turns
	turns.byDelay = true
	p.turns = &turns
	o, err = s.w.storedRobots(ctx, origin, p, delay, it.c.o.MaxCrawlDelay)
	if err := s.retake(ctx); err != nil {
		return robots.Outcome{}, errLost
	}
	if err == nil {
		s.outcomes.put(origin, o)
	}
	return o, err
}

// noAnswer reports whether a robots.txt outcome is no answer at all (a
// timeout, the network down): not the site's word, so not kept for the
// team to go by for an hour.
func noAnswer(o robots.Outcome) bool { return o.Status == robots.Unreachable && o.HTTPStatus == 0 }

// silentError is the error of an origin whose robots.txt gave no answer
// (noAnswer): a cause that may pass.
func silentError(origin string, o robots.Outcome) error {
	return &heed.Error{Kind: heed.Transient, Op: "get", URL: origin + "/robots.txt", Err: errors.New(o.Cause)}
}

// releaseSQL sets a held host's next turn, its delay from now by the
// database's clock, and renews the lease; it changes no row when another
// worker holds the host now.
const releaseSQL = `
	UPDATE heed_host SET next_at = greatest(next_at, now() + make_interval(secs => $3)),
		delay_ms = CASE WHEN $4 > 0 THEN $4 ELSE delay_ms END,
		lease_until = now() + make_interval(secs => $5)
	WHERE host = $1 AND lease_owner = $2`

// reasonUnchanged is the reason of a URL done whose page was as stored;
// reasonRemoved of one whose page the store held and found gone (a 404
// or a 410). A URL done whose page was stored has the change its store
// found as reason (heed.New, heed.Changed).
const (
	reasonUnchanged = "unchanged"
	reasonRemoved   = "removed"
	// reasonGone is the reason of a URL failed with a 404 or a 410 whose
	// page the store did not hold: a dead link.
	reasonGone = "gone"
)

// stateRemoved is the tally's state of a page found gone beside a URL's
// own end (the page its URL held, which now redirects).
const stateRemoved = "removed"

// reasonClaimed is the reason of a URL done that a page of the crawl
// names as its canonical URL: the page stands for it.
const reasonClaimed = "claimed"

// commit ends a URL in one transaction: its snapshot stored, its state,
// its links queued with their hosts' jobs, and the host's next turn set.
// It runs to its end though the job's context ends: a page fetched is a
// page kept. A commit the database refuses for the page's own sake (a
// value it cannot take) ends the URL as failed instead, so that it is
// not fetched again and again.
func (s *slice) commit(ctx context.Context, it item, res *result, delay time.Duration) error {
	ctx = context.WithoutCancel(ctx)
	err := s.commitTx(ctx, it, res, delay)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code[:2] == "22" || pe.Code[:2] == "54" || pe.Code[:2] == "23") {
		s.w.Logger.Warn("heed: a page the database refused", "url", it.url, "error", err)
		err = s.commitTx(ctx, it, &result{Result: &crawl.Result{Kind: crawl.Failed, Reason: heed.Internal.String(), Detail: "the database refused it: " + pe.Message}}, delay)
	}
	return err
}

func (s *slice) commitTx(ctx context.Context, it item, res *result, delay time.Duration) error {
	var end crawl.End
	var skips []crawl.Event
	requeued := false
	var removed []crawl.Event
	err := inTx(ctx, s.w.Pool, func(tx pgx.Tx) error {
		removed = nil
		k := &txKeep{tx: tx, c: it.c, retention: s.w.Retention}
		var err error
		end, err = it.c.eng.Settle(ctx, k, crawl.Item{URL: it.url, Depth: it.depth, Attempts: it.attempts}, res.Result)
		if err != nil {
			return err
		}
		if end.Moved {
			removed = append(removed, crawl.MovedEvent(it.url, end.URL))
		}
		if end.Kind == crawl.Unchanged && res.Snapshot == nil {
			// Not modified: the snapshot is as fetched now.
			if _, err := tx.Exec(ctx, `UPDATE heed_snapshot SET fetched_at = now() WHERE url = $1`, it.url); err != nil {
				return err
			}
		}
		state, attempts, why := string(end.Kind), it.attempts, end.Reason
		switch {
		case end.Kind == crawl.Stored:
			state, why = "done", string(end.Change)
		case end.Kind == crawl.Unchanged:
			state, why = "done", reasonUnchanged
		case end.Kind == crawl.Removed:
			state, why = "done", reasonRemoved
		case end.Again:
			// Queued again, for its host's next turn.
			state, attempts = "queued", it.attempts+1
		case end.Dead:
			// A dead link: a failure, which leaves the crawl complete
			// (sweepEnded), where a name that did not resolve does not.
			why = reasonGone
		}
		requeued = state == "queued"
		// The URL's end and its links go in one statement, in order (a
		// URL the page links to may be another's own, in its commit);
		// their hosts are locked after them, in order, with this one.
		// A canonical URL claimed, the URL the page redirected to and
		// its Markdown alternate go before the links (the first of a URL
		// is the one queued): a page that links to the URL it stands
		// for, to where it was fetched from at last, or to its Markdown,
		// does not queue it.
		rows := append([]queued{{url: it.url, host: s.host, depth: it.depth, state: state, reason: why, detail: end.Detail, attempts: attempts, own: true}}, k.claim...)
		for _, done := range []string{res.Final, res.Alternate} {
			if done != "" {
				lu, _ := url.Parse(done)
				rows = append(rows, queued{url: done, host: polite.HostKey(lu), depth: it.depth, state: "done"})
			}
		}
		rows = append(rows, res.links...)

		b := &pgx.Batch{}
		queueLinks(b, it.c, rows, s.host)
		b.Queue(releaseSQL, s.host, s.owner, delay.Seconds(), delay.Milliseconds(), s.w.LeaseTTL.Seconds())
		if requeued {
			// Asked again behind the URLs its host has queued, as on one
			// machine: max_pages goes to those first.
			b.Queue(`UPDATE heed_frontier SET seq = DEFAULT WHERE url = $1 AND state = 'queued'`, pgstore.Clean(it.url))
		}
		br := tx.SendBatch(ctx, b)
		var due, asleep []string
		var ended tally
		due, asleep, ended, skips, err = readLocked(br)
		if err != nil {
			br.Close()
			return err
		}
		tag, err := br.Exec()
		if err == nil && requeued {
			_, err = br.Exec()
		}
		if err := errors.Join(err, br.Close()); err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return errLost
		}
		if err := wake(ctx, tx, s.w.inserter, due, asleep); err != nil {
			return err
		}
		// The URL's end is counted in its crawl's row, which ends with
		// its last URL; a complete crawl that ends marks removed the
		// pages it no longer reached.
		if end.Moved {
			ended.add(it.c.id, stateRemoved, "", 1)
		}
		done, err := countEnds(ctx, tx, ended)
		if err != nil {
			return err
		}
		more, err := s.w.sweepEnded(ctx, tx, done)
		removed = append(removed, more...)
		return err
	})
	if err == nil && s.w.Event != nil && !requeued {
		// A page is told of by the URL it was stored under, as a crawl on
		// one machine tells it: where its URL redirected to.
		s.w.Event(crawl.Event{Kind: end.Kind, URL: end.URL, Reason: end.Reason, Detail: end.Detail, Depth: it.depth, Delay: delay.String(),
			Rendered: res.Rendered, Change: end.Change, Version: end.Version})
	}
	if err == nil && s.w.Event != nil {
		// The links it ended as they were queued, each once.
		for _, e := range skips {
			s.w.Event(e)
		}
	}
	if err == nil {
		s.w.tell(removed)
	}
	return err
}

// txKeep is where a URL's end is kept on a team (crawl.Keeper): the
// transaction that commits it, in the team's tables.
type txKeep struct {
	tx        pgx.Tx
	c         *crawlInfo
	retention history.Retention
	// claim is the canonical URL the page stands for, ended with the
	// URL's commit as claimed, not asked for.
	claim []queued
}

// Claim finds the canonical URL taken when this crawl stored it, or a
// page of it stands for it.
func (k *txKeep) Claim(ctx context.Context, cn string, it crawl.Item) (bool, error) {
	var taken bool
	if err := k.tx.QueryRow(ctx, `
		SELECT EXISTS (SELECT 1 FROM heed_frontier f
			WHERE f.url = $1 AND f.state = 'done' AND f.updated_at >= $2 AND (f.reason = $4
				OR EXISTS (SELECT 1 FROM heed_snapshot s WHERE s.url = f.url AND s.source = $3 AND s.removed IS NULL)))`,
		cn, k.c.created, k.c.o.Source, reasonClaimed).Scan(&taken); err != nil || taken {
		return taken, err
	}
	if cu, err := url.Parse(cn); err == nil {
		k.claim = []queued{{url: cn, host: polite.HostKey(cu), depth: it.Depth, state: "done", reason: reasonClaimed}}
	}
	return false, nil
}

// Twin is a twin only of a page kept in this crawl: a snapshot an
// earlier crawl left (a page that has moved since) is not.
func (k *txKeep) Twin(ctx context.Context, final, hash string) (string, error) {
	if hash == "" {
		return "", nil
	}
	var twin string
	err := k.tx.QueryRow(ctx, `
		SELECT s.url FROM heed_snapshot s JOIN heed_frontier f ON f.url = s.url
		WHERE s.source = $1 AND s.hash = $2 AND s.url <> $3 AND f.state = 'done' AND f.updated_at >= $4 AND s.removed IS NULL LIMIT 1`,
		k.c.o.Source, hash, final, k.c.created).Scan(&twin)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return twin, err
}

func (k *txKeep) Put(ctx context.Context, snap *heed.Snapshot) (bool, error) {
	return pgstore.PutIn(ctx, k.tx, snap, k.retention)
}

func (k *txKeep) Remove(ctx context.Context, rawURL, why string) (bool, error) {
	return pgstore.MarkRemovedIn(ctx, k.tx, k.c.o.Source, rawURL, time.Now(), why, k.retention)
}

func (k *txKeep) WasRemoved(ctx context.Context, rawURL string) (bool, error) {
	var before bool
	err := k.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM heed_snapshot WHERE url = $1 AND source = $2 AND removed IS NOT NULL)`,
		pgstore.Clean(rawURL), k.c.o.Source).Scan(&before)
	return before, err
}
