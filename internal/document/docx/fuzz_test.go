package docx

import (
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/internal/testutil"
)

// checkRead fails unless Read's answer to raw is a known error, or a
// document whose Markdown is valid UTF-8 within MaxMarkdownBytes that a
// CommonMark reader finds no raw HTML or link but to http(s) in, and
// whose links are absolute http(s) URLs without fragments.
func checkRead(t *testing.T, raw []byte) {
	Sniff(raw)
	doc, err := Read(raw, extract.Options{URL: "https://docs.example/a/b.docx"})
	if err != nil {
		if !errors.Is(err, ErrNotDOCX) && !errors.Is(err, ErrLimit) && !errors.Is(err, ErrEncrypted) {
			t.Fatalf("an error of no known kind: %v", err)
		}
		return
	}
	if !utf8.ValidString(doc.Markdown) || len(doc.Markdown) > MaxMarkdownBytes {
		t.Fatalf("%d bytes of Markdown, valid UTF-8: %v", len(doc.Markdown), utf8.ValidString(doc.Markdown))
	}
	if bad := testutil.UnsafeMarkdown(doc.Markdown, false); bad != "" {
		t.Fatalf("%s in %q", bad, doc.Markdown)
	}
	for _, l := range doc.Links {
		u, err := url.Parse(l)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Fragment != "" {
			t.Fatalf("a link %q", l)
		}
	}
	for _, s := range []string{doc.Title, doc.Description, doc.Author, doc.Lang} {
		if !utf8.ValidString(s) || len(s) > maxMeta {
			t.Fatalf("metadata %q", s)
		}
	}
}

// FuzzRead: any file gives a document that keeps heed's promises, or an
// error of a known kind; never a panic. The seeds are the test documents
// and small hostile files.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"features.docx", "plain.docx"} {
		raw, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	small := bombEntry(f, "word/document.xml", 10000, 100)
	for _, raw := range [][]byte{
		encryptedFile(),
		oleFile(3, "WordDocument", "1Table"),
		zipRaw(f, small),
		zipNamed(f, "[Content_Types].xml", "word/document.xml", "../evil.xml"),
		docx(f, body(strings.Repeat("<w:ins>", 300)+strings.Repeat("</w:ins>", 300)), nil),
		docx(f, body(styled("A", "a")), map[string]string{"word/styles.xml": `<w:styles ` + nsW + `><w:style w:styleId="A"><w:basedOn w:val="A"/></w:style></w:styles>`}),
		docx(f, body(p("&lt;script&gt;", "[x](javascript:alert(1))")), nil),
		[]byte("PK\x03\x04"),
		nil,
	} {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkRead(t, raw) })
}

// FuzzParts: any XML in a document's parts, zipped as they are (which
// FuzzRead's changes to a zip's bytes seldom reach past the zip's
// checksums), gives a document that keeps heed's promises, or an error
// of a known kind.
func FuzzParts(f *testing.F) {
	f.Add(body(p("a", "b")), germanStyles, listNumbering, "")
	f.Add(body(item("1", "0", "x")+item("1", "3", "y")+"<w:tbl><w:tr>"+tc(`<w:gridSpan w:val="3"/>`, "c")+"</w:tr></w:tbl>"), listStyles, listNumbering, "")
	f.Add(body(`<w:p><w:hyperlink r:id="rId1"><w:r><w:t>l</w:t></w:r></w:hyperlink><w:r><w:footnoteReference w:id="1"/></w:r></w:p>`), "", "",
		`<w:footnotes `+nsW+`><w:footnote w:id="1">`+p("javascript:x")+`</w:footnote></w:footnotes>`)
	f.Add(body(`<w:p><w:r><w:fldChar w:fldCharType="begin"/><w:instrText>HYPERLINK "https://x.example/"</w:instrText><w:fldChar w:fldCharType="separate"/><w:t>f</w:t></w:r></w:p>`), "", "", "")
	f.Fuzz(func(t *testing.T, document, styles, numbering, footnotes string) {
		parts := map[string]string{"word/styles.xml": styles, "word/numbering.xml": numbering, "word/footnotes.xml": footnotes,
			"word/_rels/document.xml.rels": rels(hyperlinkRel("rId1", "https://l.example/#x") + hyperlinkRel("rId2", "javascript:alert(1)") + hyperlinkRel("rId3", "rel/a b"))}
		checkRead(t, docx(t, document, parts))
	})
}
