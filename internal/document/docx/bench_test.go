package docx

import (
	"archive/zip"
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/heedhq/heed/extract"
)

// largeDocument is a report of 2,000 paragraphs as Word writes them: a
// heading per section, paragraphs of runs split by format with links and
// footnote references, a nested list and a table in every section.
func largeDocument(tb testing.TB) []byte {
	var b, notes strings.Builder
	run := func(text, props string) string {
		return `<w:r><w:rPr>` + props + `<w:lang w:val="en-GB"/></w:rPr><w:t xml:space="preserve">` + text + `</w:t></w:r>`
	}
	paras, note := 0, 0
	for section := 0; paras < 2000; section++ {
		b.WriteString(styled("Heading2", fmt.Sprintf("Section %d", section)))
		paras++
		for range 6 {
			note++
			b.WriteString(`<w:p><w:pPr><w:pStyle w:val="BodyText"/><w:spacing w:after="120"/></w:pPr>`)
			b.WriteString(run("The survey measured the river at each station, ", ""))
			b.WriteString(run("twice a day", "<w:b/>"))
			b.WriteString(run(" through the season, and wrote down what it carried: silt, ", ""))
			b.WriteString(run("leaves", "<w:i/>"))
			b.WriteString(`<w:hyperlink r:id="rId1">` + run(" and the survey's notes", `<w:rStyle w:val="Hyperlink"/>`) + `</w:hyperlink>`)
			fmt.Fprintf(&b, `<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:footnoteReference w:id="%d"/></w:r></w:p>`, note)
			fmt.Fprintf(&notes, `<w:footnote w:id="%d">%s</w:footnote>`, note, p("Measured at the upper station."))
			paras++
		}
		for i := range 6 {
			b.WriteString(item("1", fmt.Sprint(i%3), "An item of the list, with a few words in it"))
			paras++
		}
		b.WriteString("<w:tbl>")
		for range 4 {
			b.WriteString("<w:tr>" + tc(`<w:tcW w:w="2000" w:type="dxa"/>`, "Station") + tc("", "1.2") + tc("", "3.4") + tc(`<w:vMerge/>`, "x") + "</w:tr>")
		}
		b.WriteString("</w:tbl>")
	}
	return docx(tb, body(b.String()), map[string]string{
		"word/numbering.xml":           listNumbering,
		"word/styles.xml":              germanStyles,
		"word/footnotes.xml":           `<w:footnotes ` + nsW + `>` + notes.String() + `</w:footnotes>`,
		"word/_rels/document.xml.rels": rels(hyperlinkRel("rId1", "https://survey.example/notes")),
	})
}

// BenchmarkRead reads a large document (largeDocument): its speed is
// that of the XML read, decompressed (1.3 MB of it, 20 kB zipped).
func BenchmarkRead(b *testing.B) {
	raw := largeDocument(b)
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, f := range zr.File {
		size += int64(f.UncompressedSize64)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(raw, extract.Options{URL: "https://docs.example/report.docx"}); err != nil {
			b.Fatal(err)
		}
	}
}
