package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/internal/render"
	"github.com/heedhq/heed/robots"
)

// Options say what to crawl and how: a crawl's options, made by
// crawlopt.Defaults and the door that asked, and what only a crawl in
// this process is given.
type Options struct {
	crawlopt.Options
	// Page, if set, is called with every page the crawl keeps (one that
	// its robots directives and the site's content signals let it store),
	// before it is stored; with a nil Crawler.Store, instead of storing it.
	// It may be called from several goroutines at once.
	Page func(url string, doc *extract.Document)
	// Resume is the ID of a crawl in the Crawler's Ledger to take up
	// again; 0 takes up the last crawl of the same start, source and scope
	// that was cut short, if there is one, and else begins a new crawl.
	Resume int64
	// By is who starts the crawl, recorded with it (ledger.Crawl.By).
	By string
}

// Crawler holds what crawls share: the polite client (and with it the
// per-host turns), the store and the robots policy cache. A Crawler is
// safe for concurrent use.
type Crawler struct {
	// Client makes every request on its host's turn. A crawl spaces its
	// requests by its own Options.Delay, or a longer Crawl-delay.
	Client *polite.Client
	// Store keeps the pages; nil keeps none (Options.Page sees them).
	Store  Store
	Agent  string
	Robots *robots.Cache // shared robots.txt outcomes; nil makes one per crawl
	// NewFrontier makes each crawl's frontier; nil makes the one in this
	// process (NewFrontier).
	NewFrontier func(maxPages int) Frontier
	// Browser renders the pages that need it (Options.Render); nil
	// renders none: Auto keeps the static page, with a note, and Always
	// fails.
	Browser *render.Browser
	// Ledger records each crawl and its frontier as it goes, so that a
	// crawl cut short is resumed where it stopped; nil records none.
	Ledger ledger.Ledger
}

func (c *Crawler) frontier(maxPages int) Frontier {
	if c.NewFrontier != nil {
		return c.NewFrontier(maxPages)
	}
	return NewFrontier(maxPages)
}

// Kind is what happened to a URL.
type Kind string

// The kinds of Event.
const (
	Stored    Kind = "stored"
	Unchanged Kind = "unchanged"
	Skipped   Kind = "skipped"
	Failed    Kind = "failed"
	// Removed is a page the store held that is gone: it answered 404 or
	// 410 (Reason says which), or a complete crawl of its source no
	// longer reached it (Reason "unreached").
	Removed Kind = "removed"
	// Began is the crawl's first event, before any request: URL is the
	// start URL, Detail the crawl's scope (Scope.String), Narrow whether
	// it is the start URL's directory rather than its whole origin.
	Began Kind = "scope"
	// Waiting says the crawl waits for a host's turn a second or more:
	// URL is the host, Detail how long and why.
	Waiting Kind = "waiting"
)

// minWaitReported is the shortest wait for a host's turn a Waiting event
// reports: a shorter one is no silence to explain.
const minWaitReported = time.Second

// Event is what happened to one URL.
type Event struct {
	Kind   Kind   `json:"event"`
	URL    string `json:"url"`
	Reason string `json:"reason,omitempty"` // for skipped and failed: the class, such as "robots"
	Detail string `json:"detail,omitempty"` // the rule and line, the directive, the error
	Depth  int    `json:"depth"`
	Queued int    `json:"queued"` // URLs waiting after this one
	Delay  string `json:"delay,omitempty"`
	// Rendered says the page was rendered in a browser (its static HTML
	// held next to nothing), what rendering cost.
	Rendered bool `json:"rendered,omitempty"`
	// Change, of a Stored event, says whether the page is new to the
	// store or its content changed; Version is its number in the page's
	// history.
	Change  heed.Change `json:"change,omitempty"`
	Version int         `json:"version,omitempty"`
	// Narrow, of the Began event, says the crawl keeps to the start URL's
	// directory (Options.WholeSite widens it).
	Narrow bool `json:"narrow,omitempty"`
	// Crawl, of the Began event, is the crawl's ID in its ledger, and
	// Resumed what it had done, when it is taken up again.
	Crawl   int64       `json:"crawl,omitempty"`
	Resumed *Resumption `json:"resumed,omitempty"`
}

// Reasons a URL is skipped.
const (
	ReasonRobots   = "robots"   // robots.txt disallows it
	ReasonNoindex  = "noindex"  // the page asks not to be indexed
	ReasonSignal   = "signal"   // the site's Content-Signal says ai-input=no
	ReasonScope    = "scope"    // out of the crawl's scope
	ReasonLimit    = "limit"    // max_pages or max_depth reached
	ReasonDeadline = "deadline" // the crawl's deadline came first
	// ReasonInterrupted: the crawl was interrupted (Ctrl-C, a cancelled
	// tool call) before the URL's turn.
	ReasonInterrupted = "interrupted"
	// ReasonCancelled: the crawl was cancelled on purpose
	// (ledger.ErrCancelled) before the URL's turn.
	ReasonCancelled = "cancelled"
	ReasonStopped   = "stopped" // the crawl stopped for a failure (ErrStash)
	ReasonDup       = "duplicate"
	ReasonType      = "not-html"
	ReasonRedirect  = "redirect" // redirected to another origin, whose turn takes the target
	// ReasonGone: a page found gone before, gone still (removed.go).
)

