package ingest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ledger"
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
	err    error         // why it failed, once done
}

// ErrNotRunning is the error of cancelling a crawl that no job of this
// service runs.
var ErrNotRunning = errors.New("no crawl of that ID runs here")

// StartCrawl starts the crawl req asks for as a job, and returns its ID
// once it is recorded (its ledger's, or the team's database's): it runs
// on when StartCrawl returns. A crawl that cannot begin (its options, a
// stash another process writes) fails here.
func (s *Service) StartCrawl(ctx context.Context, req CrawlRequest) (int64, error) {
	if req.NoStore || req.Page != nil {
		return 0, &heed.Error{Kind: heed.Invalid, Op: "crawl", Err: errors.New("a crawl job stores its pages")}
	}
	if req.Resume == 0 || req.Start != "" {
		if _, err := s.options(req); err != nil {
			return 0, err
		}
	}
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
		defer close(j.done)
		defer cancel(nil)
		var once sync.Once
		_, err := s.Crawl(jctx, req, func(ev crawl.Event) {
			if ev.Kind == crawl.Began {
				once.Do(func() {
					s.jobs.mu.Lock()
					s.jobs.running[ev.Crawl] = j
					s.jobs.mu.Unlock()
					began <- ev.Crawl
				})
			}
		})
		j.err = err
		once.Do(func() { began <- 0 })
	}()
	select {
	case id := <-began:
		if id == 0 {
			<-j.done
			if j.err == nil {
				j.err = &heed.Error{Kind: heed.Internal, Op: "crawl", Err: errors.New("the crawl ended before it was recorded")}
			}
			return 0, j.err
		}
		go func() {
			<-j.done
			s.jobs.mu.Lock()
			delete(s.jobs.running, id)
			s.jobs.mu.Unlock()
		}()
		return id, nil
	case <-ctx.Done():
		// The crawl goes on: the caller is gone before it began.
		return 0, ctx.Err()
	}
}

// CrawlStatus is where a crawl of the store stands: its record.
func (s *Service) CrawlStatus(ctx context.Context, id int64) (*ledger.Crawl, error) {
	return s.CrawlRecord(ctx, id)
}

// WaitCrawl waits until the crawl of id, a job of this service, has
// ended, or wait has passed, or ctx ended, and returns where it stands.
func (s *Service) WaitCrawl(ctx context.Context, id int64, wait time.Duration) (*ledger.Crawl, error) {
	s.jobs.mu.Lock()
	j := s.jobs.running[id]
	s.jobs.mu.Unlock()
	if j != nil {
		t := time.NewTimer(wait)
		defer t.Stop()
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
	s.jobs.mu.Lock()
	j := s.jobs.running[id]
	s.jobs.mu.Unlock()
	if j == nil {
		if _, err := s.CrawlRecord(ctx, id); err != nil {
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
}

// MaxKeptPage is the most pages CrawlKept gives at a time.
const MaxKeptPage = 100

// CrawlKept are the pages the crawl of id kept after the cursor after
// (0 for the first), in the order it kept them, limit at most (no more
// than MaxKeptPage), each with its snapshot's ID and title; next is the
// cursor of the page after the last given, 0 when none was given.
func (s *Service) CrawlKept(ctx context.Context, id, after int64, limit int) (pages []KeptPage, next int64, err error) {
	limit = min(max(limit, 1), MaxKeptPage)
	st, done, err := s.use(ctx, toRead)
	if err != nil {
		return nil, 0, err
	}
	defer done()
	l, ok := st.(ledger.Ledger)
	if !ok {
		return nil, 0, &heed.Error{Kind: heed.NotFound, Op: "read a crawl", Err: fmt.Errorf("crawl %d: %w", id, ledger.ErrNoCrawl)}
	}
	kept, err := l.Kept(ctx, id, max(after, 0), limit)
	switch {
	case errors.Is(err, ledger.ErrNoCrawl):
		return nil, 0, &heed.Error{Kind: heed.NotFound, Op: "read a crawl", Err: err}
	case err != nil:
		return nil, 0, &heed.Error{Kind: heed.Internal, Op: "read a crawl", Err: err}
	}
	for _, k := range kept {
		p := KeptPage{URL: k.URL, Fate: k.Fate}
		if snap, err := st.Get(ctx, k.URL); err == nil {
			p.ID, p.Title, p.FetchedAt = snap.ID, snap.Title, snap.FetchedAt
		}
		pages = append(pages, p)
		next = k.Seq
	}
	return pages, next, nil
}

// ResumeCrawls takes up again, as jobs, the crawls by who (ledger.By)
// that were left interrupted: by a service closed, a process that
// died. It returns their IDs.
func (s *Service) ResumeCrawls(ctx context.Context, by string) ([]int64, error) {
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
		id, err := s.StartCrawl(ctx, CrawlRequest{Options: crawlopt.Defaults(), Resume: c.ID, By: by})
		if err != nil {
			errs = append(errs, fmt.Errorf("crawl %d: %w", c.ID, err))
			continue
		}
		ids = append(ids, id)
	}
	return ids, errors.Join(errs...)
}
