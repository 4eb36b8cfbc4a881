package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/config"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/render"
	"github.com/heedhq/heed/internal/team"
)

// CrawlRequest asks for a polite crawl: its options, made by
// crawlopt.Defaults and the door that asked, and what the service does
// with its pages. Its MaxCrawlDelay is the service's
// (Config.MaxCrawlDelay), for every crawl alike.
type CrawlRequest struct {
	crawlopt.Options
	// NoStore crawls without storing anything: Page sees every page the
	// crawl would have stored (a grep of a live site).
	NoStore bool
	// Page, if set, is called with every page the crawl keeps, perhaps
	// from several goroutines at once.
	Page func(url string, doc *extract.Document)
	// Resume is the ID of a crawl of the store to take up again. With no
	// Start, the crawl's start, source and scope are the recorded ones.
	// Without it, a crawl cut short is taken up again by the same
	// request.
	Resume int64
	// By is who starts the crawl (ledger.Crawl.By).
	By string
	// With a team's database (Config.DB), the crawl is queued for the
	// team's workers: Detach returns once it is, else Progress (which
	// may be nil) sees it until it is done.
	Detach   bool
	Progress func(*team.Progress)
}

// CrawlResult is what a crawl came to.
type CrawlResult struct {
	Source string
	Start  string
	*crawl.Summary
	// Skips are the URLs skipped (but those out of scope) or failed, the
	// first crawl.MaxLogged of them.
	Skips []crawl.Event
	// MaxPages and MaxDepth are the limits the crawl ran under.
	MaxPages, MaxDepth int
	// Crawl is the crawl's ID in the stash's ledger (heed status), and
	// Resumed what it had done when it was taken up again.
	Crawl   int64
	Resumed *crawl.Resumption
	// TeamCrawl is the crawl's ID in a team's database, when it was
	// queued there for the team's workers; Detached when it was only
	// queued, not followed (its summary is empty); Team where it stood
	// last.
	TeamCrawl int64
	Detached  bool
	Team      *team.Progress
}

// options checks a request and turns it into the crawler's options. A
// setting no crawl can run with is an Invalid error whose cause is a
// *crawlopt.Error, which each door says in its own words.
func (s *Service) options(req CrawlRequest) (crawl.Options, error) {
	if err := fetch.CheckURL(req.Start); err != nil {
		return crawl.Options{}, &heed.Error{Kind: heed.Invalid, Op: "crawl", URL: fetch.Redact(req.Start), Err: err}
	}
	given := req.Source != ""
	if !given {
		req.Source = crawl.SourceName(req.Start) // a valid name, whatever the host
	}
	// A mode as a person may type it (Always, " never") is the mode.
	if m, err := render.ParseMode(req.Render); req.Render != "" && err == nil {
		req.Render = string(m)
	}
	req.MaxCrawlDelay = s.cfg.MaxCrawlDelay
	err := req.Validate()
	if given && !req.NoStore && !config.ValidName(req.Source) {
		err = &crawlopt.Error{Name: "name", Want: "a source name (letters, digits, '.', '_' and '-')"}
	}
	if err != nil {
		return crawl.Options{}, &heed.Error{Kind: heed.Invalid, Op: "crawl", URL: fetch.Redact(req.Start), Err: err}
	}
	return crawl.Options{Options: req.Options, Page: req.Page, Resume: req.Resume, By: req.By}, nil
}

// Crawl crawls politely into the store (or, with NoStore, into nothing),
// reports every URL's fate to events (which may be nil, and is called
// from several goroutines), and does the bookkeeping: the log entry with
// the URLs skipped and failed, and the index's optimization after many
// new pages. A crawl that robots.txt refuses at its door fails with a
// *crawl.Disallowed cause; one whose store cannot be written stops with an error
// wrapping crawl.ErrStash, and one whose start URL failed with nothing
// stored with an error wrapping crawl.ErrStartFailed, each with the result
// of what was done.
func (s *Service) Crawl(ctx context.Context, req CrawlRequest, events func(crawl.Event)) (*CrawlResult, error) {
	if s.cfg.DB != "" && !req.NoStore {
		// The one decision of where a crawl runs: a team's crawl runs on
		// its workers.
		return s.teamCrawl(ctx, req, events)
	}
	if req.Resume != 0 && req.Start == "" && !req.NoStore {
		// The crawl to resume says what it crawls.
		rec, err := s.CrawlStatus(ctx, req.Resume)
		if err != nil {
			return nil, err
		}
		// Its options as it ran: its start, source and scope, and its
		// max_depth and delay too, not heed's defaults.
		if err := json.Unmarshal([]byte(rec.Options), &req.Options); err != nil {
			return nil, &heed.Error{Kind: heed.Internal, Op: "resume", Err: fmt.Errorf("the crawl's recorded options: %w", err)}
		}
	}
	o, err := s.options(req) // before the store is opened
	if err != nil {
		return nil, err
	}
	if req.NoStore {
		return s.crawlInto(ctx, nil, o, req, events)
	}
	st, done, err := s.use(ctx, toWrite)
	if err != nil {
		return nil, err
	}
	defer done()
	return s.crawlInto(ctx, st, o, req, events)
}

