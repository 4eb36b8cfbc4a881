package docx

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/internal/testutil"
)

// readErr reads raw, and fails unless the error is want's.
func readErr(t *testing.T, raw []byte, want error, says string) {
	t.Helper()
	doc, err := Read(raw, extract.Options{})
	if !errors.Is(err, want) {
		t.Fatalf("Read: %v (document %v), want %v", err, doc != nil, want)
	}
	if !strings.Contains(err.Error(), says) {
		t.Errorf("the error %q does not say %q", err, says)
	}
}

// oleFile is a minimal OLE compound file whose directory, at the given
// sector (past the three sectors of its allocation table) and the next,
// names the root and streams of the given names (the directory's second
// sector holds the last name).
func oleFile(dirSector int, names ...string) []byte {
	const size, fatSectors = 512, 3
	raw := make([]byte, size*(dirSector+3))
	copy(raw, oleSignature)
	le := binary.LittleEndian
	le.PutUint16(raw[0x18:], 0x3E)
	le.PutUint16(raw[0x1A:], 3)
	le.PutUint16(raw[0x1C:], 0xFFFE)
	le.PutUint16(raw[0x1E:], 9)
	le.PutUint16(raw[0x20:], 6)
	le.PutUint32(raw[0x2C:], fatSectors)
	le.PutUint32(raw[0x30:], uint32(dirSector))
	le.PutUint32(raw[0x38:], 0x1000)
	le.PutUint32(raw[0x3C:], 0xFFFFFFFE)
	le.PutUint32(raw[0x44:], 0xFFFFFFFE)
	for i := range 109 {
		v := uint32(0xFFFFFFFF)
		if i < fatSectors {
			v = uint32(i)
		}
		le.PutUint32(raw[0x4C+4*i:], v)
	}
	fat := raw[size : (fatSectors+1)*size]
	for i := range len(fat) / 4 {
		le.PutUint32(fat[4*i:], 0xFFFFFFFF)
	}
	for i := range fatSectors {
		le.PutUint32(fat[4*i:], 0xFFFFFFFD)
	}
	le.PutUint32(fat[4*dirSector:], uint32(dirSector+1))
	le.PutUint32(fat[4*(dirSector+1):], 0xFFFFFFFE)
	entry := func(sector, i int, name string, kind byte) {
		e := raw[(sector+1)*size+128*i:]
		for j, c := range name {
			le.PutUint16(e[2*j:], uint16(c))
		}
		le.PutUint16(e[0x40:], uint16(2*len(name)+2))
		e[0x42] = kind
	}
	entry(dirSector, 0, "Root Entry", 5)
	for i, n := range names[:len(names)-1] {
		entry(dirSector, i+1, n, 2)
	}
	entry(dirSector+1, 0, names[len(names)-1], 2)
	return raw
}

// encryptedFile is an encrypted OOXML document as Office wraps it.
func encryptedFile() []byte { return oleFile(3, "EncryptionInfo", "EncryptedPackage") }

// TestEncrypted: an encrypted document is refused as encrypted, its
// EncryptedPackage stream found in the file's head or along its
// directory's chain far past it; a legacy .doc is no DOCX; a zip whose
// parts are encrypted is refused as encrypted.
func TestEncrypted(t *testing.T) {
	readErr(t, encryptedFile(), ErrEncrypted, "encrypted")
	far := oleFile(300, "EncryptionInfo", "EncryptedPackage")
	if bytes.Contains(far[:oleHeadScan], encryptedPackage) {
		t.Fatal("the far directory is in the file's head")
	}
	readErr(t, far, ErrEncrypted, "encrypted")
	if !Sniff(far) {
		t.Error("Sniff does not know the encrypted file")
	}
	readErr(t, oleFile(3, "WordDocument", "1Table"), ErrNotDOCX, "OLE compound file")

	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"[Content_Types].xml", "word/document.xml"} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Flags: 1})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("ciphertext"))
	}
	zw.Close()
	readErr(t, buf.Bytes(), ErrEncrypted, "encrypted")
}

// rawEntry is a zip entry written as is: deflated data, and the sizes
// and checksum its header states.
type rawEntry struct {
	name       string
	data       []byte
	crc        uint32
	size, comp uint64
}

