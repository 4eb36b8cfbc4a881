package epub

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heedhq/heed/extract"
)

// BenchmarkRead reads a book of 200 chapters made from the test book's:
// each of its three chapters' bodies twelve times over (about 10 KB of
// XHTML a chapter, as a novel's run), with a navigation document and
// NCX naming them all. Its bytes per second are of the XHTML inflated.
func BenchmarkRead(b *testing.B) {
	var bodies []string
	for _, e := range unpacked(b, testBook(b, "tides.epub")) {
		if !strings.HasPrefix(e.name, "EPUB/text/ch") {
			continue
		}
		_, body, _ := strings.Cut(e.body, "<body")
		_, body, _ = strings.Cut(body, ">")
		body, _, _ = strings.Cut(body, "</body>")
		bodies = append(bodies, strings.Repeat(body, 12))
	}
	if len(bodies) != 3 {
		b.Fatalf("%d chapters in the test book", len(bodies))
	}
	const chapters = 200
	var manifest, spine, nav, ncx strings.Builder
	files := []entry{}
	inflated := 0
	for i := range chapters {
		name := fmt.Sprintf("text/ch%03d.xhtml", i)
		fmt.Fprintf(&manifest, `<item id="c%d" href="%s" media-type="application/xhtml+xml"/>`, i, name)
		fmt.Fprintf(&spine, `<itemref idref="c%d"/>`, i)
		fmt.Fprintf(&nav, `<li><a href="%s">Chapter %d</a></li>`, name, i)
		fmt.Fprintf(&ncx, `<navPoint id="p%d"><navLabel><text>Chapter %d</text></navLabel><content src="%s"/></navPoint>`, i, i, name)
		x := chapter(bodies[i%len(bodies)])
		inflated += len(x)
		files = append(files, entry{"OEBPS/" + name, x})
	}
	manifest.WriteString(`<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/><item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>`)
	files = append(files,
		entry{"OEBPS/nav.xhtml", `<html xmlns:epub="http://www.idpf.org/2007/ops"><body><nav epub:type="toc"><ol>` + nav.String() + `</ol></nav></body></html>`},
		entry{"OEBPS/toc.ncx", `<ncx><navMap>` + ncx.String() + `</navMap></ncx>`})
	raw := epubOf(b, opfOf(manifest.String(), spine.String()), files...)
	doc, err := Read(raw, extract.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if n := strings.Count(doc.Markdown, "# Harbour walls") + strings.Count(doc.Markdown, "# Sea state") + strings.Count(doc.Markdown, "# Tide tables"); n != 12*chapters {
		b.Fatalf("%d headings of chapters read, want %d", n, 12*chapters)
	}
	b.ReportAllocs()
	b.SetBytes(int64(inflated))
	for b.Loop() {
		if _, err := Read(raw, extract.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	// The size of the book as it came; b.Loop resets metrics reported
	// before it.
	b.ReportMetric(float64(len(raw)), "epub-bytes")
}
