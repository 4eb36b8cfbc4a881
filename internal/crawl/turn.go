package crawl

import (
	"context"
	"time"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/robots"
)

// turn is a URL's turn on one machine (Turn): its crawl's state is the
// run's, in this process.
type turn struct {
	r  *run
	it Item
	// extracted lets go of the page's place among those being
	// extracted, before a wait for another request's place.
	extracted func()
}

var _ Turn = (*turn)(nil)

// Robots is the origin's robots.txt from the crawl's cache, read once
// for the URL: asked of the cache on the turn, a copy that expired
// meanwhile would be loaded again, and the load would wait for the turn.
// A crawl at its page limit asks nothing more, robots.txt included.
func (t *turn) Robots(ctx context.Context, it Item) (robots.Outcome, error) {
	if t.r.exhausted() {
		return robots.Outcome{}, ErrFull
	}
	cache, ok := t.r.policy.(*robots.Cache)
	if !ok {
		return robots.Outcome{Status: robots.Unavailable}, nil
	}
	return cache.Outcome(ctx, it.URL)
}

// Take counts the request; a page's alternate, a request beside the
// host's worker, takes one of the places of the hosts crawled at once
// too (hostSlot).
func (t *turn) Take(ctx context.Context, part Part) (context.Context, func(), bool, error) {
	if !t.r.take() {
		return ctx, func() {}, false, nil
	}
	t.it.requests++
	if part != PartAlternate {
		return ctx, func() {}, true, nil
	}
	release, ok := t.r.hostSlot(t.extracted)
	if !ok {
		return ctx, func() {}, false, nil
	}
	return ctx, release, true, nil
}

func (t *turn) Client(delay time.Duration, why string) *polite.Client {
	t.r.notePace(t.it.URL, why)
	return t.r.c.Client.Spaced(delay)
}

func (t *turn) Validators(ctx context.Context, it Item) (string, string) {
	if !t.r.validators {
		return "", ""
	}
	etag, lastModified, _ := t.r.c.Store.Validators(ctx, t.r.o.Source, it.URL)
	return etag, lastModified
}

func (t *turn) Mark(_ context.Context, rawURL string, it Item) bool {
	r := t.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.frontier.Seen(rawURL) {
		return true
	}
	r.frontier.Mark(rawURL)
	r.note(ledger.Entry{URL: rawURL, Fate: ledger.Seen, Depth: it.Depth})
	return false
}

// Unchanged touches the page, and takes its content for this crawl's: a
// twin of it found later is a duplicate, as in the crawl that stored it.
func (t *turn) Unchanged(ctx context.Context, it Item) ([]string, string, error) {
	r := t.r
	r.mu.Lock()
	r.stored[it.URL] = true
	r.mu.Unlock()
	if r.c.Store == nil {
		return nil, "", nil
	}
	r.c.Store.Touch(ctx, it.URL, time.Now())
	h := r.c.Store.Hash(ctx, r.o.Source, it.URL)
	if h != "" {
		r.mu.Lock()
		if _, ok := r.contents[h]; !ok {
			r.contents[h] = it.URL
		}
		r.mu.Unlock()
	}
	return r.c.Store.Links(ctx, r.o.Source, it.URL), h, nil
}

func (t *turn) Render(ctx context.Context, it Item, resp *fetch.Response, p *Page) (*Page, bool, error) {
	return t.r.render(it, resp, p)
}

// Began notes where the start page was fetched from: the crawl's seeds
// are read from there once the page is committed (seedAfter).
func (t *turn) Began(final string) {
	t.r.mu.Lock()
	if t.r.seedFrom == "" {
		t.r.seedFrom = final
	}
	t.r.mu.Unlock()
}
