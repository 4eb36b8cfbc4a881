package pgstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/polite"
)

// Ledger is a team's crawl state as a ledger (ledger.Ledger), held in
// the team's own tables, as its workers keep it:
//
//   - a crawl is its row of heed_crawl (its state, its counts, when it
//     began and ended) and its row of heed_crawl_options (its options,
//     its key, who took it up last and how many times);
//   - its entries are its rows of heed_frontier, whose primary key is the
//     URL: the frontier holds a URL once, for the crawl that wrote it
//     last (a team's newer crawl takes its URLs over from an older
//     one's). A URL's fate is its row's state and reason (fateOf);
//   - the hosts' next turns are heed_host's next_at, and robots.txt as
//     read heed_robots, which every worker of the team reads.
//
// A crawl the team's workers run is running until it is seeded and no
// URL of it waits, then done, whether or not a transaction marked its
// row yet: it is read so. A crawl begun here is begun unseeded, so that
// its end is meant to be its Finish's. It is safe for concurrent use, by
// any number of processes: Begin takes up a crawl under its row's lock,
// so that two processes never take up one crawl.
//
// It is fit today for robots.txt (Robots, PutRobots), which every worker
// of the team reads and keeps through it, and for reading the team's
// crawls (Crawls, Crawl, Kept) as a crawl on one machine's are read:
// heed status reads them so, with Frontier for what only a team's
// frontier says (its URLs queued now, its start URL's end). It
// is not yet a ledger the single-machine engine can run a crawl on, for
// three reasons. A crawl has no liveness: one whose process died
// (kill -9, a power cut) stays running, as no Finish marked it, and is
// neither taken up by its ID nor by its key, whose next crawl starts
// from the start; the stash's ledger marks a running crawl interrupted
// when it opens, which a database that many processes share at once
// cannot do. The frontier holds a URL once: two crawls that write one
// URL (two crawls of one site at once, or two sources over one site)
// take its row from each other, so that one's resume lacks the URL and
// the pages it kept are listed no more. And the team's workers take a
// crawl begun here for theirs: a worker's sweep takes a crawl unseeded
// for ten seconds, with no seed job, for seeded, and ends it once none
// of its URLs is queued, while its process still runs; its counts are
// frozen there and its Finish is refused. Running the engine's crawls
// here would need a crawl's lease that its process renews while it runs,
// entries kept by crawl and URL, and a sweep that leaves such a crawl to
// its process.
type Ledger struct {
	pool *pgxpool.Pool
}

var _ ledger.Ledger = (*Ledger)(nil)

// NewLedger is the ledger of the team's database pool connects to, which
// Migrate made current.
func NewLedger(pool *pgxpool.Pool) *Ledger { return &Ledger{pool: pool} }

// Ledger is the ledger of the store's database.
func (s *Store) Ledger() *Ledger { return NewLedger(s.pool) }

// The reasons of a URL done (state 'done') that say which fate it came
// to, besides a page stored, whose reason is the change its store found
// (heed.New, heed.Changed) or, written here, reasonStored.
const (
	reasonSeen      = ""          // ledger.Seen: a redirect's target, a page's alternate
	reasonClaimed   = "claimed"   // ledger.Claimed
	reasonUnchanged = "unchanged" // ledger.Unchanged
	reasonRemoved   = "removed"   // ledger.Removed
	reasonStored    = "stored"    // ledger.Stored, of no change known
)

// notKept is the SQL list of the reasons of a URL done that is no page
// the crawl kept.
const notKept = `('` + reasonSeen + `', '` + reasonClaimed + `', '` + reasonRemoved + `')`

// fateOf is the fate of a frontier row of state and reason.
func fateOf(state, reason string) ledger.Fate {
	switch state {
	case "queued":
		return ledger.Queued
	case "skipped":
		return ledger.Skipped
	case "failed":
		return ledger.Failed
	}
	switch reason {
	case reasonSeen:
		return ledger.Seen
	case reasonClaimed:
		return ledger.Claimed
	case reasonUnchanged:
		return ledger.Unchanged
	case reasonRemoved:
		return ledger.Removed
	}
	return ledger.Stored
}

