package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/polite"
)

// HostArgs is the River job of one host: it fetches the host's queued
// URLs. There is one job per host among those not completed.
type HostArgs struct {
	Host string `json:"host"`
}

// Kind is the job's kind in River.
func (HostArgs) Kind() string { return "heed_host" }

// Queue is the River queue of heed's jobs.
const Queue = "heed"

// InsertOpts make the job unique by host among jobs not completed: a
// host whose job ran to its end gets a new one when URLs come.
func (HostArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{
		Queue:       Queue,
		MaxAttempts: 1000,
		UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
			rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
			rivertype.JobStateRunning, rivertype.JobStateScheduled,
		}},
	}
}

// queued is a URL to put in the frontier.
type queued struct {
	url, host string
	depth     int
	state     string // "queued", or "skipped" with a reason
	reason    string
	detail    string
	attempts  int
	via       []string // how it was found, where not by a link (crawl.ViaLLMsTxt)
	// own is the URL a commit ends (at most one a statement): its row,
	// the crawl's or that of a crawl that took it over while it was
	// fetched, takes the state given.
	own bool
}

// queueLinks queues, in b, one statement that puts URLs of crawl c in
// the frontier and locks, in order, the hosts given a queued URL and also
// (a held host); readLocked reads what it returns. A URL not seen is
// inserted. One another crawl holds is this one's when it is newer, and
// the URL was queued (it is fetched once, by this crawl) or ended before
// this crawl began (it is crawled again); a URL that a crawl running
// beside this one fetched is not fetched again. A URL marked own takes
// its state as given, the URL a commit ends, whichever crawl took it
// over while it was fetched: it was fetched once, for both, and its
// links go to the crawl that holds it now (the one that lost it may have
// ended, and gets no URL after its end). URLs are inserted in order, and
// the hosts locked after them in order, so that two transactions never
// wait on each other. What the statement ended is counted for the crawl
// whose row it is (countEnds): the own URL, and the links skipped at
// queue time; a crawl it took a queued URL from may have ended.
func queueLinks(b *pgx.Batch, c *crawlInfo, qs []queued, also string) {
	// Each in the order given: a page's links are queued (seq) in the
	// page's order, as a crawl on one machine queues them.
	type ordered struct {
		queued
		ord int
	}
	list := make([]ordered, len(qs)) // a transaction run again queues them again
	for i, q := range qs {
		list[i] = ordered{q, i}
	}
	slices.SortStableFunc(list, func(a, b ordered) int { return strings.Compare(a.url, b.url) })
	list = slices.CompactFunc(list, func(a, b ordered) bool { return a.url == b.url })
	n := len(list)
	urls, hosts, depths, states, reasons, details, attempts, ords, vias := make([]string, n), make([]string, n), make([]int32, n), make([]string, n), make([]string, n), make([]string, n), make([]int32, n), make([]int32, n), make([]string, n)
	own := ""
	for i, q := range list {
		urls[i], hosts[i], depths[i], states[i], reasons[i], details[i], attempts[i], ords[i] = pgstore.Clean(q.url), pgstore.Clean(q.host), int32(q.depth), q.state, q.reason, pgstore.Clean(heed.Clip(q.detail, 1000)), int32(q.attempts), int32(q.ord)
		vias[i] = pgstore.Clean(strings.Join(q.via, "\n"))
		if q.own {
			own = urls[i]
		}
	}
	b.Queue(`
		WITH cr AS (
			SELECT id, created_at FROM heed_crawl
			WHERE id = coalesce((SELECT crawl FROM heed_frontier WHERE url = $10 AND state = 'queued'), $1)
		), prev AS (
			SELECT DISTINCT f.crawl FROM heed_frontier f, cr
			WHERE f.url = ANY($2::text[]) AND f.url <> $10 AND f.state = 'queued' AND f.crawl < cr.id
		), numbered AS (
			SELECT x.*, nextval(pg_get_serial_sequence('heed_frontier', 'seq')) AS q FROM (
				SELECT * FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $9::int[], $11::int[], $12::text[]) AS x(u, h, d, s, r, t, a, o, v)
				ORDER BY o) AS x
		), ins AS (
			INSERT INTO heed_frontier (url, crawl, host, depth, state, reason, detail, attempts, seq, via) OVERRIDING SYSTEM VALUE
			SELECT u, cr.id, h, d, s, r, t, a, q, v FROM cr, numbered
			ORDER BY u
			ON CONFLICT (url) DO UPDATE SET
				crawl = CASE WHEN heed_frontier.url = $10 THEN heed_frontier.crawl ELSE EXCLUDED.crawl END,
				depth = CASE WHEN heed_frontier.url = $10 THEN heed_frontier.depth ELSE EXCLUDED.depth END,
				via = CASE WHEN heed_frontier.url = $10 THEN heed_frontier.via ELSE EXCLUDED.via END,
				state = EXCLUDED.state, reason = EXCLUDED.reason, detail = EXCLUDED.detail,
				attempts = EXCLUDED.attempts, updated_at = now()
			WHERE heed_frontier.url = $10 AND (heed_frontier.crawl = EXCLUDED.crawl OR heed_frontier.state = 'queued')
				OR heed_frontier.url <> $10 AND heed_frontier.crawl < EXCLUDED.crawl AND (
					heed_frontier.state = 'queued' AND EXCLUDED.state = 'queued'
					OR heed_frontier.state <> 'queued' AND heed_frontier.updated_at < (SELECT created_at FROM cr))
			RETURNING url, crawl, host, state, reason, detail, depth
		), due AS (
			SELECT DISTINCT host FROM ins WHERE state = 'queued'
		), locked AS (
			INSERT INTO heed_host (host) SELECT host FROM (SELECT host FROM due UNION SELECT $8::text) AS h ORDER BY host
			ON CONFLICT (host) DO UPDATE SET host = EXCLUDED.host
			RETURNING host, awake
		)
		SELECT host, awake, host IN (SELECT host FROM due), 0::bigint, ''::text, ''::text, 0, ''::text, ''::text FROM locked
		UNION ALL
		SELECT '', false, false, crawl, state, reason, count(*)::int, '', '' FROM ins
		WHERE CASE WHEN url = $10 THEN state <> 'queued' ELSE state = 'skipped' END
		GROUP BY crawl, state, reason
		UNION ALL
		SELECT '', false, false, crawl, 'queued', '', 0, '', '' FROM prev
		UNION ALL
		SELECT '', false, false, 0, 'skipped', reason, depth, url, detail FROM ins WHERE state = 'skipped' AND url <> $10
		UNION ALL
		SELECT '', false, false, crawl, 'taken', '', 0, '', '' FROM ins WHERE url = $10 AND crawl <> (SELECT id FROM cr)`,
		c.id, urls, hosts, depths, states, reasons, details, also, attempts, own, ords, vias)
}