func deflated(tb testing.TB, plain []byte) []byte {
	var buf bytes.Buffer
	fw, _ := flate.NewWriter(&buf, flate.BestSpeed)
	fw.Write(plain)
	fw.Close()
	return buf.Bytes()
}

func zipRaw(tb testing.TB, entries ...rawEntry) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: e.name, Method: zip.Deflate, CRC32: e.crc, CompressedSize64: e.comp, UncompressedSize64: e.size})
		if err != nil {
			tb.Fatal(err)
		}
		w.Write(e.data)
	}
	zw.Close()
	return buf.Bytes()
}

// zeros is the document.xml of a zip bomb: a document, then spaces.
func bombEntry(tb testing.TB, name string, n int, claimed uint64) rawEntry {
	plain := make([]byte, n)
	for i := range plain {
		plain[i] = ' '
	}
	copy(plain, body(""))
	d := deflated(tb, plain)
	return rawEntry{name: name, data: d, crc: crc32.ChecksumIEEE(plain), size: claimed, comp: uint64(len(d))}
}

// TestZipBombs: a part that decompresses past what its header states is
// refused there, one that states a huge size is read to MaxPartBytes
// and no further, and so is an honest part over it; parts that together
// decompress past MaxDecompressedBytes are refused before any is
// parsed. None allocates much more than what it is refused at.
func TestZipBombs(t *testing.T) {
	ct := rawEntry{name: "[Content_Types].xml", data: deflated(t, []byte(contentTypes)), crc: crc32.ChecksumIEEE([]byte(contentTypes)),
		size: uint64(len(contentTypes))}
	ct.comp = uint64(len(ct.data))
	const big = MaxPartBytes + 1<<20
	lying := zipRaw(t, ct, bombEntry(t, "word/document.xml", big, 1024))
	var err error
	alloc := testutil.Allocated(func() { _, err = Read(lying, extract.Options{}) })
	if !errors.Is(err, ErrNotDOCX) || alloc > 8<<20 {
		t.Errorf("a header that understates: %v, %d bytes allocated", err, alloc)
	}
	huge := zipRaw(t, ct, bombEntry(t, "word/document.xml", big, 1<<40))
	alloc = testutil.Allocated(func() { _, err = Read(huge, extract.Options{}) })
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "MaxPartBytes") || alloc > 3*MaxPartBytes {
		t.Errorf("a header that overstates: %v, %d bytes allocated", err, alloc)
	}
	readErr(t, zipRaw(t, ct, bombEntry(t, "word/document.xml", big, big)), ErrLimit, fmt.Sprintf("over %d bytes (MaxPartBytes)", MaxPartBytes))

	// Five parts of 60 MiB, deflated once.
	part := bombEntry(t, "word/document.xml", 60<<20, 60<<20)
	var entries []rawEntry
	for _, name := range []string{"word/document.xml", "word/styles.xml", "word/numbering.xml", "word/footnotes.xml", "word/endnotes.xml"} {
		e := part
		e.name = name
		entries = append(entries, e)
	}
	readErr(t, zipRaw(t, append(entries, ct)...), ErrLimit, fmt.Sprintf("over %d bytes (MaxDecompressedBytes)", MaxDecompressedBytes))
}

// zipNamed is a zip of entries of the given names, each holding a
// document.
func zipNamed(t testing.TB, names ...string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body(p("x"))))
	}
	zw.Close()
	return buf.Bytes()
}

// TestUnsafeNames: a zip with an entry whose name climbs out of a
// folder, is absolute, holds a backslash or a NUL, or repeats another's
// (regardless of case), is refused; a name that merely holds two dots
// is not.
func TestUnsafeNames(t *testing.T) {
	for _, c := range []struct{ name, says string }{
		{"../evil.xml", `".." element`},
		{"word/../../evil.xml", `".." element`},
		{"/etc/passwd", "absolute"},
		{`word\document.xml`, "backslash"},
		{"word/doc\x00ument.xml", "NUL"},
		{"word/document.xml", "two entries"},
		{"Word/Document.XML", "two entries"},
	} {
		t.Run(c.says, func(t *testing.T) {
			readErr(t, zipNamed(t, "[Content_Types].xml", "word/document.xml", c.name), ErrNotDOCX, c.says)
		})
	}
	if doc := read(t, zipNamed(t, "[Content_Types].xml", "word/document.xml", "word/media/a..b.png")); doc.Markdown != "x" {
		t.Errorf("Markdown = %q", doc.Markdown)
	}
}