// Summary is what a crawl came to.
type Summary struct {
	// Stored are the pages stored, New and Changed of them (a page back
	// after its removal is new again).
	Stored    int `json:"stored"`
	New       int `json:"new"`
	Changed   int `json:"changed"`
	Unchanged int `json:"unchanged"`
	// Removed are the pages the store held that were found gone.
	Removed int            `json:"removed"`
	Failed  int            `json:"failed"`
	Skipped map[string]int `json:"skipped"` // by reason
	Robots  string         `json:"robots"`  // what the robots policy did
	Left    Left           `json:"left"`    // what the crawl's bounds left alone
	Elapsed time.Duration  `json:"-"`
	Seconds float64        `json:"elapsed_seconds"`
}

// Left says what a crawl found but left alone because of its bounds, so
// that a user sees what a larger limit would read.
type Left struct {
	// Sitemaps is how many sitemap files were not read, or not read to
	// their end: the page limit was met first, or the sitemap bounds (50
	// files a crawl, 50,000 URLs and 50 MB a file).
	Sitemaps int `json:"sitemaps"`
	// URLs is how many URLs were found but not kept: the crawl holds at
	// most twice max_pages and a thousand waiting, and remembers a bounded
	// number seen (200 a page of max_pages, at least 100,000).
	URLs int `json:"urls"`
}

// ErrStartFailed is wrapped by the error of a crawl that stored nothing
// because its start URL failed (an HTTP 404, a name that does not
// resolve), with the start URL's error and the summary.
var ErrStartFailed = errors.New("the start URL could not be fetched")

// ErrNothingKept is wrapped by the error of a crawl that kept no page,
// its start URL fetched but not kept (noindex, not HTML, a content
// signal, out of scope after a redirect) or not reached (the deadline),
// with the summary and why.
var ErrNothingKept = errors.New("nothing was kept")

// ErrStartRefused is wrapped by the error of a crawl whose start URL
// robots.txt disallows, or whose robots.txt cannot be reached.
var ErrStartRefused = errors.New("the start URL may not be crawled")

// Disallowed is the cause of a crawl whose start URL robots.txt refuses,
// by a rule or because robots.txt cannot be read (Decision says which).
type Disallowed struct {
	Decision robots.Decision
}

func (e *Disallowed) Error() string { return ErrStartRefused.Error() + ": " + e.Decision.String() }

// HostUnreachable reports whether robots.txt could not be asked for at
// all (no answer, not a 5xx or a 429): the host itself cannot be reached,
// and no opt-out of robots.txt would reach it.
func (e *Disallowed) HostUnreachable() bool {
	return e.Decision.Reason == robots.ReasonUnreachable && e.Decision.HTTPStatus == 0
}
func (e *Disallowed) Unwrap() error { return ErrStartRefused }

type run struct {
	seedOnce sync.Once // the crawl's seeds are read once a run (Engine.Seed)
	eng      *Engine
	c        *Crawler
	o        Options
	policy   robots.Policy
	client   *polite.Client // spaced by o.Delay
	emit     func(Event)

	mu         sync.Mutex
	stored     map[string]bool   // URLs stored (or found unchanged) in this crawl
	contents   map[string]string // the URL of each page's Markdown kept in this crawl, by its hash
	frontier   Frontier
	active     map[string]bool   // hosts with a worker
	paces      map[string]string // why each host is asked as seldom as it is, by HostKey
	said       map[string]string // the why of each host's wait said last (waiting)
	fetched    int
	asking     int // requests of fetched whose URLs have not ended
	queued     int
	sum        Summary
	wg         sync.WaitGroup
	tokens     chan struct{} // hosts crawled at once
	procs      chan struct{} // pages extracted at once, one per CPU: more contend for the CPUs with the fetches
	stores     chan struct{} // extracted pages waiting to be stored, or being stored
	validators bool          // the stash holds validators of the source's pages
	ctx        context.Context
	stop       context.CancelCauseFunc // ends the crawl early, with why

	stashErr  error  // the stash's failure that ended the crawl (ErrStash)
	start     string // the start URL, or where it redirected to another origin
	startErr  error  // why the start URL failed, if it did
	startSkip string // why it was skipped, if it was

	// The crawl's ledger (Crawler.Ledger): its ID there, the entries and
	// hosts' turns that wait to be written (by record, signalled on lsig,
	// closing ldone when done), and the queue of a crawl taken up again.
	id      int64
	pending []ledger.Entry
	turns   map[string]time.Time
	lsig    chan struct{}
	ldone   chan struct{}
	resumed []Item
	base    ledger.Counts // what the crawl had done before this run
	// gone are the URLs that failed with a 404 or a 410 (Gone) and were
	// no page the store held: a dead link fails, and leaves the crawl
	// complete (Complete).
	gone int
	// seeded says the crawl taken up had queued its start URL, and
	// startEnded that it had ended; refused that robots.txt refused the
	// start URL, or could not be read.
	seeded, startEnded, refused bool
	// seedsRead says the crawl taken up had read its seeds (seedsMark),
	// seedFiles which seed files it had read to their end (seedMark), and
	// kept the URL of its start page, when it had kept one. seedFrom is
	// where this run fetched its start page from, once kept.
	seedsRead      bool
	seedFiles      map[string]bool
	kept, seedFrom string
}

