package team

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/pgstore"
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

// Frontiers say what a team's crawl's frontier holds beyond its record:
// its URLs queued now, and what became of its start URL (pgstore.Ledger
// says it).
type Frontiers interface {
	Frontier(ctx context.Context, id int64) (pgstore.Frontier, error)
}

// ProgressOf is where a crawl stands: its record, as the team's ledger
// reads it, and what its frontier says beyond it.
func ProgressOf(c ledger.Crawl, f pgstore.Frontier) *Progress {
	p := &Progress{ID: c.ID, Source: c.Source, Start: c.Start, Created: c.Began.Local(), State: string(c.State),
		Queued: f.Queued, Stored: c.Counts.Stored, Unchanged: c.Counts.Unchanged, New: c.Counts.New, Changed: c.Counts.Changed,
		Removed: c.Counts.Removed, Skipped: maps.Clone(c.Counts.Skipped), Failed: maps.Clone(c.Counts.Failures),
		Fetched: c.Counts.Requests, Done: c.State != ledger.Running, StartEnd: f.StartEnd}
	if !c.Ended.IsZero() {
		ended := c.Ended.Local()
		p.Ended = &ended
	}
	if p.Skipped == nil {
		p.Skipped = map[string]int{}
	}
	if p.Failed == nil {
		p.Failed = map[string]int{}
	}
	// The failures of no reason known are the team's under the reason "".
	known := 0
	for _, n := range p.Failed {
		known += n
	}
	if c.Counts.Failed > known {
		p.Failed[""] += c.Counts.Failed - known
	}
	return p
}

// CrawlProgress is where crawl id stands: its record, as the team's
// ledger reads it (a crawl seeded with no URL queued has ended, though
// no transaction marked its row yet), and, while it runs, its URLs
// queued.
func CrawlProgress(ctx context.Context, pool *pgxpool.Pool, id int64) (*Progress, error) {
	l := pgstore.NewLedger(pool)
	c, err := l.Crawl(ctx, id)
	if errors.Is(err, ledger.ErrNoCrawl) {
		return nil, fmt.Errorf("%w: %d", ErrNoCrawl, id)
	}
	if err != nil {
		return nil, err
	}
	f, err := l.Frontier(ctx, id)
	if err != nil {
		return nil, err
	}
	return ProgressOf(c, f), nil
}

// Status is where a team's database stands: its crawls, the hosts in
// flight, the URLs queued.
type Status struct {
	Crawls    []*Progress `json:"crawls"`
	InFlight  []string    `json:"hosts_in_flight"` // hosts whose lease a worker holds
	Queued    int         `json:"queued"`
	Snapshots int         `json:"snapshots"`
}

// TeamStatus is the database's status, with the crawls given (its
// ledger's last, read as any ledger's are) and what f says of their
// frontiers.
func TeamStatus(ctx context.Context, pool *pgxpool.Pool, f Frontiers, crawls []ledger.Crawl) (*Status, error) {
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
	for _, c := range crawls {
		fr, err := f.Frontier(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		st.Crawls = append(st.Crawls, ProgressOf(c, fr))
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
