package ingest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/team"
)

// A crawl job is a crawl that runs in the service beside the call that
// started it (StartCrawl): it goes on when that call returns, is
// followed by its ID (CrawlStatus, CrawlKept), and ends when it is done,
// cancelled (CancelCrawl), or the service closes; it is then left
// interrupted, and taken up again by ResumeCrawls.
type jobs struct {
	mu      sync.Mutex
	ctx     context.Context // the service's life: cancelled by Close
	stop    context.CancelFunc
	running map[int64]*job
	ended   map[int64]*job // the last jobs that ended, by ID (maxEnded)
	wg      sync.WaitGroup
	closed  bool // no job starts once the service closes
}

// close stops the jobs, interrupted, and waits for them to record their
// ends.
func (j *jobs) close() {
	j.mu.Lock()
	j.closed = true
	j.mu.Unlock()
	j.stop()
	j.wg.Wait()
}

type job struct {
	cancel context.CancelCauseFunc
	done   chan struct{} // closed when the crawl has ended and recorded its end

	mu    sync.Mutex
	scope string        // what the crawl's first line says of its scope
	skips []crawl.Event // the URLs skipped (but for scope) or failed, the first crawl.MaxLogged
	res   *CrawlResult  // what it came to, once done
	err   error         // why it failed, once done
}

// event keeps what a job's crawl tells that JobInfo gives.
func (j *job) event(ev crawl.Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case ev.Kind == crawl.Began:
		j.scope = ev.Detail
	case ev.Logged() && len(j.skips) < crawl.MaxLogged:
		j.skips = append(j.skips, ev)
	}
}

// JobInfo is what a crawl job of this service told as it ran: its
// scope, the URLs it skipped or failed with why (the first
// crawl.MaxLogged; those out of scope, past a limit or left by a stop
// are counted only), and, once it ended (Ended), what it came to and why
// it failed, if it did.
type JobInfo struct {
	Scope  string
	Skips  []crawl.Event
	Ended  bool
	Result *CrawlResult
	Err    error
}