// rowOf is the frontier row's state and reason of a fate.
func rowOf(f ledger.Fate) (state, reason string, err error) {
	switch f {
	case ledger.Queued:
		return "queued", "", nil
	case ledger.Skipped:
		return "skipped", "", nil
	case ledger.Failed:
		return "failed", "", nil
	case ledger.Seen:
		return "done", reasonSeen, nil
	case ledger.Claimed:
		return "done", reasonClaimed, nil
	case ledger.Unchanged:
		return "done", reasonUnchanged, nil
	case ledger.Removed:
		return "done", reasonRemoved, nil
	case ledger.Stored:
		return "done", reasonStored, nil
	}
	return "", "", fmt.Errorf("pgstore: no fate %q", f)
}

// crawlColumns are what scanCrawl reads of a crawl c and its options o.
// The last says whether the team's workers ended it, though no
// transaction marked its row yet: seeded, with no URL queued.
const crawlColumns = `c.id, c.start_url, c.source, coalesce(o.key, ''), coalesce(o.options::text, 'null'), c.state,
	c.created_at, c.ended_at, c.fetched, c.stored, c.new, c.changed, c.unchanged, c.removed, c.skipped, c.failed,
	coalesce(o.resumed, 0), coalesce(o.started_by, ''),
	c.state = 'running' AND c.seeded AND NOT EXISTS (SELECT 1 FROM heed_frontier f WHERE f.crawl = c.id AND f.state = 'queued')`

const crawlFrom = ` FROM heed_crawl c LEFT JOIN heed_crawl_options o ON o.crawl = c.id `

func scanCrawl(r pgx.Row) (ledger.Crawl, error) {
	var c ledger.Crawl
	var options string
	var ended *time.Time
	var failed map[string]int
	var over bool
	err := r.Scan(&c.ID, &c.Start, &c.Source, &c.Key, &options, &c.State, &c.Began, &ended,
		&c.Counts.Requests, &c.Counts.Stored, &c.Counts.New, &c.Counts.Changed, &c.Counts.Unchanged, &c.Counts.Removed,
		&c.Counts.Skipped, &failed, &c.Resumed, &c.By, &over)
	if err != nil {
		return ledger.Crawl{}, err
	}
	c.Options = optionsText(options)
	c.Began = c.Began.UTC()
	if ended != nil {
		c.Ended = ended.UTC()
	}
	if over {
		c.State = ledger.Done
	}
	// The failures of no reason known are kept under the reason "".
	for r, n := range failed {
		c.Counts.Failed += n
		if r != "" && n != 0 {
			if c.Counts.Failures == nil {
				c.Counts.Failures = map[string]int{}
			}
			c.Counts.Failures[r] = n
		}
	}
	if len(c.Counts.Skipped) == 0 {
		c.Counts.Skipped = nil
	}
	return c, nil
}

// optionsText is a crawl's options as its row's JSON reads: compact, and
// "" for none (JSON's null).
func optionsText(s string) string {
	if s == "null" {
		return ""
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return s
	}
	return b.String()
}

