package epub

import (
	"archive/zip"
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed/extract"
)

// inOrder fails the test unless each of parts is in s, after the one
// before it.
func inOrder(t *testing.T, s string, parts ...string) {
	t.Helper()
	at := 0
	for _, p := range parts {
		i := strings.Index(s[at:], p)
		if i < 0 {
			t.Fatalf("%q is not after byte %d of the Markdown:\n%s", p, at, s)
		}
		at += i + len(p)
	}
}

// TestEPUB3: a book pandoc made, whose manifest and archive list the
// chapters backwards, reads in its spine's order, with its metadata, its
// headings, lists, tables and code, its links out kept and those inside
// the book dropped.
func TestEPUB3(t *testing.T) {
	raw := testBook(t, "tides.epub")
	// The premise: only the spine has the chapters in order.
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var opf string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if f.Name == "EPUB/content.opf" {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			opf = string(b)
		}
	}
	if slices.Index(names, "EPUB/text/ch003.xhtml") > slices.Index(names, "EPUB/text/ch001.xhtml") ||
		strings.Index(opf, "ch003.xhtml") > strings.Index(opf, "ch001.xhtml") {
		t.Fatalf("the test book lists its chapters in order: %v\n%s", names, opf)
	}

	doc, err := Read(raw, extract.Options{URL: "https://books.example/tides.epub"})
	if err != nil {
		t.Fatal(err)
	}
	want := extract.Document{
		URL:         "https://books.example/tides.epub",
		Title:       "Tide Tables",
		Author:      "Ada Marsh, Ben Quill", // not the editor
		Lang:        "en-GB",
		Description: "A short book about harbours & tides, for pilots and walkers.",
		Published:   time.Date(2021, 4, 5, 0, 0, 0, 0, time.UTC),
		Modified:    time.Unix(1600000000, 0).UTC(),
	}
	if doc.URL != want.URL || doc.Title != want.Title || doc.Author != want.Author || doc.Lang != want.Lang ||
		doc.Description != want.Description || !doc.Published.Equal(want.Published) || !doc.Modified.Equal(want.Modified) {
		t.Errorf("metadata:\n got %+v\nwant %+v", *doc, want)
	}
	md := doc.Markdown
	inOrder(t, md,
		"# Tide Tables", // the title page
		"# Harbour walls",
		"The [harbour trust](https://example.org/walls) keeps their records; the sea state chapter says why",
		"- rubble fill\n  - laid dry\n  - then grouted",
		"# Sea state",
		"| State | Wave height | Name |\n| --- | --- | --- |\n| 0 | 0 m | Calm |",
		"```python\ndef state(height):\n    return 6 if height > 4 else 3\n```",
		"[tide service](http://tides.example.net/today)",
		"Named for Captain H. P. Douglas.",
		"# Tide tables",
		"1. Find the port.\n2. Read the time of high water.",
		"> The tide waits for no one.",
		"Back to the walls, or write to [the keeper](mailto:keeper@example.org).",
	)
	for _, in := range []string{"ch002.xhtml", "ch001.xhtml", "epub:", "#sea-state", "#harbour-walls"} {
		if strings.Contains(md, in) {
			t.Errorf("a link inside the book is kept: %q in\n%s", in, md)
		}
	}
	// The navigation document is no chapter: its list of the chapters
	// is not in the Markdown.
	if strings.Contains(md, "- Harbour walls") || strings.Count(md, "Harbour walls") != 1 {
		t.Errorf("the table of contents is read as a chapter:\n%s", md)
	}
	if want := []string{"https://example.org/walls", "http://tides.example.net/today"}; !slices.Equal(doc.Links, want) {
		t.Errorf("links %q, want %q", doc.Links, want)
	}
	if strings.HasSuffix(md, "\n") || strings.Contains(md, "\n\n\n") {
		t.Errorf("chapters are not joined by one blank line:\n%q", md)
	}
}