// fatal ends the crawl for a stash that cannot be written.
func (r *run) fatal(err error) {
	r.mu.Lock()
	if r.stashErr == nil {
		r.stashErr = fmt.Errorf("%w: %w", ErrStash, err)
	}
	cause := r.stashErr
	r.mu.Unlock()
	r.stop(cause)
}

// stashBatch is how many pages a crawl indexes in one transaction.
const stashBatch = 64

// ErrStash is wrapped by Crawl's error when the stash could not be
// written (a full disk, say: heed.ErrUnwritable): the crawl stops at the
// first such failure rather than fetch pages it cannot keep. What was
// stored before stays. A page that fails alone (a path too long for the
// file system) is one failed page.
var ErrStash = errors.New("the stash could not be written")

// Crawl crawls from o.Start and reports every URL's fate to emit (which may
// be nil). It fails when the crawl cannot start: options no crawl can run
// with (a *crawlopt.Error), a bad start URL, or a start URL that robots.txt refuses (ErrStartRefused, with the rule or the
// cause); when the stash cannot be written (ErrStash); and when the start
// URL failed and nothing was stored (ErrStartFailed), with the summary of
// what was done until then.
func (c *Crawler) Crawl(ctx context.Context, o Options, emit func(Event)) (*Summary, error) {
	if err := o.Validate(); err != nil {
		return nil, &heed.Error{Kind: heed.Invalid, Op: "crawl", URL: fetch.Redact(o.Start), Err: err}
	}
	begin := time.Now()
	if err := fetch.CheckURL(o.Start); err != nil {
		return nil, &heed.Error{Kind: heed.Invalid, Op: "crawl", URL: fetch.Redact(o.Start), Err: err}
	}
	start, err := Normalize(o.Start)
	if err != nil {
		return nil, &heed.Error{Kind: heed.Invalid, Op: "crawl", URL: fetch.Redact(o.Start), Err: err}
	}
	su, _ := url.Parse(start)
	if o.Source == "" {
		o.Source = su.Host
	}
	sc, err := newScope(su, o)
	if err != nil {
		return nil, &heed.Error{Kind: heed.Invalid, Op: "crawl", URL: start, Err: err}
	}
	if emit == nil {
		emit = func(Event) {}
	}
	r := &run{
		eng: &Engine{agent: c.Agent, o: o, scope: sc},
		c:   c, o: o, emit: emit, start: start,
		frontier: c.frontier(o.MaxPages), stored: map[string]bool{}, contents: map[string]string{}, active: map[string]bool{}, paces: map[string]string{}, said: map[string]string{},
		tokens: make(chan struct{}, o.Hosts),
		procs:  make(chan struct{}, runtime.GOMAXPROCS(0)),
		stores: make(chan struct{}, stashBatch),
	}
	r.sum.Skipped = map[string]int{}
	// A source crawled before has validators to ask for each page; a new
	// one has none, and its crawl does not wait on the index to learn so.
	r.validators = c.Store != nil && c.Store.HasValidators(ctx, o.Source)
	r.client = c.Client.Spaced(o.Delay)
	switch {
	case o.NoRobots:
		r.policy = robots.Off{}
	case c.Robots != nil:
		r.policy = c.Robots
	case c.Ledger != nil:
		// robots.txt as the ledger keeps it while it lives: a crawl taken
		// up again does not ask for it again.
		r.policy = robots.NewCache(ledger.RobotsLoader(c.Ledger, r.client.LoadRobotsFile), robots.CacheConfig{})
	default:
		r.policy = robots.NewCache(r.client.LoadRobots, robots.CacheConfig{})
	}
	r.sum.Robots = r.policy.String()
	ctx = polite.WithCrawlDelay(polite.WithDelay(ctx, o.Delay), c.Agent, o.MaxCrawlDelay)
	ctx = polite.WithWaiting(ctx, r.waiting)
	ctx, cancel := context.WithTimeout(ctx, o.Deadline)
	defer cancel()
	ctx, r.stop = context.WithCancelCause(ctx)
	defer r.stop(nil)
	r.ctx = ctx

	began := Event{Kind: Began, URL: start, Detail: sc.String(), Narrow: sc.narrow()}
	if c.Ledger != nil {
		res, err := r.begin(ctx)
		switch {
		case errors.Is(err, ledger.ErrNoCrawl):
			return nil, &heed.Error{Kind: heed.NotFound, Op: "resume", URL: start, Err: err}
		case errors.Is(err, ledger.ErrNotResumable):
			return nil, &heed.Error{Kind: heed.Invalid, Op: "resume", URL: start, Err: err}
		case err != nil:
			return nil, &heed.Error{Kind: heed.Internal, Op: "record the crawl", URL: start, Err: err}
		}
		go r.record()
		defer r.finish()
		began.Crawl, began.Resumed = r.id, res
	}
	emit(began)

	// The start URL must be allowed: a crawl refused at its door fails,
	// and says why.
	d, err := r.policy.Allowed(ctx, c.Agent, start)
	r.refused = err != nil || !d.Allowed
	if err != nil {
		return nil, &heed.Error{Kind: heed.Blocked, Op: "crawl", URL: start, Err: fmt.Errorf("%w: robots.txt: %w", ErrStartRefused, err)}
	}
	if !d.Allowed {
		return nil, &heed.Error{Kind: heed.Blocked, Op: "crawl", URL: start, Err: &Disallowed{Decision: d}}
	}

	batcher, _ := c.Store.(Batcher)
	if batcher != nil {
		// Pages are indexed in batches, one transaction each: much less
		// work than one each, and safe, since a page's file is written
		// first and the next Open indexes any whose entry did not make it.
		batcher.SetBatch(stashBatch)
	}
	if began.Resumed != nil {
		r.requeue()
		if r.kept != "" {
			// The crawl goes on where it stopped: its start page was
			// kept, and its seeds are read now, but for those read to
			// their end.
			r.seedAfter(r.kept)
		}
	}
	if !r.seeded {
		// A new crawl, or one cut short before its start URL was queued
		// (at its door): it begins at the start.
		r.add(Item{URL: start, Depth: 0})
	}
	r.wg.Wait()
	if r.seedAfter("") {
		// The start URL ended without a page kept: the seeds that do
		// not wait for one (its sitemaps) are read now.
		r.wg.Wait()
	}
	if r.sum.Stored+r.base.Stored+r.sum.Unchanged+r.base.Unchanged > 0 {
		// A complete crawl says which of the source's pages it no longer
		// reached: they are gone.
		if err := r.sweep(ctx); err != nil {
			r.fatal(err)
		}
	}
	if batcher != nil {
		// The last batch's index entries: the crawl is done when they are.
		if err := batcher.Flush(context.WithoutCancel(ctx)); err != nil {
			r.fatal(err)
		}
	}
	r.sum.Elapsed = time.Since(begin)
	r.sum.Seconds = r.sum.Elapsed.Seconds()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stashErr != nil {
		return &r.sum, r.stashErr
	}
	if r.sum.Stored+r.base.Stored == 0 && r.sum.Unchanged+r.base.Unchanged == 0 && !errors.Is(context.Cause(ctx), context.Canceled) {
		// Nothing was kept, in this run or (of a crawl taken up again) an
		// earlier one, and the crawl was not stopped: it failed, and says
		// why, by what became of the start URL.
		switch {
		case r.startErr != nil:
			return &r.sum, &heed.Error{Kind: heed.KindOf(r.startErr), Op: "crawl", URL: start, Err: fmt.Errorf("%w: %w", ErrStartFailed, r.startErr)}
		case r.startSkip != "":
			return &r.sum, &heed.Error{Kind: heed.Other, Op: "crawl", URL: start, Err: fmt.Errorf("%w: the start URL was skipped: %s", ErrNothingKept, r.startSkip)}
		default:
			return &r.sum, &heed.Error{Kind: heed.Other, Op: "crawl", URL: start, Err: ErrNothingKept}
		}
	}
	return &r.sum, nil
}

