package team

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/crawl"
)

// A team's crawl is a record in its row of heed_crawl: its state, when it
// ended, and what its URLs came to. Each URL is counted in the row of the
// crawl whose frontier row it is, in the transaction that ends it; a
// link ended at queue time (out of scope, too deep, disallowed) is
// counted there too, for the crawl whose row it becomes. A crawl is done
// once it is seeded and no URL of it waits, whether its last URL ended
// or a newer crawl took it over: the transaction that does it ends the
// crawl, and from then on its row is frozen. A crawl past its deadline
// is done too, not interrupted: its URLs left are skipped (deadline),
// and nothing of it may go on (the same command again is a new crawl),
// so that "interrupted", which on one machine says the crawl is taken
// up again, would promise what a team's crawl does not do.

// tally is what a transaction did to crawls' URLs, to count in their
// rows (countEnds): how many URLs of each crawl it ended, by state and
// reason. A crawl given 0 lost a queued URL (to a newer crawl) or was
// seeded: it may have ended.
type tally map[tallyKey]int

type tallyKey struct {
	crawl         int64
	state, reason string
}

func (t tally) add(crawl int64, state, reason string, n int) {
	t[tallyKey{crawl, state, reason}] += n
}

// lockCrawlsSQL locks the running crawls of a tally in order, so that
// two transactions never wait on each other for them.
const lockCrawlsSQL = `SELECT id FROM heed_crawl WHERE id = ANY($1) AND state = 'running' ORDER BY id FOR NO KEY UPDATE`

// countSQL adds to a running crawl's counts ($1) its URLs ended: stored
// ($2), unchanged ($3), skipped and failed by reason ($4, $5), and of
// the stored the new ($6) and changed ($7), and the pages found gone
// ($8).
const countSQL = `
	UPDATE heed_crawl c SET stored = c.stored + $2, unchanged = c.unchanged + $3,
		new = c.new + $6, changed = c.changed + $7, removed = c.removed + $8,
		skipped = c.skipped || coalesce((SELECT jsonb_object_agg(key, value::int + coalesce((c.skipped->>key)::int, 0)) FROM jsonb_each_text($4::jsonb)), '{}'),
		failed = c.failed || coalesce((SELECT jsonb_object_agg(key, value::int + coalesce((c.failed->>key)::int, 0)) FROM jsonb_each_text($5::jsonb)), '{}')
	WHERE c.id = $1 AND c.state = 'running'`

// endSQL ends the crawls given ($1) that are seeded and have no URL
// queued: they are done, their rows frozen.
const endSQL = `
	UPDATE heed_crawl c SET state = CASE WHEN c.cancelled THEN 'cancelled' ELSE 'done' END, ended_at = now()
	WHERE c.id = ANY($1) AND c.state = 'running' AND c.seeded
		AND NOT EXISTS (SELECT 1 FROM heed_frontier f WHERE f.crawl = c.id AND f.state = 'queued')
	RETURNING c.id, c.state`

// endCrawls ends, in tx, those of the crawls ids that are seeded with no
// URL queued (endSQL), and returns those of them now done.
func endCrawls(ctx context.Context, tx pgx.Tx, ids []int64) ([]int64, error) {
	rows, err := tx.Query(ctx, endSQL, ids)
	if err != nil {
		return nil, err
	}
	var done []int64
	for rows.Next() {
		var id int64
		var state string
		if err := rows.Scan(&id, &state); err != nil {
			rows.Close()
			return nil, err
		}
		if state == "done" {
			done = append(done, id)
		}
	}
	return done, rows.Err()
}

// sweepEndSQL ends every running crawl seeded with no URL queued that
// no transaction ended: one whose last URL a newer crawl took over just
// as another transaction changed it, so that the taker did not know
// whose it was (queueLinks names the crawls it took URLs from as its
// statement began). Such a crawl gets no URL again (URLs are queued for
// the crawl that holds the URL a commit ends, or for a crawl seeding),
// so that it is safe to end it without its lock.
const sweepEndSQL = `
	UPDATE heed_crawl c SET state = CASE WHEN c.cancelled THEN 'cancelled' ELSE 'done' END, ended_at = now()
	WHERE c.state = 'running' AND c.seeded
		AND NOT EXISTS (SELECT 1 FROM heed_frontier f WHERE f.crawl = c.id AND f.state = 'queued')`

