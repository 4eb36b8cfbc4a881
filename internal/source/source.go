package source

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/internal/wait"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/robots"
)

// DefaultLimit is how many items or posts a source takes a sync when it
// names no limit.
const DefaultLimit = 50

// Kind is one kind of source.
type Kind interface {
	// Name is the kind's name in the config file: "feed", "bluesky", ...
	Name() string
	// Match reports, without any I/O, whether the URL may be the kind's.
	Match(u *url.URL) bool
	// Ingest reads the source. An *Unusable error says the URL matched
	// but holds nothing the kind can use: heed add then asks the next
	// kind.
	Ingest(ctx context.Context, env *Env, in Input) (*Result, error)
}

// Unusable is the error of a kind that matched a URL but found nothing it
// could use there: a /feed URL that serves a web page, a handle that does
// not resolve. Asking kinds in turn, the registry warns (unless Quiet)
// and asks the next; with the kind named, it is an error like any other.
type Unusable struct {
	// Quiet is set when the kind only looked on the chance the URL was
	// its own (a web page without feeds): moving on needs no warning.
	Quiet bool
	Err   error
}

func (e *Unusable) Error() string { return e.Err.Error() }
func (e *Unusable) Unwrap() error { return e.Err }

// NotUsable wraps err as an *Unusable that is warned about.
func NotUsable(err error) error { return &Unusable{Err: err} }

// NotMine wraps err as a quiet *Unusable.
func NotMine(err error) error { return &Unusable{Quiet: true, Err: err} }

// Input is one source to ingest.
type Input struct {
	Name  string   // the source's name in the stash
	URL   string   // where it is
	Limit int      // items or posts at most; 0 means DefaultLimit
	Tags  []string // the source's own tags, added to the kind's
	// Named is set by the registry when the kind was named (by --kind, or
	// recorded by an earlier heed add): the URL is the kind's, not a
	// guess.
	Named bool
}

// Store is what the kinds ask of the store their snapshots go to: what
// they read (validators, items kept before), and what the registry
// writes.
type Store interface {
	Get(ctx context.Context, urlOrID string) (*heed.Snapshot, error)
	Put(ctx context.Context, snap *heed.Snapshot) (changed bool, err error)
	Touch(ctx context.Context, url string, at time.Time) error
	Validators(ctx context.Context, source, url string) (etag, lastModified string, ok bool)
}

// Env is what the kinds share: the guarded client, the store (read for
// validators and items already kept; the registry writes), and the
// clock, for rate-limit waits.
type Env struct {
	// Client makes every request of every kind, each on its host's turn.
	Client *polite.Client
	Store  Store
	// Warn says something the user should know, once; nil discards it.
	Warn func(msg string)
	// Clock and Sleep are the clock; nil means the real one.
	Clock func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// MaxWait is the longest a rate limit is waited out; longer, and the
	// request fails (or pagination stops, keeping what it has). 0 means
	// DefaultMaxWait.
	MaxWait time.Duration
	// ChooseFeed picks one of the feeds a web page lists (index into
	// feeds). With orSite set it may also return -1: none, crawl the page
	// as a website. nil takes the first feed when the feed kind was
	// named, and else the website.
	ChooseFeed func(page string, feeds []string, orSite bool) (int, error)
	// Allowed asks robots.txt whether a page may be fetched: the feed kind
	// asks it before it looks in a page that is not a feed by its URL for
	// the feeds it names. nil allows every page.
	Allowed func(ctx context.Context, rawURL string) (bool, error)
}

// DefaultMaxWait is the longest rate-limit wait when Env.MaxWait is 0.
const DefaultMaxWait = 15 * time.Minute

// Warnf says something through Warn.
func (e *Env) Warnf(format string, args ...any) {
	if e.Warn != nil {
		e.Warn(fmt.Sprintf(format, args...))
	}
}

// Now is the time by the Env's clock.
func (e *Env) Now() time.Time {
	if e.Clock != nil {
		return e.Clock()
	}
	return time.Now()
}

func (e *Env) sleep(ctx context.Context, d time.Duration) error {
	if e.Sleep != nil {
		return e.Sleep(ctx, d)
	}
	return wait.Sleep(ctx, d)
}

