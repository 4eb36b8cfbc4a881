package ingest

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/stash"
	"github.com/heedhq/heed/internal/team"
	"github.com/heedhq/heed/robots"
)

// MigrateResult says what Migrate did: heed's schema versions before and
// after, and River's migration versions applied.
type MigrateResult = pgstore.Result

// ErrNewerSchema is wrapped by Migrate's error for a database that a
// newer heed migrated.
var ErrNewerSchema = pgstore.ErrNewerSchema

// Migrate creates or upgrades the schemas of a team's database, heed's
// and River's (pgstore.MigrateWait), waiting at most lockWait for
// another session's migration (a default for 0), and as long at most for
// each table a step alters. Its errors never hold the URL's password.
func Migrate(ctx context.Context, dbURL string, lockWait time.Duration) (*MigrateResult, error) {
	return pgstore.MigrateWait(ctx, dbURL, lockWait)
}

// MigrateLockWait is how long Migrate waits for the lock by default.
const MigrateLockWait = pgstore.LockWait

// ErrLocked is wrapped by Migrate's error when another session held the
// migration lock, or a lock on a table a step alters, for longer than it
// waited.
var ErrLocked = pgstore.ErrLocked

// OpenDB is a Config.Open for a team's database at dbURL: the service's
// reads and writes go to its rows.
func OpenDB(dbURL string) func(context.Context) (Store, error) {
	return func(ctx context.Context) (Store, error) {
		st, err := pgstore.Open(ctx, dbURL)
		if err != nil {
			return nil, err
		}
		return st, nil
	}
}

var _ Store = (*pgstore.Store)(nil)

// RedactDB returns s with dbURL's password replaced, for anything a door
// shows of a database's URL.
func RedactDB(dbURL, s string) string { return pgstore.RedactString(dbURL, s) }

// Export writes every snapshot of the team's database at dbURL into the
// stash of files in dir, as a crawl there would have written them (made
// if missing), for people who read or grep them. It returns how many it
// wrote anew; those already there as they are stay.
func Export(ctx context.Context, dbURL, dir string) (int, error) {
	db, err := pgstore.Open(ctx, dbURL)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	st, err := stash.Open(ctx, dir)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	entries, err := db.List(ctx, "")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		snap, err := db.Get(ctx, e.URL)
		if err != nil {
			return n, err
		}
		removed := snap.Removed
		if cur, err := st.Get(ctx, snap.URL); err == nil && !removed.IsZero() && !cur.Removed.IsZero() && cur.Hash == heed.HashOf(snap.Markdown) {
			continue // exported before, removed as it is in the database: as it was
		}
		changed, err := st.Put(ctx, snap)
		if err != nil {
			return n, err
		}
		if !removed.IsZero() {
			// Gone in the team's database, gone in the stash: its
			// removal, with why, as the database's history says.
			why := "removed"
			if h, err := db.History(ctx, e.URL); err == nil && len(h.Versions) > 0 {
				why = cmp.Or(h.Versions[len(h.Versions)-1].Removed, why)
			}
			if _, err := st.MarkRemoved(ctx, snap.Source, snap.URL, removed, why); err != nil {
				return n, err
			}
		}
		if changed {
			n++
		}
	}
	return n, nil
}

// ErrNoDB is the error of team work asked of a service without a team
// database (Config.DB).
var ErrNoDB = errors.New("no team database: give --db URL or set HEED_DB")

// teamDB is the team's database, opened once (its schema checked).
func (s *Service) teamDB(ctx context.Context) (*pgstore.Store, error) {
	if s.cfg.DB == "" {
		return nil, ErrNoDB
	}
	s.teamMu.Lock()
	defer s.teamMu.Unlock()
	if s.team == nil {
		db, err := pgstore.Open(ctx, s.cfg.DB)
		if err != nil {
			return nil, err
		}
		s.team = db
		s.turns = team.NewTurns(db.Pool(), 0)
	}
	return s.team, nil
}

// teamRobots loads robots.txt as the team's workers do (team.RobotsLoader).
func (s *Service) teamRobots(ctx context.Context, robotsURL string) (robots.Outcome, error) {
	db, err := s.teamDB(ctx)
	if err != nil {
		return robots.Outcome{}, err
	}
	return team.RobotsLoader(db.Pool(), s.cfg.HTTP, s.turns, s.cfg.Agent, s.cfg.Delay, crawlopt.Defaults().MaxCrawlDelay)(ctx, robotsURL)
}

// teamTurns are the team database's turns, opened when first asked.
type teamTurns struct{ s *Service }

func (t *teamTurns) Acquire(ctx context.Context, host string) (func(time.Duration), error) {
	if _, err := t.s.teamDB(ctx); err != nil {
		return nil, err
	}
	return t.s.turns.Acquire(ctx, host)
}

// StartTeamCrawl queues a crawl in the team's database, for its workers:
// the start URL and its host's job, in one transaction. It returns the
// crawl's ID.
func (s *Service) StartTeamCrawl(ctx context.Context, req CrawlRequest) (int64, error) {
	if req.NoStore || req.Page != nil {
		return 0, errors.New("ingest: a team's crawl stores its pages in the team's database")
	}
	o, err := s.options(req)
	if err != nil {
		return 0, err
	}
	db, err := s.teamDB(ctx)
	if err != nil {
		return 0, err
	}
	id, err := team.Start(ctx, db.Pool(), o.Options)
	return id, pgstore.Redact(s.cfg.DB, err)
}