func (l *Ledger) Begin(ctx context.Context, c ledger.Crawl, resume int64) (ledger.Crawl, []ledger.Entry, error) {
	options := "null"
	if c.Options != "" {
		if !json.Valid([]byte(c.Options)) {
			return ledger.Crawl{}, nil, fmt.Errorf("pgstore: a crawl's options are no JSON")
		}
		options = c.Options
	}
	var out ledger.Crawl
	var entries []ledger.Entry
	err := inTx(ctx, l.pool, func(tx pgx.Tx) error {
		out, entries = ledger.Crawl{}, nil
		var err error
		if resume != 0 {
			out, err = scanCrawl(tx.QueryRow(ctx, `SELECT `+crawlColumns+crawlFrom+`WHERE c.id = $1 FOR UPDATE OF c`, resume))
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				return fmt.Errorf("crawl %d: %w", resume, ledger.ErrNoCrawl)
			case err != nil:
				return err
			case !out.State.Resumable():
				return fmt.Errorf("crawl %d is %s: %w", resume, out.State, ledger.ErrNotResumable)
			}
		} else {
			// The row's lock is waited for, and the row read again as its
			// holder left it: a crawl another process took up meanwhile
			// is running, and not taken up here too.
			out, err = scanCrawl(tx.QueryRow(ctx, `SELECT `+crawlColumns+crawlFrom+`
				WHERE o.key = $1 AND c.state IN ('interrupted', 'failed') ORDER BY c.id DESC LIMIT 1 FOR UPDATE OF c`, Clean(c.Key)))
			if errors.Is(err, pgx.ErrNoRows) {
				out, err = l.insert(ctx, tx, c, options)
				return err
			}
			if err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE heed_crawl SET state = 'running', ended_at = NULL, cancelled = false WHERE id = $1`, out.ID); err != nil {
			return err
		}
		// The crawl is whoever takes it up's now, with the options it
		// runs with now.
		keep := c.Options == ""
		if _, err := tx.Exec(ctx, `
			INSERT INTO heed_crawl_options (crawl, options, key, started_by, resumed) VALUES ($1, $2::jsonb, $3, $4, 1)
			ON CONFLICT (crawl) DO UPDATE SET resumed = heed_crawl_options.resumed + 1, started_by = EXCLUDED.started_by,
				options = CASE WHEN $5 THEN heed_crawl_options.options ELSE EXCLUDED.options END`,
			out.ID, options, Clean(out.Key), Clean(c.By), keep); err != nil {
			return err
		}
		out.State, out.Ended, out.By = ledger.Running, time.Time{}, c.By
		out.Resumed++
		if !keep {
			out.Options = optionsText(options)
		}
		entries, err = readEntries(ctx, tx, out.ID)
		return err
	})
	if err != nil {
		return ledger.Crawl{}, nil, err
	}
	return out, entries, nil
}

// insert records a new crawl, running. It is begun unseeded: the team's
// workers do not take it for one of theirs that ended.
func (l *Ledger) insert(ctx context.Context, tx pgx.Tx, c ledger.Crawl, options string) (ledger.Crawl, error) {
	c.State, c.Ended, c.Resumed = ledger.Running, time.Time{}, 0
	err := tx.QueryRow(ctx, `
		INSERT INTO heed_crawl (source, start_url, seeded, fetched, stored, new, changed, unchanged, removed, skipped, failed)
		VALUES ($1, $2, false, $3, $4, $5, $6, $7, $8, $9, CASE WHEN $11::jsonb <> '{}'::jsonb THEN $11::jsonb
			WHEN $10::int = 0 THEN '{}'::jsonb ELSE jsonb_build_object('', $10::int) END) RETURNING id, created_at`,
		Clean(c.Source), Clean(c.Start), c.Counts.Requests, c.Counts.Stored, c.Counts.New, c.Counts.Changed, c.Counts.Unchanged, c.Counts.Removed,
		skippedJSON(c.Counts), c.Counts.Failed, failuresJSON(c.Counts)).Scan(&c.ID, &c.Began)
	if err != nil {
		return ledger.Crawl{}, err
	}
	c.Began = c.Began.UTC()
	if _, err := tx.Exec(ctx, `INSERT INTO heed_crawl_options (crawl, options, key, started_by) VALUES ($1, $2::jsonb, $3, $4)`,
		c.ID, options, Clean(c.Key), Clean(c.By)); err != nil {
		return ledger.Crawl{}, err
	}
	c.Counts = c.Counts.Clone()
	c.Options = optionsText(options)
	return c, nil
}

// skippedJSON are a crawl's skips by reason, as its row keeps them.
func skippedJSON(c ledger.Counts) []byte {
	if len(c.Skipped) == 0 {
		return []byte("{}")
	}
	b, _ := json.Marshal(c.Skipped)
	return b
}

// failuresJSON are a crawl's failures by reason as its row keeps them,
// those of no reason known under the reason "": "{}" when no reason is
// given.
func failuresJSON(c ledger.Counts) []byte {
	if len(c.Failures) == 0 {
		return []byte("{}")
	}
	by := map[string]int{}
	known := 0
	for r, n := range c.Failures {
		by[Clean(r)] += n
		known += n
	}
	if c.Failed > known {
		by[""] += c.Failed - known
	}
	b, _ := json.Marshal(by)
	return b
}

// failedSQL is the failed column's new value for a count of failures,
// the query's parameter n, and their reasons, parameter n+1
// (failuresJSON). A team's crawl counts its failures by reason: the
// reasons given are kept; a count given with none is kept under the
// reason "", unless the row's reasons add up to it already, so that
// counts read and given back leave the team's reasons as they were.
func failedSQL(n int) string {
	return fmt.Sprintf(`CASE WHEN $%[2]d::jsonb <> '{}'::jsonb THEN $%[2]d::jsonb
		WHEN (SELECT coalesce(sum(value::int), 0) FROM jsonb_each_text(failed)) = $%[1]d::int THEN failed
		WHEN $%[1]d::int = 0 THEN '{}'::jsonb ELSE jsonb_build_object('', $%[1]d::int) END`, n, n+1)
}

// readEntries are the crawl's entries: those ended first, then those
// queued, in the order they were queued. A page's hash is its entry's,
// or else its snapshot's (a team's worker keeps it there).
func readEntries(ctx context.Context, tx pgx.Tx, id int64) ([]ledger.Entry, error) {
	rows, err := tx.Query(ctx, `
		SELECT f.url, f.state, f.reason, f.depth, f.lastmod, f.via,
			CASE WHEN f.hash <> '' OR f.state <> 'done' OR f.reason IN `+notKept+` THEN f.hash
				ELSE coalesce((SELECT s.hash FROM heed_snapshot s WHERE s.url = f.url AND s.source = c.source), '') END
		FROM heed_frontier f JOIN heed_crawl c ON c.id = f.crawl
		WHERE f.crawl = $1 ORDER BY f.state = 'queued', f.seq`, id)
	if err != nil {
		return nil, err
	}
	// (AppendRows to nil: no rows are nil, as the other ledgers say.)
	return pgx.AppendRows([]ledger.Entry(nil), rows, func(row pgx.CollectableRow) (ledger.Entry, error) {
		var e ledger.Entry
		var state, reason, via string
		if err := row.Scan(&e.URL, &state, &reason, &e.Depth, &e.LastMod, &via, &e.Hash); err != nil {
			return e, err
		}
		e.Fate = fateOf(state, reason)
		if via != "" {
			e.Via = strings.Split(via, "\n")
		}
		return e, nil
	})
}

// placeSQL gives a URL's row, before its entry is written over it, a
// new place ($1 the URL, $2 the crawl, $3 and $4 the state and reason
// it is to have): a URL queued takes a place behind those queued before
// it, and a page kept (stored or unchanged) that was not the crawl's
// kept page before takes its place among those kept, which orders the
// pages Kept reads of one time. Other rows keep their place, and a row
// new takes the next.
const placeSQL = `
	UPDATE heed_frontier SET seq = DEFAULT
	WHERE url = $1 AND ($3 = 'queued'
		OR $3 = 'done' AND $4 NOT IN ` + notKept + `
			AND NOT (crawl = $2 AND state = 'done' AND reason NOT IN ` + notKept + `))`

// writeEntrySQL writes one entry: the URL's row is the crawl's. Its
// updated_at is when it was written, which orders the pages Kept lists,
// as a team's worker's commit dates the URL it ends: the statement's own
// time (clock_timestamp), not its transaction's, so that the entries of
// one Write are each of a time of their own, in order. A page the crawl
// kept already, kept again, keeps its time and its place.
const writeEntrySQL = `
	INSERT INTO heed_frontier (url, crawl, host, depth, state, reason, lastmod, via, hash, updated_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, clock_timestamp())
	ON CONFLICT (url) DO UPDATE SET crawl = EXCLUDED.crawl, host = EXCLUDED.host, depth = EXCLUDED.depth,
		state = EXCLUDED.state, reason = EXCLUDED.reason, detail = '', lastmod = EXCLUDED.lastmod, via = EXCLUDED.via,
		hash = EXCLUDED.hash,
		updated_at = CASE WHEN heed_frontier.crawl = EXCLUDED.crawl AND heed_frontier.state = 'done' AND heed_frontier.reason NOT IN ` + notKept + `
			AND EXCLUDED.state = 'done' AND EXCLUDED.reason NOT IN ` + notKept + ` THEN heed_frontier.updated_at ELSE clock_timestamp() END`

func (l *Ledger) Write(ctx context.Context, id int64, entries []ledger.Entry, counts ledger.Counts, turns []ledger.Turn) error {
	for _, e := range entries {
		if _, _, err := rowOf(e.Fate); err != nil {
			return err
		}
	}
	return inTx(ctx, l.pool, func(tx pgx.Tx) error {
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM heed_crawl WHERE id = $1)`, id).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			return fmt.Errorf("crawl %d: %w", id, ledger.ErrNoCrawl)
		}
		return tx.SendBatch(ctx, writeBatch(id, entries, counts, turns)).Close()
	})
}

