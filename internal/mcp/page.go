package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/render"
	"github.com/heedhq/heed/robots/directives"
)

// page is one page read on purpose: what paging it needs of its document
// (not its links, nor its directives), and what its robots directives
// say to heed.
type page struct {
	url         string // after redirects
	title       string
	description string
	markdown    string
	robots      string
	via         string    // ingest.Page.Via
	rendered    bool      // ingest.Page.Rendered
	note        string    // ingest.Page.Note
	version     string    // of this copy: a hash of its Markdown
	read        time.Time // when the page cache last gave it; guarded by its mutex
}

// newPage keeps what paging needs of doc, in strings of its own, so
// that nothing of the document (its links, its HTML) stays behind them.
func newPage(url string, doc *extract.Document, robots directives.Set) *page {
	return &page{
		url:         strings.Clone(url),
		title:       strings.Clone(doc.Title),
		description: strings.Clone(doc.Description),
		markdown:    strings.Clone(doc.Markdown),
		robots:      robots.String(),
		version:     version(doc.Markdown),
	}
}

// pageOverhead is what a copy in the page cache costs besides its
// strings: the page, its key and its place in the map and the order.
const pageOverhead = 256

// size is what a copy costs the page cache, in bytes.
func (p *page) size(key string) int {
	return pageOverhead + len(key) + len(p.url) + len(p.title) + len(p.description) + len(p.markdown) + len(p.robots) + len(p.via) + len(p.version)
}

// fetchPage reads one page on purpose through the service: robots.txt is
// not consulted (a page asked for is not a crawl), but every request
// takes its host's turn in the service's schedule, so that it adds
// nothing to the load of a crawl of the same host. The whole takes at
// most the user's deadline. The copy is kept in the page cache, for the
// parts that follow.
func (s *Server) fetchPage(ctx context.Context, rawURL string, mode render.Mode) (*page, error) {
	norm, err := crawl.Normalize(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL heed can fetch: give an absolute http or https URL, such as https://example.com/page", rawURL)
	}
	deadline := s.cfg.Limits.Deadline
	dctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	// The fragment is not the page's, but a rendered page's scripts may
	// read it (a hash-routed app): it goes to the browser.
	asked := norm
	if u, err := url.Parse(rawURL); err == nil && u.Fragment != "" {
		asked += "#" + u.EscapedFragment()
	}
	p, err := s.svc.Fetch(dctx, ingest.FetchRequest{URL: asked, Render: mode})
	if err != nil {
		if cut := s.cut(ctx); cut != nil {
			return nil, cut
		}
		if dctx.Err() != nil {
			return nil, fmt.Errorf("fetch %s: the user's deadline of %v passed before the page was read", norm, deadline)
		}
		return nil, s.toolError(err)
	}
	kept := newPage(p.URL, p.Doc, p.Robots)
	kept.via, kept.rendered, kept.note = p.Via, p.Rendered, p.Note
	s.pages.put(norm, kept)
	return kept, nil
}

// pageCache keeps the pages fetched lately, so that reading a long page
// part by part reads one copy of it and asks its host once. Each copy is
// kept under its URL and version (a hash of its Markdown): a later fetch
// of the page, by this agent or another, adds its copy and replaces none
// that differs, so an agent reading parts never gets a part of another
// copy. A copy is kept for pageCacheTTL from when it was last read (or
// fetched), and dropped once that has passed, at the next use of the
// cache; the cache holds at most pageCacheSize copies and pageCacheBytes
// of what they keep, dropping the least lately read first.
type pageCache struct {
	mu    sync.Mutex
	pages map[string]*page
	order []string // least lately read first
	bytes int
	now   func() time.Time
}

const (
	pageCacheSize  = 32
	pageCacheBytes = 64 << 20
	pageCacheTTL   = 10 * time.Minute
)

func newPageCache() *pageCache { return &pageCache{pages: map[string]*page{}, now: time.Now} }

// version identifies a copy of a page by its Markdown.
func version(markdown string) string {
	sum := sha256.Sum256([]byte(markdown))
	return hex.EncodeToString(sum[:8])
}

func (c *pageCache) put(url string, p *page) {
	key := url + " " + p.version
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	c.expire(now)
	c.remove(key) // the same copy again: kept once, as new
	p.read = now
	c.order = append(c.order, key)
	c.pages[key] = p
	c.bytes += p.size(key)
	for len(c.order) > 1 && (len(c.order) > pageCacheSize || c.bytes > pageCacheBytes) {
		c.remove(c.order[0])
	}
}

// get is the copy of a page with this version, if it is still held; it
// is kept for pageCacheTTL from now.
func (c *pageCache) get(url, version string) *page {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	c.expire(now)
	return c.touch(url+" "+version, now)
}

// latest is the copy of a page most lately read or fetched, if one is
// still held; it is kept for pageCacheTTL from now.
func (c *pageCache) latest(url string) *page {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	c.expire(now)
	for i := len(c.order) - 1; i >= 0; i-- {
		if u, _, _ := strings.Cut(c.order[i], " "); u == url {
			return c.touch(c.order[i], now)
		}
	}
	return nil
}

// touch is the copy held under key, if any, marked read now (the last of
// the order). c.mu is held.
func (c *pageCache) touch(key string, now time.Time) *page {
	p := c.pages[key]
	if p == nil {
		return nil
	}
	p.read = now
	c.order = slices.DeleteFunc(c.order, func(k string) bool { return k == key })
	c.order = append(c.order, key)
	return p
}

// expire drops the copies not read for pageCacheTTL. The order is by
// when each was last read, so they are at its front.
func (c *pageCache) expire(now time.Time) {
	for len(c.order) > 0 && now.Sub(c.pages[c.order[0]].read) > pageCacheTTL {
		c.remove(c.order[0])
	}
}

// remove drops a copy, if it is held.
func (c *pageCache) remove(key string) {
	p, ok := c.pages[key]
	if !ok {
		return
	}
	c.bytes -= p.size(key)
	delete(c.pages, key)
	c.order = slices.DeleteFunc(c.order, func(k string) bool { return k == key })
}

// window is the part of text from character start (counted in Unicode
// code points) of at most n characters, and the text's length.
func window(text string, start, n int) (part string, total int) {
	total = utf8.RuneCountInString(text)
	if start >= total {
		return "", total
	}
	from, i := len(text), 0
	to := len(text)
	for at := range text {
		if i == start {
			from = at
		}
		if i == start+n {
			to = at
			break
		}
		i++
	}
	return text[from:to], total
}