// add queues a URL at its depth, unless it was seen or is out of scope,
// and starts a worker for its host. What the crawl keeps is bounded: at
// most maxWaiting URLs are fetched or wait in the queues (beyond what can
// be fetched, a reserve for those robots.txt disallows), and the seen set
// holds a bounded number of URLs, by hash; a URL found beyond either
// bound is counted (Summary.Left.URLs), not kept, and may be queued when
// found again with room.
func (r *run) add(it Item) {
	r.offer(it, false)
}

// maxWaiting is how many URLs a crawl of maxPages pages holds fetched or
// queued at most: all it can fetch, and as many again and a thousand more
// for URLs that robots.txt turns away unfetched.
func maxWaiting(maxPages int) int { return 2*maxPages + 1000 }

// offer is add; quiet URLs out of scope are counted, not reported one by
// one, and not remembered (a sitemap may list a million of them).
func (r *run) offer(it Item, quiet bool) {
	if len(it.URL) > fetch.MaxURLLength {
		r.mu.Lock()
		r.sum.Left.URLs++
		r.mu.Unlock()
		return
	}
	u, err := url.Parse(it.URL)
	if err != nil {
		return
	}
	if u.Path == "/robots.txt" {
		return // a site's robots.txt is not one of its pages
	}
	r.mu.Lock()
	if r.frontier.Seen(it.URL) {
		r.mu.Unlock()
		return
	}
	reason, why := r.eng.Admit(u, it.Depth)
	if reason == ReasonScope && quiet {
		r.sum.Skipped[ReasonScope]++
		r.mu.Unlock()
		return
	}
	if reason == "" && r.fetched+r.queued >= maxWaiting(r.o.MaxPages) || !r.frontier.Room() {
		r.sum.Left.URLs++
		r.mu.Unlock()
		return
	}
	r.frontier.Mark(it.URL)
	if reason != "" {
		r.mu.Unlock()
		r.skip(it, reason, why)
		return
	}
	r.push(u.Host, it)
	r.mu.Unlock()
}

