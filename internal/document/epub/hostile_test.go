package epub

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"hash/crc32"
	"runtime"
	"strings"
	"testing"

	"github.com/heedhq/heed/extract"
)

// oneChapter is a package document of one chapter, c.xhtml.
var oneChapter = opfOf(`<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/>`, `<itemref idref="c"/>`)

// deflated is n zero bytes, deflated, and their CRC-32.
func deflated(tb testing.TB, n int) ([]byte, uint32) {
	tb.Helper()
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestSpeed)
	zeros := make([]byte, 1<<20)
	crc := crc32.NewIEEE()
	for left := n; left > 0; left -= len(zeros) {
		chunk := zeros[:min(left, len(zeros))]
		w.Write(chunk)
		crc.Write(chunk)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes(), crc.Sum32()
}

// rawEntry is an entry whose compressed data and header a test writes as
// it likes, true or not.
type rawEntry struct {
	name       string
	data       []byte
	crc        uint32
	size       uint64 // the uncompressed size the header declares
	flags      uint16
	compressed bool
}

// zipRaw is a book's mimetype, container and package, then entries
// written raw.
func zipRaw(tb testing.TB, opf string, entries ...rawEntry) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range []entry{{"mimetype", mimetype}, {"META-INF/container.xml", container}, {"OEBPS/content.opf", opf}} {
		f, _ := w.Create(e.name)
		f.Write([]byte(e.body))
	}
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Store, CRC32: e.crc, CompressedSize64: uint64(len(e.data)), UncompressedSize64: e.size, Flags: e.flags}
		if e.compressed {
			h.Method = zip.Deflate
		}
		f, err := w.CreateRaw(h)
		if err != nil {
			tb.Fatal(err)
		}
		f.Write(e.data)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// chain is a manifest of n images, each falling back on the next, the
// last on c.xhtml.
func chain(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `<item id="f%d" href="f%d.svg" media-type="image/svg+xml" fallback="f%d"/>`, i, i, i+1)
	}
	fmt.Fprintf(&b, `<item id="f%d" href="c.xhtml" media-type="application/xhtml+xml"/>`, n)
	return b.String()
}