// CrawlJob is what the crawl job of id told, if it is one of this
// service's running or last ended jobs.
func (s *Service) CrawlJob(id int64) (JobInfo, bool) {
	s.jobs.mu.Lock()
	j := s.jobs.running[id]
	if j == nil {
		j = s.jobs.ended[id]
	}
	s.jobs.mu.Unlock()
	if j == nil {
		return JobInfo{}, false
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	info := JobInfo{Scope: j.scope, Skips: slices.Clone(j.skips), Result: j.res, Err: j.err}
	select {
	case <-j.done:
		info.Ended = true
	default:
	}
	return info, true
}

// ErrNotRunning is the error of cancelling a crawl that no job of this
// service runs.
var ErrNotRunning = errors.New("no crawl of that ID runs here")

// StartCrawl starts the crawl req asks for as a job, and returns its ID
// once it is recorded (its ledger's, or the team's database's): it runs
// on when StartCrawl returns. A crawl that cannot begin (its options, a
// stash another process writes) fails here. follow, if set, is told the
// crawl's events, from several goroutines, as long as ctx lasts (the
// caller listens): a team's crawl tells none.
func (s *Service) StartCrawl(ctx context.Context, req CrawlRequest, follow func(crawl.Event)) (int64, error) {
	if req.NoStore || req.Page != nil {
		return 0, &heed.Error{Kind: heed.Invalid, Op: "crawl", Err: errors.New("a crawl job stores its pages")}
	}
	if s.cfg.DB != "" {
		// A team's crawl is queued for its workers, who run it; it goes
		// on whatever becomes of this service.
		return s.StartTeamCrawl(ctx, req)
	}
	// The options are Crawl's to check, first: a crawl that cannot begin
	// ends before it is recorded, and its error is returned below.
	s.jobs.mu.Lock()
	if s.jobs.closed {
		s.jobs.mu.Unlock()
		return 0, errClosed
	}
	s.jobs.wg.Add(1) // under mu: Close's Wait comes after every Add
	s.jobs.mu.Unlock()
	j := &job{done: make(chan struct{})}
	jctx, cancel := context.WithCancelCause(s.jobs.ctx)
	j.cancel = cancel
	began := make(chan int64, 1)
	go func() {
		defer s.jobs.wg.Done()
		var id int64
		var once sync.Once
		res, err := s.Crawl(jctx, req, func(ev crawl.Event) {
			j.event(ev)
			if follow != nil && ctx.Err() == nil {
				follow(ev)
			}
			if ev.Kind == crawl.Began {
				once.Do(func() {
					id = ev.Crawl
					s.jobs.mu.Lock()
					s.jobs.running[id] = j
					s.jobs.mu.Unlock()
					began <- id
				})
			}
		})
		cancel(nil)
		j.mu.Lock()
		j.res, j.err = res, err
		j.mu.Unlock()
		// The job ended: it is one of the last that ended, no more one
		// that runs.
		s.jobs.mu.Lock()
		if id != 0 {
			delete(s.jobs.running, id)
			if s.jobs.ended == nil {
				s.jobs.ended = map[int64]*job{}
			}
			if len(s.jobs.ended) >= maxEnded {
				for old := range s.jobs.ended {
					delete(s.jobs.ended, old)
					break
				}
			}
			s.jobs.ended[id] = j
		}
		s.jobs.mu.Unlock()
		close(j.done)
		once.Do(func() { began <- 0 })
	}()
	select {
	case id := <-began:
		if id == 0 {
			<-j.done
			j.mu.Lock()
			defer j.mu.Unlock()
			if j.err == nil {
				j.err = &heed.Error{Kind: heed.Internal, Op: "crawl", Err: errors.New("the crawl ended before it was recorded")}
			}
			return 0, j.err
		}
		return id, nil
	case <-ctx.Done():
		// The caller is gone before the crawl began, and will never know
		// its ID: the crawl is cancelled, not left to run unseen.
		cancel(ledger.ErrCancelled)
		<-j.done
		return 0, ctx.Err()
	}
}

// WaitCrawl waits until the crawl of id, a job of this service, has
// ended, or wait has passed, or ctx ended, and returns where it stands.
func (s *Service) WaitCrawl(ctx context.Context, id int64, wait time.Duration) (*ledger.Crawl, error) {
	t := time.NewTimer(wait)
	defer t.Stop()
	if s.cfg.DB != "" {
		// A team's crawl is asked how it stands, as FollowCrawl does.
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			c, err := s.CrawlStatus(context.WithoutCancel(ctx), id)
			if err != nil || c.State != ledger.Running {
				return c, err
			}
			select {
			case <-tick.C:
			case <-t.C:
				return c, nil
			case <-ctx.Done():
				return c, nil
			}
		}
	}
	s.jobs.mu.Lock()
	j := s.jobs.running[id]
	s.jobs.mu.Unlock()
	if j != nil {
		select {
		case <-j.done:
		case <-t.C:
		case <-ctx.Done():
		}
	}
	return s.CrawlStatus(context.WithoutCancel(ctx), id)
}