// TestTooManyEntries: a zip of more than MaxEntries entries is refused
// before its directory is read; one of MaxEntries is read.
func TestTooManyEntries(t *testing.T) {
	names := []string{"[Content_Types].xml", "word/document.xml"}
	for i := len(names); i < MaxEntries; i++ {
		names = append(names, fmt.Sprintf("word/media/%d.png", i))
	}
	if doc := read(t, zipNamed(t, names...)); doc.Markdown != "x" {
		t.Errorf("Markdown = %q", doc.Markdown)
	}
	readErr(t, zipNamed(t, append(names, "one/more.png")...), ErrLimit, fmt.Sprintf("over %d entries (MaxEntries)", MaxEntries))
}

// TestDeepNesting: XML nested past MaxDepth is refused, in the body and
// in the styles; nested just within it is read.
func TestDeepNesting(t *testing.T) {
	nest := func(n int, inner string) string {
		return strings.Repeat("<w:ins>", n) + inner + strings.Repeat("</w:ins>", n)
	}
	// The document, its body and the paragraph take three levels.
	doc := read(t, docx(t, body(nest(MaxDepth-5, p("deep"))), nil))
	if doc.Markdown != "deep" {
		t.Errorf("Markdown = %q", doc.Markdown)
	}
	readErr(t, docx(t, body(nest(MaxDepth, p("deeper"))), nil), ErrLimit, fmt.Sprintf("over %d elements deep (MaxDepth)", MaxDepth))
	readErr(t, docx(t, body(nest(100000, p("deepest"))), nil), ErrLimit, "MaxDepth")
	styles := `<w:styles ` + nsW + `>` + strings.Repeat("<w:style>", 1000) + strings.Repeat("</w:style>", 1000) + `</w:styles>`
	readErr(t, docx(t, body(p("x")), map[string]string{"word/styles.xml": styles}), ErrLimit, "styles.xml nests")
}

// TestBasedOnCycle: styles based on each other in a loop, or on
// themselves, end the walk along their chain; an outline level in the
// loop is still found.
func TestBasedOnCycle(t *testing.T) {
	styles := `<w:styles ` + nsW + `>` +
		`<w:style w:type="paragraph" w:styleId="A"><w:basedOn w:val="B"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="B"><w:basedOn w:val="A"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Self"><w:basedOn w:val="Self"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="C"><w:basedOn w:val="D"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="D"><w:basedOn w:val="C"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>` +
		`<w:style w:type="character" w:styleId="E"><w:basedOn w:val="E"/></w:style></w:styles>`
	doc := read(t, docx(t, body(styled("A", "a")+styled("Self", "self")+styled("C", "c")+
		`<w:p><w:r><w:rPr><w:rStyle w:val="E"/></w:rPr><w:t>e</w:t></w:r></w:p>`), map[string]string{"word/styles.xml": styles}))
	if want := "a\n\nself\n\n## c\n\ne"; doc.Markdown != want {
		t.Errorf("Markdown = %q, want %q", doc.Markdown, want)
	}
}