// TestHostile: input made to break a reader gets the error that says
// what it is, wrapping ErrNotEPUB, ErrLimit or ErrEncrypted.
func TestHostile(t *testing.T) {
	tides := testBook(t, "tides.epub")
	deep := func(open, close string, n int) string {
		return strings.Repeat(open, n) + strings.Repeat(close, n)
	}
	manyItems, manyRefs := &strings.Builder{}, &strings.Builder{}
	for i := range MaxEntries + 1 {
		fmt.Fprintf(manyItems, `<item id="i%d" href="c.xhtml" media-type="application/xhtml+xml"/>`, i)
	}
	for range MaxSpineItems + 1 {
		manyRefs.WriteString(`<itemref idref="c"/>`)
	}
	manyEntries := []entry{{"mimetype", mimetype}}
	for i := range MaxEntries {
		manyEntries = append(manyEntries, entry{fmt.Sprintf("f%d", i), ""})
	}
	encryption := func(refs ...string) string {
		s := `<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">`
		for _, r := range refs {
			alg, uri, _ := strings.Cut(r, " ")
			s += `<enc:EncryptedData><enc:EncryptionMethod Algorithm="` + alg + `"/><enc:CipherData><enc:CipherReference URI="` + uri + `"/></enc:CipherData></enc:EncryptedData>`
		}
		return s + `</encryption>`
	}
	aes := "http://www.w3.org/2001/04/xmlenc#aes128-cbc"
	ncxOnly := opfOf(`<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/><item id="c" href="c.xhtml" media-type="application/xhtml+xml"/>`, `<itemref idref="c"/>`)
	withContainer := func(c string) []byte {
		return zipOf(t, entry{"mimetype", mimetype}, entry{"META-INF/container.xml", c}, entry{"OEBPS/content.opf", oneChapter}, entry{"OEBPS/c.xhtml", chapter("<p>x</p>")})
	}
	for _, c := range []struct {
		name string
		raw  []byte
		want error
		says string // what the message says
	}{
		{"not a zip", []byte("<html><body>not a book</body></html>"), ErrNotEPUB, "not a zip"},
		{"empty", nil, ErrNotEPUB, "not a zip"},
		{"cut in half", tides[:len(tides)/2], ErrNotEPUB, "not a zip"},
		{"end of central directory cut", tides[:len(tides)-5], ErrNotEPUB, "not a zip"},
		{"no container", zipOf(t, entry{"mimetype", mimetype}, entry{"OEBPS/content.opf", oneChapter}), ErrNotEPUB, "no META-INF/container.xml"},
		{"container naming nothing", withContainer(`<container><rootfiles/></container>`), ErrNotEPUB, "names no package"},
		{"container naming outside", withContainer(`<container><rootfiles><rootfile full-path="../x.opf"/></rootfiles></container>`), ErrNotEPUB, "names no package"},
		{"container naming itself", withContainer(`<container><rootfiles><rootfile full-path="META-INF/container.xml"/></rootfiles></container>`), ErrNotEPUB, "is no package document"},
		{"missing package", withContainer(`<container><rootfiles><rootfile full-path="OEBPS/gone.opf"/></rootfiles></container>`), ErrNotEPUB, "is not in the archive"},
		{"package not XML", epubOf(t, "\x00\x01 not xml"), ErrNotEPUB, "content.opf"},
		{"package empty", epubOf(t, ""), ErrNotEPUB, "is no package document"},
		{"no spine", epubOf(t, opfOf(`<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/>`, "")), ErrNotEPUB, "has no spine"},
		{"spine to a missing file", epubOf(t, oneChapter), ErrNotEPUB, "no chapter of the spine"},
		{"spine to a missing item", epubOf(t, opfOf("", `<itemref idref="c"/>`), entry{"OEBPS/c.xhtml", chapter("x")}), ErrNotEPUB, "no chapter of the spine"},
		{"fallbacks in a loop", epubOf(t, opfOf(`<item id="a" href="a.svg" media-type="image/svg+xml" fallback="b"/><item id="b" href="b.svg" media-type="image/svg+xml" fallback="a"/>`, `<itemref idref="a"/>`),
			entry{"OEBPS/a.svg", "<svg/>"}, entry{"OEBPS/b.svg", "<svg/>"}), ErrNotEPUB, "no chapter of the spine"},
		{"too long a fallback chain", epubOf(t, opfOf(chain(maxFallbacks+1), `<itemref idref="f0"/>`), entry{"OEBPS/c.xhtml", chapter("x")}), ErrNotEPUB, "no chapter of the spine"},
		{"spine of the package itself", epubOf(t, opfOf(`<item id="p" href="content.opf" media-type="application/xhtml+xml"/>`, `<itemref idref="p"/>`)), ErrNotEPUB, "no chapter of the spine"},

		{"entry up a directory", zipOf(t, entry{"mimetype", mimetype}, entry{"../evil.xhtml", "x"}), ErrNotEPUB, "path traversal"},
		{"entry up a directory, inside", zipOf(t, entry{"mimetype", mimetype}, entry{"OEBPS/../../evil.xhtml", "x"}), ErrNotEPUB, "path traversal"},
		{"absolute entry", zipOf(t, entry{"mimetype", mimetype}, entry{"/etc/passwd", "x"}), ErrNotEPUB, "path traversal"},
		{"drive entry", zipOf(t, entry{"mimetype", mimetype}, entry{"C:/evil.xhtml", "x"}), ErrNotEPUB, "path traversal"},
		{"backslash entry", zipOf(t, entry{"mimetype", mimetype}, entry{`..\evil.xhtml`, "x"}), ErrNotEPUB, "path traversal"},
		{"NUL entry", zipOf(t, entry{"mimetype", mimetype}, entry{"OEBPS/c.xhtml\x00.png", "x"}), ErrNotEPUB, "path traversal"},

		{"too many entries", zipOf(t, manyEntries...), ErrLimit, "MaxEntries"},
		{"too many manifest items", epubOf(t, opfOf(manyItems.String(), `<itemref idref="i0"/>`), entry{"OEBPS/c.xhtml", chapter("x")}), ErrLimit, "MaxEntries"},
		{"too long a spine", epubOf(t, opfOf(`<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/>`, manyRefs.String()), entry{"OEBPS/c.xhtml", chapter("x")}), ErrLimit, "MaxSpineItems"},
		{"deep container", withContainer(`<container>` + deep("<a>", "</a>", 100_000) + `</container>`), ErrLimit, "MaxXMLDepth"},
		{"deep package", epubOf(t, `<package><metadata>`+deep("<x>", "</x>", 100_000)+`</metadata></package>`), ErrLimit, "MaxXMLDepth"},
		{"deep package, never closed", epubOf(t, `<package>`+strings.Repeat("<x>", 1_000_000)), ErrLimit, "MaxXMLDepth"},
		{"deep NCX, asked for a title", epubOf(t, ncxOnly, entry{"OEBPS/c.xhtml", chapter("<p>no heading</p>")}, entry{"OEBPS/toc.ncx", `<ncx><navMap>` + deep("<navPoint>", "</navPoint>", 10_000) + `</navMap></ncx>`}), ErrLimit, "MaxXMLDepth"},
		{"deep encryption list", zipOf(t, entry{"mimetype", mimetype}, entry{"META-INF/encryption.xml", deep("<e>", "</e>", 10_000)}), ErrLimit, "MaxXMLDepth"},
		{"over MaxCompressedBytes", append(append([]byte{}, tides...), make([]byte, MaxCompressedBytes)...), ErrLimit, "MaxCompressedBytes"},

		{"encrypted chapter", epubOf(t, oneChapter, entry{"OEBPS/c.xhtml", chapter("x")}, entry{"META-INF/encryption.xml", encryption(aes + " OEBPS/c.xhtml")}), ErrEncrypted, "OEBPS/c.xhtml"},
		{"obfuscated chapter", epubOf(t, oneChapter, entry{"OEBPS/c.xhtml", chapter("x")}, entry{"META-INF/encryption.xml", encryption("http://www.idpf.org/2008/embedding OEBPS/c.xhtml")}), ErrEncrypted, "OEBPS/c.xhtml"},
		{"encrypted package", epubOf(t, oneChapter, entry{"OEBPS/c.xhtml", chapter("x")}, entry{"META-INF/encryption.xml", encryption(aes + " OEBPS/content.opf")}), ErrEncrypted, "content.opf"},
		{"encrypted zip entry", zipRaw(t, oneChapter, rawEntry{name: "OEBPS/c.xhtml", data: []byte("sealed"), size: 6, flags: 1}), ErrEncrypted, "encrypted zip entry"},
		{"unreadable encryption list", epubOf(t, oneChapter, entry{"OEBPS/c.xhtml", chapter("x")}, entry{"META-INF/encryption.xml", "</e>"}), ErrNotEPUB, "encryption.xml"},
	} {
		doc, err := Read(c.raw, extract.Options{})
		if !errors.Is(err, c.want) || !strings.Contains(fmt.Sprint(err), c.says) {
			t.Errorf("%s: err %v (doc %v), want %v saying %q", c.name, err, doc != nil, c.want, c.says)
		}
		if doc != nil {
			t.Errorf("%s: a document with an error", c.name)
		}
	}
}