// TestEPUB2: a book pandoc made from HTML as EPUB 2, with an NCX, reads
// in spine order with its metadata and its links, each once.
func TestEPUB2(t *testing.T) {
	doc, err := Read(testBook(t, "lighthouse.epub"), extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "The Lighthouse Keeper" || doc.Author != "Dora Penhale" || doc.Lang != "fr" ||
		doc.Description != "Three chapters from a rock in the sea." ||
		!doc.Published.Equal(time.Date(1998, 11, 2, 0, 0, 0, 0, time.UTC)) || !doc.Modified.IsZero() {
		t.Errorf("metadata: %+v", *doc)
	}
	inOrder(t, doc.Markdown,
		"# Arrival",
		"in *October*, with a chest of books and a letter from the [lighthouse board](https://lights.example.org/board).",
		"1. Trim the wick.\n2. Wind the clockwork.",
		"# The lamp",
		"see Arrival for how it was lit.",
		"| Year | Lamp |\n| --- | --- |\n| 1851 | Oil |",
		"```\nlog: 02:00 wind NW 6, visibility good\n```",
		"# Relief",
		"as the [board](https://lights.example.org/board) had promised.",
	)
	if want := []string{"https://lights.example.org/board"}; !slices.Equal(doc.Links, want) {
		t.Errorf("links %q, want %q", doc.Links, want)
	}
}

// TestSniff: books open as EPUBs, by their mimetype or by their container
// alone; other zips and other bytes do not.
func TestSniff(t *testing.T) {
	tides := testBook(t, "tides.epub")
	for _, c := range []struct {
		name string
		raw  []byte
		want bool
	}{
		{"pandoc EPUB 3", tides, true},
		{"pandoc EPUB 2", testBook(t, "lighthouse.epub"), true},
		{"container without mimetype", zipOf(t, entry{"META-INF/container.xml", container}, entry{"OEBPS/content.opf", opfOf("", "")}), true},
		{"mimetype, second", zipOf(t, entry{"a.txt", "a"}, entry{"mimetype", mimetype}), false},
		{"another mimetype", zipOf(t, entry{"mimetype", "application/vnd.oasis.opendocument.text"}, entry{"content.xml", "<x/>"}), false},
		{"a DOCX", zipOf(t, entry{"[Content_Types].xml", "<Types/>"}, entry{"word/document.xml", "<w:document/>"}), false},
		{"container naming nothing", zipOf(t, entry{"META-INF/container.xml", "<container><rootfiles/></container>"}), false},
		{"text", []byte("application/epub+zip"), false},
		{"empty", nil, false},
		// Its first bytes say it is a book, which Read finds broken.
		{"cut short", tides[:len(tides)/2], true},
		{"cut to its first entry", tides[:60], true},
		{"deflated mimetype first", deflatedFirst(t), true},
		{"cut inside its first entry", tides[:45], false},
	} {
		if got := Sniff(c.raw); got != c.want {
			t.Errorf("%s: Sniff = %v, want %v", c.name, got, c.want)
		}
	}
	// Over the cap, the first entry says what it is.
	big := append(append([]byte{}, tides...), make([]byte, MaxCompressedBytes)...)
	if !Sniff(big) {
		t.Error("an EPUB over MaxCompressedBytes is not sniffed as one")
	}
	if Sniff(append([]byte("PK\x03\x04"), make([]byte, MaxCompressedBytes)...)) {
		t.Error("zeros over MaxCompressedBytes are sniffed as an EPUB")
	}
}

// deflatedFirst is a book whose mimetype is deflated, against the
// standard: its first entry is still the mimetype.
func deflatedFirst(t *testing.T) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	f, _ := w.Create("mimetype")
	f.Write([]byte(mimetype))
	f, _ = w.Create("OEBPS/c.xhtml")
	f.Write([]byte(chapter("x")))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if mimetypeFirst(buf.Bytes()) {
		t.Fatal("the deflated mimetype reads as stored")
	}
	return buf.Bytes()
}