// TestNotADocument: what is no readable DOCX is refused as such, saying
// what it is.
func TestNotADocument(t *testing.T) {
	good := readFile(t, "features.docx")
	damaged := bytes.Clone(good)
	zr, err := zip.NewReader(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name == "word/document.xml" {
			off, _ := f.DataOffset()
			for i := off + 10; i < off+40; i++ {
				damaged[i] ^= 0x55
			}
		}
	}
	sheet := map[string]string{
		"[Content_Types].xml": contentTypes,
		"_rels/.rels":         strings.Replace(rootRels, "word/document.xml", "xl/workbook.xml", 1),
		"xl/workbook.xml":     `<workbook/>`,
	}
	for _, c := range []struct {
		name string
		raw  []byte
		says string
	}{
		{"text", []byte("Just some text."), "not a zip"},
		{"empty", nil, "not a zip"},
		{"truncated", good[:len(good)/2], "not a zip"},
		{"cut after its directory", good[len(good)/2:], ""},
		{"damaged", damaged, ""},
		{"no document", zipOf(t, map[string]string{"[Content_Types].xml": contentTypes, "_rels/.rels": rootRels}), "no WordprocessingML document"},
		{"a spreadsheet", zipOf(t, sheet), `"xl/workbook.xml" holds a "workbook"`},
		{"not a document", docx(t, `<w:workbook `+nsW+`/>`, nil), `holds a "workbook"`},
		{"malformed", docx(t, body(p("x"))[:200], nil), "word/document.xml"},
		{"unclosed", docx(t, `<w:document `+nsW+`><w:body><w:p>`, nil), "word/document.xml"},
		{"no element", docx(t, `<?xml version="1.0"?>`, nil), "holds no element"},
		{"other encoding", docx(t, `<?xml version="1.0" encoding="EBCDIC"?><w:document/>`, nil), "EBCDIC"},
		{"entity", docx(t, `<!DOCTYPE w [<!ENTITY a "aaaa">]><w:document `+nsW+`><w:body><w:p><w:r><w:t>&a;</w:t></w:r></w:p></w:body></w:document>`, nil), "entity"},
	} {
		t.Run(c.name, func(t *testing.T) { readErr(t, c.raw, ErrNotDOCX, c.says) })
	}
}

// TestInputCap: a file over MaxInputBytes is refused unread.
func TestInputCap(t *testing.T) {
	readErr(t, make([]byte, MaxInputBytes+1), ErrLimit, fmt.Sprintf("over %d bytes (MaxInputBytes)", MaxInputBytes))
}

// TestInjection: text that would be HTML, a link, an image, a heading,
// a list, a quote, a table or code in Markdown is written as text, in
// paragraphs, headings, cells and notes; a footnote whose text is a
// javascript: address is no link reference definition.
func TestInjection(t *testing.T) {
	note := `<?xml version="1.0"?><w:footnotes ` + nsW + `><w:footnote w:id="1">` + p("javascript:alert(1)") + `</w:footnote>` +
		`<w:footnote w:id="2">` + p(`javascript:alert(2) "title"`) + `</w:footnote>` +
		`<w:footnote w:id="3"><w:p><w:r><w:t>javascript:alert(3)</w:t><w:br/><w:t>two words</w:t></w:r></w:p></w:footnote></w:footnotes>`
	raw := docx(t, body(
		p("&lt;script&gt;alert(1)&lt;/script&gt;")+
			p("[x](javascript:alert(1)) and ![i](javascript:alert(2)) and &lt;javascript:alert(3)&gt;")+
			p("&amp;#106;avascript &amp;lt;img src=x onerror=alert(1)&gt;")+
			p("# not a heading")+p("1. not a list")+p("- not", " a list")+p("&gt; not a quote")+p("```")+p("    not code")+
			p("a ", "[", "link", "](", "javascript:alert(4)", ")")+
			`<w:p><w:r><w:t>a\</w:t><w:br/><w:t>&lt;img src=x onerror=alert(1)&gt;</w:t><w:br/><w:t>- not an item</w:t></w:r></w:p>`+
			styled("Heading1", "C #")+
			"<w:tbl><w:tr>"+tc("", "a | b")+tc("", "&lt;b&gt;")+"</w:tr></w:tbl>"+
			`<w:p><w:r><w:t>note</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r><w:r><w:footnoteReference w:id="2"/></w:r><w:r><w:footnoteReference w:id="3"/></w:r></w:p>`),
		map[string]string{"word/footnotes.xml": note})
	doc := read(t, raw)
	want := `\<script\>alert(1)\</script\>

\[x\](javascript:alert(1)) and !\[i\](javascript:alert(2)) and \<javascript:alert(3)\>

\&#106;avascript \&lt;img src=x onerror=alert(1)\>

\# not a heading

1\. not a list

\- not a list

\> not a quote

` + "\\`\\`\\`" + `

not code

a \[link\](javascript:alert(4))

a\\  
\<img src=x onerror=alert(1)\>\
\- not an item

# C \#

| a \| b | \<b\> |
| --- | --- |

note[^1][^2][^3]

[^1]: ` + "\u2060" + `javascript:alert(1)

[^2]: ` + "\u2060" + `javascript:alert(2) "title"

[^3]: ` + "\u2060" + `javascript:alert(3)\
    two words`
	if doc.Markdown != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", doc.Markdown, want)
	}
}

