package ingest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/document"
	"github.com/heedhq/heed/internal/history"
	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/internal/render"
	"github.com/heedhq/heed/internal/source"
	"github.com/heedhq/heed/internal/stash"
	"github.com/heedhq/heed/internal/team"
	"github.com/heedhq/heed/robots"
)

// Store is what the service asks of where snapshots are kept: what the
// crawler and the sources write, and what the doors read. The stash of
// files and SQLite is one.
type Store interface {
	crawl.Store
	source.Store
	Search(ctx context.Context, q heed.Query) ([]heed.Hit, error)
	List(ctx context.Context, source string) ([]heed.Entry, error)
	// ListAfter lists at most limit snapshots, of every source, whose IDs
	// sort after the ID after ("" for the first), by ID.
	ListAfter(ctx context.Context, after string, limit int) ([]heed.Entry, error)
	Sources(ctx context.Context) (map[string]int, error)
	// History is a page's versions (heed.ErrNotFound for a page the
	// store does not hold); VersionText the Markdown of its version n
	// (heed.ErrNotFound where that version's content is not kept).
	History(ctx context.Context, urlOrID string) (*heed.History, error)
	VersionText(ctx context.Context, urlOrID string, n int) (string, error)
	// Changes are the pages that became new, changed or removed since a
	// time, by URL, after q.After.
	Changes(ctx context.Context, q heed.ChangesQuery) ([]heed.PageChange, error)
	Remove(ctx context.Context, source string) (int, error)
	Reindex(ctx context.Context) (int, error)
	// AppendLog adds an entry to the store's log of what was done.
	AppendLog(entry string) error
	// SetRetention sets how much of each page's history the store keeps.
	SetRetention(r history.Retention)
	// Optimize makes searches faster after many writes.
	Optimize(ctx context.Context) error
	// Writable reports whether this process may write the store now.
	Writable() bool
	Close() error
}

var _ Store = (*stash.Stash)(nil)

// Config is what a Service is made of. Zero values take the defaults.
type Config struct {
	// HTTP is the guarded client every request goes through.
	HTTP *fetch.Client
	// Agent is the user agent whose product token picks robots.txt groups
	// and page directives; "" means heed.UserAgent().
	Agent string
	// Delay is the least time between two requests to one host, for
	// every request the service makes; a crawl may ask for more. 0 means
	// the default of a crawl's options (crawlopt.Defaults); negative
	// means none.
	Delay time.Duration
	// MaxCrawlDelay caps a robots.txt Crawl-delay, for every crawl; 0
	// means the default of a crawl's options (crawlopt.Defaults).
	MaxCrawlDelay time.Duration
	// StashDir is the stash's directory.
	StashDir string
	// Open, if set, opens the store instead of the stash at StashDir.
	Open func(ctx context.Context) (Store, error)
	// Kinds are the source kinds beside the website, in the order they
	// are asked (kinds.Make builds them from the config file and the
	// environment).
	Kinds []source.Kind
	// DB is a team's database (a PostgreSQL URL): the store is its rows
	// (unless Open says otherwise), every request takes its host's turn
	// from it, shared with every worker and server of the team, and team
	// crawls are queued in it.
	DB string
	// Browser renders the pages that need it (a crawl's and a fetch's
	// Render); nil renders none.
	Browser *render.Browser
	// Retention is how much of each page's history the store keeps; the
	// zero value is history's default.
	Retention history.Retention
	// Warn says what the user should know (a source's rate limit, a kind
	// that found nothing); nil discards it.
	Warn func(msg string)
}

// Service is heed's one ingest service: fetch a page, crawl, add and
// sync sources, search, read, list and remove; the CLI and the MCP server
// are doors onto it. Every request it makes goes through one polite
// client, so that all of its work, whichever door asked for it, takes one
// turn at a time of each host; and robots.txt is read once per origin
// through one cache. The store is opened when a call needs it and closed
// when no call does, so that another heed process may write it between
// calls. A Service is safe for concurrent use.
type Service struct {
	cfg    Config
	client *polite.Client
	robots *robots.Cache

	mu     sync.Mutex
	st     held // the store opened to write it (or by Config.Open)
	ro     held // the stash opened only to read it, while st is not open
	closed bool

	teamMu sync.Mutex
	team   *pgstore.Store // the team's database, for crawl work (Config.DB)
	turns  *team.Turns

	jobs jobs // the crawls started by StartCrawl

	watchMu  sync.Mutex
	watchers map[int]func(Change) // by the number Watch gave each
	watched  int                  // the watchers there have been
}

