package ingest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/config"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/internal/source"
	"github.com/heedhq/heed/internal/source/bluesky"
	"github.com/heedhq/heed/internal/source/feed"
	"github.com/heedhq/heed/internal/source/kinds"
	"github.com/heedhq/heed/internal/source/website"
	"github.com/heedhq/heed/internal/source/xcom"
	"github.com/heedhq/heed/internal/team"
)

// SourceRequest asks for one source to be read into the store.
type SourceRequest struct {
	// Name is the source's name in the store and the config file.
	Name string
	// Source is where the source is and its settings; its Kind, if set,
	// names the one kind asked ("website" for a crawl), else each kind is
	// asked in turn.
	Source config.Source
	// ChooseFeed picks one of the feeds a web page names (see
	// source.Env); nil takes the website, or the first feed when the
	// feed kind was named.
	ChooseFeed func(page string, feeds []string, orSite bool) (int, error)
	// Events sees a website's crawl, URL by URL.
	Events func(crawl.Event)
	// With a team's database (Config.DB), a website's crawl is queued for
	// the team's workers: Detach returns once it is, else Progress (which
	// may be nil) sees it until it is done.
	Detach   bool
	Progress func(*team.Progress)
}

// SourceResult is what reading a source came to.
type SourceResult struct {
	Name string
	Kind string
	// URL is the URL the source is recorded under: the one asked, or the
	// feed a web page led to.
	URL string
	// Crawl is a website's crawl.
	Crawl *CrawlResult
	// For the other kinds: the items or posts read and how many are new,
	// whether the snapshot changed or the source answered "not
	// modified", and where the snapshot is kept.
	Items, New           int
	Changed, NotModified bool
	Path                 string
}

// CrawlRequestOf is the crawl a website source asks for: its recorded
// options, from its URL, under its name.
func CrawlRequestOf(name string, s *config.Source) CrawlRequest {
	req := CrawlRequest{Options: s.Options}
	req.Start, req.Source = s.URL, name
	return req
}

// Ingest reads a source of any kind into the store through the source
// registry: a website is crawled, a feed, a Bluesky or an X profile read
// into its snapshot. Every request goes through the service's polite
// client, the source's delay apart; robots.txt is asked through the
// service's cache, so that a page probed for feeds and the crawl that
// follows read it once. The store's log records what was done.
//
// A result with an error is a source that was read, and whose reading
// failed part way (a crawl whose store could not be written).
func (s *Service) Ingest(ctx context.Context, req SourceRequest) (*SourceResult, error) {
	if !config.ValidName(req.Name) {
		return nil, &heed.Error{Kind: heed.Invalid, Op: "add", Err: &crawlopt.Error{Name: "name", Want: "a source name (letters, digits, '.', '_' and '-')"}}
	}
	if err := fetch.CheckURL(req.Source.URL); err != nil {
		return nil, &heed.Error{Kind: heed.Invalid, Op: "add", URL: fetch.Redact(req.Source.URL), Err: err}
	}
	st, done, err := s.use(ctx, toWrite)
	if err != nil {
		return nil, err
	}
	defer done()
	if !st.Writable() {
		return nil, &heed.Error{Kind: heed.Transient, Op: "add", URL: fetch.Redact(req.Source.URL), Err: heed.ErrBusy}
	}
	crawlReq := CrawlRequestOf(req.Name, &req.Source)
	ctx = polite.WithDelay(ctx, max(crawlReq.Delay, 0))
	env := &source.Env{Client: s.client.Spaced(max(crawlReq.Delay, 0)), Store: st, Warn: s.cfg.Warn, ChooseFeed: req.ChooseFeed}
	if !req.Source.NoRobots {
		env.Allowed = source.RobotsAllowed(s.robots, s.cfg.Agent)
	}
	var crawled *CrawlResult
	web := website.Kind{Crawl: func(ctx context.Context, env *source.Env, in source.Input) (*crawl.Summary, error) {
		cr := crawlReq
		cr.Start = in.URL
		cr.Detach, cr.Progress = req.Detach, req.Progress
		res, err := s.Crawl(ctx, cr, req.Events) // here, or on a team's workers
		if res == nil {
			return nil, err
		}
		crawled = res
		return res.Summary, err
	}}
	reg := &source.Registry{Kinds: append(append([]source.Kind(nil), s.cfg.Kinds...), web)}
	kind := req.Source.Kind
	if kind == website.Name {
		kind = "" // asked last in any case; the others are not asked
		reg.Kinds = []source.Kind{web}
	}
	res, err := reg.Ingest(ctx, env, kind, source.Input{Name: req.Name, URL: req.Source.URL, Limit: req.Source.Limit, Tags: req.Source.Tags})
	if res == nil {
		if err != nil && heed.KindOf(err) == heed.Other {
			var ce *config.Error
			if !errors.As(err, &ce) {
				err = &heed.Error{Kind: heed.Other, Op: "add", URL: fetch.Redact(req.Source.URL), Err: err}
			}
		}
		return nil, err
	}
	out := &SourceResult{Name: req.Name, Kind: res.Kind, URL: res.URL, Crawl: crawled,
		Items: res.Items, New: res.New, Changed: res.Changed, NotModified: res.NotModified}
	if res.Kind == website.Name {
		return out, err
	}
	if res.Snapshot != nil {
		out.Path = res.Snapshot.Path
	} else if snap, gerr := st.Get(ctx, res.URL); gerr == nil {
		out.Path = snap.Path
	}
	if lerr := st.AppendLog(fmt.Sprintf("## %s: %s %s into %s\n\n%s: %s\n", time.Now().UTC().Format(time.RFC3339), res.Kind, res.URL, req.Name, out.What(), out.Path)); lerr != nil {
		s.warn(lerr.Error())
	}
	return out, err
}