// push queues an item behind the others of its host, in the frontier
// and the ledger, and starts the host's worker if it has none; r.mu is
// held.
func (r *run) push(host string, it Item) {
	r.frontier.Push(host, it)
	r.note(ledger.Entry{URL: it.URL, Fate: ledger.Queued, Depth: it.Depth, LastMod: it.LastMod, Via: it.Via})
	r.queued++
	if !r.active[host] {
		r.active[host] = true
		r.wg.Add(1)
		go r.worker(host)
	}
}

// hostSlot takes one of the Options.Hosts places that requests to
// hosts at once may have, for a request made beside the workers' (a
// page's Markdown alternate, the site's llms.txt), as a worker holds
// one: those are bounded together. The page's place among those being
// extracted is let go first (extracted), so that a worker waiting for
// that place never waits on this. ok is false when the crawl ended.
func (r *run) hostSlot(extracted func()) (release func(), ok bool) {
	extracted()
	select {
	case r.tokens <- struct{}{}:
		return func() { <-r.tokens }, true
	case <-r.ctx.Done():
		return nil, false
	}
}

// worker crawls one host's queue, one request at a time.
func (r *run) worker(host string) {
	defer r.wg.Done()
	select {
	case r.tokens <- struct{}{}:
		defer func() { <-r.tokens }()
	case <-r.ctx.Done():
		// The crawl is over: the loop below skips what is queued.
	}
	for {
		r.mu.Lock()
		it, ok := r.frontier.Pop(host)
		if !ok {
			r.active[host] = false
			r.mu.Unlock()
			return
		}
		r.queued--
		r.mu.Unlock()
		if r.ctx.Err() != nil {
			r.skip(it, r.stopReason(), "the crawl stopped: "+context.Cause(r.ctx).Error())
			continue
		}
		r.visit(it)
	}
}

// exhausted reports whether max_pages requests were made.
func (r *run) exhausted() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fetched >= r.o.MaxPages
}

// take counts one more request against max_pages, if there is room.
func (r *run) take() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fetched >= r.o.MaxPages {
		return false
	}
	r.fetched++
	r.asking++
	return true
}

// full reports whether the crawl has as many URLs fetched and queued as
// it may fetch: reading more sitemaps would be no use.
func (r *run) full() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fetched+r.queued >= r.o.MaxPages
}

// stopReason is why URLs still queued when the crawl ended were skipped:
// the stash failed, the crawl was interrupted (its caller cancelled it:
// Ctrl-C), or its deadline came.
func (r *run) stopReason() string {
	switch cause := context.Cause(r.ctx); {
	case errors.Is(cause, ErrStash):
		return ReasonStopped
	case errors.Is(cause, ledger.ErrCancelled):
		return ReasonCancelled
	case errors.Is(cause, context.Canceled):
		return ReasonInterrupted
	}
	return ReasonDeadline
}

func (r *run) count(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e.Kind {
	case Stored:
		r.sum.Stored++
		switch e.Change {
		case heed.New:
			r.sum.New++
		case heed.Changed:
			r.sum.Changed++
		}
	case Unchanged:
		r.sum.Unchanged++
	case Removed:
		r.sum.Removed++
	case Failed:
		r.sum.Failed++
	case Skipped:
		r.sum.Skipped[e.Reason]++
	}
}

// report says what a URL of the crawl came to (it, or the URL it
// redirected to), and notes it in the ledger, with the hash of its
// content if it was kept.
func (r *run) report(it Item, e Event, hash string) {
	r.ended(it, e, hash)
	r.tell(e)
}