// New returns a Service.
func New(cfg Config) *Service {
	if cfg.Agent == "" {
		cfg.Agent = heed.UserAgent()
	}
	switch {
	case cfg.Delay == 0:
		cfg.Delay = crawlopt.Defaults().Delay
	case cfg.Delay < 0:
		cfg.Delay = 0
	}
	if cfg.MaxCrawlDelay == 0 {
		cfg.MaxCrawlDelay = crawlopt.Defaults().MaxCrawlDelay
	}
	if cfg.HTTP == nil {
		cfg.HTTP = fetch.New(fetch.Config{UserAgent: cfg.Agent, TypeCaps: document.Caps})
	}
	s := &Service{cfg: cfg}
	s.jobs.ctx, s.jobs.stop = context.WithCancel(context.Background())
	s.jobs.running = map[int64]*job{}
	var turns polite.Turns = polite.NewSchedule()
	if cfg.DB != "" {
		if cfg.Open == nil {
			cfg.Open = OpenDB(cfg.DB)
			s.cfg.Open = cfg.Open
		}
		turns = &teamTurns{s: s}
	}
	s.client = polite.New(cfg.HTTP, turns, cfg.Delay)
	load := s.keptRobots
	if cfg.DB != "" {
		// robots.txt as the team's workers read it: the team's stored
		// copy, or fetched once for the team.
		load = s.teamRobots
	}
	s.robots = robots.NewCache(load, robots.CacheConfig{})
	return s
}

// keptRobots loads robots.txt as the stash open to write keeps it in
// its ledger, while it lives (ledger.RobotsLoader): a crawl taken up
// again, or the next command, does not ask for it again. With no stash
// open to write, it is loaded.
func (s *Service) keptRobots(ctx context.Context, robotsURL string) (robots.Outcome, error) {
	s.mu.Lock()
	l, ok := s.st.st.(ledger.Ledger)
	ok = ok && s.st.st.Writable()
	s.mu.Unlock()
	if !ok {
		return s.client.LoadRobots(ctx, robotsURL)
	}
	return ledger.RobotsLoader(l, s.client.LoadRobotsFile)(ctx, robotsURL)
}

// Robots is the service's robots.txt policy: one outcome per origin,
// loaded through the polite client on the host's turn.
func (s *Service) Robots() *robots.Cache { return s.robots }

// Delay is the least time between two requests to one host.
func (s *Service) Delay() time.Duration { return s.cfg.Delay }

// StashDir is the stash's directory.
func (s *Service) StashDir() string { return s.cfg.StashDir }

// errClosed is the error of a call to a closed Service.
var errClosed = errors.New("the ingest service is closed")

// How a call uses the store: to write it (the stash is made if there is
// none), to change it (there must be one), to read it (there must be
// one, and nothing is written), or to rebuild its index (its files must
// be there, its index need not).
type useMode int

const (
	toWrite useMode = iota
	toChange
	toRead
	toReindex
)

// held is a store open for the calls that use it.
type held struct {
	st    Store
	users int
}

// NoStashError is the cause of a call that reads a stash where there is
// none, or one whose index is gone (Files: its snapshot files are there,
// and Reindex rebuilds the index from them). Nothing is made.
type NoStashError struct {
	Dir   string
	Files bool
}

func (e *NoStashError) Error() string {
	return (&stash.MissingError{Dir: e.Dir, Files: e.Files}).Error()
}

