package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/polite"
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
	return pageOverhead + len(key) + len(p.url) + len(p.title) + len(p.description) + len(p.markdown) + len(p.robots) + len(p.version)
}

// errOtherHost stops a request at a redirect to another host, which is
// followed on that host's turn.
type errOtherHost struct{ next string }

func (e *errOtherHost) Error() string { return "another host, asked on its own turn" }

// errTooManyRedirects stops a request at a redirect past the last one
// web_fetch follows.
var errTooManyRedirects = errors.New("too many redirects")

// fetchPage reads one page on purpose: robots.txt is not consulted (a
// page asked for is not a crawl), but every request takes its host's turn
// in the shared schedule, so that it adds nothing to the load of a crawl
// of the same host: a redirect is followed on the same turn while it stays
// on the host, and one to another host waits for that host's turn. At most
// fetch.DefaultMaxRedirects redirects are followed, on one host or
// across hosts, and the whole takes at most the user's deadline.
func (s *Server) fetchPage(ctx context.Context, rawURL string) (*page, error) {
	norm, err := crawl.Normalize(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL heed can fetch: give an absolute http or https URL, such as https://example.com/page", rawURL)
	}
	deadline := s.cfg.Limits.Deadline
	dctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	// stop is what the agent is told when the call or its deadline ends.
	stop := func() error {
		if err := s.cut(ctx); err != nil {
			return err
		}
		return fmt.Errorf("fetch %s: the user's deadline of %v passed before the page was read", norm, deadline)
	}
	const maxRedirects = fetch.DefaultMaxRedirects
	var resp *fetch.Response
	next, hops, last := norm, 0, norm
	for {
		// next is normalized, as a crawl's URLs are: its host, the
		// schedule's key, is the one a crawl of the host takes turns on.
		u, err := url.Parse(next)
		if err != nil {
			return nil, fmt.Errorf("fetch %s: a redirect to %q, which is not a URL heed can fetch", norm, next)
		}
		release, err := s.sched.Acquire(dctx, polite.HostKey(u))
		if err != nil {
			return nil, stop()
		}
		var other *errOtherHost
		resp, err = s.cfg.Client.Get(dctx, fetch.Request{URL: next, CheckRedirect: func(to string) error {
			if hops >= maxRedirects {
				return errTooManyRedirects
			}
			tn, err := crawl.Normalize(to)
			if err != nil {
				return err
			}
			tu, err := url.Parse(tn)
			if err != nil {
				return err
			}
			hops++
			if polite.HostKey(tu) != polite.HostKey(u) {
				other = &errOtherHost{next: tn}
				return other
			}
			last = to
			return nil
		}})
		release(s.cfg.Limits.Delay)
		if other != nil {
			if u.Scheme == "https" && strings.HasPrefix(other.next, "http:") {
				return nil, fmt.Errorf("fetch %s: refused a redirect from https to http (%s)", norm, other.next)
			}
			next, last = other.next, other.next
			continue
		}
		if errors.Is(err, errTooManyRedirects) || errors.Is(err, fetch.ErrTooManyRedirects) {
			return nil, fmt.Errorf("fetch %s: more than %d redirects; the last followed led to %s, which redirects again. To follow them further, call web_fetch with that URL", norm, maxRedirects, last)
		}
		if err != nil {
			if dctx.Err() != nil {
				return nil, stop()
			}
			return nil, s.toolError(err)
		}
		break
	}
	if resp.Status < 200 || resp.Status > 299 {
		return nil, fmt.Errorf("fetch %s: the server answered HTTP %d", resp.URL, resp.Status)
	}
	ct := resp.Header.Get("Content-Type")
	doc, err := readPage(resp.Body, resp.URL, ct)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %v", resp.URL, err)
	}
	var sets []directives.Set
	for _, v := range resp.Header.Values("X-Robots-Tag") {
		sets = append(sets, directives.Parse(v)...)
	}
	p := newPage(resp.URL, doc, directives.For(s.cfg.Agent, append(sets, doc.Directives...)...))
	s.pages.put(norm, p)
	return p, nil
}

// maxTypeChars is how much of a Content-Type an error repeats.
const maxTypeChars = 100

// readPage extracts an HTML page; plain text and Markdown are kept as
// they are; anything else is refused.
func readPage(body []byte, pageURL, contentType string) (*extract.Document, error) {
	mediaType, _, _ := mime.ParseMediaType(contentType)
	switch mediaType {
	case "", "text/html", "application/xhtml+xml":
		return extract.Extract(bytes.NewReader(body), extract.Options{URL: pageURL, ContentType: contentType})
	case "text/plain", "text/markdown", "text/x-markdown":
		if !utf8.Valid(body) {
			body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
		}
		return &extract.Document{URL: pageURL, Markdown: strings.TrimSpace(string(body))}, nil
	}
	return nil, errors.New("not an HTML or text page (Content-Type " + cutChars(strings.ToValidUTF8(contentType, "\uFFFD"), maxTypeChars) + "); heed reads HTML, plain text and Markdown")
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
