package ingest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/robots"
)

// Where a site's map found a URL (MapURL.Via).
const (
	MapStart   = "start"    // the start URL itself
	MapLink    = "link"     // a link of the start page
	MapLLMsTxt = "llms.txt" // the site's /llms.txt lists it
	MapSitemap = "sitemap"  // a sitemap lists it
)

// DefaultMapLimit and MaxMapLimit are how many URLs a site's map lists
// when not told, and at most.
const (
	DefaultMapLimit = 1000
	MaxMapLimit     = 10_000
)

// MapRequest asks for a site's map: the URLs within the scope of a crawl
// of its options (start, whole site, include, exclude, other hosts;
// robots.txt; sitemaps and llms.txt, or not; max_pages bounds the
// sitemaps' requests as a crawl's), Limit of them at most.
type MapRequest struct {
	crawlopt.Options
	Limit int
}

// MapURL is a URL of a site's map, and where it was found (MapStart,
// MapLink, MapLLMsTxt, MapSitemap), first where first.
type MapURL struct {
	URL     string   `json:"url"`
	Via     []string `json:"via"`
	LastMod string   `json:"lastmod,omitempty"` // what a sitemap says of it
}

// SiteMap is a site's map.
type SiteMap struct {
	Start string   `json:"start"`
	Scope string   `json:"scope"`
	URLs  []MapURL `json:"urls"`
	// Cut says the map was cut at its limit: there are more.
	Cut bool `json:"cut,omitempty"`
	// Disallowed and OutOfScope count the URLs found that robots.txt
	// disallows and that are out of the scope: not listed.
	Disallowed int `json:"disallowed,omitempty"`
	OutOfScope int `json:"out_of_scope,omitempty"`
	// SitemapsUnread are the sitemap files not read to their end.
	SitemapsUnread int `json:"sitemaps_unread,omitempty"`
	// StartError is why the start page gave no links, when it gave none
	// for a reason (its status, its type).
	StartError string `json:"start_error,omitempty"`
}

// Map lists a site's URLs, as a crawl of req would find them first,
// without storing anything: the start URL, the links of the start page,
// and the pages its llms.txt and its sitemaps list (the crawl's one
// seeding step), within the crawl's scope and allowed by robots.txt,
// each with where it was found. Every request takes its host's turn and
// is spaced by the crawl's delay, as a crawl's; the start page is one
// request, robots.txt one an origin, the seeds as a crawl reads them.
func (s *Service) Map(ctx context.Context, req MapRequest) (*SiteMap, error) {
	limit := req.Limit
	if limit <= 0 {
		limit = DefaultMapLimit
	}
	limit = min(limit, MaxMapLimit)
	o, err := s.options(CrawlRequest{Options: req.Options, NoStore: true})
	if err != nil {
		return nil, err
	}
	start, err := crawl.Normalize(o.Start)
	if err != nil {
		return nil, &heed.Error{Kind: heed.Invalid, Op: "map", URL: fetch.Redact(o.Start), Err: err}
	}
	o.Start = start
	eng, err := crawl.NewEngine(o, s.cfg.Agent)
	if err != nil {
		return nil, &heed.Error{Kind: heed.Invalid, Op: "map", URL: start, Err: err}
	}
	sc, _ := crawl.ScopeOf(o.Options)
	m := &SiteMap{Start: start, Scope: sc.String()}
	allowed := func(raw string) bool {
		if o.NoRobots {
			return true
		}
		d, err := s.robots.Allowed(ctx, s.cfg.Agent, raw)
		return err == nil && d.Allowed
	}
	if !o.NoRobots {
		if d, err := s.robots.Allowed(ctx, s.cfg.Agent, start); err != nil || !d.Allowed {
			if err == nil {
				err = &crawl.Disallowed{Decision: d}
			}
			return nil, &heed.Error{Kind: heed.Blocked, Op: "map", URL: start, Err: fmt.Errorf("%w: robots.txt: %w", crawl.ErrStartRefused, err)}
		}
	}
	index := map[string]int{}
	add := func(raw, via, lastMod string, depth int) {
		n, err := crawl.Normalize(raw)
		if err != nil {
			return
		}
		if i, ok := index[n]; ok {
			if !slices.Contains(m.URLs[i].Via, via) {
				m.URLs[i].Via = append(m.URLs[i].Via, via)
			}
			return
		}
		u, err := url.Parse(n)
		if err != nil || u.Path == "/robots.txt" {
			return
		}
		if reason, _ := eng.Admit(u, depth); reason != "" {
			m.OutOfScope++
			index[n] = -1
			return
		}
		if !allowed(n) {
			m.Disallowed++
			index[n] = -1
			return
		}
		if len(m.URLs) >= limit {
			m.Cut = true
			return
		}
		index[n] = len(m.URLs)
		m.URLs = append(m.URLs, MapURL{URL: n, Via: []string{via}, LastMod: lastMod})
	}
	add(start, MapStart, "", 0)
	// Each request is spaced as a crawl's, by the crawl's delay or the
	// host's Crawl-delay (Engine.Pace).
	client := func(raw string) *polite.Client {
		out := robots.Outcome{Status: robots.Unavailable}
		if !o.NoRobots {
			if got, err := s.robots.Outcome(ctx, raw); err == nil {
				out = got
			}
		}
		return s.client.Spaced(eng.Pace(out))
	}
	from := ""
	// The start page's redirects are a crawl's: each hop in scope and
	// allowed by robots.txt.
	resp, err := client(start).Get(ctx, fetch.Request{URL: start, Accept: "text/html, text/markdown;q=0.9",
		CheckRedirect: func(next string) error {
			u, err := url.Parse(next)
			if err != nil {
				return err
			}
			if reason, why := eng.Admit(u, 0); reason != "" {
				return fmt.Errorf("the start URL redirects to %s: %s", next, why)
			}
			if !allowed(next) {
				return fmt.Errorf("the start URL redirects to %s, which robots.txt disallows", next)
			}
			return nil
		}})
	switch {
	case err != nil:
		m.StartError = err.Error()
	case resp.Status < 200 || resp.Status > 299:
		m.StartError = (&fetch.StatusError{Status: resp.Status}).Error()
	default:
		doc, _, err := extract.Read(resp.Body, extract.Options{URL: resp.URL, ContentType: resp.Header.Get("Content-Type")})
		if err != nil {
			m.StartError = err.Error()
			break
		}
		from = resp.URL
		if o.MaxDepth >= 1 {
			for _, l := range doc.Links {
				add(l, MapLink, "", 1)
			}
		}
	}
	var listed []string
	if !o.NoRobots {
		if su, err := url.Parse(start); err == nil {
			if out, err := s.robots.Outcome(ctx, su.Scheme+"://"+su.Host+"/"); err == nil && out.Robots != nil {
				listed = out.Robots.Sitemaps
			}
		}
	}
	full := func() bool { return m.Cut }
	unread, err := eng.Seed(ctx, crawl.Seeding{
		From:    from,
		Listed:  listed,
		Client:  client,
		Allowed: allowed,
		Full:    full,
		Offer: func(it crawl.Item) {
			via := MapSitemap
			if slices.Contains(it.Via, crawl.ViaLLMsTxt) {
				via = MapLLMsTxt
			}
			add(it.URL, via, it.LastMod, 1)
		},
	})
	m.SitemapsUnread = unread
	if err != nil && !errors.Is(err, crawl.ErrSitemapsCut) {
		return m, err
	}
	if ctx.Err() != nil {
		return m, ctx.Err()
	}
	return m, nil
}
