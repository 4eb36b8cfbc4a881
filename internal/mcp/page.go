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
	"github.com/heedhq/heed/robots/directives"
)

// page is one page read on purpose: its document and what its robots
// directives say to heed.
type page struct {
	url     string // after redirects
	doc     *extract.Document
	robots  directives.Set
	at      time.Time
	version string // of this copy: a hash of its Markdown
}

// errOtherHost stops a request at a redirect to another host, which is
// followed on that host's turn.
type errOtherHost struct{ next string }

func (e *errOtherHost) Error() string { return "another host, asked on its own turn" }

// fetchPage reads one page on purpose: robots.txt is not consulted (a
// page asked for is not a crawl), but every request takes its host's turn
// in the shared schedule, so that it adds nothing to the load of a crawl
// of the same host: a redirect is followed on the same turn while it stays
// on the host, and one to another host waits for that host's turn.
func (s *Server) fetchPage(ctx context.Context, rawURL string) (*page, error) {
	norm, err := crawl.Normalize(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL heed can fetch: give an absolute http or https URL, such as https://example.com/page", rawURL)
	}
	var resp *fetch.Response
	next, hops := norm, 0
	for {
		u, err := url.Parse(next)
		if err != nil {
			return nil, fmt.Errorf("fetch %s: a redirect to %q, which is not a URL heed can fetch", norm, next)
		}
		release, err := s.sched.Acquire(ctx, u.Host)
		if err != nil {
			return nil, fmt.Errorf("fetch %s: stopped while waiting for the host's turn: %v", norm, err)
		}
		var other *errOtherHost
		resp, err = s.cfg.Client.Get(ctx, fetch.Request{URL: next, MaxRedirects: fetch.DefaultMaxRedirects - hops, CheckRedirect: func(to string) error {
			tu, err := url.Parse(to)
			if err != nil {
				return err
			}
			if tu.Host != u.Host {
				other = &errOtherHost{next: to}
				return other
			}
			hops++
			return nil
		}})
		release(s.cfg.Limits.Delay)
		if other != nil {
			hops++
			if hops >= fetch.DefaultMaxRedirects {
				return nil, fmt.Errorf("fetch %s: more than %d redirects", norm, fetch.DefaultMaxRedirects)
			}
			if u.Scheme == "https" && strings.HasPrefix(other.next, "http:") {
				return nil, fmt.Errorf("fetch %s: refused a redirect from https to http (%s)", norm, other.next)
			}
			next = other.next
			continue
		}
		if err != nil {
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
	p := &page{url: resp.URL, doc: doc, robots: directives.For(s.cfg.Agent, append(sets, doc.Directives...)...), at: time.Now(), version: version(doc.Markdown)}
	s.pages.put(norm, p)
	return p, nil
}

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
	return nil, errors.New("not an HTML or text page (Content-Type " + contentType + "); heed reads HTML, plain text and Markdown")
}

// pageCache keeps the pages fetched lately, so that reading a long page
// part by part reads one copy of it and asks its host once. Each copy is
// kept under its URL and version (a hash of its Markdown): a later fetch
// of the page, by this agent or another, adds its copy and replaces none
// that differs, so an agent reading parts never gets a part of another
// copy. It holds at most pageCacheSize copies and pageCacheBytes of
// Markdown, dropping the oldest first.
type pageCache struct {
	mu    sync.Mutex
	pages map[string]*page
	order []string // oldest first
	bytes int
}

const (
	pageCacheSize  = 32
	pageCacheBytes = 64 << 20
	pageCacheTTL   = 10 * time.Minute
)

func newPageCache() *pageCache { return &pageCache{pages: map[string]*page{}} }

// version identifies a copy of a page by its Markdown.
func version(markdown string) string {
	sum := sha256.Sum256([]byte(markdown))
	return hex.EncodeToString(sum[:8])
}

func (c *pageCache) put(url string, p *page) {
	key := url + " " + p.version
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.pages[key]; ok {
		// The same copy again: kept once, as new.
		c.bytes -= len(old.doc.Markdown)
		c.order = slices.DeleteFunc(c.order, func(k string) bool { return k == key })
	}
	c.order = append(c.order, key)
	c.pages[key] = p
	c.bytes += len(p.doc.Markdown)
	for len(c.order) > 1 && (len(c.order) > pageCacheSize || c.bytes > pageCacheBytes) {
		c.bytes -= len(c.pages[c.order[0]].doc.Markdown)
		delete(c.pages, c.order[0])
		c.order = c.order[1:]
	}
}

// get is the copy of a page with this version, if it is still held.
func (c *pageCache) get(url, version string) *page {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pages[url+" "+version]
	if p == nil || time.Since(p.at) > pageCacheTTL {
		return nil
	}
	return p
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