// crawlInto crawls with the options checked of req into a store open, or
// none.
func (s *Service) crawlInto(ctx context.Context, st Store, o crawl.Options, req CrawlRequest, events func(crawl.Event)) (*CrawlResult, error) {
	c := &crawl.Crawler{Client: s.client, Agent: s.cfg.Agent, Robots: s.robots, Browser: s.cfg.Browser}
	if st != nil {
		if !st.Writable() {
			return nil, &heed.Error{Kind: heed.Transient, Op: "crawl", URL: fetch.Redact(req.Start), Err: heed.ErrBusy}
		}
		c.Store = st
		if l, ok := st.(ledger.Ledger); ok {
			c.Ledger = l
		}
	}
	var mu sync.Mutex
	var skips []crawl.Event
	var began crawl.Event
	var stored atomic.Bool
	sum, err := c.Crawl(ctx, o, func(ev crawl.Event) {
		if ev.Kind == crawl.Began {
			began = ev // before any other event, from one goroutine
		}
		if ev.Kind == crawl.Stored && st != nil {
			stored.Store(true)
			s.stored(o.Source, ev.URL)
		}
		if ev.Logged() {
			mu.Lock()
			if len(skips) < crawl.MaxLogged {
				skips = append(skips, ev)
			}
			mu.Unlock()
		}
		if events != nil {
			events(ev)
		}
	})
	if stored.Load() {
		// The crawl has flushed what it stored: it is all listed now.
		s.changed(Change{Source: o.Source, Ended: true})
	}
	if err != nil && sum == nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	res := &CrawlResult{Source: o.Source, Start: o.Start, Summary: sum, Skips: skips, MaxPages: req.MaxPages, MaxDepth: req.MaxDepth, Crawl: began.Crawl, Resumed: began.Resumed}
	if st == nil || errors.Is(err, crawl.ErrStash) {
		return res, err
	}
	if lerr := st.AppendLog(crawl.LogEntry(o, sum, skips, time.Now())); lerr != nil {
		s.warn(lerr.Error())
	}
	if sum.Stored >= 100 && ctx.Err() == nil {
		st.Optimize(ctx) // many new pages: merge the index for faster searches
	}
	return res, err
}

// Crawls are the store's last limit crawls, newest first: what each
// crawled, where it stands and what it came to, as the stash's ledger
// or the team's database's records them.
func (s *Service) Crawls(ctx context.Context, limit int) ([]ledger.Crawl, error) {
	var crawls []ledger.Crawl
	err := s.readCrawls(ctx, func(l ledger.Ledger) (err error) {
		crawls, err = l.Crawls(ctx, limit)
		return err
	})
	var he *heed.Error
	if err != nil && !errors.As(err, &he) {
		err = &heed.Error{Kind: heed.Internal, Op: "read the crawls", Err: err}
	}
	return crawls, err
}

// CrawlStatus is where a crawl of the store stands: its record, in the
// stash's ledger or the team's database; a NotFound error wrapping
// ledger.ErrNoCrawl when there is none.
func (s *Service) CrawlStatus(ctx context.Context, id int64) (*ledger.Crawl, error) {
	c := ledger.Crawl{ID: id}
	err := s.readCrawls(ctx, func(l ledger.Ledger) (err error) {
		c, err = l.Crawl(ctx, id)
		return err
	})
	var he *heed.Error
	switch {
	case errors.As(err, &he):
		return nil, err // the stash could not be opened
	case err == nil && c.Start == "":
		return nil, &heed.Error{Kind: heed.NotFound, Op: "read a crawl", Err: fmt.Errorf("crawl %d: %w", id, ledger.ErrNoCrawl)}
	case errors.Is(err, ledger.ErrNoCrawl):
		return nil, &heed.Error{Kind: heed.NotFound, Op: "read a crawl", Err: err}
	case err != nil:
		return nil, &heed.Error{Kind: heed.Internal, Op: "read a crawl", Err: err}
	}
	return &c, nil
}

// withLedger calls f with the store's ledger, opened to read; a store
// without one (a team's database) has no crawls of its own to read.
func (s *Service) withLedger(ctx context.Context, f func(ledger.Ledger) error) error {
	st, done, err := s.use(ctx, toRead)
	if err != nil {
		return err
	}
	defer done()
	if l, ok := st.(ledger.Ledger); ok {
		return f(l)
	}
	return nil
}
