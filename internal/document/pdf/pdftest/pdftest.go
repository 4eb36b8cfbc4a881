package pdftest

import (
	"bytes"
	"compress/flate"
	"fmt"
	"strings"
)

// Generate writes a PDF titled title (in its document information, with
// its author, The Harbour Office, and its date, 2 January 2024 at 03:04:05
// an hour east of UTC) of n pages, each a heading in 16-point bold Helvetica ("Chapter 1 of the
// harbour") over four paragraphs of 10-point Helvetica and a line of
// Courier, with a running footer ("Harbour Book - 1"): a document of a
// known shape and any length, as a real PDF writer lays one out.
func Generate(title string, n int) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n%\xE2\xE3\xCF\xD3\n")
	kids := make([]string, n)
	for i := range n {
		kids[i] = fmt.Sprintf("%d 0 R", 6+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Count %d /Kids [%s] >>", n, strings.Join(kids, " ")))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold >>")
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>")
	for i := range n {
		var c strings.Builder
		fmt.Fprintf(&c, "BT /F2 16 Tf 72 700 Td (Chapter %d of the harbour) Tj ET\n", i+1)
		y := 670
		for p := range 4 {
			c.WriteString("BT /F1 10 Tf 12 TL ")
			fmt.Fprintf(&c, "72 %d Td ", y)
			for l := range 5 {
				fmt.Fprintf(&c, "(Line %d of paragraph %d on page %d tells of the tide, the gauge and the keeper who) Tj T* ", l+1, p+1, i+1)
			}
			c.WriteString("(reads them.) Tj ET\n")
			y -= 6*12 + 14
		}
		fmt.Fprintf(&c, "BT /F3 10 Tf 72 %d Td (gauge --read %d) Tj ET\n", y, i)
		fmt.Fprintf(&c, "BT /F1 8 Tf 280 30 Td (Harbour Book - %d) Tj ET\n", i+1)
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R /F2 4 0 R /F3 5 0 R >> >> /Contents %d 0 R >>", 7+2*i))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", c.Len(), c.String()))
	}
	obj(fmt.Sprintf("<< /Title (%s) /Author (The Harbour Office) /CreationDate (D:20240102030405+01'00') >>", strings.NewReplacer("(", "", ")", "", "\\", "").Replace(title)))
	info := len(offsets)
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, info, xref)
	return b.Bytes()
}

// Pages writes a PDF of one US Letter page for each content stream given,
// drawn as written: a test's own page, hostile or not. The fonts are
// /F1 Helvetica, /F2 Times-Roman, /F3 Courier and /F4 Helvetica-Bold.
func Pages(contents ...string) []byte {
	return pages(contents, "")
}

// Bomb writes a PDF of one page whose content stream, a line of text and
// then spaces, is deflated from mib MiB to about a thousandth of that: a
// decompression bomb. Its stream is never ended, as a bomb's need not be.
func Bomb(mib int) []byte {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	w.Write([]byte("BT /F1 12 Tf 72 700 Td (A bomb) Tj ET\n"))
	spaces := bytes.Repeat([]byte(" "), 1<<20)
	w.Write(spaces)
	w.Flush()
	stream := append([]byte{0x78, 0xda}, buf.Bytes()...)
	// Each further MiB of spaces deflates to the same bytes: the window
	// behind it is spaces alone.
	buf.Reset()
	w.Write(spaces)
	w.Flush()
	for range mib - 1 {
		stream = append(stream, buf.Bytes()...)
	}
	return pages([]string{string(stream)}, "/Filter /FlateDecode ")
}

// pages writes a PDF of the content streams given, their dictionaries
// holding filter (a /Filter and what it needs, or "").
func pages(contents []string, filter string) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n%\xE2\xE3\xCF\xD3\n")
	kids := make([]string, len(contents))
	for i := range contents {
		kids[i] = fmt.Sprintf("%d 0 R", 7+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Count %d /Kids [%s] >>", len(contents), strings.Join(kids, " ")))
	for _, f := range []string{"Helvetica", "Times-Roman", "Courier", "Helvetica-Bold"} {
		obj("<< /Type /Font /Subtype /Type1 /BaseFont /" + f + " >>")
	}
	for i, c := range contents {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R /F2 4 0 R /F3 5 0 R /F4 6 0 R >> >> /Contents %d 0 R >>", 8+2*i))
		obj(fmt.Sprintf("<< %s/Length %d >>\nstream\n%s\nendstream", filter, len(c), c))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}
