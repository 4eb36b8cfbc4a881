package team

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/internal/wait"
	"github.com/heedhq/heed/robots"
)

// Defaults of Worker.
const (
	DefaultHosts    = 16
	DefaultSlice    = 30 * time.Second
	DefaultLeaseTTL = 2 * time.Minute
)

// Worker runs host jobs until it is stopped: any number of workers, on
// any number of machines, share a team database. It is stateless: what
// it knows is in the database.
type Worker struct {
	Pool *pgxpool.Pool
	// HTTP is the guarded client every request goes through.
	HTTP  *fetch.Client
	Agent string // "" means heed.UserAgent()
	// Hosts is how many hosts the worker crawls at once; 0 means
	// DefaultHosts.
	Hosts int
	// Slice is how long a job fetches one host's URLs before it lets the
	// host go to the next in line; 0 means DefaultSlice.
	Slice time.Duration
	// LeaseTTL is how long a host's lease lasts unless renewed: a worker
	// that dies holds its hosts this long. Every request is over within
	// it. 0 means DefaultLeaseTTL.
	LeaseTTL time.Duration
	// RescueAfter is how long a job may run before River takes it for
	// stuck (its worker died) and runs it again; at least the slice and
	// the lease's TTL and 11 s; 0 means that and a minute more.
	RescueAfter time.Duration
	// Event, if set, is told what became of every URL the worker ended.
	Event func(crawl.Event)
	// Logger takes River's own log; nil logs its warnings to stderr.
	Logger *slog.Logger

	owner    string
	inserter *river.Client[pgx.Tx]
	stopping chan struct{}

	mu     sync.Mutex
	crawls map[int64]*crawlInfo
}

type crawlInfo struct {
	id    int64
	o     Options
	scope crawl.Scope
}

func (w *Worker) fill() {
	if w.Agent == "" {
		w.Agent = heed.UserAgent()
	}
	if w.Hosts <= 0 {
		w.Hosts = DefaultHosts
	}
	if w.Slice <= 0 {
		w.Slice = DefaultSlice
	}
	if w.LeaseTTL <= 0 {
		w.LeaseTTL = DefaultLeaseTTL
	}
	if w.RescueAfter <= 0 {
		w.RescueAfter = w.jobTimeout() + time.Minute
	}
	if w.Logger == nil {
		w.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	host, _ := os.Hostname()
	b := make([]byte, 6)
	rand.Read(b)
	w.owner = fmt.Sprintf("%s/%d/%s", heed.Clip(host, 64), os.Getpid(), hex.EncodeToString(b))
	w.stopping = make(chan struct{})
	w.crawls = map[int64]*crawlInfo{}
}

// jobTimeout is above a slice and the last request's lease. A job cut
// off loses nothing: its page is committed with a context of its own,
// and a URL it did not end stays queued.
func (w *Worker) jobTimeout() time.Duration { return w.Slice + w.LeaseTTL + 10*time.Second }

// Run works jobs until ctx ends; then it stops: each job finishes the
// page it is on, lets its host go, and is left for another worker.
func (w *Worker) Run(ctx context.Context) error {
	w.fill()
	workers := river.NewWorkers()
	river.AddWorker(workers, &hostWorker{w: w})
	client, err := river.NewClient(riverpgxv5.New(w.Pool), &river.Config{
		Queues:               map[string]river.QueueConfig{Queue: {MaxWorkers: w.Hosts}},
		Workers:              workers,
		JobTimeout:           w.jobTimeout(),
		RescueStuckJobsAfter: max(w.RescueAfter, w.jobTimeout()+time.Second),
		FetchPollInterval:    100 * time.Millisecond,
		FetchCooldown:        20 * time.Millisecond,
		Logger:               w.Logger,
	})
	if err != nil {
		return fmt.Errorf("team: worker: %w", err)
	}
	w.inserter = client
	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("team: worker: %w", err)
	}
	go w.sweep(ctx)
	<-ctx.Done()
	close(w.stopping)
	stop, cancel := context.WithTimeout(context.Background(), w.LeaseTTL+10*time.Second)
	defer cancel()
	return client.Stop(stop)
}

// sweepEvery is how often a worker looks for hosts with queued URLs and
// no job at work: a job River gave up on (cancelled by hand, say) leaves
// its host waiting, and a sweep gives it a job again.
const sweepEvery = 30 * time.Second

