package ingest

import (
	"context"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/document"
	"github.com/heedhq/heed/internal/render"
	"github.com/heedhq/heed/robots/directives"
)

// Page is one page read on purpose, and what it says to heed.
type Page struct {
	URL       string // after redirects
	Doc       *extract.Document
	FetchedAt time.Time
	// Robots merges every directive the page states for heed's agent, in
	// its X-Robots-Tag headers and its meta tags. A page asked for on
	// purpose reports them; it is not a crawl, which heeds them.
	Robots directives.Set
	// Via says where its Markdown came from when not from its HTML:
	// ViaMarkdown (the server answered with Markdown) or
	// ViaMarkdownAlternate (the page's own Markdown alternate).
	Via string
	// Rendered says the page was rendered in a browser; Note says why a
	// page that looked empty was not.
	Rendered bool
	Note     string
}

// Where a page's Markdown came from, when not from its HTML (Page.Via,
// Snapshot.Via).
const (
	ViaMarkdown          = crawl.ViaMarkdown
	ViaMarkdownAlternate = crawl.ViaMarkdownAlternate
)

// FetchRequest asks for one page.
type FetchRequest struct {
	URL string
	// Render says when the page is rendered in the service's browser:
	// render.Auto ("") when its static HTML holds next to nothing,
	// render.Always, render.Never.
	Render render.Mode
}

// ErrNotAPage is wrapped by the error of a body heed does not read: not
// HTML, plain text or Markdown.
var ErrNotAPage = extract.ErrNotAPage

// Fetch reads one page on purpose: robots.txt is not consulted (a page
// asked for is not a crawl), but the request takes its host's turn, as
// every request of the service does, so that it adds nothing to the load
// of a crawl of the same host. Markdown is asked for first; an HTML page
// that names a Markdown alternate on its own origin is read from that
// alternate, on the host's next turn. An answer other than 2xx is an
// error whose cause is a *fetch.StatusError.
func (s *Service) Fetch(ctx context.Context, req FetchRequest) (*Page, error) {
	if err := fetch.CheckURL(req.URL); err != nil {
		return nil, &heed.Error{Kind: heed.Invalid, Op: "fetch", URL: fetch.Redact(req.URL), Err: err}
	}
	resp, err := s.client.Get(ctx, fetch.Request{URL: req.URL})
	if err != nil {
		return nil, err
	}
	if resp.Status < 200 || resp.Status > 299 {
		se := &fetch.StatusError{Status: resp.Status}
		return nil, &heed.Error{Kind: se.Kind(), Op: "fetch", URL: resp.URL, Err: se}
	}
	doc, kind, err := document.Read(ctx, resp.Body, extract.Options{URL: resp.URL, ContentType: resp.Header.Get("Content-Type")})
	if err != nil {
		return nil, &heed.Error{Kind: heed.KindOf(err), Op: "fetch", URL: resp.URL, Err: err}
	}
	page := &Page{
		URL: resp.URL, Doc: doc, FetchedAt: time.Now().UTC(),
		Robots: doc.RobotsFor(s.cfg.Agent, resp.Header.Values("X-Robots-Tag")),
	}
	switch {
	case kind == extract.KindMarkdown:
		page.Via = ViaMarkdown
	case kind == extract.KindHTML && doc.MarkdownAlternate != "":
		if md := crawl.Alternate(ctx, s.client, resp.URL, doc, nil); md != nil {
			page.Doc, page.Via = md, ViaMarkdownAlternate
			return page, nil
		}
	}
	if kind == extract.KindHTML {
		if err := s.renderPage(ctx, req.Render, resp, page); err != nil {
			return nil, err
		}
	}
	return page, nil
}

// Document reads a body by its Content-Type and what it opens with, as
// document.Read does: a PDF is read by its reader (stopped when ctx
// ends), HTML is extracted, Markdown made safe, plain text kept;
// anything else is refused with ErrNotAPage.
func Document(ctx context.Context, body []byte, pageURL, contentType string) (*extract.Document, error) {
	doc, _, err := document.Read(ctx, body, extract.Options{URL: pageURL, ContentType: contentType})
	return doc, err
}

// renderPage renders a fetched page when it needs it (render.Auto), or
// always (render.Browser.Apply); its requests take their hosts' turns,
// as every request of the service (robots.txt is not asked: the page
// was asked for on purpose).
func (s *Service) renderPage(ctx context.Context, mode render.Mode, resp *fetch.Response, page *Page) error {
	var doc *extract.Document
	rendered, note, err := s.cfg.Browser.Apply(ctx, mode, resp, page.Doc.Markdown, s.client.Get, func(html []byte) error {
		var err error
		doc, err = extract.ExtractBytes(html, extract.Options{URL: resp.URL})
		return err
	})
	if err != nil {
		return err
	}
	if rendered {
		page.Doc, page.Rendered = doc, true
		page.Robots = doc.RobotsFor(s.cfg.Agent, resp.Header.Values("X-Robots-Tag"))
	}
	page.Note = note
	return nil
}
