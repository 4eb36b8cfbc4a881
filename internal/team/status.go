package team

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Progress is where a team crawl stands: its state, its URLs by state,
// the skipped and failed by reason. A running crawl's are as they are
// now; an ended crawl's are its record, frozen when it ended, whatever
// later crawls did with its URLs.
type Progress struct {
	ID      int64     `json:"id"`
	Source  string    `json:"source"`
	Start   string    `json:"start"`
	Created time.Time `json:"created_at"`
	// State is "running" until the crawl is seeded and no URL of it
	// waits (its own ended, or taken over by a newer crawl, or skipped
	// at its deadline), then "done".
	State  string     `json:"state"`
	Ended  *time.Time `json:"ended_at,omitempty"`
	Queued int        `json:"queued"`
	Stored int        `json:"stored"`
	// Unchanged are the pages fetched whose content was as stored (a
	// 304 to a conditional request, or the same Markdown).
	Unchanged int `json:"unchanged"`
	// New and Changed are of the Stored: pages new to the store (or back
	// after their removal), and pages whose content changed; Removed the
	// pages the store held that the crawl found gone.
	New     int            `json:"new"`
	Changed int            `json:"changed"`
	Removed int            `json:"removed"`
	Skipped map[string]int `json:"skipped"`  // by reason
	Failed  map[string]int `json:"failed"`   // by reason
	Fetched int            `json:"requests"` // requests counted against max_pages
	Done    bool           `json:"done"`     // it ended: no URL of it waits
	// StartEnd is what became of the start URL, when it was not stored:
	// "skipped (robots): disallowed by line 2 ...", "failed (...): ...".
	StartEnd string `json:"start_end,omitempty"`
}

// CrawlProgress is where crawl id stands: its row's state and counts,
// and, while it runs, its URLs queued. A crawl seeded with no URL queued
// has ended, though no transaction marked its row yet (the workers'
// sweep does): no URL comes to it again, so that its counts are final.
func CrawlProgress(ctx context.Context, pool *pgxpool.Pool, id int64) (*Progress, error) {
	p := &Progress{ID: id}
	var seeded bool
	err := pool.QueryRow(ctx, `
		SELECT source, start_url, created_at, fetched, seeded, state, ended_at, stored, unchanged, skipped, failed,
			CASE WHEN state = 'running' THEN (SELECT count(*) FROM heed_frontier WHERE crawl = c.id AND state = 'queued') ELSE 0 END,
			new, changed, removed
		FROM heed_crawl c WHERE id = $1`, id).
		Scan(&p.Source, &p.Start, &p.Created, &p.Fetched, &seeded, &p.State, &p.Ended, &p.Stored, &p.Unchanged, &p.Skipped, &p.Failed, &p.Queued,
			&p.New, &p.Changed, &p.Removed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("%w: %d", ErrNoCrawl, id)
	}
	if err != nil {
		return nil, err
	}
	if p.State == "running" && seeded && p.Queued == 0 {
		p.State = "done"
	}
	p.Done = p.State != "running"
	var state, reason, detail string
	err = pool.QueryRow(ctx, `SELECT state, reason, detail FROM heed_frontier WHERE url = $1 AND crawl = $2`, p.Start, id).Scan(&state, &reason, &detail)
	switch {
	case err == nil && (state == "skipped" || state == "failed"):
		p.StartEnd = fmt.Sprintf("%s (%s): %s", state, reason, detail)
	case err != nil && !errors.Is(err, pgx.ErrNoRows):
		return nil, err
	}
	return p, nil
}

// Status is where a team's database stands: its crawls, the hosts in
// flight, the URLs queued.
type Status struct {
	Crawls    []*Progress `json:"crawls"`
	InFlight  []string    `json:"hosts_in_flight"` // hosts whose lease a worker holds
	Queued    int         `json:"queued"`
	Snapshots int         `json:"snapshots"`
}

// TeamStatus is the database's status, with its last crawls (at most
// limit).
func TeamStatus(ctx context.Context, pool *pgxpool.Pool, limit int) (*Status, error) {
	st := &Status{}
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM heed_frontier WHERE state = 'queued'), (SELECT count(*) FROM heed_snapshot)`).
		Scan(&st.Queued, &st.Snapshots); err != nil {
		return nil, err
	}
	rows, err := pool.Query(ctx, `SELECT host FROM heed_host WHERE lease_owner IS NOT NULL AND lease_until > now() ORDER BY host`)
	if err != nil {
		return nil, err
	}
	st.InFlight, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	rows, err = pool.Query(ctx, `SELECT id FROM heed_crawl ORDER BY id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		p, err := CrawlProgress(ctx, pool, id)
		if err != nil {
			return nil, err
		}
		st.Crawls = append(st.Crawls, p)
	}
	return st, nil
}

// KeptPage is a page a team's crawl kept: stored, or found unchanged.
type KeptPage struct {
	URL       string
	Unchanged bool
	ID, Title string // its snapshot's
	FetchedAt time.Time
	// At and Seq place it in the order the crawl kept its pages: the
	// cursor of the next.
	At  time.Time
	Seq int64
}

// keptSettle is how long a running crawl's page is kept before it is
// listed: the order of pages kept is their transactions' time, and a
// transaction begun earlier may commit later than one already listed.
// A commit's transaction lasts milliseconds.
const keptSettle = 2 * time.Second

// Kept are the pages crawl id kept after the one at (at, seq) (zero
// values for the first), in the order it kept them, limit at most: its
// URLs done that hold a snapshot (not a URL that redirected to the page,
// nor the page's Markdown alternate). A later crawl of the same URLs
// takes their rows over, and they are listed as its.
func Kept(ctx context.Context, pool *pgxpool.Pool, id int64, at time.Time, seq int64, limit int) ([]KeptPage, error) {
	var state string
	err := pool.QueryRow(ctx, `SELECT state FROM heed_crawl WHERE id = $1`, id).Scan(&state)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("%w: %d", ErrNoCrawl, id)
	}
	if err != nil {
		return nil, err
	}
	settled := time.Time{} // a crawl that ended lists every page
	if state == "running" {
		settled = time.Now().Add(-keptSettle)
	}
	rows, err := pool.Query(ctx, `
		SELECT f.url, f.reason = $2, s.id, s.title, s.fetched_at, f.updated_at, f.seq
		FROM heed_frontier f JOIN heed_snapshot s ON s.url = f.url
		WHERE f.crawl = $1 AND f.state = 'done' AND f.reason <> $3 AND f.reason <> '`+reasonRemoved+`' AND s.removed IS NULL
			AND (f.updated_at, f.seq) > ($4, $5) AND ($6::timestamptz = 'epoch' OR f.updated_at < $6)
		ORDER BY f.updated_at, f.seq LIMIT $7`,
		id, reasonUnchanged, reasonClaimed, at, seq, settledOrEpoch(settled), max(limit, 0))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []KeptPage
	for rows.Next() {
		var k KeptPage
		if err := rows.Scan(&k.URL, &k.Unchanged, &k.ID, &k.Title, &k.FetchedAt, &k.At, &k.Seq); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

func settledOrEpoch(t time.Time) time.Time {
	if t.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return t
}