func (w *Worker) sweep(ctx context.Context) {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := w.sweepOnce(ctx); err != nil && ctx.Err() == nil {
			w.Logger.Warn("heed: sweep the hosts", "error", err)
		}
	}
}

// sweepOnce gives a job to each host that has queued URLs and no lease
// (River's uniqueness keeps a host with a job from getting another).
func (w *Worker) sweepOnce(ctx context.Context) error {
	rows, err := w.Pool.Query(ctx, `
		SELECT h.host FROM heed_host h
		WHERE (h.lease_owner IS NULL OR h.lease_until < now())
			AND EXISTS (SELECT 1 FROM heed_frontier f WHERE f.host = h.host AND f.state = 'queued')`)
	if err != nil {
		return err
	}
	hosts, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(hosts) == 0 {
		return err
	}
	return inTx(ctx, w.Pool, func(tx pgx.Tx) error {
		if _, err := lockHosts(ctx, tx, hosts); err != nil {
			return err
		}
		return wake(ctx, tx, w.inserter, hosts, hosts)
	})
}

func (w *Worker) stopped() bool {
	select {
	case <-w.stopping:
		return true
	default:
		return false
	}
}

type hostWorker struct {
	river.WorkerDefaults[HostArgs]
	w *Worker
}

func (h *hostWorker) Work(ctx context.Context, job *river.Job[HostArgs]) error {
	return h.w.work(ctx, job)
}

// errLost is the end of a slice whose lease another worker took: the
// lease ran out (this worker was cut off from the database for longer
// than its TTL), and the host is the other's now.
var errLost = errors.New("the host's lease was lost")

// work is one host's job: take its lease, fetch its queued URLs for a
// slice, and let it go.
func (w *Worker) work(ctx context.Context, job *river.Job[HostArgs]) error {
	host := job.Args.Host
	wait, ok, err := w.take(ctx, host)
	if err != nil {
		w.Logger.Warn("heed: take a host", "host", host, "error", err)
		return river.JobSnooze(time.Second)
	}
	if !ok {
		return river.JobSnooze(wait + 10*time.Millisecond)
	}
	s := &slice{w: w, host: host, end: time.Now().Add(w.Slice), outcomes: map[string]robots.Outcome{}}
	s.turns.next = time.Now().Add(wait)
	err = s.run(ctx)
	if errors.Is(err, errLost) {
		// Another worker holds the host: a job is kept for it, which
		// ends once the host has nothing left.
		return river.JobSnooze(w.LeaseTTL)
	}
	if err != nil {
		w.Logger.Warn("heed: a host's slice", "host", host, "error", err)
	}
	return w.finish(context.WithoutCancel(ctx), job)
}

