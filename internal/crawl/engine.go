package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/robots"
)

// Engine decides what each URL of a crawl comes to: the one decision of
// every crawl, on one machine or a team's. Where the crawl's state lives
// (its frontier, its hosts' turns, its robots.txt, its count of
// requests) is the Turn's; what a URL comes to is Visit's.
type Engine struct {
	agent string
	o     Options
	scope *scope
}

// NewEngine is the engine of a crawl of o (filled and checked: its Start
// normalized, its Source named) as agent.
func NewEngine(o Options, agent string) (*Engine, error) {
	su, err := url.Parse(o.Start)
	if err != nil {
		return nil, err
	}
	sc, err := newScope(su, o)
	if err != nil {
		return nil, err
	}
	return &Engine{agent: agent, o: o, scope: sc}, nil
}

// ErrTurnOver is wrapped by a Turn's error that ends the host's turn
// before the URL's end (the host was taken from the crawl, or is wanted
// by another request): the URL stays queued.
var ErrTurnOver = errors.New("the host's turn is over")

// MaxAttempts is how often a URL is fetched when each time fails for a
// cause that may pass (a timeout, a network cut, a 5xx or a 429), each on
// a later turn of its host, before it is taken for failed: a crawl cut
// off from a site for a moment loses no page.
const MaxAttempts = 3

// retry reports whether a URL that failed for err on its attempts-th
// try (from 0) is queued again for a later turn, rather than ended.
func retry(err error, attempts int) bool {
	return heed.KindOf(err) == heed.Transient && attempts+1 < MaxAttempts
}

// ErrFull is a Turn's error when the crawl has made its max_pages
// requests: the URL is skipped for the limit.
var ErrFull = errors.New("the crawl's max_pages are spent")

// Part is what a request counted against max_pages is.
type Part int

const (
	PartURL       Part = iota // the request of a queued URL
	PartHop                   // a redirect's next hop
	PartAlternate             // a page's Markdown alternate
)

// Turn is what deciding a URL needs of the crawl on the URL's host's
// turn. One machine's crawl keeps it all in this process; a team's in
// its database.
type Turn interface {
	// Robots is what the robots.txt of it's origin says, read once for
	// the URL and its redirect hops and final URL (all of its origin).
	// ErrFull skips the URL for the limit; an error wrapping ErrTurnOver,
	// or any once ctx is done, leaves it queued; another fails it.
	Robots(ctx context.Context, it Item) (robots.Outcome, error)
	// Take counts a request of part against max_pages, on the host's
	// turn; ok is false when none is left. The request is made in rctx;
	// done is called after it. Its error ends the URL as Robots's does.
	Take(ctx context.Context, part Part) (rctx context.Context, done func(), ok bool, err error)
	// Client makes requests to the URL's host, spaced by delay, which
	// why explains (for the host's waits).
	Client(delay time.Duration, why string) *polite.Client
	// Validators are what the page was stored with, for a conditional
	// request.
	Validators(ctx context.Context, it Item) (etag, lastModified string)
	// Mark marks a URL that a request of it fetched (where it redirected
	// to, its Markdown alternate) as the crawl's: seen is true when the
	// crawl had it already.
	Mark(ctx context.Context, rawURL string, it Item) (seen bool)
	// Unchanged reads what the page was stored with, as it answered "not
	// modified": its links, to follow, and its content's hash.
	Unchanged(ctx context.Context, it Item) (links []string, hash string, err error)
	// Render renders the page read from resp when it needs it (Render),
	// its requests made on their hosts' turns.
	Render(ctx context.Context, it Item, resp *fetch.Response, p *Page) (*Page, bool, error)
	// Began is called when the start URL's page was fetched and can be
	// kept, with where it was fetched from: the crawl's seeds that wait
	// for it (llms.txt) may be read.
	Began(final string)
}

// Result is what a URL came to, before the crawl's duplicates are
// asked: the crawl commits it (Stop aside).
type Result struct {
	Kind           Kind
	Reason, Detail string
	// Stop, when set, is why the URL was left before its end (the crawl
	// stopped, the host's turn was over): it stays queued.
	Stop error
	// Requested says a request was made, Delay is the host's delay after it.
	Requested bool
	Delay     time.Duration
	// Final is the URL fetched at last, when it redirected on its origin.
	Final string
	// Alternate is the page's Markdown alternate, normalized, when the
	// page made it the crawl's (Turn.Mark), read or not: no page of its
	// own, and not asked for again.
	Alternate string
	// Moved is the URL on another origin it redirected to, normalized:
	// queued at the URL's depth, for that origin's turn.
	Moved string
	// Follow are the page's links to queue, one deeper.
	Follow []string
	// Snapshot is the page to store (Kind Stored).
	Snapshot *heed.Snapshot
	Doc      *extract.Document
	// Hash is the content's hash, of a page stored or unchanged (then
	// "" when the store has none).
	Hash string
	// Canonical is the page's canonical URL, normalized, when it names
	// another: a twin of a page stored.
	Canonical string
	Rendered  bool
	// Err is why the URL failed (Kind Failed).
	Err error
}

