package crawl

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/document"
)

// Scope says which URLs a crawl may fetch: those under its start URL's
// directory (or its whole origin: Options.WholeSite) and of the hosts it
// allows, whose paths its globs include and do not exclude.
type Scope struct{ s *scope }

// ScopeOf is the scope of a crawl with o, from o.Start (its
// AllowHosts, Include, Exclude and WholeSite).
func ScopeOf(o crawlopt.Options) (Scope, error) {
	start, err := Normalize(o.Start)
	if err != nil {
		return Scope{}, err
	}
	su, _ := url.Parse(start)
	s, err := newScope(su, Options{Options: o})
	return Scope{s}, err
}

// Check is why u is out of scope, or "" when it is in.
func (s Scope) Check(u *url.URL) string { return s.s.check(u) }

// String says what the scope holds, in a line.
func (s Scope) String() string { return s.s.String() }

// Narrow reports whether the scope is the start URL's directory, not
// its whole origin: a door says how to widen it.
func (s Scope) Narrow() bool { return s.s.narrow() }

// Page is what a fetched page says: its document, how it was read, the
// links to follow and those kept with its snapshot, and whether it may be
// stored.
type Page struct {
	Doc  *extract.Document
	Kind extract.Kind
	Via  []string // how the page was found and read, for its snapshot
	// Follow are the page's links, normalized, to be queued: none when
	// its directives say nofollow (unless signals are ignored).
	Follow []string
	// Links are the links kept with the snapshot, for a re-crawl that
	// finds the page unchanged: those a polite crawl follows.
	Links []string
	Notes []string
	// Skip is why the page is not stored (ReasonType, ReasonNoindex), with
	// Detail; its links are followed all the same.
	Skip, Detail string
}

// maxTypeChars is the most bytes of a Content-Type a skip quotes.
const maxTypeChars = 100

// readPage reads a page fetched with a 2xx status for item it, as agent:
// Markdown where it is Markdown (by its type, or plain text where its
// path or how it was found says so), a document (a PDF, an EPUB) by its
// reader, HTML else; anything else is skipped. Its noindex directive
// skips it unless ignoreSignals. A document's reading ends when ctx
// does, with ctx's error.
func readPage(ctx context.Context, resp *fetch.Response, it Item, agent string, ignoreSignals bool) (*Page, error) {
	final := resp.URL
	ct := resp.Header.Get("Content-Type")
	full := isLLMsFull(final)
	if isPlainText(ct) && (slices.Contains(it.Via, ViaLLMsTxt) || isMarkdownPath(final) || full) {
		// Markdown served as plain text, as many servers serve .md files,
		// or a page that llms.txt lists (its pages are Markdown), or a
		// site's llms-full.txt.
		ct = "text/markdown"
	}
	if !isHTML(ct) && !isMarkdown(ct) && document.Of(ct, resp.Body) == "" {
		// The site's words, as long as it made them: cut, as extract
		// cuts them in its error.
		return &Page{Skip: ReasonType, Detail: "Content-Type " + heed.Clip(strings.ToValidUTF8(ct, "\uFFFD"), maxTypeChars)}, nil
	}
	// Markdown is asked for first (fetch's Accept): a site that answers
	// with it is read as it wrote it, made safe.
	doc, kind, err := document.Read(ctx, resp.Body, extract.Options{URL: final, ContentType: ct})
	if err != nil {
		return nil, err
	}
	p := &Page{Doc: doc, Kind: kind, Via: slices.Clone(it.Via)}
	switch {
	case full && kind == extract.KindMarkdown:
		// A site's whole documentation in one file: its links are not
		// followed, since what they lead to is in it.
		p.Via = append(p.Via, ViaLLMsFullTxt)
		doc.Links = nil
	case kind == extract.KindMarkdown:
		p.Via = append(p.Via, ViaMarkdown)
	}
	dir := doc.RobotsFor(agent, resp.Header.Values("X-Robots-Tag"))
	// Links first: nofollow stops them, noindex does not. The links kept
	// for a re-crawl are those a polite crawl follows.
	if !dir.NoFollow || ignoreSignals {
		for _, l := range doc.Links {
			if n, err := Normalize(l); err == nil {
				if !dir.NoFollow {
					p.Links = append(p.Links, n)
				}
				p.Follow = append(p.Follow, n)
			}
		}
	}
	if it.LastMod != "" {
		p.Notes = append(p.Notes, "sitemap lastmod: "+it.LastMod)
	}
	if !dir.IsZero() {
		p.Notes = append(p.Notes, "robots directives: "+dir.String())
	}
	if dir.NoIndex && !ignoreSignals {
		p.Skip, p.Detail = ReasonNoindex, "the page says "+dir.String()
	}
	return p, nil
}