// errTakenOver ends a transaction whose statement queued a page's links
// for the crawl that held the page as the statement began, while a newer
// crawl took the page over (and the one that lost it may have ended):
// run again, it queues them for the newer one.
var errTakenOver = errors.New("the URL was taken over by a newer crawl as it was ended")

// readLocked reads queueLinks's statement: the hosts given a queued URL,
// those of the hosts locked without a job, what it ended, by crawl, to
// count (countEnds), and the links it ended as skipped (out of scope,
// too deep, disallowed), new to the crawl, to tell, the URL the commit
// ends aside. It fails with errTakenOver when the URL the commit ends
// was another crawl's by the time it was ended.
func readLocked(br pgx.BatchResults) (due, asleep []string, ended tally, skips []crawl.Event, err error) {
	rows, err := br.Query()
	if err != nil {
		return nil, nil, nil, nil, err
	}
	defer rows.Close()
	ended = tally{}
	for rows.Next() {
		var h, state, reason, u, detail string
		var awake, isDue bool
		var id int64
		var n int
		if err := rows.Scan(&h, &awake, &isDue, &id, &state, &reason, &n, &u, &detail); err != nil {
			return nil, nil, nil, nil, err
		}
		if u != "" {
			skips = append(skips, crawl.Event{Kind: crawl.Skipped, URL: u, Reason: reason, Detail: detail, Depth: n})
			continue
		}
		if state == "taken" {
			err = errTakenOver
			continue
		}
		if id != 0 {
			ended.add(id, state, reason, n)
			continue
		}
		if isDue {
			due = append(due, h)
		}
		if !awake {
			asleep = append(asleep, h)
		}
	}
	return due, asleep, ended, skips, errors.Join(err, rows.Err())
}

// lockHosts makes the hosts' rows if missing and locks them, in order,
// so that two transactions locking hosts never wait on each other. It
// returns those of them without a job. A job that finds no URL left
// ends under its host's lock (finish), and a URL is queued for a host
// with its job under the same lock: either the job sees the URL, or it
// ended before the new job is inserted.
func lockHosts(ctx context.Context, tx pgx.Tx, hosts []string) (asleep []string, err error) {
	slices.Sort(hosts)
	hosts = slices.Compact(hosts)
	rows, err := tx.Query(ctx, `
		INSERT INTO heed_host (host) SELECT h FROM unnest($1::text[]) AS h ORDER BY h
		ON CONFLICT (host) DO UPDATE SET host = EXCLUDED.host
		RETURNING host, awake`, hosts)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var h string
		var awake bool
		if err := rows.Scan(&h, &awake); err != nil {
			rows.Close()
			return nil, err
		}
		if !awake {
			asleep = append(asleep, h)
		}
	}
	return asleep, rows.Err()
}