// writeBatch is Write's statements: the entries in order, the hosts'
// rows after the frontier's, in order, as a team's commit locks them (two
// transactions never wait on each other), and the crawl's counts.
func writeBatch(id int64, entries []ledger.Entry, counts ledger.Counts, turns []ledger.Turn) *pgx.Batch {
	b := &pgx.Batch{}
	for _, e := range entries {
		state, reason, _ := rowOf(e.Fate)
		host := ""
		if u, err := url.Parse(e.URL); err == nil {
			host = polite.HostKey(u)
		}
		b.Queue(placeSQL, Clean(e.URL), id, state, reason)
		b.Queue(writeEntrySQL, Clean(e.URL), id, Clean(host), e.Depth, state, reason, Clean(e.LastMod), Clean(strings.Join(e.Via, "\n")), Clean(e.Hash))
	}
	if ts := latest(turns); len(ts) > 0 {
		hosts, ats := make([]string, len(ts)), make([]time.Time, len(ts))
		for i, t := range ts {
			hosts[i], ats[i] = t.Host, t.At
		}
		b.Queue(`
			INSERT INTO heed_host (host, next_at) SELECT h, a FROM unnest($1::text[], $2::timestamptz[]) AS t(h, a) ORDER BY h
			ON CONFLICT (host) DO UPDATE SET next_at = greatest(heed_host.next_at, EXCLUDED.next_at)`, hosts, ats)
	}
	b.Queue(`UPDATE heed_crawl SET fetched = $2, stored = $3, new = $4, changed = $5, unchanged = $6, removed = $7, skipped = $8,
		failed = `+failedSQL(9)+` WHERE id = $1 AND state = 'running'`,
		id, counts.Requests, counts.Stored, counts.New, counts.Changed, counts.Unchanged, counts.Removed, skippedJSON(counts), counts.Failed, failuresJSON(counts))
	return b
}