func skipped(reason, detail string) *Result {
	return &Result{Kind: Skipped, Reason: reason, Detail: detail}
}

func failed(err error) *Result {
	return &Result{Kind: Failed, Reason: heed.KindOf(err).String(), Detail: err.Error(), Err: err}
}

// fetched is a URL's response, for Read.
type fetched struct {
	resp  *fetch.Response
	out   robots.Outcome
	delay time.Duration
}

// Visit decides what a URL comes to, on its host's turn: robots.txt,
// the site's content signals and the limit first; then the request, each
// redirect hop answering to scope, robots.txt and the limit; then the
// page (Read).
func (e *Engine) Visit(ctx context.Context, t Turn, it Item) *Result {
	f, res := e.request(ctx, t, it)
	if res != nil {
		return res
	}
	return e.read(ctx, t, it, f)
}

// Admit says why a URL found at depth is not queued, with the reason
// it is skipped for: out of the crawl's scope (at depth 0, where the
// start URL redirected: the user is told where to start instead), or
// deeper than max_depth. It says "" for a URL the crawl queues.
func (e *Engine) Admit(u *url.URL, depth int) (reason, detail string) {
	if why := e.scope.check(u); why != "" {
		if depth == 0 {
			why += startMoved(u.String())
		}
		return ReasonScope, why
	}
	if depth > max(e.o.MaxDepth, 0) {
		return ReasonLimit, fmt.Sprintf("deeper than max_depth %d", max(e.o.MaxDepth, 0))
	}
	return "", ""
}

// spent says the crawl has made its max_pages requests.
func (e *Engine) spent() string { return fmt.Sprintf("max_pages %d reached", e.o.MaxPages) }

// stop is the result of a URL left before its end.
func stop(err error) *Result { return &Result{Stop: err} }

// stopped reports whether err, met once ctx may be done, stops the URL.
func stopped(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, ErrTurnOver)
}

// Pace is the time to keep after a request to a host whose robots.txt
// came to out, for requests beside a crawl's own (a site's map): pace's.
func (e *Engine) Pace(out robots.Outcome) time.Duration {
	d, _ := e.pace(out)
	return d
}

// pace is the time to keep after a request to the host, and why: the
// crawl's delay, or its robots.txt Crawl-delay, capped, when that is
// longer (polite.Pace).
func (e *Engine) pace(out robots.Outcome) (time.Duration, string) {
	delay := e.o.Delay
	why := "a delay of " + delay.String()
	if cd, ok := out.CrawlDelay(e.agent); ok {
		if paced := polite.Pace(delay, cd, e.o.MaxCrawlDelay); paced > delay {
			delay = paced
			why = "Crawl-delay " + cd.String()
			if cd > e.o.MaxCrawlDelay {
				why += ", capped at " + e.o.MaxCrawlDelay.String()
			}
		}
	}
	return delay, why
}

// robots is the outcome robots.txt gives the URL's origin: Unavailable
// (everything allowed) where the crawl does not consult it.
func (e *Engine) robots(ctx context.Context, t Turn, it Item) (robots.Outcome, error) {
	if e.o.NoRobots {
		return robots.Outcome{Status: robots.Unavailable}, nil
	}
	return t.Robots(ctx, it)
}