// take takes the host's lease for the worker (takeLease).
func (w *Worker) take(ctx context.Context, host string) (wait time.Duration, ok bool, err error) {
	return takeLease(ctx, w.Pool, host, w.owner, w.LeaseTTL)
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// finish lets the host go: the job ends when no URL waits (under the
// host's lock, so that a URL queued meanwhile brings a new job), or else
// snoozes until the host's next turn.
func (w *Worker) finish(ctx context.Context, job *river.Job[HostArgs]) error {
	var snooze time.Duration
	done := false
	err := inTx(ctx, w.Pool, func(tx pgx.Tx) error {
		if _, err := lockHosts(ctx, tx, []string{job.Args.Host}); err != nil {
			return err
		}
		var secs float64
		if _, err := tx.Exec(ctx, `
			UPDATE heed_host SET lease_owner = NULL, lease_until = NULL WHERE host = $1 AND lease_owner = $2`,
			job.Args.Host, w.owner); err != nil {
			return err
		}
		var left bool
		if err := tx.QueryRow(ctx, `
			SELECT EXISTS (SELECT 1 FROM heed_frontier WHERE host = $1 AND state = 'queued'),
				greatest(extract(epoch FROM next_at - now()), 0)::float8 FROM heed_host WHERE host = $1`,
			job.Args.Host).Scan(&left, &secs); err != nil {
			return err
		}
		if left {
			snooze = seconds(secs)
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE heed_host SET awake = false WHERE host = $1`, job.Args.Host); err != nil {
			return err
		}
		_, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job)
		done = err == nil
		return err
	})
	switch {
	case err != nil:
		w.Logger.Warn("heed: let a host go", "host", job.Args.Host, "error", err)
		return river.JobSnooze(time.Second)
	case done:
		return nil
	}
	return river.JobSnooze(snooze)
}

// slice is one job's run of one host.
type slice struct {
	w        *Worker
	host     string
	end      time.Time
	turns    held
	outcomes map[string]robots.Outcome // robots.txt by origin, as read this slice
}

// held are the turns of a host whose lease a slice holds: one request at
// a time is the slice's, and the delay between them is kept here, and in
// the database at each commit for the next holder.
type held struct {
	host  string
	next  time.Time
	delay time.Duration // the last request's, Retry-After included
}

func (h *held) Acquire(ctx context.Context, host string) (func(time.Duration), error) {
	if host != h.host {
		return nil, fmt.Errorf("a request to %s on the turn of %s", host, h.host)
	}
	if d := time.Until(h.next); d > 0 {
		if dl, ok := ctx.Deadline(); ok && time.Now().Add(d).After(dl) {
			return nil, errors.New("the next request to this host would come after the deadline")
		}
		if err := wait.Sleep(ctx, d); err != nil {
			return nil, err
		}
	}
	return func(delay time.Duration) {
		h.next = time.Now().Add(delay)
		h.delay = delay
	}, nil
}

// item is a queued URL and its crawl.
type item struct {
	url      string
	depth    int
	attempts int // failures so far for a cause that may pass
	c        *crawlInfo
}

// maxAttempts is how often a URL is fetched when each time fails for a
// cause that may pass (a timeout, a network cut, a 5xx or a 429) before
// it is taken for failed: a worker cut off from the site for a while
// loses no URL.
const maxAttempts = 3

func (s *slice) run(ctx context.Context) error {
	s.turns.host = s.host
	for time.Now().Before(s.end) && !s.w.stopped() {
		items, err := s.next(ctx)
		if err != nil || len(items) == 0 {
			return err
		}
		for _, it := range items {
			if !time.Now().Before(s.end) || s.w.stopped() {
				return nil
			}
			if err := s.visit(ctx, it); err != nil {
				return err
			}
		}
	}
	return nil
}

// next is the host's next queued URLs, in the order they came; those of
// crawls past their deadline are ended first.
func (s *slice) next(ctx context.Context) ([]item, error) {
	if _, err := s.w.Pool.Exec(ctx, `
		UPDATE heed_frontier f SET state = 'skipped', reason = $2, detail = $3, updated_at = now()
		FROM heed_crawl c WHERE f.crawl = c.id AND f.host = $1 AND f.state = 'queued' AND c.deadline_at < now()`,
		s.host, crawl.ReasonDeadline, "the crawl's deadline came first"); err != nil {
		return nil, err
	}
	rows, err := s.w.Pool.Query(ctx, `
		SELECT url, depth, attempts, crawl FROM heed_frontier WHERE host = $1 AND state = 'queued' ORDER BY seq LIMIT 32`, s.host)
	if err != nil {
		return nil, err
	}
	var items []item
	var ids []int64
	for rows.Next() {
		var it item
		var id int64
		if err := rows.Scan(&it.url, &it.depth, &it.attempts, &id); err != nil {
			rows.Close()
			return nil, err
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

// crawl is a crawl's options, read once a worker.
func (w *Worker) crawl(ctx context.Context, id int64) (*crawlInfo, error) {
	w.mu.Lock()
	c, ok := w.crawls[id]
	w.mu.Unlock()
	if ok {
		return c, nil
	}
	var raw []byte
	if err := w.Pool.QueryRow(ctx, `SELECT options FROM heed_crawl WHERE id = $1`, id).Scan(&raw); err != nil {
		return nil, err
	}
	c = &crawlInfo{id: id}
	if err := json.Unmarshal(raw, &c.o); err != nil {
		return nil, fmt.Errorf("crawl %d: %w", id, err)
	}
	su, err := url.Parse(c.o.Start)
	if err != nil {
		return nil, fmt.Errorf("crawl %d: %w", id, err)
	}
	if c.scope, err = crawl.NewScope(su, c.o.AllowHosts, c.o.Include, c.o.Exclude); err != nil {
		return nil, fmt.Errorf("crawl %d: %w", id, err)
	}
	w.mu.Lock()
	if len(w.crawls) > 1000 {
		clear(w.crawls)
	}
	w.crawls[id] = c
	w.mu.Unlock()
	return c, nil
}

// result is what became of a URL, to commit.
type result struct {
	kind           crawl.Kind
	reason, detail string
	final          string // the URL fetched at last, when redirected
	snap           *heed.Snapshot
	links          []queued
}

// visit fetches one URL, on the host's turn, and commits what came of it.
func (s *slice) visit(ctx context.Context, it item) error {
	o := it.c.o
	agent := s.w.Agent
	u, err := url.Parse(it.url)
	if err != nil {
		return s.commit(ctx, it, &result{kind: crawl.Skipped, reason: crawl.ReasonScope, detail: err.Error()}, 0)
	}
	delay := o.Delay
	out := robots.Outcome{Status: robots.Unavailable}
	if !o.NoRobots {
		if out, err = s.robots(ctx, u, delay); err != nil {
			if errors.Is(err, errLost) || ctx.Err() != nil {
				return err
			}
			return s.commit(ctx, it, &result{kind: crawl.Failed, reason: heed.KindOf(err).String(), detail: "robots.txt: " + err.Error()}, delay)
		}
		if d := out.Allowed(agent, it.url); !d.Allowed {
			return s.commit(ctx, it, &result{kind: crawl.Skipped, reason: crawl.ReasonRobots, detail: d.String()}, 0)
		}
		if sig := out.ContentSignals(agent); !o.IgnoreSignals && sig.Denies(robots.SignalAIInput) {
			return s.commit(ctx, it, &result{kind: crawl.Skipped, reason: crawl.ReasonSignal, detail: "robots.txt says Content-Signal: " + sig.String() + "; not fetched"}, 0)
		}
		if cd, ok := out.CrawlDelay(agent); ok && min(cd, o.MaxCrawlDelay) > delay {
			delay = min(cd, o.MaxCrawlDelay)
		}
	}
	// The lease is renewed for the request, and the request counted
	// against the crawl's max_pages, in one statement.
	held, counted, err := s.claim(ctx, it.c.id)
	switch {
	case err != nil:
		return err
	case !held:
		return errLost
	case !counted:
		return s.commit(ctx, it, &result{kind: crawl.Skipped, reason: crawl.ReasonLimit, detail: fmt.Sprintf("max_pages %d reached", o.MaxPages)}, 0)
	}
	res := s.fetch(ctx, it, u, out, delay)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return s.commit(ctx, it, res, max(delay, s.turns.delay))
}

// fetch makes the request of a URL within its lease, and reads the page.
func (s *slice) fetch(ctx context.Context, it item, u *url.URL, out robots.Outcome, delay time.Duration) *result {
	o := it.c.o
	agent := s.w.Agent
	allowed := func(raw string) (robots.Decision, bool) {
		if o.NoRobots {
			return robots.Decision{Allowed: true}, true
		}
		d := out.Allowed(agent, raw)
		return d, d.Allowed
	}
	// Every request is over before the lease could run out: the next
	// holder's wait counts from the lease's end.
	rctx, cancel := context.WithTimeout(ctx, s.w.LeaseTTL-time.Second)
	defer cancel()
	var refused *result
	req := fetch.Request{URL: it.url, NoRetry: true, CheckRedirect: func(next string) error {
		nu, err := url.Parse(next)
		if err != nil {
			return err
		}
		if nu.Host != u.Host || nu.Scheme != u.Scheme {
			// Another origin's turn takes the target.
			res := &result{kind: crawl.Skipped, reason: crawl.ReasonRedirect, detail: "redirected to " + next + ": another origin; queued"}
			if n, err := crawl.Normalize(next); err == nil {
				res.links = s.links(it, []string{n}, it.depth)
			}
			refused = res
			return errors.New(res.detail)
		}
		if why := it.c.scope.Check(nu); why != "" {
			refused = &result{kind: crawl.Skipped, reason: crawl.ReasonScope, detail: "redirected to " + next + ": " + why}
			return errors.New(why)
		}
		if d, ok := allowed(next); !ok {
			refused = &result{kind: crawl.Skipped, reason: crawl.ReasonRobots, detail: "redirected to " + next + ": " + d.String()}
			return errors.New(d.String())
		}
		return nil
	}}
	client := polite.New(s.w.HTTP, &s.turns, delay)
	resp, err := client.Get(rctx, req)
	switch {
	case refused != nil:
		return refused
	case err != nil:
		return &result{kind: crawl.Failed, reason: heed.KindOf(err).String(), detail: err.Error()}
	case resp.Status < 200 || resp.Status > 299:
		err := &fetch.StatusError{Status: resp.Status}
		return &result{kind: crawl.Failed, reason: heed.KindOf(err).String(), detail: err.Error()}
	}
	final := resp.URL
	res := &result{}
	if final != it.url {
		fu, _ := url.Parse(final)
		if why := it.c.scope.Check(fu); why != "" {
			return &result{kind: crawl.Skipped, reason: crawl.ReasonScope, detail: "redirected to " + final + ": " + why}
		}
		if d, ok := allowed(final); !ok {
			return &result{kind: crawl.Skipped, reason: crawl.ReasonRobots, detail: "redirected to " + final + ": " + d.String()}
		}
		res.final = final
	}
	p, err := crawl.ReadPage(resp, crawl.Item{URL: it.url, Depth: it.depth}, agent, o.IgnoreSignals)
	if err != nil {
		return &result{kind: crawl.Failed, reason: heed.KindOf(err).String(), detail: err.Error()}
	}
	res.links = s.links(it, p.Follow, it.depth+1)
	if p.Skip != "" {
		res.kind, res.reason, res.detail = crawl.Skipped, p.Skip, p.Detail
		return res
	}
	notes := p.Notes
	if sig := out.ContentSignals(agent); !o.NoRobots && sig.Denies(robots.SignalAIInput) {
		if !o.IgnoreSignals {
			res.kind, res.reason, res.detail = crawl.Skipped, crawl.ReasonSignal, "robots.txt says Content-Signal: "+sig.String()
			return res
		}
		notes = append(notes, "content signal: "+sig.String())
	}
	res.kind = crawl.Stored
	res.snap = &heed.Snapshot{
		Source: o.Source, URL: final, Title: p.Doc.Title, Description: p.Doc.Description,
		FetchedAt: time.Now().UTC(), Tags: o.Tags, ETag: resp.ETag(), LastModified: resp.LastModified(),
		Notes: notes, Via: p.Via, Markdown: p.Doc.Markdown, Links: p.Links,
	}
	return res
}

// links are a page's links as the frontier takes them: those out of the
// crawl's scope or past its depth are ended as skipped, with why.
func (s *slice) links(it item, links []string, depth int) []queued {
	var qs []queued
	for _, l := range links {
		if len(l) > fetch.MaxURLLength {
			continue
		}
		lu, err := url.Parse(l)
		if err != nil || lu.Path == "/robots.txt" {
			continue
		}
		q := queued{url: l, host: polite.HostKey(lu), depth: depth, state: "queued"}
		out, known := s.outcomes[lu.Scheme+"://"+lu.Host]
		if why := it.c.scope.Check(lu); why != "" {
			q.state, q.reason, q.detail = "skipped", crawl.ReasonScope, why
		} else if depth > max(it.c.o.MaxDepth, 0) {
			q.state, q.reason, q.detail = "skipped", crawl.ReasonLimit, fmt.Sprintf("deeper than max_depth %d", max(it.c.o.MaxDepth, 0))
		} else if d := out.Allowed(s.w.Agent, l); known && !it.c.o.NoRobots && !d.Allowed {
			// A link to an origin whose robots.txt this slice holds is
			// judged now: it is never queued to be turned away later.
			q.state, q.reason, q.detail = "skipped", crawl.ReasonRobots, d.String()
		}
		qs = append(qs, q)
	}
	return qs
}

// claim renews the lease for a request and counts it against the
// crawl's max_pages (when crawlID is not 0): held is false when another
// worker holds the host now.
func (s *slice) claim(ctx context.Context, crawlID int64) (held, counted bool, err error) {
	err = s.w.Pool.QueryRow(ctx, `
		WITH h AS (
			UPDATE heed_host SET lease_until = now() + make_interval(secs => $3)
			WHERE host = $1 AND lease_owner = $2 RETURNING 1
		), c AS (
			UPDATE heed_crawl SET fetched = fetched + 1
			WHERE id = $4 AND fetched < max_pages AND EXISTS (SELECT 1 FROM h) RETURNING 1
		)
		SELECT EXISTS (SELECT 1 FROM h), EXISTS (SELECT 1 FROM c)`,
		s.host, s.w.owner, s.w.LeaseTTL.Seconds(), crawlID).Scan(&held, &counted)
	return held, counted, err
}

// robots is what the origin's robots.txt says: as read this slice, as
// any worker stored it while it lives, or fetched now, on the host's
// turn, and stored for every worker.
func (s *slice) robots(ctx context.Context, u *url.URL, delay time.Duration) (robots.Outcome, error) {
	origin := u.Scheme + "://" + u.Host
	if o, ok := s.outcomes[origin]; ok {
		return o, nil
	}
	var status, cause string
	var httpStatus int
	var body []byte
	err := s.w.Pool.QueryRow(ctx, `SELECT status, http_status, cause, body FROM heed_robots WHERE origin = $1 AND until > now()`, origin).
		Scan(&status, &httpStatus, &cause, &body)
	if err == nil {
		o := outcomeOf(status, httpStatus, cause, body)
		s.outcomes[origin] = o
		return o, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return robots.Outcome{}, err
	}
	held, _, err := s.claim(ctx, 0)
	if err != nil {
		return robots.Outcome{}, err
	}
	if !held {
		return robots.Outcome{}, errLost
	}
	rctx, cancel := context.WithTimeout(ctx, s.w.LeaseTTL-time.Second)
	defer cancel()
	release, err := s.turns.Acquire(rctx, s.host)
	if err != nil {
		return robots.Outcome{}, err
	}
	o, body, err := s.w.HTTP.LoadRobotsFile(rctx, origin+"/robots.txt")
	if cd, ok := o.CrawlDelay(s.w.Agent); ok && cd > delay {
		delay = cd
	}
	release(delay)
	if err != nil {
		return robots.Outcome{}, err
	}
	if o.Status == robots.Unreachable && o.HTTPStatus == 0 {
		// No answer at all (a timeout, the network down): not the
		// site's word, so not kept for the team to go by for an hour;
		// the URL is tried again (maxAttempts).
		return robots.Outcome{}, &heed.Error{Kind: heed.Transient, Op: "get", URL: origin + "/robots.txt", Err: errors.New(o.Cause)}
	}
	err = inTx(context.WithoutCancel(ctx), s.w.Pool, func(tx pgx.Tx) error {
		if err := s.release(ctx, tx, delay); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `
			INSERT INTO heed_robots (origin, status, http_status, cause, body, until)
			VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))
			ON CONFLICT (origin) DO UPDATE SET status = EXCLUDED.status, http_status = EXCLUDED.http_status,
				cause = EXCLUDED.cause, body = EXCLUDED.body, fetched_at = now(), until = EXCLUDED.until`,
			origin, o.Status.String(), o.HTTPStatus, pgstore.Clean(o.Cause), body, o.Lifetime.Seconds())
		return err
	})
	if err != nil {
		return robots.Outcome{}, err
	}
	s.outcomes[origin] = o
	return o, nil
}

// outcomeOf is a robots.txt outcome as stored.
func outcomeOf(status string, httpStatus int, cause string, body []byte) robots.Outcome {
	switch status {
	case robots.Parsed.String():
		return robots.OutcomeOf(httpStatus, body, nil)
	case robots.Unavailable.String():
		return robots.Outcome{Status: robots.Unavailable, HTTPStatus: httpStatus, Cause: cause, Lifetime: robots.UnavailableLifetime}
	}
	return robots.Outcome{Status: robots.Unreachable, HTTPStatus: httpStatus, Cause: cause, Lifetime: robots.UnreachableLifetime}
}

// releaseSQL sets a held host's next turn, its delay from now by the
// database's clock, and renews the lease; it changes no row when another
// worker holds the host now.
const releaseSQL = `
	UPDATE heed_host SET next_at = greatest(next_at, now() + make_interval(secs => $3)),
		delay_ms = CASE WHEN $4 > 0 THEN $4 ELSE delay_ms END,
		lease_until = now() + make_interval(secs => $5)
	WHERE host = $1 AND lease_owner = $2`

// release locks the host and sets its next turn (releaseSQL). It fails
// with errLost when another worker holds the host now.
func (s *slice) release(ctx context.Context, tx pgx.Tx, delay time.Duration) error {
	if _, err := lockHosts(ctx, tx, []string{s.host}); err != nil {
		return err
	}
	tag, err := tx.Exec(ctx, releaseSQL, s.host, s.w.owner, delay.Seconds(), delay.Milliseconds(), s.w.LeaseTTL.Seconds())
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return errLost
	}
	return nil
}

// minDupBytes is the least Markdown a page must have to be taken for a
// twin of another of its source.
const minDupBytes = 200

// commit ends a URL in one transaction: its snapshot stored, its state,
// its links queued with their hosts' jobs, and the host's next turn set.
// It runs to its end though the job's context ends: a page fetched is a
// page kept.
func (s *slice) commit(ctx context.Context, it item, res *result, delay time.Duration) error {
	ctx = context.WithoutCancel(ctx)
	var kind crawl.Kind
	var reason, detail string
	requeued := false
	err := inTx(ctx, s.w.Pool, func(tx pgx.Tx) error {
		kind, reason, detail = res.kind, res.reason, res.detail
		if res.snap != nil {
			if len(res.snap.Markdown) >= minDupBytes {
				var twin string
				err := tx.QueryRow(ctx, `SELECT url FROM heed_snapshot WHERE source = $1 AND hash = $2 AND url <> $3 LIMIT 1`,
					res.snap.Source, heed.HashOf(res.snap.Markdown), res.snap.URL).Scan(&twin)
				if err == nil {
					kind, reason, detail = crawl.Skipped, crawl.ReasonDup, "the same content as "+twin+", kept already"
				} else if !errors.Is(err, pgx.ErrNoRows) {
					return err
				}
			}
			if kind == crawl.Stored {
				changed, err := pgstore.PutIn(ctx, tx, res.snap)
				if err != nil {
					return err
				}
				if !changed {
					kind = crawl.Unchanged
				}
			}
		}
		state, attempts := string(kind), it.attempts
		switch {
		case kind == crawl.Stored || kind == crawl.Unchanged:
			state = "done"
		case kind == crawl.Failed && reason == heed.Transient.String() && it.attempts+1 < maxAttempts:
			// Queued again, for its host's next turn.
			state, attempts = "queued", it.attempts+1
		}
		requeued = state == "queued"
		links := res.links
		if res.final != "" {
			lu, _ := url.Parse(res.final)
			links = append(links, queued{url: res.final, host: polite.HostKey(lu), depth: it.depth, state: "done"})
		}
		// One round trip: the URL's end, its links queued and their
		// hosts locked with this one (in order, after the links, as
		// every transaction locks hosts), and this host's next turn,
		// fenced by the lease.
		b := &pgx.Batch{}
		b.Queue(`UPDATE heed_frontier SET state = $3, reason = $4, detail = $5, attempts = $6, updated_at = now() WHERE url = $1 AND crawl = $2`,
			it.url, it.c.id, state, reason, pgstore.Clean(heed.Clip(detail, 1000)), attempts)
		queueLinks(b, it.c.id, links, s.host)
		b.Queue(releaseSQL, s.host, s.w.owner, delay.Seconds(), delay.Milliseconds(), s.w.LeaseTTL.Seconds())
		br := tx.SendBatch(ctx, b)
		if _, err := br.Exec(); err != nil {
			br.Close()
			return err
		}
		due, asleep, err := readLocked(br)
		if err != nil {
			br.Close()
			return err
		}
		tag, err := br.Exec()
		if err := errors.Join(err, br.Close()); err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return errLost
		}
		return wake(ctx, tx, s.w.inserter, due, asleep)
	})
	if err == nil && s.w.Event != nil && !requeued {
		s.w.Event(crawl.Event{Kind: kind, URL: it.url, Reason: reason, Detail: detail, Depth: it.depth, Delay: delay.String()})
	}
	return err
}
