package robots

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Policy is how a crawler consults robots.txt. Cache consults it, caching
// one outcome per origin; Off never does.
type Policy interface {
	// Allowed decides whether the agent may fetch rawURL, an absolute
	// http or https URL. It fails only when the robots.txt that governs
	// rawURL could not be asked for at all (for example because the
	// network guard refused it), never to mean "allowed".
	Allowed(ctx context.Context, agent, rawURL string) (Decision, error)
	// CrawlDelay returns the Crawl-delay that the origin of rawURL asks of
	// the agent, or 0.
	CrawlDelay(ctx context.Context, agent, rawURL string) (time.Duration, error)
	// ContentSignals returns the Content-Signal values that the origin of
	// rawURL states for the agent, or nil.
	ContentSignals(ctx context.Context, agent, rawURL string) (Signals, error)
	// String says in one line what the policy does, for logs and notices.
	String() string
}

// Loader fetches the robots.txt at robotsURL and says what came of it. It
// returns an error only when the fetch could not be attempted (an invalid
// URL, a destination the network guard refuses); everything that happens
// once a request is made is an Outcome (see OutcomeOf).
type Loader func(ctx context.Context, robotsURL string) (Outcome, error)

// Off is the policy of a fetch that does not consult robots.txt: it allows
// everything and never loads anything. The zero value is ready to use.
type Off struct{}

var _ Policy = Off{}

// Allowed allows every URL.
func (Off) Allowed(context.Context, string, string) (Decision, error) {
	return Decision{Allowed: true, Reason: ReasonOff}, nil
}

// CrawlDelay returns 0.
func (Off) CrawlDelay(context.Context, string, string) (time.Duration, error) { return 0, nil }

// ContentSignals returns nil.
func (Off) ContentSignals(context.Context, string, string) (Signals, error) { return nil, nil }

func (Off) String() string { return "robots.txt is not consulted" }

// DefaultCacheSize is how many origins a Cache keeps when its size is 0.
const DefaultCacheSize = 1024

// Cache is the policy of a polite crawl: it loads each origin's robots.txt
// through its Loader and keeps the outcome for the outcome's lifetime.
// It holds at most Size origins, dropping the least recently used (a load
// under way is never dropped). Concurrent lookups of one origin share one
// load, and loads of different origins run concurrently. Load errors, and
// loads whose caller gave up, are not cached.
//
// A Cache is safe for concurrent use. Create one with NewCache.
type Cache struct {
	load Loader
	size int
	now  func() time.Time

	mu      sync.Mutex
	entries map[string]*list.Element // of *entry
	lru     list.List                // front is the most recently used
}

var _ Policy = (*Cache)(nil)

type entry struct {
	origin  string
	ready   chan struct{} // closed when outcome and err are set
	outcome Outcome
	err     error
	expires time.Time
}

// CacheConfig configures a Cache. The zero value is usable.
type CacheConfig struct {
	// Size is how many origins the cache holds; 0 means DefaultCacheSize.
	Size int
	// Now tells the time; nil means time.Now.
	Now func() time.Time
}

// NewCache returns a Cache that loads robots.txt files with load.
func NewCache(load Loader, cfg CacheConfig) *Cache {
	if cfg.Size <= 0 {
		cfg.Size = DefaultCacheSize
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Cache{load: load, size: cfg.Size, now: cfg.Now, entries: make(map[string]*list.Element)}
}

func (c *Cache) String() string {
	return "robots.txt is consulted for every URL, one cached copy per origin"
}

// Outcome returns the outcome of the robots.txt that governs rawURL,
// loading it if the cache holds no live copy.
func (c *Cache) Outcome(ctx context.Context, rawURL string) (Outcome, error) {
	origin, err := Origin(rawURL)
	if err != nil {
		return Outcome{}, err
	}
	for {
		e, loader := c.lookup(origin)
		if loader {
			c.fill(ctx, e)
		}
		select {
		case <-e.ready:
		default:
			select {
			case <-e.ready:
			case <-ctx.Done():
				return Outcome{}, ctx.Err()
			}
		}
		if e.err != nil && !loader && ctx.Err() == nil &&
			(errors.Is(e.err, context.Canceled) || errors.Is(e.err, context.DeadlineExceeded)) {
			// The load we waited on was cancelled by its own caller, not
			// by ours: try again.
			continue
		}
		return e.outcome, e.err
	}
}

// lookup returns the live entry for origin, or a new one that the caller
// must fill (loader is then true).
func (c *Cache) lookup(origin string) (e *entry, loader bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[origin]; ok {
		e := el.Value.(*entry)
		select {
		case <-e.ready:
			if !c.now().Before(e.expires) {
				c.remove(el)
				break
			}
			c.lru.MoveToFront(el)
			return e, false
		default:
			return e, false // a load is under way
		}
	}
	e = &entry{origin: origin, ready: make(chan struct{})}
	c.entries[origin] = c.lru.PushFront(e)
	// Evict the least recently used entries that are not loading; a load
	// under way stays, so that its waiters and later lookups share it.
	for el := c.lru.Back(); c.lru.Len() > c.size && el != nil; {
		prev := el.Prev()
		select {
		case <-el.Value.(*entry).ready:
			c.remove(el)
		default:
		}
		el = prev
	}
	return e, true
}

func (c *Cache) remove(el *list.Element) {
	c.lru.Remove(el)
	delete(c.entries, el.Value.(*entry).origin)
}

// fill loads e's robots.txt and publishes the result to every waiter,
// even if the loader panics.
func (c *Cache) fill(ctx context.Context, e *entry) {
	done := false
	defer func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !done {
			e.err = fmt.Errorf("robots: loading %s/robots.txt: loader panicked", e.origin)
		}
		if e.err != nil {
			if el, ok := c.entries[e.origin]; ok && el.Value.(*entry) == e {
				c.remove(el)
			}
		} else {
			e.expires = c.now().Add(e.outcome.Lifetime)
		}
		close(e.ready)
	}()
	e.outcome, e.err = c.load(ctx, e.origin+"/robots.txt")
	if e.err == nil && ctx.Err() != nil {
		// The caller gave up during the load, so whatever the loader made
		// of it (most likely "unreachable") says nothing about the origin:
		// do not cache it.
		e.err = ctx.Err()
	}
	done = true
}

// Allowed decides whether the agent may fetch rawURL under its origin's
// robots.txt.
func (c *Cache) Allowed(ctx context.Context, agent, rawURL string) (Decision, error) {
	o, err := c.Outcome(ctx, rawURL)
	if err != nil {
		return Decision{}, err
	}
	return o.Allowed(agent, rawURL), nil
}

// CrawlDelay returns the Crawl-delay that the origin of rawURL asks of the
// agent, or 0.
func (c *Cache) CrawlDelay(ctx context.Context, agent, rawURL string) (time.Duration, error) {
	o, err := c.Outcome(ctx, rawURL)
	if err != nil {
		return 0, err
	}
	d, _ := o.CrawlDelay(agent)
	return d, nil
}

// ContentSignals returns the Content-Signal values that the origin of
// rawURL states for the agent, or nil.
func (c *Cache) ContentSignals(ctx context.Context, agent, rawURL string) (Signals, error) {
	o, err := c.Outcome(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	return o.ContentSignals(agent), nil
}