// latest are the turns given, each host's latest once, in the order of
// their hosts.
func latest(turns []ledger.Turn) []ledger.Turn {
	by := map[string]time.Time{}
	for _, t := range turns {
		h := Clean(t.Host)
		if at, ok := by[h]; !ok || t.At.After(at) {
			by[h] = t.At
		}
	}
	out := make([]ledger.Turn, 0, len(by))
	for _, h := range slices.Sorted(maps.Keys(by)) {
		out = append(out, ledger.Turn{Host: h, At: by[h]})
	}
	return out
}

func (l *Ledger) Finish(ctx context.Context, id int64, state ledger.State, counts ledger.Counts) error {
	tag, err := l.pool.Exec(ctx, `
		UPDATE heed_crawl SET state = $2, ended_at = now(), cancelled = ($2 = 'cancelled'), fetched = $3, stored = $4, new = $5, changed = $6,
			unchanged = $7, removed = $8, skipped = $9, failed = `+failedSQL(10)+`
		WHERE id = $1 AND state = 'running'`,
		id, string(state), counts.Requests, counts.Stored, counts.New, counts.Changed, counts.Unchanged, counts.Removed, skippedJSON(counts), counts.Failed, failuresJSON(counts))
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("crawl %d: %w", id, ledger.ErrNoCrawl)
	}
	return nil
}