// TestTitlesFromTOC: a chapter with text but no heading gets the title
// its table of contents names it by (the navigation document's, or the
// NCX's), as a heading; a chapter with a heading keeps its own, and one
// the table does not name gets none.
func TestTitlesFromTOC(t *testing.T) {
	nav := `<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><body>
<nav epub:type="landmarks"><ol><li><a href="c1.xhtml">Landmark &amp; not a title</a></li></ol></nav>
<nav epub:type="toc"><ol>
<li><a href="c1.xhtml#top">Prologue &amp; <em>Arrival</em></a></li>
<li><a href="c2.xhtml">Ignored, c2 has a heading</a></li>
<li><span>Part two</span><ol><li><a href="sub/c3.xhtml">A *starred* title</a></li></ol></li>
</ol></nav></body></html>`
	ncx := `<?xml version="1.0" encoding="UTF-8"?>
<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><navMap>
<navPoint id="p1"><navLabel><text>From the NCX</text></navLabel><content src="c1.xhtml"/>
  <navPoint id="p2"><navLabel><text>Nested in the NCX</text></navLabel><content src="sub/c3.xhtml"/></navPoint>
</navPoint></navMap></ncx>`
	manifest := `<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
<item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/>
<item id="c2" href="c2.xhtml" media-type="application/xhtml+xml"/>
<item id="c3" href="sub/c3.xhtml" media-type="application/xhtml+xml"/>
<item id="c4" href="c4.xhtml" media-type="application/xhtml+xml"/>`
	spine := `<itemref idref="c1"/><itemref idref="c2"/><itemref idref="c3"/><itemref idref="c4"/>`
	files := []entry{
		{"OEBPS/c1.xhtml", chapter("<p>The first text.</p>")},
		{"OEBPS/c2.xhtml", chapter("<h2>Its own</h2><p>The second text.</p>")},
		{"OEBPS/sub/c3.xhtml", chapter("<p>The third text.</p><pre><code># not a heading</code></pre>")},
		{"OEBPS/c4.xhtml", chapter("<p>The fourth text.</p>")},
		{"OEBPS/toc.ncx", ncx},
	}
	doc, err := Read(epubOf(t, opfOf(manifest, spine), append(files, entry{"OEBPS/nav.xhtml", nav})...), extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "# Prologue & Arrival\n\nThe first text.\n\n## Its own\n\nThe second text.\n\n# A \\*starred\\* title\n\nThe third text.\n\n```\n# not a heading\n```\n\nThe fourth text."
	if doc.Markdown != want {
		t.Errorf("with a navigation document:\n got %q\nwant %q", doc.Markdown, want)
	}
	// Without the navigation document, the NCX names them.
	doc, err = Read(epubOf(t, opfOf(manifest, `<itemref idref="c1"/><itemref idref="c3"/>`), files...), extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want = "# From the NCX\n\nThe first text.\n\n# Nested in the NCX\n\nThe third text.\n\n```\n# not a heading\n```"
	if doc.Markdown != want {
		t.Errorf("with an NCX:\n got %q\nwant %q", doc.Markdown, want)
	}
}

// TestSpine: the spine decides what is read, and in which order: linear
// items, then the non-linear ones; each document once however often it
// is listed; an item of another type through its fallback; the
// navigation document never, even in the spine; items missing from the
// manifest or the archive, and fallbacks that loop, passed over.
func TestSpine(t *testing.T) {
	manifest := `<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
<item id="a" href="a.xhtml" media-type="application/xhtml+xml"/>
<item id="notes" href="notes.xhtml" media-type="application/xhtml+xml"/>
<item id="b" href="b.xhtml" media-type="application/xhtml+xml"/>
<item id="svg" href="b.svg" media-type="image/svg+xml" fallback="b"/>
<item id="gone" href="gone.xhtml" media-type="application/xhtml+xml"/>
<item id="loop1" href="l1.svg" media-type="image/svg+xml" fallback="loop2"/>
<item id="loop2" href="l2.svg" media-type="image/svg+xml" fallback="loop1"/>
<item id="self" href="content.opf" media-type="application/xhtml+xml"/>
<item id="c" href="c%20d.xhtml" media-type="application/xhtml+xml"/>`
	spine := `<itemref idref="nav"/><itemref idref="notes" linear="no"/><itemref idref="a"/><itemref idref="a"/>
<itemref idref="loop1"/><itemref idref="self"/><itemref idref="nowhere"/><itemref idref="gone"/><itemref idref="svg"/><itemref idref="c"/>`
	raw := epubOf(t, opfOf(manifest, spine),
		entry{"OEBPS/nav.xhtml", `<html xmlns:epub="http://www.idpf.org/2007/ops"><body><nav epub:type="toc"><ol><li><a href="a.xhtml">A</a></li></ol></nav></body></html>`},
		entry{"OEBPS/a.xhtml", chapter("<h1>A</h1><p>Text of a.</p>")},
		entry{"OEBPS/notes.xhtml", chapter("<h1>Notes</h1><p>A note.</p>")},
		entry{"OEBPS/b.xhtml", chapter("<h1>B</h1><p>Text of b.</p>")},
		entry{"OEBPS/b.svg", `<svg xmlns="http://www.w3.org/2000/svg"/>`},
		entry{"OEBPS/c d.xhtml", chapter("<h1>C</h1><p>Text of c.</p>")},
	)
	doc, err := Read(raw, extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "# A\n\nText of a.\n\n# B\n\nText of b.\n\n# C\n\nText of c.\n\n# Notes\n\nA note."
	if doc.Markdown != want {
		t.Errorf("got %q\nwant %q", doc.Markdown, want)
	}
	// A chain of as many fallbacks as are followed leads to its chapter.
	doc, err = Read(epubOf(t, opfOf(chain(maxFallbacks), `<itemref idref="f0"/>`), entry{"OEBPS/c.xhtml", chapter("<p>At the end.</p>")}), extract.Options{})
	if err != nil || doc.Markdown != "At the end." {
		t.Errorf("a chain of %d fallbacks: %v, %+v", maxFallbacks, err, doc)
	}
}

// TestMetadata: the metadata as EPUB 2 and EPUB 3 state it: refined roles
// and a main title, events of dates, HTML in a description, and long
// values cut.
func TestMetadata(t *testing.T) {
	long := strings.Repeat("word ", 1000)
	for _, c := range []struct {
		name, metadata string
		want           extract.Document
	}{
		{"EPUB 3", `<dc:title id="t1">Collected Tides</dc:title><dc:title id="t2">The Tides</dc:title>
<meta refines="#t2" property="title-type">main</meta>
<dc:creator id="c1">Ann Editor</dc:creator><meta refines="#c1" property="role" scheme="marc:relators">edt</meta>
<dc:creator id="c2">Bo Author</dc:creator><meta refines="#c2" property="role" scheme="marc:relators">aut</meta>
<dc:creator>Cy Writer</dc:creator><dc:creator>Bo Author</dc:creator>
<dc:language>  de-CH </dc:language><dc:language>en</dc:language>
<dc:date>2019-07-01T10:00:00+02:00</dc:date>
<meta property="dcterms:modified">2022-02-03T04:05:06Z</meta>
<dc:description>&lt;p&gt;A &lt;b&gt;bold&lt;/b&gt;   claim &amp;amp; a 3 &lt; 4 sum.&lt;/p&gt;</dc:description>`,
			extract.Document{Title: "The Tides", Author: "Bo Author, Cy Writer", Lang: "de-CH", Description: "A bold claim & a 3 < 4 sum.",
				Published: time.Date(2019, 7, 1, 8, 0, 0, 0, time.UTC), Modified: time.Date(2022, 2, 3, 4, 5, 6, 0, time.UTC)}},
		{"EPUB 2", `<dc:title>Old   Tides
</dc:title><dc:creator opf:role="ill">Ida Drawer</dc:creator><dc:creator opf:role="aut" opf:file-as="Penn, Al">Al Penn</dc:creator>
<dc:date opf:event="modification">2001-02</dc:date><dc:date opf:event="creation">1999</dc:date>
<dc:date opf:event="publication">2000-05-06</dc:date><dc:language>en</dc:language>`,
			extract.Document{Title: "Old Tides", Author: "Al Penn", Lang: "en",
				Published: time.Date(2000, 5, 6, 0, 0, 0, 0, time.UTC), Modified: time.Date(2001, 2, 1, 0, 0, 0, 0, time.UTC)}},
		{"creation date, unreadable date", `<dc:title>T</dc:title><dc:date opf:event="creation">1999</dc:date><meta property="dcterms:modified">yesterday</meta>`,
			extract.Document{Title: "T", Published: time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"long values", `<dc:title>` + long + `</dc:title><dc:creator>` + long + `</dc:creator><dc:description>` + long + `</dc:description>`,
			extract.Document{Title: clip(strings.TrimSpace(long), maxTitle), Author: clip(strings.TrimSpace(long), maxTitle),
				Description: long[:strings.LastIndexByte(long[:maxDescription-len("…")], ' ')] + "…"}},
	} {
		opf := `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">` + c.metadata + `</metadata>
<manifest><item id="c" href="c.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="c"/></spine></package>`
		doc, err := Read(epubOf(t, opf, entry{"OEBPS/c.xhtml", chapter("<p>x</p>")}), extract.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if doc.Title != c.want.Title || doc.Author != c.want.Author || doc.Lang != c.want.Lang || doc.Description != c.want.Description ||
			!doc.Published.Equal(c.want.Published) || !doc.Modified.Equal(c.want.Modified) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, *doc, c.want)
		}
		if len(doc.Description) > maxDescription {
			t.Errorf("%s: a description of %d bytes", c.name, len(doc.Description))
		}
	}
}

// TestChapterCharset: a chapter in a legacy encoding its XML declaration
// names is decoded by it.
func TestChapterCharset(t *testing.T) {
	latin1 := "<?xml version='1.0' encoding='ISO-8859-1'?>\n<html><body><p>Caf\xe9 cr\xe8me</p></body></html>"
	raw := epubOf(t, opfOf(`<item id="c" href="c.xhtml" media-type="application/xhtml+xml"/>`, `<itemref idref="c"/>`), entry{"OEBPS/c.xhtml", latin1})
	doc, err := Read(raw, extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Markdown != "Café crème" {
		t.Errorf("got %q", doc.Markdown)
	}
}