// request makes the URL's request, or says what it came to without one.
func (e *Engine) request(ctx context.Context, t Turn, it Item) (*fetched, *Result) {
	out, err := e.robots(ctx, t, it)
	switch {
	case errors.Is(err, ErrFull):
		return nil, skipped(ReasonLimit, e.spent())
	case err != nil && stopped(ctx, err):
		return nil, stop(err)
	case err != nil:
		return nil, failed(err)
	}
	if d := out.Allowed(e.agent, it.URL); !d.Allowed {
		return nil, skipped(ReasonRobots, d.String())
	}
	// A page the site's content signal keeps from agents is not asked
	// for: it could not be stored (or searched) once fetched.
	if sig := out.ContentSignals(e.agent); !e.o.IgnoreSignals && sig.Denies(robots.SignalAIInput) {
		return nil, skipped(ReasonSignal, "robots.txt says Content-Signal: "+sig.String()+"; not fetched")
	}
	// Only requests about to be made count against max_pages.
	rctx, done, ok, err := t.Take(ctx, PartURL)
	switch {
	case err != nil && stopped(ctx, err):
		return nil, stop(err)
	case err != nil:
		return nil, failed(err)
	case !ok:
		return nil, skipped(ReasonLimit, e.spent())
	}
	defer done()
	u, _ := url.Parse(it.URL)
	delay, why := e.pace(out)
	// Every redirect hop answers to scope and robots.txt before it is
	// followed: a Disallow: /secret/ is not fetched through /secret's
	// redirect to it.
	var refused *Result
	req := fetch.Request{URL: it.URL, NoRetry: true, CheckRedirect: func(next string) error {
		nu, err := url.Parse(next)
		if err != nil {
			return err
		}
		if nu.Host != u.Host || nu.Scheme != u.Scheme {
			// Another host has its own schedule, and another origin (http
			// to https on this host) its own robots.txt, which is not to
			// be asked on this turn (its load would wait for the turn):
			// the redirect's target is queued, not fetched now.
			refused = skipped(ReasonRedirect, "redirected to "+next+": another origin; queued")
			if n, err := Normalize(next); err == nil {
				refused.Moved = n
			}
			return errors.New(refused.Detail)
		}
		if why := e.scope.check(nu); why != "" {
			if it.Depth == 0 {
				why += startMoved(next)
			}
			refused = skipped(ReasonScope, "redirected to "+next+": "+why)
			return errors.New(refused.Detail)
		}
		if d := out.Allowed(e.agent, next); !d.Allowed {
			refused = skipped(ReasonRobots, "redirected to "+next+": "+d.String())
			return errors.New(refused.Detail)
		}
		// Every request counts against max_pages, a redirect's hop too.
		_, hopDone, ok, err := t.Take(ctx, PartHop)
		if err != nil {
			return err
		}
		hopDone()
		if !ok {
			refused = skipped(ReasonLimit, "redirected to "+next+": "+e.spent())
			return errors.New(refused.Detail)
		}
		return nil
	}}
	req.ETag, req.LastModified = t.Validators(ctx, it)
	resp, err := t.Client(delay, why).Get(rctx, req)
	if errors.Is(err, polite.ErrNoTurn) {
		// The crawl ended while the request (or its redirect's next hop)
		// waited for its host's turn.
		return nil, stop(err)
	}
	if refused != nil {
		// A redirect to be followed on another turn was a request: it
		// counts against max_pages, as its target's request will.
		refused.Requested, refused.Delay = true, delay
		return nil, refused
	}
	if err != nil && stopped(ctx, err) {
		// The crawl stopped while the page was asked for: the page did
		// not fail.
		return nil, stop(err)
	}
	if err != nil {
		res := failed(err)
		res.Requested, res.Delay = true, delay
		return nil, res
	}
	return &fetched{resp: resp, out: out, delay: delay}, nil
}

// read does what a fetched page says: checks the final URL, extracts the
// page (rendered where it needs it, or its Markdown alternate in its
// place), heeds its signals, and gives its snapshot and its links.
func (e *Engine) read(ctx context.Context, t Turn, it Item, f *fetched) *Result {
	res := e.page(ctx, t, it, f)
	if res.Stop == nil {
		res.Requested, res.Delay = true, f.delay
	}
	return res
}