// tell counts an event and says it.
func (r *run) tell(e Event) {
	r.count(e)
	r.mu.Lock()
	e.Queued = r.queued
	r.mu.Unlock()
	r.emit(e)
}

func (r *run) skip(it Item, reason, detail string) {
	if it.Depth == 0 && reason != ReasonRedirect {
		r.mu.Lock()
		if it.URL == r.start && r.startSkip == "" {
			r.startSkip = reason + ": " + detail
		}
		r.mu.Unlock()
	}
	r.report(it, Event{Kind: Skipped, URL: it.URL, Depth: it.Depth, Reason: reason, Detail: detail}, "")
}

func (r *run) fail(it Item, err error) {
	r.mu.Lock()
	if it.Depth == 0 && it.URL == r.start {
		r.startErr = err
	}
	r.mu.Unlock()
	e := Event{Kind: Failed, URL: it.URL, Depth: it.Depth, Reason: heed.KindOf(err).String(), Detail: err.Error()}
	if errors.Is(err, heed.ErrUnwritable) || errors.Is(err, heed.ErrBusy) {
		// The stash's failure, not the page's: the URL stays queued in
		// the ledger, for the crawl taken up once the stash can be
		// written.
		r.tell(e)
		return
	}
	r.report(it, e, "")
}

// visit decides what one URL comes to (Engine.Visit): its request on
// its host's turn, here; its page is read and committed in a goroutine
// of its own, so that the host's next request may go out meanwhile:
// politeness is about requests, and extraction is ours to do in
// parallel.
func (r *run) visit(it Item) {
	t := &turn{r: r, it: it, extracted: func() {}}
	f, res := r.eng.request(r.ctx, t, it)
	if res != nil {
		r.commit(t.it, res, t.extracted)
		return
	}
	r.procs <- struct{}{}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		extracted := sync.OnceFunc(func() { <-r.procs })
		defer extracted()
		t.extracted = extracted
		res := r.eng.read(r.ctx, t, it, f)
		r.commit(t.it, res, extracted) // t.it counts the requests read made
		if it.Depth == 0 {
			r.mu.Lock()
			from := r.seedFrom
			r.mu.Unlock()
			if from != "" {
				// The start page is kept: the crawl's seeds are read.
				r.seedAfter(from)
			}
		}
	}()
}

// commit does what a URL came to: reports it, queues its links, and
// stores its page unless it is a duplicate of one this crawl kept. It
// calls extracted once the page has its place among the pages waiting
// to be stored: a batch of them at most, Markdown and links only.
func (r *run) commit(it Item, res *Result, extracted func()) {
	if res.Stop != nil {
		// (The URL's requests, made or not, are given back as it stays
		// queued: ended.)
		why := res.Stop
		if cause := context.Cause(r.ctx); cause != nil {
			why = cause
		}
		r.skip(it, r.stopReason(), "the crawl stopped: "+why.Error())
		return
	}
	if res.Requested {
		if u, err := url.Parse(it.URL); err == nil {
			r.noteTurn(u, res.Delay)
		}
	}
	if res.Moved != "" {
		r.mu.Lock()
		if it.URL == r.start {
			r.start = res.Moved // what becomes of the target is what became of the start
		}
		r.mu.Unlock()
		r.add(Item{URL: res.Moved, Depth: it.Depth})
	}
	delay := ""
	if res.Requested {
		delay = res.Delay.String()
	}
	// The page's links are queued once its content has its place among
	// this crawl's (below), or when it is not kept: a twin it links to
	// (/ and /index.html) is not processed before it and kept instead.
	follow := sync.OnceFunc(func() {
		for _, l := range res.Follow {
			r.add(Item{URL: l, Depth: it.Depth + 1})
		}
	})
	end, err := r.eng.Settle(r.ctx, &keep{r: r, doc: res.Doc, follow: follow, extracted: extracted}, it, res)
	switch {
	case err != nil && r.ctx.Err() != nil && res.Kind == Stored:
		r.skip(it, r.stopReason(), "the crawl stopped before the page was stored: "+context.Cause(r.ctx).Error())
		return
	case err != nil:
		// The store's failure, not the page's: a kind of its own.
		r.fail(it, &heed.Error{Kind: heed.Internal, Op: "store", Err: err})
		if errors.Is(err, heed.ErrUnwritable) || errors.Is(err, heed.ErrBusy) {
			r.fatal(err)
		}
		return
	case end.Again:
		// Asked again on a later turn of its host, behind the URLs
		// queued: it does not end now.
		if u, err := url.Parse(it.URL); err == nil {
			it.Attempts++
			r.mu.Lock()
			r.asking -= it.requests // made, and recorded with its queuing again
			it.requests = 0
			r.push(u.Host, it)
			r.mu.Unlock()
			return
		}
	}
	switch end.Kind {
	case Failed:
		if end.Dead {
			r.mu.Lock()
			r.gone++
			r.mu.Unlock()
		}
		r.fail(it, end.Err)
	case Removed:
		r.report(it, Event{Kind: Removed, URL: it.URL, Depth: it.Depth, Reason: end.Reason, Detail: end.Detail, Delay: delay}, "")
	case Skipped:
		follow()
		r.skip(it, end.Reason, end.Detail)
	case Unchanged:
		follow()
		r.report(it, Event{Kind: Unchanged, URL: end.URL, Depth: it.Depth, Delay: delay, Rendered: res.Rendered}, res.Hash)
	case Stored:
		r.report(it, Event{Kind: Stored, URL: end.URL, Depth: it.Depth, Delay: delay, Rendered: res.Rendered, Change: end.Change, Version: end.Version}, res.Hash)
	}
	if end.Moved {
		r.tell(MovedEvent(it.URL, end.URL))
	}
}