// CancelCrawl cancels the crawl of id, a job of this service: its
// requests stop at once (one under way is let go), its URLs left are
// not asked, and it ends cancelled, not to be taken up again. It
// returns once the crawl has recorded its end.
func (s *Service) CancelCrawl(ctx context.Context, id int64) error {
	if s.cfg.DB != "" {
		db, err := s.teamDB(ctx)
		if err != nil {
			return err
		}
		switch err := team.Cancel(ctx, db.Pool(), id); {
		case errors.Is(err, team.ErrNoCrawl):
			return &heed.Error{Kind: heed.NotFound, Op: "cancel a crawl", Err: fmt.Errorf("crawl %d: %w", id, ledger.ErrNoCrawl)}
		case errors.Is(err, team.ErrNotRunning):
			return &heed.Error{Kind: heed.Invalid, Op: "cancel a crawl", Err: fmt.Errorf("crawl %d: %w", id, ErrNotRunning)}
		case err != nil:
			return &heed.Error{Kind: heed.Internal, Op: "cancel a crawl", Err: pgstore.Redact(s.cfg.DB, err)}
		}
		return nil
	}
	s.jobs.mu.Lock()
	j := s.jobs.running[id]
	s.jobs.mu.Unlock()
	if j == nil {
		if _, err := s.CrawlStatus(ctx, id); err != nil {
			return err
		}
		return &heed.Error{Kind: heed.Invalid, Op: "cancel a crawl", Err: fmt.Errorf("crawl %d: %w", id, ErrNotRunning)}
	}
	j.cancel(ledger.ErrCancelled)
	select {
	case <-j.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// maxEnded is how many jobs that ended a service keeps what they told.
const maxEnded = 256

// StopCrawl stops the crawl job of id as Close stops them all:
// interrupted, to be taken up again (ResumeCrawls). It returns once the
// crawl has recorded its end; a crawl that is no job of this service
// running is left as it is.
func (s *Service) StopCrawl(ctx context.Context, id int64) error {
	s.jobs.mu.Lock()
	j := s.jobs.running[id]
	s.jobs.mu.Unlock()
	if j == nil {
		return nil
	}
	j.cancel(context.Canceled)
	select {
	case <-j.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Team reports whether the service's crawls run on a team's workers
// (Config.DB), not as its own jobs.
func (s *Service) Team() bool { return s.cfg.DB != "" }

// Running are the IDs of the crawl jobs this service runs.
func (s *Service) Running() []int64 {
	s.jobs.mu.Lock()
	defer s.jobs.mu.Unlock()
	var ids []int64
	for id := range s.jobs.running {
		ids = append(ids, id)
	}
	return ids
}

// KeptPage is a page a crawl kept: stored, or found unchanged.
type KeptPage struct {
	URL       string      `json:"url"`
	ID        string      `json:"id,omitempty"` // the snapshot's, in the store
	Title     string      `json:"title,omitempty"`
	FetchedAt time.Time   `json:"fetched_at,omitzero"`
	Fate      ledger.Fate `json:"fate"`
	// Cursor is where the list goes on after this page.
	Cursor string `json:"-"`
}

// MaxKeptPage is the most pages CrawlKept gives at a time.
const MaxKeptPage = 100

// errCursor is the cause of a cursor CrawlKept did not give.
var errCursor = errors.New("the cursor is not one a list of this crawl gave: start again without it")

// CrawlKept are the pages the crawl of id kept after the cursor (""
// for the first), in the order it kept them, limit at most (no more than
// MaxKeptPage), each with its snapshot's ID and title; next is the
// cursor of the page after the last given, "" when none was given.
func (s *Service) CrawlKept(ctx context.Context, id int64, cursor string, limit int) (pages []KeptPage, next string, err error) {
	limit = min(max(limit, 1), MaxKeptPage)
	if s.cfg.DB != "" {
		return s.teamKept(ctx, id, cursor, limit)
	}
	var after int64
	if cursor != "" {
		n, ok := strings.CutPrefix(cursor, "s")
		if after, err = strconv.ParseInt(n, 10, 64); !ok || err != nil || after < 0 {
			return nil, "", &heed.Error{Kind: heed.Invalid, Op: "list a crawl's pages", Err: errCursor}
		}
	}
	st, done, err := s.use(ctx, toRead)
	if err != nil {
		return nil, "", err
	}
	defer done()
	l, ok := st.(ledger.Ledger)
	if !ok {
		return nil, "", &heed.Error{Kind: heed.NotFound, Op: "read a crawl", Err: fmt.Errorf("crawl %d: %w", id, ledger.ErrNoCrawl)}
	}
	kept, err := l.Kept(ctx, id, after, limit)
	switch {
	case errors.Is(err, ledger.ErrNoCrawl):
		return nil, "", &heed.Error{Kind: heed.NotFound, Op: "read a crawl", Err: err}
	case err != nil:
		return nil, "", &heed.Error{Kind: heed.Internal, Op: "read a crawl", Err: err}
	}
	for _, k := range kept {
		next = "s" + strconv.FormatInt(k.Seq, 10)
		p := KeptPage{URL: k.URL, Fate: k.Fate, Cursor: next}
		if snap, err := st.Get(ctx, k.URL); err == nil {
			p.ID, p.Title, p.FetchedAt = snap.ID, snap.Title, snap.FetchedAt
		}
		pages = append(pages, p)
	}
	return pages, next, nil
}

// teamKept is CrawlKept of a team's crawl: its cursor is the time and
// sequence of the last page given.
func (s *Service) teamKept(ctx context.Context, id int64, cursor string, limit int) (pages []KeptPage, next string, err error) {
	var at time.Time
	var seq int64
	if cursor != "" {
		rest, ok := strings.CutPrefix(cursor, "t")
		ns, sq, ok2 := strings.Cut(rest, ".")
		n, err1 := strconv.ParseInt(ns, 10, 64)
		q, err2 := strconv.ParseInt(sq, 10, 64)
		if !ok || !ok2 || err1 != nil || err2 != nil || n < 0 || q < 0 || n > math.MaxInt64/1000 {
			return nil, "", &heed.Error{Kind: heed.Invalid, Op: "list a crawl's pages", Err: errCursor}
		}
		at, seq = time.Unix(0, n*1000).UTC(), q
	}
	db, err := s.teamDB(ctx)
	if err != nil {
		return nil, "", err
	}
	kept, err := team.Kept(ctx, db.Pool(), id, at, seq, limit)
	switch {
	case errors.Is(err, team.ErrNoCrawl):
		return nil, "", &heed.Error{Kind: heed.NotFound, Op: "read a crawl", Err: fmt.Errorf("crawl %d: %w", id, ledger.ErrNoCrawl)}
	case err != nil:
		return nil, "", &heed.Error{Kind: heed.Internal, Op: "read a crawl", Err: pgstore.Redact(s.cfg.DB, err)}
	}
	for _, k := range kept {
		next = fmt.Sprintf("t%d.%d", k.At.UnixMicro(), k.Seq)
		p := KeptPage{URL: k.URL, ID: k.ID, Title: k.Title, FetchedAt: k.FetchedAt, Fate: ledger.Stored, Cursor: next}
		if k.Unchanged {
			p.Fate = ledger.Unchanged
		}
		pages = append(pages, p)
	}
	return pages, next, nil
}

// ResumeCrawls takes up again, as jobs, the crawls by who (ledger.By)
// that were left interrupted: by a service closed, a process that
// died. It returns their IDs. A team's crawls need none: its workers
// go on with them.
func (s *Service) ResumeCrawls(ctx context.Context, by string) ([]int64, error) {
	if s.cfg.DB != "" {
		return nil, nil
	}
	crawls, err := s.Crawls(ctx, 100)
	if err != nil {
		var nostash *NoStashError
		if errors.As(err, &nostash) {
			return nil, nil
		}
		return nil, err
	}
	var ids []int64
	var errs []error
	for _, c := range crawls {
		if c.By != by || c.State != ledger.Interrupted {
			continue
		}
		id, err := s.StartCrawl(ctx, CrawlRequest{Options: crawlopt.Defaults(), Resume: c.ID, By: by}, nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("crawl %d: %w", c.ID, err))
			continue
		}
		ids = append(ids, id)
	}
	return ids, errors.Join(errs...)
}