// TestHostileReadable: hostile parts that do not keep a book from being
// read: obfuscated fonts, entities that would expand, a chapter the spine
// lists five thousand times.
func TestHostileReadable(t *testing.T) {
	fonts := `<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
<enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.idpf.org/2008/embedding"/>
<enc:CipherData><enc:CipherReference URI="OEBPS/fonts/serif.otf"/></enc:CipherData></enc:EncryptedData></encryption>`
	doc, err := Read(epubOf(t, oneChapter, entry{"OEBPS/c.xhtml", chapter("<p>Readable.</p>")}, entry{"OEBPS/fonts/serif.otf", "\x00\x01obfuscated"}, entry{"META-INF/encryption.xml", fonts}), extract.Options{})
	if err != nil || doc.Markdown != "Readable." {
		t.Errorf("obfuscated fonts: %v, %+v", err, doc)
	}

	laughs := `<?xml version="1.0"?><!DOCTYPE package [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"><!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">]>
<package xmlns="http://www.idpf.org/2007/opf"><metadata><dc:title xmlns:dc="http://purl.org/dc/elements/1.1/">&lol9;</dc:title></metadata>
<manifest><item id="c" href="c.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c"/></spine></package>`
	doc, err = Read(epubOf(t, laughs, entry{"OEBPS/c.xhtml", chapter("<p>x</p>")}), extract.Options{})
	if err != nil || doc.Title != "&lol9;" {
		t.Errorf("entities: %v, title %q", err, doc.Title)
	}

	refs := strings.Repeat(`<itemref idref="c"/>`, MaxSpineItems)
	doc, err = Read(epubOf(t, opfOf(`<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/>`, refs), entry{"OEBPS/c.xhtml", chapter("<p>Once.</p>")}), extract.Options{})
	if err != nil || doc.Markdown != "Once." {
		t.Errorf("a chapter listed %d times: %v, %+v", MaxSpineItems, err, doc)
	}
}