// keep is where a URL's end is kept on one machine (Keeper): the
// crawl's store, and what it kept as the crawl's memory holds it.
type keep struct {
	r   *run
	doc *extract.Document // the page's, for Options.Page
	// follow queues the page's links, once its content has its place
	// among this crawl's: a twin it links to (/ and /index.html) is not
	// processed before it and kept instead.
	follow func()
	// extracted is called once the page has its place among the pages
	// waiting to be stored.
	extracted func()
}

func (k *keep) Claim(_ context.Context, cn string, it Item) (bool, error) {
	r := k.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stored[cn] {
		return true, nil
	}
	r.stored[cn] = true
	r.frontier.Mark(cn)
	r.note(ledger.Entry{URL: cn, Fate: ledger.Claimed, Depth: it.Depth})
	return false, nil
}

func (k *keep) Twin(_ context.Context, final, hash string) (string, error) {
	r := k.r
	r.mu.Lock()
	same := ""
	if hash != "" {
		if same = r.contents[hash]; same == "" {
			r.contents[hash] = final
		}
	}
	r.stored[final] = true
	r.mu.Unlock()
	k.follow()
	return same, nil
}

// Put stores a page fetched, though the crawl stopped (Ctrl-C, its
// deadline): a page fetched is a page kept, rather than asked again.
func (k *keep) Put(ctx context.Context, snap *heed.Snapshot) (bool, error) {
	r := k.r
	if r.o.Page != nil {
		r.o.Page(snap.URL, k.doc)
	}
	if r.c.Store == nil {
		return true, nil
	}
	// While the stash indexes a batch, pages wait to be stored: the next
	// ones are fetched and extracted meanwhile, as many as a batch.
	r.stores <- struct{}{}
	defer func() { <-r.stores }()
	k.extracted()
	return r.c.Store.Put(context.WithoutCancel(ctx), snap)
}

// Remove marks a page removed, gone or moved. A page stored that moved
// is kept though its old URL could not be marked: its move is found
// again by the next crawl.
func (k *keep) Remove(ctx context.Context, rawURL, why string) (bool, error) {
	if k.r.c.Store == nil {
		return false, nil
	}
	removed, err := k.r.c.Store.MarkRemoved(context.WithoutCancel(ctx), k.r.o.Source, rawURL, time.Now(), why)
	if why == ReasonMoved && err != nil {
		return false, nil
	}
	return removed, err
}

func (k *keep) WasRemoved(ctx context.Context, rawURL string) (bool, error) {
	return k.r.c.Store != nil && k.r.c.Store.Hash(context.WithoutCancel(ctx), k.r.o.Source, rawURL) != "", nil
}

// delayFor is the time to keep after a request to url's host: the larger of
// the configured delay and the robots.txt Crawl-delay, capped
// (Engine.pace). It notes why, for the host's waits (waiting).
func (r *run) delayFor(rawURL string) time.Duration {
	out := robots.Outcome{Status: robots.Unavailable}
	if cache, ok := r.policy.(*robots.Cache); ok {
		if o, err := cache.Outcome(r.ctx, rawURL); err == nil {
			out = o
		}
	}
	delay, why := r.eng.pace(out)
	r.notePace(rawURL, why)
	return delay
}

// notePace notes why url's host is asked as seldom as it is.
func (r *run) notePace(rawURL, why string) {
	if u, err := url.Parse(rawURL); err == nil && why != "" {
		r.mu.Lock()
		if _, ok := r.paces[polite.HostKey(u)]; ok || len(r.paces) < maxPaces {
			r.paces[polite.HostKey(u)] = why
		}
		r.mu.Unlock()
	}
}

// maxPaces is how many hosts' delays a crawl notes for its waits.
const maxPaces = 1024