// use opens the store, or shares the one open, for one call; done lets
// go of it, and the store is closed when no call uses it. A call that
// only reads a stash finds none, rather than make one: an error whose
// cause is a *NoStashError. A call that only reads shares the store open
// to write where there is one, and else opens the stash to read, writing
// nothing: a stash on a full disk, or a read-only one, can be read.
func (s *Service) use(ctx context.Context, mode useMode) (st Store, done func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, errClosed
	}
	h := &s.st
	if h.st == nil {
		open := s.cfg.Open
		if open == nil {
			if mode != toWrite {
				var missing *stash.MissingError
				if err := stash.Check(s.cfg.StashDir); errors.As(err, &missing) && !(mode == toReindex && missing.Files) {
					return nil, nil, &heed.Error{Kind: heed.NotFound, Op: "open the stash", Err: &NoStashError{Dir: missing.Dir, Files: missing.Files}}
				}
			}
			open = func(ctx context.Context) (Store, error) { return stash.Open(ctx, s.cfg.StashDir) }
			if mode == toRead {
				h = &s.ro
				open = s.openToRead
			}
		}
		if h.st == nil {
			st, err := open(ctx)
			if err != nil {
				return nil, nil, &heed.Error{Kind: heed.Internal, Op: "open the stash", Err: err}
			}
			st.SetRetention(s.cfg.Retention)
			h.st = st
		}
	}
	h.users++
	var once sync.Once
	return h.st, func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			h.users--
			if h.users == 0 && h.st != nil {
				if err := h.st.Close(); err != nil {
					s.warn(fmt.Sprintf("closing the stash: %v", err))
				}
				h.st = nil
			}
		})
	}, nil
}

// Hold keeps the store open to read until release is called, so that a
// door's many reads for one request (the versions of a list of pages)
// share one open store rather than open it for each: opening a stash
// reads its index, in time that grows with the stash. With no store to
// read, it returns the error a read would, and holds nothing; release
// may be called either way.
func (s *Service) Hold(ctx context.Context) (release func(), err error) {
	_, done, err := s.use(ctx, toRead)
	if err != nil {
		return func() {}, err
	}
	return done, nil
}

// openToRead opens the stash to read it, writing nothing. A stash that an
// interruption left with pages not settled in its index (a crawl killed,
// or cut short by a full disk) is settled first, where it can be written
// and no other process writes it: the writer's Open settles it. One that
// cannot be written is read as it is, with a warning saying how many
// pages are left out of searches and lists.
func (s *Service) openToRead(ctx context.Context) (Store, error) {
	ro, err := stash.OpenRead(ctx, s.cfg.StashDir)
	if err != nil || ro.Pending() == 0 {
		return ro, err
	}
	w, err := stash.Open(ctx, s.cfg.StashDir)
	if err == nil {
		settled := w.Writable()
		err = w.Close()
		if err == nil && !settled {
			// Another process writes the stash: its pending pages are
			// writes under way.
			return ro, nil
		}
		if err == nil {
			ro.Close()
			if ro, err = stash.OpenRead(ctx, s.cfg.StashDir); err != nil || ro.Pending() == 0 {
				return ro, err
			}
		}
	}
	s.warn(unsettled(ro.Pending()))
	return ro, nil
}

// unsettled says that n of a stash's pages, opened to read, are not
// settled in its index.
func unsettled(n int) string {
	what := "1 page of the stash is"
	if n != 1 {
		what = fmt.Sprintf("%d pages of the stash are", n)
	}
	return what + " not settled in its index (its write was cut short, and the stash cannot be written now: a full disk, or a read-only one?): searches and lists leave them out until heed can write the stash again"
}

// Close lets go of the store, if no call uses it; calls after Close fail.
func (s *Service) Close() error {
	// The crawl jobs stop first, interrupted (ResumeCrawls takes them up
	// again), and record their ends while the store is open.
	s.jobs.close()
	if s.cfg.Browser != nil {
		s.cfg.Browser.Close()
	}
	s.teamMu.Lock()
	if s.team != nil {
		s.team.Close()
		s.team = nil
	}
	s.teamMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	var errs []error
	for _, h := range []*held{&s.st, &s.ro} {
		if h.st != nil && h.users == 0 {
			errs = append(errs, h.st.Close())
			h.st = nil
		}
	}
	return errors.Join(errs...)
}

func (s *Service) warn(msg string) {
	if s.cfg.Warn != nil {
		s.cfg.Warn(msg)
	}
}