func (l *Ledger) Crawls(ctx context.Context, limit int) ([]ledger.Crawl, error) {
	rows, err := l.pool.Query(ctx, `SELECT `+crawlColumns+crawlFrom+`ORDER BY c.id DESC LIMIT $1`, max(limit, 0))
	if err != nil {
		return nil, err
	}
	return pgx.AppendRows([]ledger.Crawl(nil), rows, func(row pgx.CollectableRow) (ledger.Crawl, error) { return scanCrawl(row) })
}

func (l *Ledger) Crawl(ctx context.Context, id int64) (ledger.Crawl, error) {
	c, err := scanCrawl(l.pool.QueryRow(ctx, `SELECT `+crawlColumns+crawlFrom+`WHERE c.id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return ledger.Crawl{}, fmt.Errorf("crawl %d: %w", id, ledger.ErrNoCrawl)
	}
	return c, err
}

// KeptSettle is how long a running crawl's page is kept before Kept
// lists it: the order of pages kept is the order their transactions
// dated them in, and one dated earlier may commit later than one already
// listed. A page's transaction lasts milliseconds.
const KeptSettle = 2 * time.Second

// Kept lists the crawl's URLs done that are pages it kept, in the order
// they became so: by the time their rows were ended (updated_at), then
// their place (seq), as team.Kept lists them. A team's worker ends a URL
// in the place it was queued in, so that the place alone is not the
// order kept. A URL that redirected to the page it was stored under is
// one of them, as its row is the team's.
//
// A page's Seq, the cursor of the next, is its time in microseconds
// since the epoch: a page never splits the pages of one time, which are
// listed after the last time given whole. The pages of one time are
// those of transactions begun in the same microsecond, of a crawl the
// team's workers run (a Write dates each of its entries apart); a page
// holds more than limit only when more than limit are of one time.
func (l *Ledger) Kept(ctx context.Context, id, after int64, limit int) ([]ledger.Kept, error) {
	var state string
	err := l.pool.QueryRow(ctx, `SELECT state FROM heed_crawl WHERE id = $1`, id).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("crawl %d: %w", id, ledger.ErrNoCrawl)
	}
	if err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	limit = min(limit, math.MaxInt32-1) // the server's bound of LIMIT $4, one more asked
	settle := time.Duration(0)
	if state == string(ledger.Running) {
		settle = KeptSettle
	}
	const keptSQL = `
		SELECT url, reason, updated_at FROM heed_frontier
		WHERE crawl = $1 AND state = 'done' AND reason NOT IN ` + notKept + `
			AND ($3 = 0 OR updated_at < now() - make_interval(secs => $3)) AND `
	// One more than asked says whether the last time given is whole.
	out, err := l.kept(ctx, keptSQL+`updated_at > $2 ORDER BY updated_at, seq LIMIT $4`, id, time.UnixMicro(after), settle.Seconds(), limit+1)
	if err != nil || len(out) <= limit {
		return out, err
	}
	last := out[limit].Seq
	cut := limit
	for cut > 0 && out[cut-1].Seq == last {
		cut--
	}
	if cut > 0 {
		return out[:cut], nil
	}
	// The page is all of one time: it is given whole.
	return l.kept(ctx, keptSQL+`updated_at = $2 ORDER BY seq`, id, time.UnixMicro(last), settle.Seconds())
}

// kept reads the pages kept a query of Kept selects.
func (l *Ledger) kept(ctx context.Context, query string, args ...any) ([]ledger.Kept, error) {
	rows, err := l.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgx.AppendRows([]ledger.Kept(nil), rows, func(row pgx.CollectableRow) (ledger.Kept, error) {
		var k ledger.Kept
		var reason string
		var at time.Time
		err := row.Scan(&k.URL, &reason, &at)
		k.Fate, k.Seq = fateOf("done", reason), at.UnixMicro()
		return k, err
	})
}

func (l *Ledger) Turns(ctx context.Context) ([]ledger.Turn, error) {
	rows, err := l.pool.Query(ctx, `SELECT host, next_at FROM heed_host WHERE next_at > now()`)
	if err != nil {
		return nil, err
	}
	return pgx.AppendRows([]ledger.Turn(nil), rows, pgx.RowToStructByPos[ledger.Turn])
}

// Robots is an origin's robots.txt as the team keeps it. Its life is
// reckoned by the database's clock, as every worker's is: Until is when
// it ends by the caller's clock, as long from now as the database says.
func (l *Ledger) Robots(ctx context.Context, origin string) (ledger.Robots, bool, error) {
	r := ledger.Robots{Origin: origin}
	var left float64
	err := l.pool.QueryRow(ctx, `SELECT status, http_status, cause, body, extract(epoch FROM until - now())::float8 FROM heed_robots WHERE origin = $1 AND until > now()`,
		Clean(origin)).Scan(&r.Status, &r.HTTPStatus, &r.Cause, &r.Body, &left)
	if errors.Is(err, pgx.ErrNoRows) {
		return ledger.Robots{}, false, nil
	}
	if err != nil {
		return ledger.Robots{}, false, err
	}
	r.Until = time.Now().Add(time.Duration(left * float64(time.Second)))
	return r, true, nil
}

// PutRobots keeps an origin's robots.txt for the team, until as long
// from the database's now as r.Until is from the caller's.
func (l *Ledger) PutRobots(ctx context.Context, r ledger.Robots) error {
	if r.Body == nil {
		r.Body = []byte{}
	}
	_, err := l.pool.Exec(ctx, `
		INSERT INTO heed_robots (origin, status, http_status, cause, body, until)
		VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))
		ON CONFLICT (origin) DO UPDATE SET status = EXCLUDED.status, http_status = EXCLUDED.http_status,
			cause = EXCLUDED.cause, body = EXCLUDED.body, fetched_at = now(), until = EXCLUDED.until`,
		Clean(r.Origin), r.Status, r.HTTPStatus, Clean(r.Cause), r.Body, time.Until(r.Until).Seconds())
	return err
}

// inTx runs f in a transaction, again when Postgres ended it for a
// deadlock or a serialization failure: its writes are idempotent.
func inTx(ctx context.Context, pool *pgxpool.Pool, f func(tx pgx.Tx) error) error {
	for try := 0; ; try++ {
		err := pgx.BeginFunc(ctx, pool, f)
		var pe *pgconn.PgError
		if err == nil || try == 10 || !errors.As(err, &pe) || pe.Code != "40P01" && pe.Code != "40001" {
			return err
		}
	}
}

// Frontier is what a team's crawl's frontier says beyond its record:
// its URLs queued now, and what became of its start URL when it was
// not kept.
type Frontier struct {
	Queued int
	// StartEnd is "skipped (robots): disallowed by line 2 ...", or
	// "failed (reason): detail", of a start URL skipped or failed; ""
	// otherwise.
	StartEnd string
}

// Frontier is what crawl id's frontier says beyond its record: its URLs
// queued while its row is running (none once it ended), and its start
// URL's end. The frontier holds a URL once, for the crawl that wrote it
// last: a start URL a later crawl took over says nothing of this one.
func (l *Ledger) Frontier(ctx context.Context, id int64) (Frontier, error) {
	var f Frontier
	var state, reason, detail *string
	err := l.pool.QueryRow(ctx, `
		SELECT CASE WHEN c.state = 'running' THEN (SELECT count(*) FROM heed_frontier WHERE crawl = c.id AND state = 'queued') ELSE 0 END,
			s.state, s.reason, s.detail
		FROM heed_crawl c LEFT JOIN heed_frontier s ON s.url = c.start_url AND s.crawl = c.id
		WHERE c.id = $1`, id).Scan(&f.Queued, &state, &reason, &detail)
	if errors.Is(err, pgx.ErrNoRows) {
		return Frontier{}, fmt.Errorf("crawl %d: %w", id, ledger.ErrNoCrawl)
	}
	if err != nil {
		return Frontier{}, err
	}
	if state != nil && (*state == "skipped" || *state == "failed") {
		f.StartEnd = fmt.Sprintf("%s (%s): %s", *state, *reason, *detail)
	}
	return f, nil
}