// TestLinkBudget: a long address linked from many places is written as
// a link while the document's size lasts, then as text: the Markdown
// stays within a few times the document's size.
func TestLinkBudget(t *testing.T) {
	long := "https://long.example/" + strings.Repeat("a", 64<<10)
	link := `<w:hyperlink r:id="rId1"><w:r><w:t>x</w:t></w:r></w:hyperlink><w:r><w:t xml:space="preserve"> </w:t></w:r>`
	document := body("<w:p>" + strings.Repeat(link, 10000) + "</w:p>")
	doc := read(t, docx(t, document, map[string]string{"word/_rels/document.xml.rels": rels(hyperlinkRel("rId1", long))}))
	if n := strings.Count(doc.Markdown, "]("); n == 0 || len(doc.Markdown) > 2*len(document)+len(long) {
		t.Errorf("%d links in %d bytes of Markdown from %d of XML", n, len(doc.Markdown), len(document))
	}
	if len(doc.Links) != 1 {
		t.Errorf("Links = %d", len(doc.Links))
	}
}

// TestMarkdownCap: a document whose Markdown would be over
// MaxMarkdownBytes is refused: here, tables of one cell spanning 64
// columns, whose header and delimiter rows have every column.
func TestMarkdownCap(t *testing.T) {
	table := `<w:tbl><w:tr><w:tc><w:tcPr><w:gridSpan w:val="64"/></w:tcPr></w:tc></w:tr></w:tbl>`
	n := MaxMarkdownBytes/500 + 1
	readErr(t, docx(t, body(strings.Repeat(table, n)), nil), ErrLimit, fmt.Sprintf("over %d bytes (MaxMarkdownBytes)", MaxMarkdownBytes))
	doc := read(t, docx(t, body(strings.Repeat(table, 2)), nil))
	if want := "|" + strings.Repeat("  |", 64) + "\n|" + strings.Repeat(" --- |", 64); doc.Markdown != want+"\n\n"+want {
		t.Errorf("Markdown = %q", doc.Markdown)
	}
}

// TestWideTable: a table has at most maxColumns columns, however many
// cells a row holds or a cell spans; the text of cells past them joins
// the last, in work and memory linear in the row's length.
func TestWideTable(t *testing.T) {
	row := func(n int) string {
		var b strings.Builder
		b.WriteString("<w:tr>")
		for i := range n {
			b.WriteString(tc("", fmt.Sprint("c", i)))
		}
		return b.String() + "</w:tr>"
	}
	doc := read(t, docx(t, body("<w:tbl><w:tr>"+tc(`<w:gridSpan w:val="1000"/>`, "wide")+"</w:tr>"+row(70)+"</w:tbl>"), nil))
	cells := make([]string, maxColumns)
	for i := range cells {
		cells[i] = fmt.Sprint("c", i)
	}
	cells[maxColumns-1] = "c63 c64 c65 c66 c67 c68 c69"
	want := "| wide |" + strings.Repeat("  |", maxColumns-1) + "\n|" + strings.Repeat(" --- |", maxColumns) + "\n| " + strings.Join(cells, " | ") + " |"
	if doc.Markdown != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", doc.Markdown, want)
	}
	document := body("<w:tbl>" + row(50000) + "</w:tbl>")
	raw := docx(t, document, nil)
	var err error
	if alloc := testutil.Allocated(func() { _, err = Read(raw, extract.Options{}) }); err != nil || alloc > 50*uint64(len(document)) {
		t.Errorf("a row of 50,000 cells: %v, %d bytes allocated for %d of XML", err, alloc, len(document))
	}
}
