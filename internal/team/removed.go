package team

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/pgstore"
)

// incompleteSQL says whether a crawl ($1) left anything it could not
// reach: a URL failed (but for a page found gone, marked removed since
// the crawl began), or skipped for a limit, its deadline, or a stop ($2).
const incompleteSQL = `
	SELECT EXISTS (SELECT 1 FROM heed_frontier f JOIN heed_crawl c ON c.id = f.crawl
		WHERE f.crawl = $1 AND (
			(f.state = 'failed' AND NOT EXISTS (SELECT 1 FROM heed_snapshot s WHERE s.url = f.url AND s.removed >= c.created_at))
			OR (f.state = 'skipped' AND f.reason = ANY($2))))
	OR (SELECT stored + unchanged = 0 FROM heed_crawl WHERE id = $1)`

// unreachedSQL are the crawl's ($1) source's pages that are not removed
// and that the crawl did not reach: no URL of its frontier is theirs.
const unreachedSQL = `
	SELECT s.url FROM heed_snapshot s JOIN heed_crawl c ON c.id = $1
	WHERE s.source = c.source AND s.removed IS NULL
		AND NOT EXISTS (SELECT 1 FROM heed_frontier f WHERE f.url = s.url AND f.crawl = c.id)
	ORDER BY s.url`

// stopReasons are the reasons of URLs skipped that leave a crawl
// incomplete: a page beyond them may be there still.
var stopReasons = []string{crawl.ReasonLimit, crawl.ReasonDeadline, crawl.ReasonInterrupted, crawl.ReasonStopped, crawl.ReasonCancelled}

// sweepEnded marks removed, in tx, the pages that the crawls done (just
// ended, in tx) no longer reached, where a crawl is complete: as a crawl
// on one machine does (crawl.Complete), the engine deciding which of the
// source's pages its scope holds. It returns the events to tell.
func (w *Worker) sweepEnded(ctx context.Context, tx pgx.Tx, done []int64) ([]crawl.Event, error) {
	var events []crawl.Event
	for _, id := range done {
		var incomplete bool
		if err := tx.QueryRow(ctx, incompleteSQL, id, stopReasons).Scan(&incomplete); err != nil {
			return nil, err
		}
		if incomplete {
			continue
		}
		c, err := w.crawl(ctx, id)
		if err != nil {
			return nil, err
		}
		rows, err := tx.Query(ctx, unreachedSQL, id)
		if err != nil {
			return nil, err
		}
		present, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return nil, err
		}
		now := time.Now()
		for _, u := range c.eng.Unreached(present, func(string) bool { return false }) {
			removed, err := pgstore.MarkRemovedIn(ctx, tx, c.o.Source, u, now, crawl.ReasonUnreached, w.Retention)
			if err != nil {
				return nil, err
			}
			if removed {
				events = append(events, crawl.Event{Kind: crawl.Removed, URL: u, Reason: crawl.ReasonUnreached, Detail: "a complete crawl of its source no longer reaches it"})
			}
		}
	}
	return events, nil
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