// CrawlProgress is where a team crawl stands.
func (s *Service) CrawlProgress(ctx context.Context, id int64) (*team.Progress, error) {
	db, err := s.teamDB(ctx)
	if err != nil {
		return nil, err
	}
	p, err := team.CrawlProgress(ctx, db.Pool(), id)
	return p, pgstore.Redact(s.cfg.DB, err)
}

// readCrawls calls f with the ledger the store's crawls are read from:
// the team's database's, or else the stash's (withLedger). A team's
// database's errors are said without its password.
func (s *Service) readCrawls(ctx context.Context, f func(ledger.Ledger) error) error {
	if s.cfg.DB == "" {
		return s.withLedger(ctx, f)
	}
	db, err := s.teamDB(ctx)
	if err != nil {
		return pgstore.Redact(s.cfg.DB, err)
	}
	return pgstore.Redact(s.cfg.DB, f(db.Ledger()))
}

// TeamStatus is where the team's database stands: its last crawls (at
// most limit, read as Crawls reads the stash's), the hosts in flight,
// the URLs queued.
func (s *Service) TeamStatus(ctx context.Context, limit int) (*team.Status, error) {
	db, err := s.teamDB(ctx)
	if err != nil {
		return nil, err
	}
	crawls, err := s.Crawls(ctx, limit)
	if err != nil {
		return nil, err
	}
	st, err := team.TeamStatus(ctx, db.Pool(), db.Ledger(), crawls)
	return st, pgstore.Redact(s.cfg.DB, err)
}

// WorkerConfig is how a worker runs (team.Worker): hosts at once, and
// the bounds of its jobs; zero values take the defaults.
type WorkerConfig struct {
	Hosts       int
	Slice       time.Duration
	LeaseTTL    time.Duration
	RescueAfter time.Duration
	Event       func(crawl.Event)
}

// Work runs a worker of the team's crawls until ctx ends, then lets its
// hosts go and returns.
func (s *Service) Work(ctx context.Context, wc WorkerConfig) error {
	db, err := s.teamDB(ctx)
	if err != nil {
		return err
	}
	w := &team.Worker{
		Pool: db.Pool(), HTTP: s.cfg.HTTP, Agent: s.cfg.Agent, Hosts: wc.Hosts, Slice: wc.Slice,
		LeaseTTL: wc.LeaseTTL, RescueAfter: wc.RescueAfter, Event: wc.Event, Browser: s.cfg.Browser,
		Retention: s.cfg.Retention,
	}
	return pgstore.Redact(s.cfg.DB, w.Run(ctx))
}

// FollowCrawl waits for a team crawl to be done, telling progress (which
// may be nil) where it stands each time that changes; it returns where
// the crawl stood last, with ctx's error when ctx ended first (the crawl
// goes on in the team's workers).
func (s *Service) FollowCrawl(ctx context.Context, id int64, progress func(*team.Progress)) (*team.Progress, error) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	var last *team.Progress
	for {
		p, err := s.CrawlProgress(context.WithoutCancel(ctx), id)
		if err != nil {
			return last, err
		}
		if progress != nil && (last == nil || !sameProgress(last, p)) {
			progress(p)
		}
		last = p
		if p.Done {
			return p, nil
		}
		select {
		case <-ctx.Done():
			return p, ctx.Err()
		case <-t.C:
		}
	}
}

func sameProgress(a, b *team.Progress) bool {
	return a.State == b.State && a.Queued == b.Queued && a.Stored == b.Stored && a.Unchanged == b.Unchanged && a.Fetched == b.Fetched &&
		a.Removed == b.Removed && maps.Equal(a.Skipped, b.Skipped) && maps.Equal(a.Failed, b.Failed)
}

// teamSummary is a team crawl's progress as a crawl's summary.
func teamSummary(p *team.Progress) *crawl.Summary {
	sum := &crawl.Summary{Stored: p.Stored, New: p.New, Changed: p.Changed, Unchanged: p.Unchanged, Removed: p.Removed,
		Skipped: maps.Clone(p.Skipped), Robots: "heeded by the team's workers"}
	for _, n := range p.Failed {
		sum.Failed += n
	}
	if sum.Skipped == nil {
		sum.Skipped = map[string]int{}
	}
	sum.Elapsed = time.Since(p.Created)
	sum.Seconds = sum.Elapsed.Seconds()
	return sum
}

// teamCrawl is a crawl in a team's database: queued, said to events as
// its scope (a crawl here says it first; the workers' events are not
// this process's), and followed to its end unless cr.Detach.
func (s *Service) teamCrawl(ctx context.Context, cr CrawlRequest, events func(crawl.Event)) (*CrawlResult, error) {
	if cr.Resume != 0 {
		return nil, &heed.Error{Kind: heed.Invalid, Op: "crawl", Err: errors.New("a team's crawl is not taken up by its ID: it goes on by itself while workers run")}
	}
	id, err := s.StartTeamCrawl(ctx, cr)
	if err != nil {
		return nil, err
	}
	if ev, ok := began(cr); ok && events != nil {
		ev.Crawl = id
		events(ev)
	}
	p := &team.Progress{ID: id, Created: time.Now()}
	if !cr.Detach {
		if p, err = s.FollowCrawl(ctx, id, cr.Progress); p == nil {
			return nil, err
		}
	}
	return &CrawlResult{Source: cr.Source, Start: cr.Start, Summary: teamSummary(p), MaxPages: cr.MaxPages, MaxDepth: cr.MaxDepth, TeamCrawl: id, Detached: cr.Detach, Team: p}, err
}