// countEnds adds a transaction's tally to its crawls' rows and ends
// those of them seeded with no URL queued, in the transaction, after
// its changes to the frontier and the hosts. The crawls' rows are locked
// (in order) before their ends are looked for: of two transactions that
// end a crawl's last two URLs at once, the second waits for the first,
// then sees its URL ended, and ends the crawl.
func countEnds(ctx context.Context, tx pgx.Tx, t tally) (done []int64, err error) {
	if len(t) == 0 {
		return nil, nil
	}
	type counts struct {
		stored, unchanged, new, changed, removed int
		skipped, failed                          map[string]int
	}
	byCrawl := map[int64]*counts{}
	var ids []int64
	for k, n := range t {
		ids = append(ids, k.crawl)
		if n <= 0 {
			continue
		}
		c := byCrawl[k.crawl]
		if c == nil {
			c = &counts{skipped: map[string]int{}, failed: map[string]int{}}
			byCrawl[k.crawl] = c
		}
		switch {
		case k.state == "done" && k.reason == reasonUnchanged:
			c.unchanged += n
		case k.state == "done" && k.reason == reasonRemoved:
			c.removed += n
		case k.state == stateRemoved:
			c.removed += n // a page the URL's page replaced (it moved)
		case k.state == "done":
			c.stored += n
			switch heed.Change(k.reason) {
			case heed.New:
				c.new += n
			case heed.Changed:
				c.changed += n
			}
		case k.state == "skipped":
			c.skipped[k.reason] += n
		case k.state == "failed":
			c.failed[k.reason] += n
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	b := &pgx.Batch{}
	if len(ids) > 1 || len(byCrawl) == 0 {
		// A crawl counted alone is locked by its count.
		b.Queue(lockCrawlsSQL, ids)
	}
	for _, id := range ids {
		if c := byCrawl[id]; c != nil {
			b.Queue(countSQL, id, c.stored, c.unchanged, c.skipped, c.failed, c.new, c.changed, c.removed)
		}
	}
	if b.Len() > 0 {
		br := tx.SendBatch(ctx, b)
		for range b.Len() {
			if _, err = br.Exec(); err != nil {
				break
			}
		}
		if err := errors.Join(err, br.Close()); err != nil {
			return nil, err
		}
	}
	return endCrawls(ctx, tx, ids)
}

// endPastDeadline ends the host's queued URLs of crawls past their
// deadline as skipped (deadline), counted in their crawls' rows, which
// end when no URL of them is left: done, as a crawl that spent its
// max_pages is, since nothing of it may go on. It looks first, so that a
// host with no such URL costs one query.
func (s *slice) endPastDeadline(ctx context.Context) error {
	var late bool
	if err := s.w.Pool.QueryRow(ctx, `
		SELECT EXISTS (SELECT 1 FROM heed_frontier f JOIN heed_crawl c ON c.id = f.crawl
			WHERE f.host = $1 AND f.state = 'queued' AND c.deadline_at < now())`, s.host).Scan(&late); err != nil || !late {
		return err
	}
	return inTx(ctx, s.w.Pool, func(tx pgx.Tx) error {
		return endLate(ctx, tx, `f.host = $1`, s.host)
	})
}

// endLate skips, in tx, the queued URLs that where (a condition on the
// frontier's row f, of its argument $1) picks of crawls past their
// deadline, or cancelled, counts them in their crawls' rows and ends
// those crawls with no URL left.
func endLate(ctx context.Context, tx pgx.Tx, where string, arg any) error {
	rows, err := tx.Query(ctx, `
		WITH s AS (
			UPDATE heed_frontier f SET updated_at = now(), state = 'skipped',
				reason = CASE WHEN c.cancelled THEN $2 ELSE $3 END,
				detail = CASE WHEN c.cancelled THEN $4 ELSE $5 END
			FROM heed_crawl c WHERE f.crawl = c.id AND `+where+` AND f.state = 'queued' AND c.deadline_at < now()
			RETURNING f.crawl, f.reason
		)
		SELECT crawl, reason, count(*)::int FROM s GROUP BY crawl, reason`,
		arg, crawl.ReasonCancelled, crawl.ReasonDeadline, "the crawl was cancelled", "the crawl's deadline came first")
	if err != nil {
		return err
	}
	t := tally{}
	for rows.Next() {
		var id int64
		var reason string
		var n int
		if err := rows.Scan(&id, &reason, &n); err != nil {
			rows.Close()
			return err
		}
		t.add(id, "skipped", reason, n)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	_, err = countEnds(ctx, tx, t)
	return err
}

// ErrNotRunning is Cancel's error for a crawl that has ended.
var ErrNotRunning = errors.New("the crawl has ended")

// Cancel cancels a running crawl: it is past its deadline from now on,
// its URLs queued are skipped as cancelled at once (and any queued after,
// by a page in flight or its seed job, at its host's next turn), counted
// in its row, and it ends cancelled once none is left; a URL in flight
// on a worker ends as it would.
func Cancel(ctx context.Context, pool *pgxpool.Pool, id int64) error {
	return inTx(ctx, pool, func(tx pgx.Tx) error {
		var state string
		err := tx.QueryRow(ctx, `SELECT state FROM heed_crawl WHERE id = $1`, id).Scan(&state)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return fmt.Errorf("%w: %d", ErrNoCrawl, id)
		case err != nil:
			return err
		case state != "running":
			return fmt.Errorf("crawl %d is %s: %w", id, state, ErrNotRunning)
		}
		// The frontier's rows first, then the crawl's, as a commit
		// changes them (countEnds).
		var n int
		if err := tx.QueryRow(ctx, `
			WITH s AS (
				UPDATE heed_frontier SET state = 'skipped', reason = $2, detail = $3, updated_at = now()
				WHERE crawl = $1 AND state = 'queued' RETURNING 1
			)
			SELECT count(*)::int FROM s`, id, crawl.ReasonCancelled, "the crawl was cancelled").Scan(&n); err != nil {
			return err
		}
		// Past its deadline, any URL queued for it later is skipped at
		// its host's next turn (endLate); seeded, it may end.
		tag, err := tx.Exec(ctx, `
			UPDATE heed_crawl SET cancelled = true, seeded = true, deadline_at = least(deadline_at, now())
			WHERE id = $1 AND state = 'running'`, id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("crawl %d: %w", id, ErrNotRunning)
		}
		t := tally{}
		t.add(id, "skipped", crawl.ReasonCancelled, n)
		_, err = countEnds(ctx, tx, t)
		return err
	})
}

// seeded marks a crawl seeded without what its sitemaps list (its seed
// job gave up), and ends it when no URL of it waits.
func (w *Worker) seeded(ctx context.Context, id int64) error {
	var removed []crawl.Event
	err := inTx(ctx, w.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE heed_crawl SET seeded = true WHERE id = $1`, id); err != nil {
			return err
		}
		done, err := endCrawls(ctx, tx, []int64{id})
		if err == nil {
			removed, err = w.sweepEnded(ctx, tx, done)
		}
		return err
	})
	if err == nil {
		w.tell(removed)
	}
	return err
}
