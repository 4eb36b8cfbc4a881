package document

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/internal/document/pdf/pdftest"
)

func file(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestOf: the type decides where it names a document; where it names
// none, or only bytes, what the body opens with decides; a page's type
// is a page's, whatever its body says; the URL plays no part.
func TestOf(t *testing.T) {
	pdfDoc := pdftest.Generate("Harbour Book", 1)
	book := file(t, "epub/testdata/tides.epub")
	word := file(t, "docx/testdata/features.docx")
	for _, c := range []struct {
		ct   string
		raw  []byte
		want extract.Kind
	}{
		{"application/pdf", []byte("not one at all"), KindPDF},
		{"application/pdf; charset=binary", pdfDoc, KindPDF},
		{"", pdfDoc, KindPDF},
		{"application/octet-stream", pdfDoc, KindPDF},
		{"application/octet-stream", append([]byte("\xEF\xBB\xBF\n"), pdfDoc...), KindPDF},
		{"application/epub+zip", book, KindEPUB},
		{"application/zip", book, KindEPUB},
		{"", book, KindEPUB},
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", word, KindDOCX},
		{"binary/octet-stream", word, KindDOCX},
		{"", word, KindDOCX},
		// A page is a page: its body's first bytes do not make it a
		// document, and nor does anything but bytes at their start.
		{"text/html", pdfDoc, ""},
		{"text/plain", []byte("%PDF-1.4 is a version of PDF"), ""},
		{"", []byte("<html><body>%PDF-1.4</body></html>"), ""},
		{"application/zip", []byte("PK\x03\x04 not a book"), ""},
		{"image/png", pdfDoc, ""},
	} {
		if got := Of(c.ct, c.raw); got != c.want {
			t.Errorf("Of(%q, %q...) = %q, want %q", c.ct, c.raw[:min(12, len(c.raw))], got, c.want)
		}
	}
}

// TestRead: each kind of document is read by its reader; what is none is
// refused naming what heed reads; a reader's limit is too large, and its
// other refusals (damaged, encrypted) are of no kind.
func TestRead(t *testing.T) {
	for _, c := range []struct {
		raw  []byte
		kind extract.Kind
		has  string
	}{
		{pdftest.Generate("Harbour Book", 2), KindPDF, "# Chapter 2 of the harbour"},
		{file(t, "epub/testdata/tides.epub"), KindEPUB, "# Harbour walls"},
		{file(t, "docx/testdata/features.docx"), KindDOCX, "## Tributaries"},
	} {
		doc, kind, err := Read(t.Context(), c.raw, extract.Options{ContentType: "application/octet-stream"})
		if err != nil || kind != c.kind || !strings.Contains(doc.Markdown, c.has) {
			t.Errorf("%s: kind %q, %v, %q", c.kind, kind, err, doc)
		}
	}
	_, _, err := Read(t.Context(), []byte("\x89PNG"), extract.Options{ContentType: "image/png"})
	if !errors.Is(err, extract.ErrNotAPage) || !strings.Contains(err.Error(), "PDF, EPUB and DOCX") {
		t.Errorf("a PNG: %v", err)
	}
	_, _, err = Read(t.Context(), []byte("%PDF-1.4 and nothing"), extract.Options{ContentType: "application/pdf"})
	if err == nil || heed.KindOf(err) != heed.Other {
		t.Errorf("a damaged PDF: %v, kind %v", err, heed.KindOf(err))
	}
	_, _, err = Read(t.Context(), append([]byte("%PDF-1.4\n"), make([]byte, MaxBytes)...), extract.Options{ContentType: "application/pdf"})
	if heed.KindOf(err) != heed.TooLarge {
		t.Errorf("a PDF over its cap: %v, kind %v", err, heed.KindOf(err))
	}
}

// TestOfLoose: media types read as mime reads them (any case, loose
// parameters), the download types, and bodies that are near misses: a
// zip that is no book, a book served as JSON, no body at all.
func TestOfLoose(t *testing.T) {
	pdfDoc := pdftest.Generate("", 1)
	book := file(t, "epub/testdata/tides.epub")
	var z bytes.Buffer
	w := zip.NewWriter(&z)
	f, _ := w.Create("data.csv")
	f.Write([]byte("a,b\n"))
	w.Close()
	for _, c := range []struct {
		name, contentType string
		raw               []byte
		want              extract.Kind
	}{
		{"pdf by type, parameters loose", "application/pdf; name=Annual Report.pdf", pdfDoc, KindPDF},
		{"epub by type, in capitals", "Application/EPUB+zip", book, KindEPUB},
		{"pdf as a download", "application/force-download", pdfDoc, KindPDF},
		{"epub as a zip", "application/x-zip-compressed", book, KindEPUB},
		{"a zip that is no book", "application/zip", z.Bytes(), ""},
		{"epub bytes served as JSON", "application/json", book, ""},
		{"nothing", "", nil, ""},
	} {
		if got := Of(c.contentType, c.raw); got != c.want {
			t.Errorf("%s: Of(%q) = %q, want %q", c.name, c.contentType, got, c.want)
		}
	}
	doc, kind, err := Read(t.Context(), []byte("<title>T</title><p>Words of a page.</p>"), extract.Options{ContentType: "text/html"})
	if err != nil || kind != extract.KindHTML || doc.Title != "T" {
		t.Errorf("HTML: %q, %v", kind, err)
	}
}

// TestReadStops: a read whose door has stopped (Ctrl-C, a call given up)
// stops, saying so.
func TestReadStops(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	doc, _, err := Read(ctx, pdftest.Generate("Harbour Book", 3), extract.Options{ContentType: "application/pdf"})
	if !errors.Is(err, context.Canceled) || doc != nil {
		t.Errorf("err = %v (a document: %v), want context.Canceled", err, doc != nil)
	}
}