// What says what reading a source other than a website came to, such as
// "12 items, 3 new" or "not modified".
func (r *SourceResult) What() string {
	what := fmt.Sprintf("%s, %d new", heed.Count(r.Items, "item"), r.New)
	switch {
	case r.NotModified:
		what = "not modified"
	case !r.Changed:
		what += ", unchanged"
	}
	return what
}

// RecordedError is the cause of adding a source under a name the config
// file has already (Name), or one whose URL another source has
// (Name, and URL).
type RecordedError struct {
	Name string
	URL  string // set when the URL is what is recorded already
}

func (e *RecordedError) Error() string {
	if e.URL != "" {
		return fmt.Sprintf("%s is already recorded as source %q", e.URL, e.Name)
	}
	return fmt.Sprintf("a source named %q is recorded already", e.Name)
}

// EmptyError is the cause of adding a source that stored nothing: it is
// not recorded. Cause is why, when the crawl said.
type EmptyError struct {
	Name  string
	Cause error
}

func (e *EmptyError) Error() string {
	s := fmt.Sprintf("source %q stored nothing, so it is not recorded", e.Name)
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	return s
}

func (e *EmptyError) Unwrap() error { return e.Cause }

// recordedAs is the name of the source the config records url under, or
// "": URLs are compared as a crawl compares them.
func recordedAs(conf *config.Config, rawURL string) string {
	want, err := crawl.Normalize(rawURL)
	if err != nil {
		return ""
	}
	for _, name := range conf.Names() {
		if n, err := crawl.Normalize(conf.Sources[name].URL); err == nil && n == want {
			return name
		}
	}
	return ""
}

// Add reads a new source into the store, then records it in the config
// file under its name, with the kind that took it and the URL it is
// read from (a web page's feed). A name or a URL recorded already is
// refused (*RecordedError): two sources of one URL would take each
// other's pages. A source that could not be read at all (a start URL
// robots.txt refuses, a URL that is not one) is not recorded, nor one
// that stored nothing (*EmptyError, with the result); one read with a
// failure part way is, and the failure is returned with the result.
func (s *Service) Add(ctx context.Context, conf *config.Config, req SourceRequest) (*SourceResult, error) {
	if _, ok := conf.Sources[req.Name]; ok {
		return nil, &heed.Error{Kind: heed.Invalid, Op: "add", Err: &RecordedError{Name: req.Name}}
	}
	if other := recordedAs(conf, req.Source.URL); other != "" {
		return nil, &heed.Error{Kind: heed.Invalid, Op: "add", Err: &RecordedError{Name: other, URL: fetch.Redact(req.Source.URL)}}
	}
	if err := req.Source.Validate(kinds.Names()); err != nil {
		return nil, &heed.Error{Kind: heed.Invalid, Op: "add", Err: err}
	}
	res, ingestErr := s.Ingest(ctx, req)
	if res == nil || ctx.Err() != nil {
		return res, ingestErr
	}
	if res.Crawl != nil && res.Crawl.Stored+res.Crawl.Unchanged == 0 && !req.Detach {
		kind := heed.Other
		if ingestErr != nil {
			kind = heed.KindOf(ingestErr)
		}
		return res, &heed.Error{Kind: kind, Op: "add", URL: fetch.Redact(req.Source.URL), Err: &EmptyError{Name: req.Name, Cause: ingestErr}}
	}
	if other := recordedAs(conf, res.URL); other != "" && res.URL != req.Source.URL {
		// A page led to a feed another source reads.
		return res, &heed.Error{Kind: heed.Invalid, Op: "add", Err: &RecordedError{Name: other, URL: fetch.Redact(res.URL)}}
	}
	rec := req.Source
	rec.Kind, rec.URL = res.Kind, res.URL
	if res.Kind != website.Name {
		// A crawl's settings mean nothing to the other kinds.
		rec = config.Source{URL: res.URL, Kind: res.Kind, Limit: req.Source.Limit, Options: crawlopt.Defaults()}
		rec.Tags = req.Source.Tags
	}
	if err := conf.AddSource(req.Name, &rec); err != nil {
		if errors.Is(err, config.ErrSourceExists) {
			return nil, &heed.Error{Kind: heed.Invalid, Op: "add", Err: &RecordedError{Name: req.Name}}
		}
		return res, err
	}
	return res, ingestErr
}

// DefaultName names a source after its URL: a Bluesky profile
// bluesky-HANDLE, an X profile x-USER, a feed (kind "feed", or a URL that
// looks like one) its slug, as its snapshot's file is named, so that two
// feeds of one host are two names; anything else its host.
func DefaultName(raw, kind string) string {
	u, err := url.Parse(raw)
	if err == nil {
		if actor, ok := bluesky.Actor(u); ok {
			return "bluesky-" + strings.ReplaceAll(strings.ToLower(actor), ":", "_")
		}
		if user, ok := xcom.User(u); ok {
			return "x-" + strings.ToLower(user)
		}
		if kind == feed.Name || kind == "" && feed.LooksLikeFeed(u) {
			if slug := feed.Slug(u); config.ValidName(slug) {
				return slug
			}
		}
	}
	return crawl.SourceName(raw)
}

// began is the event a crawl begins with, its scope, for a team's crawl
// of req, whose workers report none; ok is false for a request the
// crawl will refuse.
func began(req CrawlRequest) (ev crawl.Event, ok bool) {
	start, err := crawl.Normalize(req.Start)
	if err != nil {
		return crawl.Event{}, false
	}
	sc, err := crawl.ScopeOf(req.Options)
	if err != nil {
		return crawl.Event{}, false
	}
	return crawl.Event{Kind: crawl.Began, URL: start, Detail: sc.String(), Narrow: sc.Narrow()}, true
}
