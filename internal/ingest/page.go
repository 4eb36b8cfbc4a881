package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/fetch"
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
}

// FetchRequest asks for one page.
type FetchRequest struct {
	URL string
}

// maxTypeChars is how much of a Content-Type an error repeats.
const maxTypeChars = 100

// ErrNotAPage is wrapped by the error of a body heed does not read: not
// HTML, plain text or Markdown.
var ErrNotAPage = errors.New("not an HTML or text page")

// Fetch reads one page on purpose: robots.txt is not consulted (a page
// asked for is not a crawl), but the request takes its host's turn, as
// every request of the service does, so that it adds nothing to the load
// of a crawl of the same host. An answer other than 2xx is an error
// whose cause is a *fetch.StatusError.
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
	doc, err := Document(resp.Body, resp.URL, resp.Header.Get("Content-Type"))
	if err != nil {
		return nil, &heed.Error{Kind: heed.KindOf(err), Op: "fetch", URL: resp.URL, Err: err}
	}
	return &Page{
		URL: resp.URL, Doc: doc, FetchedAt: time.Now().UTC(),
		Robots: doc.RobotsFor(s.cfg.Agent, resp.Header.Values("X-Robots-Tag")),
	}, nil
}

// Document reads a page's body by its Content-Type: HTML is extracted;
// plain text and Markdown are kept as they are (as valid UTF-8);
// anything else is refused with ErrNotAPage.
func Document(body []byte, pageURL, contentType string) (*extract.Document, error) {
	mediaType, _, _ := mime.ParseMediaType(contentType)
	switch mediaType {
	case "", "text/html", "application/xhtml+xml":
		return extract.Extract(bytes.NewReader(body), extract.Options{URL: pageURL, ContentType: contentType})
	case "text/plain", "text/markdown", "text/x-markdown":
		if !utf8.Valid(body) {
			body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
		}
		return &extract.Document{URL: pageURL, Markdown: strings.TrimSpace(string(body)), Links: []string{}}, nil
	}
	ct := heed.Clip(strings.ToValidUTF8(contentType, "\uFFFD"), maxTypeChars)
	return nil, fmt.Errorf("%w (Content-Type %s); heed reads HTML, plain text and Markdown", ErrNotAPage, ct)
}
