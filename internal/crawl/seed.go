package crawl

import (
	"context"
	"net/url"

	"github.com/heedhq/heed/internal/polite"
)

// Seeding is what a crawl's seeding (Engine.Seed) needs of where the
// crawl's state lives.
type Seeding struct {
	// From is where the start page was fetched from, when it was kept:
	// the site's llms.txt is read then, on its origin. "" when the start
	// URL ended without a page.
	From string
	// Listed are the sitemaps the start origin's robots.txt lists.
	Listed []string
	// Client is the client of a seed file's request to rawURL's host:
	// on the host's turn, spaced by its delay.
	Client func(rawURL string) *polite.Client
	// Allowed says whether robots.txt allows a URL (every hop's).
	Allowed func(rawURL string) bool
	// Full reports whether the crawl has as many URLs as it may fetch:
	// reading more is no use.
	Full func() bool
	// Offer queues a page a seed file lists: one link from the start,
	// with where it was listed (Item.Via) or when it last changed
	// (Item.LastMod). The crawl's scope and bounds are Offer's to ask.
	Offer func(Item)
	// Done, if set, says whether a seed file (by its URL: llms.txt's, a
	// sitemap's) was read to its end by an earlier run of the crawl: it
	// is not read again. Read, if set, is told of each seed file read to
	// its end, once the pages it lists were offered.
	Done func(file string) bool
	Read func(file string)
}

// Seed reads the crawl's seeds: the pages the site's /llms.txt lists
// (when the start page was kept, on the origin it was fetched from),
// then those its sitemaps list (robots.txt's Sitemap lines and the start
// origin's /sitemap.xml, within the sitemap bounds), each offered one
// link from the start. It is the crawl's one seeding step, on one
// machine or a team's, run once the start URL has ended. It returns how
// many sitemap files it left unread or did not read to their end, and
// ErrSitemapsCut when ctx ended, or a host's turn did not come, before it
// was done: a later run may read the rest.
func (e *Engine) Seed(ctx context.Context, s Seeding) (unread int, err error) {
	done := func(file string) bool { return s.Done != nil && s.Done(file) }
	if fu, err := url.Parse(s.From); err == nil && s.From != "" && !e.o.NoLLMsTxt && e.o.MaxDepth >= 1 {
		if llms := fu.Scheme + "://" + fu.Host + "/llms.txt"; !done(llms) {
			for _, l := range readLLMsTxt(ctx, s.Client(llms), llms, s.Allowed) {
				s.Offer(Item{URL: l, Depth: 1, Via: []string{ViaLLMsTxt}})
			}
			if ctx.Err() != nil {
				return 0, ErrSitemapsCut
			}
			if s.Read != nil {
				s.Read(llms)
			}
		}
	}
	if e.o.NoSitemaps || e.o.MaxDepth < 1 {
		return 0, nil
	}
	su, err := url.Parse(e.o.Start)
	if err != nil {
		return 0, err
	}
	return readSitemaps(ctx, sitemaps{
		Client:      s.Client,
		MaxRequests: e.o.MaxPages,
		InScope:     func(u *url.URL) bool { return e.scope.check(u) == "" },
		Allowed:     s.Allowed,
		Full:        s.Full,
		Offer:       func(u, lastMod string) { s.Offer(Item{URL: u, Depth: 1, LastMod: lastMod}) },
		Done:        s.Done,
		Read:        s.Read,
	}, su, s.Listed)
}
