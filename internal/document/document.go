package document

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"strings"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/internal/document/docx"
	"github.com/heedhq/heed/internal/document/epub"
	"github.com/heedhq/heed/internal/document/pdf"
)

// The kinds of document read here, beside extract's kinds of page.
const (
	KindPDF  extract.Kind = "pdf"
	KindEPUB extract.Kind = "epub"
	KindDOCX extract.Kind = "docx"
)

// docxType is a Word document's media type.
const docxType = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

// MaxBytes is the largest document read, larger than a page may be: the
// cap a fetch of a document's type has (Caps).
const MaxBytes = max(pdf.MaxInputBytes, epub.MaxCompressedBytes, docx.MaxInputBytes)

// Caps are the body caps for the media types of documents, for a fetch
// to read a document's body under its own cap rather than a page's.
var Caps = map[string]int64{
	"application/pdf":      pdf.MaxInputBytes,
	"application/x-pdf":    pdf.MaxInputBytes,
	"application/epub+zip": epub.MaxCompressedBytes,
	docxType:               docx.MaxInputBytes,
}

// Of is the kind of document a body is, by its Content-Type or what it
// opens with; "" when it is none (a page, or nothing heed reads).
func Of(contentType string, raw []byte) extract.Kind {
	mediaType, _, _ := mime.ParseMediaType(contentType)
	switch mediaType {
	case "application/pdf", "application/x-pdf":
		return KindPDF
	case "application/epub+zip":
		return KindEPUB
	case docxType:
		return KindDOCX
	}
	switch mediaType {
	case "", "application/octet-stream", "binary/octet-stream", "application/download", "application/force-download", "application/zip", "application/x-zip-compressed":
		// No word on what it is, or none that says: what it opens with.
		switch {
		case bytes.HasPrefix(bytes.TrimLeft(raw[:min(len(raw), 1024)], "\xEF\xBB\xBF \t\r\n"), []byte("%PDF-")):
			return KindPDF
		case bytes.HasPrefix(raw, []byte("PK\x03\x04")) && epub.Sniff(raw):
			return KindEPUB
		case (bytes.HasPrefix(raw, []byte("PK\x03\x04")) || bytes.HasPrefix(raw, oleHeader)) && docx.Sniff(raw):
			// A Word document, or one encrypted (an OLE file), which
			// docx refuses saying so.
			return KindDOCX
		}
	}
	return ""
}

// Read reads a body as what it is: a document by its reader, anything
// else as extract.Read does, which refuses what is no page. A PDF's
// reading ends when ctx does (within pdf.MaxTime still), with ctx's
// error: a door stopped (Ctrl-C, a crawl interrupted, an MCP call given
// up) does not wait for a document.
func Read(ctx context.Context, raw []byte, opts extract.Options) (*extract.Document, extract.Kind, error) {
	switch kind := Of(opts.ContentType, raw); kind {
	case KindPDF:
		doc, err := pdf.ReadContext(ctx, raw, opts)
		return doc, kind, kindOf(err, pdf.ErrLimit)
	case KindEPUB:
		doc, err := epub.Read(raw, opts)
		return doc, kind, kindOf(err, epub.ErrLimit)
	case KindDOCX:
		doc, err := docx.Read(raw, opts)
		return doc, kind, kindOf(err, docx.ErrLimit)
	}
	doc, kind, err := extract.Read(raw, opts)
	if errors.Is(err, extract.ErrNotAPage) {
		ct := heed.Clip(strings.ToValidUTF8(opts.ContentType, "\uFFFD"), 100)
		return nil, "", fmt.Errorf("%w (Content-Type %s); heed reads HTML, Markdown, plain text, PDF, EPUB and DOCX", extract.ErrNotAPage, ct)
	}
	return doc, kind, err
}

// oleHeader opens an OLE compound file: an encrypted Office document is
// one.
var oleHeader = []byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1")

// kindOf gives a reader's error its kind: a document over a limit is too
// large. One that cannot be read (damaged, encrypted) is of no kind, as
// a body that is no page is: the input a user gave, its URL or file's
// name, was not at fault.
func kindOf(err, limit error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, limit):
		return &readError{err, heed.TooLarge}
	}
	return &readError{err, heed.Other}
}

// readError is a reader's error, of a kind.
type readError struct {
	err  error
	kind heed.Kind
}

func (e *readError) Error() string   { return e.err.Error() }
func (e *readError) Unwrap() error   { return e.err }
func (e *readError) Kind() heed.Kind { return e.kind }