// Result is what ingesting a source came to.
type Result struct {
	Kind string // the kind that took the source
	// URL is the URL to record the source under: the URL given, or the
	// feed a web page led to.
	URL string
	// Snapshot is the one snapshot to store; nil for the website kind,
	// which stores its pages itself, and for an unchanged source.
	Snapshot *heed.Snapshot
	// NotModified is true when the source answered a conditional request
	// with "not modified".
	NotModified bool
	Changed     bool // the registry stored a changed snapshot
	Items       int  // items or posts in the snapshot
	New         int  // of them, new since the last sync
	// Crawl is what a website's crawl came to; nil for the other kinds.
	Crawl *crawl.Summary
}

// Registry holds the kinds, in the order they are asked.
type Registry struct {
	Kinds []Kind
}

// Kind returns the kind of a name, or nil.
func (r *Registry) Kind(name string) Kind {
	for _, k := range r.Kinds {
		if k.Name() == name {
			return k
		}
	}
	return nil
}

// Ingest reads a source and stores its snapshot. With kind "" it asks
// each kind in order whether the URL is its own, moving on when one finds
// nothing usable there; with a kind named, only that kind is asked, and
// nothing usable is an error.
func (r *Registry) Ingest(ctx context.Context, env *Env, kind string, in Input) (*Result, error) {
	if err := fetch.CheckURL(in.URL); err != nil {
		return nil, fmt.Errorf("%q is not an http(s) URL heed takes: %w", fetch.Redact(in.URL), err)
	}
	u, _ := url.Parse(in.URL)
	if in.Limit <= 0 {
		in.Limit = DefaultLimit
	}
	if kind != "" {
		k := r.Kind(kind)
		if k == nil {
			return nil, fmt.Errorf("%q is not a kind of source heed knows", kind)
		}
		in.Named = true
		return r.ingest(ctx, env, k, in)
	}
	for _, k := range r.Kinds {
		if !k.Match(u) {
			continue
		}
		res, err := r.ingest(ctx, env, k, in)
		var refused *fetch.RefusedError
		if errors.As(err, &refused) {
			// The network guard's refusal is final: the next kind
			// would only meet it again (as a robots.txt it cannot
			// read), and say so in words of its own.
			return nil, &heed.Error{Kind: heed.Blocked, Op: "add", URL: fetch.Redact(in.URL), Err: refused}
		}
		var u *Unusable
		if errors.As(err, &u) {
			if !u.Quiet {
				env.Warnf("%s: %v; trying the next kind of source", k.Name(), err)
			}
			continue
		}
		return res, err
	}
	return nil, fmt.Errorf("no kind of source takes %s", in.URL)
}

func (r *Registry) ingest(ctx context.Context, env *Env, k Kind, in Input) (*Result, error) {
	res, err := k.Ingest(ctx, env, in)
	if res != nil && err != nil {
		// The kind did its work, and says what failed of it (a website's
		// crawl whose store could not be written).
		res.Kind = k.Name()
		if res.URL == "" {
			res.URL = in.URL
		}
		return res, err
	}
	if err != nil {
		return nil, err
	}
	res.Kind = k.Name()
	if res.URL == "" {
		res.URL = in.URL
	}
	if res.NotModified && env.Store != nil {
		if err := env.Store.Touch(ctx, res.URL, env.Now()); err != nil {
			return nil, err
		}
	}
	if res.Snapshot != nil {
		changed, err := env.Store.Put(ctx, res.Snapshot)
		if err != nil {
			return nil, err
		}
		res.Changed = changed
	}
	return res, nil
}

// RobotsAllowed returns an Env.Allowed that asks robots.txt through the
// policy (a crawl's cache, to share what it read), for the agent.
func RobotsAllowed(policy robots.Policy, agent string) func(ctx context.Context, rawURL string) (bool, error) {
	return func(ctx context.Context, rawURL string) (bool, error) {
		d, err := policy.Allowed(ctx, agent, rawURL)
		return err == nil && d.Allowed, err
	}
}

// Tags joins a kind's tags and a source's own, each once, in order.
func Tags(lists ...[]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range lists {
		for _, t := range l {
			if t != "" && !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// OneLine makes text one line: runs of white space become one space.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
