package mcp

import (
	"strings"
	"testing"

	"github.com/heedhq/heed/internal/document/pdf/pdftest"
)

// TestWebFetchPDF: web_fetch reads a PDF as it reads a page: its title,
// its Markdown with each page marked, its headings and code.
func TestWebFetchPDF(t *testing.T) {
	site := newSite(t)
	site.set("/book.pdf", string(pdftest.Generate("Harbour Book", 3)))
	site.types["/book.pdf"] = "application/pdf"
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	var out FetchOutput
	text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/book.pdf"}, &out)
	if isErr {
		t.Fatalf("web_fetch: %s", text)
	}
	if out.Title != "Harbour Book" {
		t.Errorf("title %q", out.Title)
	}
	for _, want := range []string{"<!-- page 1 -->\n\n# Chapter 1 of the harbour", "<!-- page 3 -->\n\n# Chapter 3 of the harbour", "```\ngauge --read 1\n```"} {
		if !strings.Contains(out.Markdown, want) {
			t.Errorf("no %q in\n%s", want, out.Markdown)
		}
	}
}
