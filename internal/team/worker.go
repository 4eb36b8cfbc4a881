package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
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
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/history"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/render"
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
	// stuck (its worker died) and runs it again; at least the slice, twice
	// the lease's TTL and 11 s; 0 means that and a minute more.
	RescueAfter time.Duration
	// Browser renders the pages of crawls that ask for it
	// (Options.Render); nil renders none, and a crawl that asks for every
	// page rendered fails its pages.
	Browser *render.Browser
	// Retention is how much of each page's history the worker keeps as
	// it stores pages; the zero value is history's default.
	Retention history.Retention
	// Event, if set, is told what became of every URL the worker ended.
	Event func(crawl.Event)
	// Logger takes River's own log; nil logs its warnings to stderr.
	Logger *slog.Logger

	owner    string
	turns    *Turns          // of hosts other than a job's own, for rendered pages' requests
	ledger   *pgstore.Ledger // the team's crawl state: robots.txt as read
	inserter *river.Client[pgx.Tx]
	stopping chan struct{}

	mu     sync.Mutex
	crawls map[int64]*crawlInfo
}

type crawlInfo struct {
	id      int64
	created time.Time // by the database's clock
	o       crawlopt.Options
	eng     *crawl.Engine // decides what each URL comes to
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
	w.owner = ownerName("")
	w.stopping = make(chan struct{})
	// A request on a host's turn from the database holds its lease for
	// as long as the request may take, at least: it is over before the
	// lease ends.
	w.turns = NewTurns(w.Pool, max(w.LeaseTTL, w.HTTP.Timeout()+2*time.Second))
	w.turns.patience = renderPatience
	w.ledger = pgstore.NewLedger(w.Pool)
	w.crawls = map[int64]*crawlInfo{}
}

// jobTimeout is above a slice and the last URL's requests (robots.txt
// and the page, each within a lease). A job cut off loses nothing: its
// page is committed with a context of its own, and a URL it did not end
// stays queued.
func (w *Worker) jobTimeout() time.Duration { return w.Slice + 2*w.LeaseTTL + 10*time.Second }

