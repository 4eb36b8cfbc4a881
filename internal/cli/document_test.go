package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/heedhq/heed/internal/document/pdf/pdftest"
)

// TestFetchPDF: heed fetch reads a PDF by its Content-Type, or by what
// it opens with when the server says only that it is bytes, and prints
// its Markdown with the document's title, author and dates, each page
// marked; a PDF that is none fails, saying why.
func TestFetchPDF(t *testing.T) {
	doc := pdftest.Generate("Harbour Book", 3)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/book.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(doc)
		case "/download":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(doc)
		case "/broken.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write([]byte("%PDF-1.4 and nothing after"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer s.Close()
	for _, path := range []string{"/book.pdf", "/download"} {
		code, out, stderr := run(t, "", "fetch", "--allow-net", "127.0.0.1/32", s.URL+path)
		if code != 0 {
			t.Fatalf("fetch %s: exit %d, %s", path, code, stderr)
		}
		for _, want := range []string{`title: "Harbour Book"`, `author: "The Harbour Office"`, `published: "2024-01-02T02:04:05Z"`, "<!-- page 1 -->\n\n# Chapter 1 of the harbour\n", "<!-- page 3 -->\n\n# Chapter 3 of the harbour\n", "```\ngauge --read 2\n```"} {
			if !strings.Contains(out, want) {
				t.Errorf("fetch %s: no %q in\n%s", path, want, out)
			}
		}
	}
	code, out, stderr := run(t, "", "fetch", "--allow-net", "127.0.0.1/32", s.URL+"/broken.pdf")
	if code != ExitFailed || out != "" || !strings.Contains(stderr, "not a PDF: the file is damaged") {
		t.Errorf("fetch broken.pdf: exit %d, %q, %q", code, out, stderr)
	}
}

// TestExtractPDF: heed extract reads a PDF file, by its name or, from
// standard input, by its header.
func TestExtractPDF(t *testing.T) {
	doc := pdftest.Generate("Harbour Book", 2)
	file := t.TempDir() + "/book.pdf"
	if err := os.WriteFile(file, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, "", "extract", file)
	if code != 0 || !strings.Contains(out, `title: "Harbour Book"`) || !strings.Contains(out, "# Chapter 2 of the harbour") {
		t.Errorf("extract book.pdf: exit %d, %s\n%s", code, stderr, out)
	}
	code, out, stderr = run(t, string(doc), "extract")
	if code != 0 || !strings.Contains(out, "# Chapter 1 of the harbour") {
		t.Errorf("extract < book.pdf: exit %d, %s\n%s", code, stderr, out)
	}
}

// TestFetchEPUB: heed fetch and heed extract read an EPUB book, by its
// type or, served as bytes or read from standard input, by what it is.
func TestFetchEPUB(t *testing.T) {
	book, err := os.ReadFile("../document/epub/testdata/tides.epub")
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/tides.epub":
			w.Header().Set("Content-Type", "application/epub+zip")
		default:
			w.Header().Set("Content-Type", "application/octet-stream")
		}
		w.Write(book)
	}))
	defer s.Close()
	for _, path := range []string{"/tides.epub", "/download"} {
		code, out, stderr := run(t, "", "fetch", "--allow-net", "127.0.0.1/32", s.URL+path)
		if code != 0 || !strings.Contains(out, "title: ") || !strings.Contains(out, "\n# ") {
			t.Errorf("fetch %s: exit %d, %s\n%s", path, code, stderr, out)
		}
	}
	code, out, stderr := run(t, string(book), "extract")
	if code != 0 || !strings.Contains(out, "\n# ") {
		t.Errorf("extract < tides.epub: exit %d, %s\n%s", code, stderr, out)
	}
}

// TestFetchDOCX: heed fetch and heed extract read a Word document, by
// its type or, served as bytes or read from standard input, by what it
// is; one encrypted is refused, saying so.
func TestFetchDOCX(t *testing.T) {
	word, err := os.ReadFile("../document/docx/testdata/features.docx")
	if err != nil {
		t.Fatal(err)
	}
	encrypted := append([]byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1"), make([]byte, 4096)...)
	copy(encrypted[1024:], []byte("E\x00n\x00c\x00r\x00y\x00p\x00t\x00e\x00d\x00P\x00a\x00c\x00k\x00a\x00g\x00e\x00"))
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/report.docx":
			w.Header().Set("Content-Type", "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
			w.Write(word)
		case "/secret.docx":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(encrypted)
		default:
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(word)
		}
	}))
	defer s.Close()
	for _, path := range []string{"/report.docx", "/download"} {
		code, out, stderr := run(t, "", "fetch", "--allow-net", "127.0.0.1/32", s.URL+path)
		if code != 0 || !strings.Contains(out, "title: ") || !strings.Contains(out, "\n# ") {
			t.Errorf("fetch %s: exit %d, %s\n%s", path, code, stderr, out)
		}
	}
	code, out, stderr := run(t, "", "fetch", "--allow-net", "127.0.0.1/32", s.URL+"/secret.docx")
	if code != ExitFailed || out != "" || !strings.Contains(stderr, "encrypted") {
		t.Errorf("fetch secret.docx: exit %d, %q, %q", code, out, stderr)
	}
	code, out, stderr = run(t, string(word), "extract")
	if code != 0 || !strings.Contains(out, "\n# ") {
		t.Errorf("extract < features.docx: exit %d, %s\n%s", code, stderr, out)
	}
}

// TestSearchSaysThePage: a PDF crawled into the stash is found by
// heed search, which says which of its pages the hit is on, and heed
// show marks where each page begins.
func TestSearchSaysThePage(t *testing.T) {
	book, err := os.ReadFile("../document/pdf/testdata/tides.pdf")
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/docs/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(`<html><head><title>Books</title></head><body><main><h1>Books</h1><p>The harbour's book, <a href="book.pdf">as a PDF</a>, for every keeper of a gauge.</p></main></body></html>`))
		case "/docs/book.pdf":
			w.Header().Set("Content-Type", "application/pdf")
			w.Write(book)
		default:
			http.NotFound(w, r)
		}
	}))
	defer s.Close()
	stash := t.TempDir()
	if code, _, stderr := run(t, "", "crawl", s.URL+"/docs/", "--stash", stash, "--allow-net", "127.0.0.1/32", "--delay", "0s"); code != 0 {
		t.Fatalf("crawl: exit %d, %s", code, stderr)
	}
	// Harbour 39 is told of on the last of the tide tables' three pages.
	code, out, stderr := run(t, "", "search", "harbour 39", "--stash", stash)
	if code != 0 || !strings.Contains(out, s.URL+"/docs/book.pdf, page 3\n") {
		_, ls, _ := run(t, "", "ls", "--stash", stash)
		t.Errorf("search: exit %d, %s\n%s\n%s", code, stderr, out, ls)
	}
	// heed show gives the stored Markdown, each page's text after its
	// marker: harbour 39 after page 3's.
	code, out, stderr = run(t, "", "show", s.URL+"/docs/book.pdf", "--stash", stash)
	three := strings.Index(out, "<!-- page 3 -->")
	if code != 0 || three < 0 || strings.Index(out, "Harbour number 39 keeps") < three {
		t.Errorf("show: exit %d, %s\n%s", code, stderr, out)
	}
}