// TestZipBombs: what an entry inflates to is capped whatever its header
// says. An entry that declares little and inflates to much stops where it
// declares; one that declares much is refused before it is inflated; so
// are chapters that together declare more than MaxInflatedBytes. None
// costs more memory than its cap.
func TestZipBombs(t *testing.T) {
	big, bigCRC := deflated(t, MaxEntryBytes+1<<20)
	lying := zipRaw(t, oneChapter, rawEntry{name: "OEBPS/c.xhtml", data: big, crc: bigCRC, size: 1000, compressed: true})
	var err error
	if n := allocated(func() { _, err = Read(lying, extract.Options{}) }); n > 4<<20 {
		t.Errorf("a bomb declaring 1000 bytes allocated %d bytes", n)
	}
	if !errors.Is(err, ErrNotEPUB) || !strings.Contains(err.Error(), "inflates past the 1000 bytes its header declares") {
		t.Errorf("a bomb declaring 1000 bytes: %v", err)
	}

	honest := zipRaw(t, oneChapter, rawEntry{name: "OEBPS/c.xhtml", data: big, crc: bigCRC, size: MaxEntryBytes + 1<<20, compressed: true})
	if n := allocated(func() { _, err = Read(honest, extract.Options{}) }); n > 4<<20 {
		t.Errorf("an entry declaring %d bytes allocated %d bytes", MaxEntryBytes+1<<20, n)
	}
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "MaxEntryBytes") {
		t.Errorf("an entry declaring more than MaxEntryBytes: %v", err)
	}

	// Nine chapters just under MaxEntryBytes, sharing one compressed
	// stream as a zip bomb does.
	part, partCRC := deflated(t, MaxEntryBytes-1<<20)
	var manifest, spine strings.Builder
	var parts []rawEntry
	for i := range MaxInflatedBytes/(MaxEntryBytes-1<<20) + 1 {
		fmt.Fprintf(&manifest, `<item id="c%d" href="c%d.xhtml" media-type="application/xhtml+xml"/>`, i, i)
		fmt.Fprintf(&spine, `<itemref idref="c%d"/>`, i)
		parts = append(parts, rawEntry{name: fmt.Sprintf("OEBPS/c%d.xhtml", i), data: part, crc: partCRC, size: MaxEntryBytes - 1<<20, compressed: true})
	}
	many := zipRaw(t, opfOf(manifest.String(), spine.String()), parts...)
	if n := allocated(func() { _, err = Read(many, extract.Options{}) }); n > 4<<20 {
		t.Errorf("chapters declaring more than MaxInflatedBytes allocated %d bytes", n)
	}
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "MaxInflatedBytes") {
		t.Errorf("chapters declaring more than MaxInflatedBytes: %v", err)
	}

	// Two chapters whose declared sizes add up past 2^64, to 100.
	wraps := zipRaw(t, opfOf(`<item id="w0" href="w0.xhtml" media-type="application/xhtml+xml"/><item id="w1" href="w1.xhtml" media-type="application/xhtml+xml"/>`, `<itemref idref="w0"/><itemref idref="w1"/>`),
		rawEntry{name: "OEBPS/w0.xhtml", data: []byte("x"), size: 1 << 63}, rawEntry{name: "OEBPS/w1.xhtml", data: []byte("x"), size: 1<<63 + 100})
	if _, err = Read(wraps, extract.Options{}); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "OEBPS/w0.xhtml declares") {
		t.Errorf("chapters whose sizes wrap: %v", err)
	}
}

// TestInflatedCap: reading stops at what is left of MaxInflatedBytes,
// counting every entry read, whatever the entries declare.
func TestInflatedCap(t *testing.T) {
	raw := simple(t, "<p>"+strings.Repeat("tide ", 100)+"</p>")
	zr, err := openZip(raw)
	if err != nil {
		t.Fatal(err)
	}
	a := newArchive(zr)
	a.inflated = MaxInflatedBytes - 100
	if _, err := a.read("OEBPS/c1.xhtml"); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "MaxInflatedBytes") {
		t.Errorf("past MaxInflatedBytes: %v", err)
	}
	if a.inflated != MaxInflatedBytes+1 {
		t.Errorf("inflated %d bytes, want the cap and one", a.inflated)
	}
}

// TestMarkdownCap: the book's Markdown stops at a cap with an error.
func TestMarkdownCap(t *testing.T) {
	var md strings.Builder
	for i, want := range []bool{true, true, false} {
		err := appendChapter(&md, strings.Repeat("x", 40), 90, "c.xhtml")
		if got := err == nil; got != want {
			t.Fatalf("chapter %d: %v", i+1, err)
		}
		if err != nil && (!errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "MaxMarkdownBytes")) {
			t.Errorf("chapter %d: %v", i+1, err)
		}
	}
	if md.Len() != 82 {
		t.Errorf("%d bytes of Markdown, want the two chapters that fit", md.Len())
	}
}
