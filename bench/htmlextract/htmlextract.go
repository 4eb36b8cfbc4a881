// Package htmlextract names the main-content extractors that heed's
// benchmarks compare: heed, go-trafilatura (with its fallback
// extractors, comments left out) and go-readability, each turning an
// HTML page into the text it keeps.
package htmlextract

import (
	"bytes"
	"net/url"

	readability "github.com/go-shiori/go-readability"
	"github.com/markusmobius/go-trafilatura"

	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/internal/extractdev"
)

// Extractor turns a page into the text it keeps.
type Extractor struct {
	Name string
	Run  func(page []byte, u *url.URL) (string, error)
}

// All are the extractors compared, heed first. heed's Markdown is
// stripped to its text as the development sets' README says.
var All = []Extractor{
	{"heed", func(page []byte, u *url.URL) (string, error) {
		doc, err := extract.Extract(bytes.NewReader(page), extract.Options{URL: u.String(), ContentType: "text/html; charset=utf-8"})
		if err != nil {
			return "", err
		}
		return extractdev.PlainText(doc.Markdown), nil
	}},
	{"trafilatura", func(page []byte, u *url.URL) (string, error) {
		r, err := trafilatura.Extract(bytes.NewReader(page), trafilatura.Options{OriginalURL: u, EnableFallback: true, ExcludeComments: true})
		if err != nil {
			return "", err
		}
		return r.ContentText, nil
	}},
	{"readability", func(page []byte, u *url.URL) (string, error) {
		a, err := readability.FromReader(bytes.NewReader(page), u)
		if err != nil {
			return "", err
		}
		return a.TextContent, nil
	}},
}
