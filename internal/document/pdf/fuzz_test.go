package pdf

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/heedhq/heed/extract"
)

// FuzzRead reads any bytes as a PDF: an error is one of the package's
// own, and what is read is Markdown of bounded length.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"tides.pdf", "encrypted.pdf"} {
		raw, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
		f.Add(raw[:len(raw)/3])
	}
	f.Add(generate(2))
	f.Add([]byte("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R /Outlines 3 0 R >> endobj\n3 0 obj << /First 4 0 R >> endobj\n4 0 obj << /Title (loop) /Next 4 0 R /First 4 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		doc, err := Read(raw, extract.Options{URL: "https://example.com/a.pdf"})
		if err != nil {
			if !errors.Is(err, ErrNotPDF) && !errors.Is(err, ErrEncrypted) && !errors.Is(err, ErrLimit) && !strings.HasPrefix(err.Error(), "pdf: ") {
				t.Fatalf("error not the package's: %v", err)
			}
			return
		}
		if len(doc.Markdown) > 16*len(raw)+1024 {
			t.Fatalf("%d bytes of Markdown from %d bytes", len(doc.Markdown), len(raw))
		}
	})
}