func (e *Engine) page(ctx context.Context, t Turn, it Item, f *fetched) *Result {
	resp, out := f.resp, f.out
	final := resp.URL
	res := &Result{}
	if final != it.URL {
		// The URL fetched is the URL checked: after redirects, the final
		// URL answers to scope and robots.txt again.
		fu, _ := url.Parse(final)
		if why := e.scope.check(fu); why != "" {
			return skipped(ReasonScope, "redirected to "+final+": "+why)
		}
		if d := out.Allowed(e.agent, final); !d.Allowed {
			return skipped(ReasonRobots, "redirected to "+final+": "+d.String())
		}
		if !resp.NotModified && (resp.Status < 200 || resp.Status > 299) {
			// Where it redirected to failed for a cause that may pass:
			// it is not the crawl's yet, and the URL is asked again,
			// redirect and all.
			if err := (&fetch.StatusError{Status: resp.Status}); retry(err, it.Attempts) {
				return failed(err)
			}
		}
		if t.Mark(ctx, final, it) {
			return skipped(ReasonDup, "redirected to "+final+", already crawled")
		}
		res.Final = final
	}
	if resp.NotModified {
		links, hash, err := t.Unchanged(ctx, it)
		if err != nil && stopped(ctx, err) {
			return stop(err)
		}
		if err != nil {
			return failed(err)
		}
		res.Kind, res.Follow, res.Hash = Unchanged, links, hash
		return res
	}
	if resp.Status < 200 || resp.Status > 299 {
		return failed(&fetch.StatusError{Status: resp.Status})
	}
	p, err := readPage(ctx, resp, it, e.agent, e.o.IgnoreSignals)
	if err != nil && stopped(ctx, err) {
		// The crawl stopped while a document was read: the page did not
		// fail, and is asked again.
		return stop(err)
	}
	if err != nil {
		return failed(err)
	}
	p, rendered, err := t.Render(ctx, it, resp, p)
	if err != nil && stopped(ctx, err) {
		// The crawl stopped while the page rendered (or its turn was
		// over): the page did not fail, and is asked again.
		return stop(err)
	}
	if err != nil {
		return failed(err)
	}
	res.Rendered, res.Follow = rendered, p.Follow
	if p.Skip != "" {
		res.Kind, res.Reason, res.Detail = Skipped, p.Skip, p.Detail
		return res
	}
	doc, via, notes := p.Doc, p.Via, p.Notes
	if sig := out.ContentSignals(e.agent); sig.Denies(robots.SignalAIInput) {
		if !e.o.IgnoreSignals {
			res.Kind, res.Reason, res.Detail = Skipped, ReasonSignal, "robots.txt says Content-Signal: "+sig.String()
			return res
		}
		notes = append(notes, "content signal: "+sig.String())
	}
	if it.Depth == 0 && e.o.MaxDepth >= 1 {
		t.Began(final)
	}
	if p.Kind == extract.KindHTML && doc.MarkdownAlternate != "" && !e.o.NoAlternates {
		md, alt := e.alternate(ctx, t, it, final, doc, out, f.delay)
		if md != nil {
			doc, via = md, append(via, ViaMarkdownAlternate)
		}
		res.Alternate = alt
	}
	if doc.Canonical != "" {
		if cn, err := Normalize(doc.Canonical); err == nil && cn != final && cn != it.URL {
			res.Canonical = cn
		}
	}
	res.Kind, res.Doc, res.Hash = Stored, doc, heed.HashOf(doc.Markdown)
	res.Snapshot = &heed.Snapshot{
		Source: e.o.Source, URL: final, Title: doc.Title, Description: doc.Description,
		Author: doc.Author, Published: doc.Published, Modified: doc.Modified,
		FetchedAt: time.Now().UTC(), Tags: e.o.Tags, ETag: resp.ETag(), LastModified: resp.LastModified(),
		Notes: notes, Via: via, Markdown: doc.Markdown, Links: p.Links, Rendered: rendered,
	}
	if rendered {
		// The shell's validators say nothing of what its scripts fetched:
		// a rendered page is asked for whole again.
		res.Snapshot.ETag, res.Snapshot.LastModified = "", ""
	}
	return res
}

// alternate reads the page's Markdown alternate in its place
// (Alternate), when it is on the page's origin, robots.txt allows it,
// the crawl has not read it (a page that names it and the llms.txt that
// lists it do not fetch it twice) and max_pages has room for the request,
// on the host's turn and after its delay, as any page's. marked is the
// alternate's URL when this page made it the crawl's (Turn.Mark).
func (e *Engine) alternate(ctx context.Context, t Turn, it Item, final string, doc *extract.Document, out robots.Outcome, delay time.Duration) (md *extract.Document, marked string) {
	if !sameOrigin(final, doc.MarkdownAlternate) {
		return nil, ""
	}
	allowed := func(raw string) bool { return out.Allowed(e.agent, raw).Allowed }
	if !allowed(doc.MarkdownAlternate) {
		return nil, ""
	}
	alt, err := Normalize(doc.MarkdownAlternate)
	if err != nil || t.Mark(ctx, alt, it) {
		return nil, ""
	}
	rctx, done, ok, err := t.Take(ctx, PartAlternate)
	if err != nil || !ok {
		return nil, alt
	}
	defer done()
	return Alternate(rctx, t.Client(delay, ""), final, doc, allowed), alt
}
