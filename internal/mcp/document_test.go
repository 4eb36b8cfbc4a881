package mcp

import (
	"os"
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

// TestWebCrawlDocuments: web_crawl of a site whose page links a PDF, an
// EPUB book and a Word document (served only as bytes) stores all
// three, by their titles, and stash_search finds the PDF's page.
func TestWebCrawlDocuments(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Documents", []string{"The harbour's documents, each a file of its own."}, "/book.pdf", "/tides.epub", "/notes"))
	site.set("/book.pdf", string(pdftest.Generate("Harbour Book", 2)))
	site.types["/book.pdf"] = "application/pdf"
	for path, file := range map[string]string{"/tides.epub": "../document/epub/testdata/tides.epub", "/notes": "../document/docx/testdata/features.docx"} {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		site.set(path, string(raw))
		site.types[path] = "application/octet-stream"
	}
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	var out CrawlOutput
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "wait_seconds": 30}, &out); isErr || out.State != "done" {
		t.Fatalf("web_crawl: %s %+v", text, out)
	}
	titles := map[string]string{}
	for _, p := range out.Pages {
		titles[strings.TrimPrefix(p.URL, site.URL)] = p.Title
	}
	for path, title := range map[string]string{"/book.pdf": "Harbour Book", "/tides.epub": "Tide Tables", "/notes": "Field Notes on Rivers"} {
		if titles[path] != title {
			t.Errorf("%s kept as %q, want %q (all: %v)", path, titles[path], title, titles)
		}
	}
	var found SearchOutput
	if text, isErr := call(t, cs, "stash_search", map[string]any{"query": "chapter 2 harbour gauge"}, &found); isErr || len(found.Hits) == 0 || found.Hits[0].Page == 0 || !strings.Contains(text, "/book.pdf, page ") {
		t.Errorf("stash_search: %s %+v", text, found)
	}
}
