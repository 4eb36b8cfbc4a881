package pdf

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/internal/document/pdf/pdftest"
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
	f.Add(pdftest.Generate("", 2))
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

// FuzzLayout lays out pages of any spans, placed anywhere, in any
// sizes and fonts: the layout never panics, and its Markdown grows no
// faster than the text it is given.
func FuzzLayout(f *testing.F) {
	f.Add([]byte("\x10\x20\x30\x40\x0aHeading\x00\x10\x50\x30\x60\x05body text that goes on-\x00\x10\x60\x30\x70\x05on the next line\x00"))
	f.Add([]byte("\x01\x01\x01\x01\x01• item\x00\x01\x02\x01\x02\x01- item\x00\xff\xff\xff\xff\xff. . . . . 12\x00"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var pages []page
		p := page{width: 612, height: 792}
		text := 0
		for len(raw) >= 6 && len(pages) < 20 {
			s := span{x0: float64(raw[0]) * 3, top: float64(raw[1]) * 3, size: float64(raw[4]%40) + 0.5, font: font(raw[4] >> 5)}
			s.x1, s.bottom = s.x0+float64(raw[2]), s.top+float64(raw[3])/4
			end := 5
			for end < len(raw) && raw[end] != 0 {
				end++
			}
			s.text = spanText(string(raw[5:end]))
			text += len(s.text)
			if s.text != "" {
				p.spans = append(p.spans, s)
			}
			if raw[0] == 0xff {
				pages, p = append(pages, p), page{width: 612, height: 792}
			}
			raw = raw[min(end+1, len(raw)):]
		}
		pages = append(pages, p)
		l := layout{pages: pages}
		md, _, err := l.markdown("")
		if err != nil {
			t.Fatal(err)
		}
		if len(md) > 8*text+64*len(pages)+64 {
			t.Fatalf("%d bytes of Markdown from %d of text", len(md), text)
		}
	})
}