// wake inserts the jobs of hosts given URLs, of those without one; their
// rows are locked (lockHosts). A job is unique by host all the same, so
// that a host is never worked twice at once (a job rescued, a host's
// job put back by sweep).
func wake(ctx context.Context, tx pgx.Tx, inserter *river.Client[pgx.Tx], due, asleep []string) error {
	var hosts []string
	for _, h := range due {
		if slices.Contains(asleep, h) {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `UPDATE heed_host SET awake = true WHERE host = ANY($1)`, hosts); err != nil {
		return err
	}
	params := make([]river.InsertManyParams, len(hosts))
	for i, h := range hosts {
		params[i] = river.InsertManyParams{Args: HostArgs{Host: h}}
	}
	_, err := inserter.InsertManyTx(ctx, tx, params)
	return err
}

// NewInserter is a River client that inserts jobs and works none.
func NewInserter(pool *pgxpool.Pool) (*river.Client[pgx.Tx], error) {
	return river.NewClient(newDriver(pool), &river.Config{PollOnly: true})
}

// ErrNoCrawl is the error of a crawl ID the database does not hold.
var ErrNoCrawl = errors.New("no such crawl")

// Start records a crawl and queues its start URL with its host's job, in
// one transaction: any worker may take it from there. It returns the
// crawl's ID. The crawl's row keeps its options as JSON (readOptions
// reads them).
func Start(ctx context.Context, pool *pgxpool.Pool, o crawlopt.Options) (int64, error) {
	if err := o.Validate(); err != nil {
		return 0, &heed.Error{Kind: heed.Invalid, Op: "crawl", URL: fetch.Redact(o.Start), Err: err}
	}
	if err := fetch.CheckURL(o.Start); err != nil {
		return 0, &heed.Error{Kind: heed.Invalid, Op: "crawl", URL: fetch.Redact(o.Start), Err: err}
	}
	start, err := crawl.Normalize(o.Start)
	if err != nil {
		return 0, &heed.Error{Kind: heed.Invalid, Op: "crawl", URL: fetch.Redact(o.Start), Err: err}
	}
	o.Start = start
	if _, err := crawl.ScopeOf(o); err != nil {
		return 0, &heed.Error{Kind: heed.Invalid, Op: "crawl", URL: start, Err: err}
	}
	if len(start) > MaxURLLength {
		return 0, &heed.Error{Kind: heed.Invalid, Op: "crawl", URL: fetch.Redact(heed.Clip(start, 80)), Err: fmt.Errorf("a team's crawl takes URLs of %d bytes at most", MaxURLLength)}
	}
	su, _ := url.Parse(start)
	if o.Source == "" {
		o.Source = su.Host
	}
	opts, err := json.Marshal(o)
	if err != nil {
		return 0, err
	}
	inserter, err := NewInserter(pool)
	if err != nil {
		return 0, err
	}
	var id int64
	err = inTx(ctx, pool, func(tx pgx.Tx) error {
		c := &crawlInfo{}
		seeds := o.MaxDepth >= 1 && (!o.NoSitemaps || !o.NoLLMsTxt)
		if err := tx.QueryRow(ctx, `
			INSERT INTO heed_crawl (source, start_url, max_pages, deadline_at, seeded)
			VALUES ($1, $2, $3, now() + make_interval(secs => $4), $5) RETURNING id, created_at`,
			o.Source, start, o.MaxPages, o.Deadline.Seconds(), !seeds).Scan(&c.id, &c.created); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO heed_crawl_options (crawl, options) VALUES ($1, $2)`, c.id, opts); err != nil {
			return err
		}
		id = c.id
		b := &pgx.Batch{}
		host := polite.HostKey(su)
		queueLinks(b, c, []queued{{url: start, host: host, state: "queued"}}, host)
		br := tx.SendBatch(ctx, b)
		due, asleep, ended, _, err := readLocked(br)
		if err := errors.Join(err, br.Close()); err != nil {
			return err
		}
		if err := wake(ctx, tx, inserter, due, asleep); err != nil {
			return err
		}
		// A crawl whose start URL waited is taken over, and done.
		if _, err := countEnds(ctx, tx, ended); err != nil {
			return err
		}
		if seeds {
			_, err = inserter.InsertTx(ctx, tx, SeedArgs{Crawl: id}, nil)
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("team: start a crawl: %w", err)
	}
	return id, nil
}

// inTx runs f in a transaction, again when Postgres ended it for a
// deadlock or a serialization failure, or when a URL it ended was taken
// over meanwhile (errTakenOver): every write is idempotent.
func inTx(ctx context.Context, pool *pgxpool.Pool, f func(tx pgx.Tx) error) error {
	for try := 0; ; try++ {
		err := pgx.BeginFunc(ctx, pool, f)
		if err == nil || try == 10 || !retryable(err) && !errors.Is(err, errTakenOver) {
			return err
		}
	}
}

// retryable reports whether Postgres ended a transaction that may be
// run again as it was: a deadlock, a serialization failure.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "40001")
}