// waiting reports a wait for host's turn of a second or more, and why
// the host is asked so seldom, as delayFor last found it: once for each
// host and why, since a host's delay makes every request to it wait (a
// crawl of 500 pages would say the same 500 times). It is called with
// the host's turn held, so asks robots.txt nothing.
func (r *run) waiting(host string, wait time.Duration) {
	if wait < minWaitReported {
		return
	}
	r.mu.Lock()
	why := r.paces[host]
	if why == "" {
		why = "a delay of " + r.o.Delay.String()
	}
	said := r.said[host] == why
	if !said && (r.said[host] != "" || len(r.said) < maxPaces) {
		r.said[host] = why
	}
	r.mu.Unlock()
	if said {
		return
	}
	r.emit(Event{Kind: Waiting, URL: host, Detail: fmt.Sprintf("waiting %s for %s: %s", wait.Round(100*time.Millisecond), host, why)})
}

// startMoved is what a start URL's redirect out of the crawl's scope
// adds to why: the crawl keeps nothing, and the user is told where to
// start instead (/py/library/ moved to /3/library/).
func startMoved(next string) string {
	return "; crawl from " + fetch.Redact(next) + " to crawl there"
}

// resolve reads ref against base, leniently: sitemaps should list
// absolute URLs, but some list paths.
func resolve(base, ref string) string {
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	u, err := b.Parse(strings.TrimSpace(ref))
	if err != nil {
		return ref
	}
	return u.String()
}

func isPlainText(contentType string) bool {
	return strings.HasPrefix(strings.ToLower(contentType), "text/plain")
}

// isLLMsFull reports whether a URL is a site's /llms-full.txt.
func isLLMsFull(rawURL string) bool {
	u, err := url.Parse(rawURL)
	return err == nil && u.Path == "/llms-full.txt"
}

// isMarkdownPath reports whether a URL's path names a Markdown file.
func isMarkdownPath(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	p := strings.ToLower(u.Path)
	return strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".markdown")
}

func isMarkdown(contentType string) bool {
	ct := strings.ToLower(contentType)
	return strings.HasPrefix(ct, "text/markdown") || strings.HasPrefix(ct, "text/x-markdown")
}

func isHTML(contentType string) bool {
	ct := strings.ToLower(contentType)
	return ct == "" || strings.HasPrefix(ct, "text/html") || strings.HasPrefix(ct, "application/xhtml+xml")
}

// seedAfter reads the crawl's seeds (Engine.Seed), once a run, from
// where its start page was fetched (from), or, with from "", without
// the seeds that wait for one; a crawl that had read them does not read
// them again. It reads them in a goroutine of the crawl's, on one of
// the places of Options.Hosts, and reports
// whether it started to; the pages they list are queued as links are.
// What it leaves unread is counted in Summary.Left.Sitemaps.
func (r *run) seedAfter(from string) (started bool) {
	if r.seedsRead || r.ctx.Err() != nil {
		return false
	}
	r.seedOnce.Do(func() {
		started = true
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			// Its requests take one of the places of Options.Hosts, as
			// a host's worker does (hostSlot).
			release, ok := r.hostSlot(func() {})
			if !ok {
				return
			}
			defer release()
			r.seed(from)
		}()
	})
	return started
}

func (r *run) seed(from string) {
	su, err := url.Parse(r.eng.o.Start)
	if err != nil {
		return
	}
	var listed []string
	if c, ok := r.policy.(*robots.Cache); ok {
		if o, err := c.Outcome(r.ctx, su.Scheme+"://"+su.Host+"/"); err == nil && o.Robots != nil {
			listed = o.Robots.Sitemaps
		}
	}
	unread, err := r.eng.Seed(r.ctx, Seeding{
		From:   from,
		Listed: listed,
		Client: func(loc string) *polite.Client { return r.c.Client.Spaced(r.delayFor(loc)) },
		Allowed: func(raw string) bool {
			d, err := r.policy.Allowed(r.ctx, r.c.Agent, raw)
			return err == nil && d.Allowed
		},
		Full:  r.full,
		Offer: func(it Item) { r.offer(it, true) },
		Done:  func(file string) bool { return r.seedFiles[file] },
		Read: func(file string) {
			r.mu.Lock()
			r.note(ledger.Entry{URL: seedMark(file), Fate: ledger.Seen})
			r.mu.Unlock()
		},
	})
	r.mu.Lock()
	r.sum.Left.Sitemaps += unread
	if err == nil {
		r.note(ledger.Entry{URL: seedsMark(su), Fate: ledger.Seen})
	}
	r.mu.Unlock()
}

// seedMark is the entry of a crawl's ledger that says it read a seed
// file to its end: the file's URL with a fragment, which no URL the
// crawl queues has.
func seedMark(file string) string { return file + "#seeded" }

// seedsMark is the entry of a crawl's ledger that says it read its
// seeds (to their end, or to its bounds): its origin's /sitemap.xml with
// a fragment, which no URL the crawl queues has.
func seedsMark(start *url.URL) string {
	return start.Scheme + "://" + start.Host + "/sitemap.xml#read"
}