// Run works jobs until ctx ends; then it stops: each job finishes the
// page it is on, lets its host go, and is left for another worker.
func (w *Worker) Run(ctx context.Context) error {
	w.fill()
	workers := river.NewWorkers()
	river.AddWorker(workers, &hostWorker{w: w})
	river.AddWorker(workers, &seedWorker{w: w})
	client, err := river.NewClient(newDriver(w.Pool), &river.Config{
		PollOnly:             true,
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
	stop, cancel := context.WithTimeout(context.Background(), w.jobTimeout()+10*time.Second)
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
// (River's uniqueness keeps a host with a job from getting another),
// takes a crawl whose seed job is gone (discarded, cancelled by hand, or
// never worked by a worker that knew it) for seeded, and ends the crawls
// seeded with no URL queued that no transaction ended (sweepEndSQL).
func (w *Worker) sweepOnce(ctx context.Context) error {
	if _, err := w.Pool.Exec(ctx, `
		UPDATE heed_crawl c SET seeded = true
		WHERE NOT c.seeded AND c.created_at < now() - interval '10 seconds' AND NOT EXISTS (
			SELECT 1 FROM river_job j WHERE j.kind = 'heed_seed' AND j.args->>'crawl' = c.id::text
				AND j.state NOT IN ('completed', 'discarded', 'cancelled'))`); err != nil && ctx.Err() == nil {
		w.Logger.Warn("heed: sweep the crawls' seeds", "error", err) // the hosts are swept all the same
	}
	if _, err := w.Pool.Exec(ctx, sweepEndSQL); err != nil && ctx.Err() == nil {
		w.Logger.Warn("heed: sweep the crawls' ends", "error", err)
	}
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
var errLost = fmt.Errorf("the host's lease was lost: %w", crawl.ErrTurnOver)

// work is one host's job: take its lease, fetch its queued URLs for a
// slice, and let it go. Each run has a lease owner of its own: a job
// River ran again while its first run still goes on (rescued, taken for
// stuck) cannot take the host from it, even in the same process.
func (w *Worker) work(ctx context.Context, job *river.Job[HostArgs]) error {
	host := job.Args.Host
	s := &slice{w: w, host: host, owner: w.owner + "/" + randomID(4), turns: newHeld(host), silent: map[string]error{}}
	wait, ok, err := takeLease(ctx, w.Pool, host, s.owner, w.LeaseTTL)
	if err != nil {
		w.Logger.Warn("heed: take a host", "host", host, "error", err)
		return river.JobSnooze(time.Second)
	}
	if !ok {
		// Another holds it: a request beside the jobs (short), or a job
		// whose worker died (its lease's end). Asked again a second on
		// at most, so that a short request does not cost a lease's time.
		return river.JobSnooze(min(wait, time.Second) + 10*time.Millisecond)
	}
	s.end = time.Now().Add(w.Slice)
	s.turns.next = time.Now().Add(wait) // before any request: no lock yet
	err = s.run(ctx)
	if errors.Is(err, errWanted) || errors.Is(err, errUnread) {
		err = nil // let go now, and back on the host's next turn
	}
	if errors.Is(err, errLost) {
		// Another worker holds the host: a job is kept for it, which
		// ends once the host has nothing left.
		return river.JobSnooze(w.LeaseTTL)
	}
	if err != nil {
		w.Logger.Warn("heed: a host's slice", "host", host, "error", err)
	}
	return s.finish(context.WithoutCancel(ctx), job)
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// finish lets the host go, its next turn kept (the slice's last delay,
// when no commit set it: a request given up, a commit that failed): the
// job ends when no URL waits (under the host's lock, so that a URL queued
// meanwhile brings a new job), or else snoozes until the host's next
// turn.
func (s *slice) finish(ctx context.Context, job *river.Job[HostArgs]) error {
	var snooze time.Duration
	done := false
	err := inTx(ctx, s.w.Pool, func(tx pgx.Tx) error {
		if _, err := lockHosts(ctx, tx, []string{s.host}); err != nil {
			return err
		}
		var secs float64
		if _, err := tx.Exec(ctx, `
			UPDATE heed_host SET lease_owner = NULL, lease_until = NULL,
				next_at = greatest(next_at, now() + make_interval(secs => $3))
			WHERE host = $1 AND lease_owner = $2`,
			s.host, s.owner, max(s.turns.until(), 0).Seconds()); err != nil {
			return err
		}
		var left bool
		if err := tx.QueryRow(ctx, `
			SELECT EXISTS (SELECT 1 FROM heed_frontier WHERE host = $1 AND state = 'queued'),
				greatest(extract(epoch FROM next_at - now()), 0)::float8 FROM heed_host WHERE host = $1`,
			s.host).Scan(&left, &secs); err != nil {
			return err
		}
		if left {
			snooze = seconds(secs)
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE heed_host SET awake = false WHERE host = $1`, s.host); err != nil {
			return err
		}
		_, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job)
		done = err == nil
		return err
	})
	switch {
	case err != nil:
		s.w.Logger.Warn("heed: let a host go", "host", s.host, "error", err)
		return river.JobSnooze(time.Second)
	case done:
		return nil
	}
	return river.JobSnooze(snooze)
}

// readOptions reads a crawl's options as its row keeps them (Start
// writes them), over crawlopt.Defaults: a setting the row does not name
// takes the default. A row written by an older heed reads as it was
// meant: its durations are nanoseconds, as they still are, and a
// max_depth of -1 (the start URL only, as the crawler took it then) is
// 0.
func readOptions(raw []byte) (crawlopt.Options, error) {
	o := crawlopt.Defaults()
	if err := json.Unmarshal(raw, &o); err != nil {
		return crawlopt.Options{}, err
	}
	o.MaxDepth = max(o.MaxDepth, 0)
	return o, nil
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
	c = &crawlInfo{id: id}
	if err := w.Pool.QueryRow(ctx, `SELECT o.options, c.created_at FROM heed_crawl c JOIN heed_crawl_options o ON o.crawl = c.id WHERE c.id = $1`, id).Scan(&raw, &c.created); err != nil {
		return nil, err
	}
	o, err := readOptions(raw)
	if err != nil {
		return nil, fmt.Errorf("crawl %d: %w", id, err)
	}
	c.o = o
	if c.eng, err = crawl.NewEngine(crawl.Options{Options: c.o}, w.Agent); err != nil {
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
