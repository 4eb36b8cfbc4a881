package team

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/pgstore"
)

// incompleteSQL says whether a crawl ($1) left anything it could not
// reach, or shared its source with another crawl: a URL failed (but for
// a dead link, a 404 or a 410: $3), or skipped for a limit, its
// deadline, or a stop ($2), or a sitemap it could not read; or another
// crawl of its source ran while it did, and took over URLs it had ended
// (the frontier is one for every crawl).
const incompleteSQL = `
	SELECT EXISTS (SELECT 1 FROM heed_frontier f
		WHERE f.crawl = $1 AND ((f.state = 'failed' AND f.reason <> $3) OR (f.state = 'skipped' AND f.reason = ANY($2))))
	OR (SELECT sitemaps_unread > 0 FROM heed_crawl WHERE id = $1)
	OR EXISTS (SELECT 1 FROM heed_crawl c JOIN heed_crawl o ON o.source = c.source AND o.id <> c.id
		WHERE c.id = $1 AND o.created_at < coalesce(c.ended_at, now()) AND (o.ended_at IS NULL OR o.ended_at > c.created_at))
	OR (SELECT stored + unchanged = 0 FROM heed_crawl WHERE id = $1)`

// previousSQL are the crawls of a crawl's ($1) source before it, newest
// first: the last of the same reach is the one whose pages it asks about.
const previousSQL = `
	SELECT o.id FROM heed_crawl c JOIN heed_crawl o ON o.source = c.source AND o.id < c.id
	WHERE c.id = $1 ORDER BY o.id DESC LIMIT 100`

// unreachedSQL are the pages of the source ($2) that a crawl ($1) kept
// and no later crawl reached: their frontier rows are the earlier
// crawl's still (a crawl takes over the rows of the URLs it meets).
const unreachedSQL = `
	SELECT f.url FROM heed_frontier f JOIN heed_snapshot s ON s.url = f.url
	WHERE f.crawl = $1 AND f.state = 'done' AND s.source = $2 AND s.removed IS NULL
	ORDER BY f.url`

// sweepEnded marks removed, in tx, the pages that the crawls done (just
// ended, in tx) no longer reached, as a crawl on one machine does: where
// a crawl is complete, the pages the last crawl of its source of the
// same reach (crawl.Reach) kept, that it did not reach, in its scope. It
// returns the events to tell.
func (w *Worker) sweepEnded(ctx context.Context, tx pgx.Tx, done []int64) ([]crawl.Event, error) {
	var events []crawl.Event
	for _, id := range done {
		var incomplete bool
		if err := tx.QueryRow(ctx, incompleteSQL, id, crawl.IncompleteReasons, reasonGone).Scan(&incomplete); err != nil {
			return nil, err
		}
		if incomplete {
			continue
		}
		c, err := w.crawl(ctx, id)
		if err != nil {
			return nil, err
		}
		prev, err := w.previous(ctx, tx, c)
		if err != nil || prev == 0 {
			return nil, err
		}
		rows, err := tx.Query(ctx, unreachedSQL, prev, c.o.Source)
		if err != nil {
			return nil, err
		}
		kept, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, err
		}
		now := time.Now()
		n := 0
		for _, u := range c.eng.Unreached(kept, func(string) bool { return false }) {
			removed, err := pgstore.MarkRemovedIn(ctx, tx, c.o.Source, u, now, crawl.ReasonUnreached, w.Retention)
			if err != nil {
				return nil, err
			}
			if removed {
				n++
				events = append(events, crawl.UnreachedEvent(u))
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE heed_crawl SET removed = removed + $2 WHERE id = $1`, id, n); err != nil {
			return nil, err
		}
	}
	return events, nil
}

// previous is the last crawl of c's source before it of the same reach,
// or 0.
func (w *Worker) previous(ctx context.Context, tx pgx.Tx, c *crawlInfo) (int64, error) {
	rows, err := tx.Query(ctx, previousSQL, c.id)
	if err != nil {
		return 0, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return 0, err
	}
	reach := crawl.Reach(c.o)
	for _, id := range ids {
		o, err := w.crawl(ctx, id)
		if err != nil {
			return 0, err
		}
		if crawl.Reach(o.o) == reach {
			return id, nil
		}
	}
	return 0, nil
}

// tell tells the worker's Event of events, if it has one.
func (w *Worker) tell(events []crawl.Event) {
	if w.Event == nil {
		return
	}
	for _, e := range events {
		w.Event(e)
	}
}
