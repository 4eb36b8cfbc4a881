package epub

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heedhq/heed/extract"
)

// stored is an archive of the entries stored, without a CRC-32 (which
// archive/zip then does not check), so that a fuzzer's changes to their
// bytes reach the XML and XHTML inside.
func stored(tb testing.TB, entries ...entry) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		f, err := w.CreateRaw(&zip.FileHeader{Name: e.name, Method: zip.Store, CompressedSize64: uint64(len(e.body)), UncompressedSize64: uint64(len(e.body))})
		if err != nil {
			tb.Fatal(err)
		}
		f.Write([]byte(e.body))
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// unpacked is the entries of an archive, in order.
func unpacked(tb testing.TB, raw []byte) []entry {
	tb.Helper()
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		tb.Fatal(err)
	}
	var out []entry
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			tb.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, entry{f.Name, string(b)})
	}
	return out
}

// FuzzRead: any input gives a document or an error wrapping one of the
// package's errors, never a panic. A document's strings are valid UTF-8
// within their caps, and its links are http(s) URLs, each once.
func FuzzRead(f *testing.F) {
	tides, lighthouse := testBook(f, "tides.epub"), testBook(f, "lighthouse.epub")
	nav := `<html xmlns:epub="http://www.idpf.org/2007/ops"><body><nav epub:type="toc"><ol><li><a href="c1.xhtml#x">One &amp; only</a></li></ol></nav></body></html>`
	ncx := `<ncx><navMap><navPoint><navLabel><text>From NCX</text></navLabel><content src="c1.xhtml"/></navPoint></navMap></ncx>`
	navBook := []entry{{"mimetype", mimetype}, {"META-INF/container.xml", container},
		{"OEBPS/content.opf", opfOf(`<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/><item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
<item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/><item id="s" href="s.svg" media-type="image/svg+xml" fallback="c1"/>`, `<itemref idref="c1"/><itemref idref="s" linear="no"/>`)},
		{"OEBPS/c1.xhtml", chapter(`<p>No heading, <a href="https://a.example/x">out</a> <a href="c1.xhtml#y">in</a>.</p>`)},
		{"OEBPS/nav.xhtml", nav}, {"OEBPS/toc.ncx", ncx}}
	encrypted := append(append([]entry{}, navBook...), entry{"META-INF/encryption.xml", `<encryption><EncryptedData><CipherData><CipherReference URI="OEBPS/c1.xhtml"/></CipherData></EncryptedData></encryption>`})
	for _, seed := range [][]byte{
		tides, lighthouse,
		stored(f, unpacked(f, tides)...), stored(f, unpacked(f, lighthouse)...),
		stored(f, navBook...), stored(f, encrypted...),
		stored(f, entry{"mimetype", mimetype}, entry{"../evil", "x"}),
		stored(f, entry{"mimetype", mimetype}, entry{"META-INF/container.xml", `<container><rootfiles><rootfile full-path="META-INF/container.xml"/></rootfiles></container>`}),
		epubOf(f, `<package><metadata>`+strings.Repeat("<x>", 200)+`</metadata></package>`),
		simple(f, "<h1>A</h1><p>a</p>", "<p>b</p>"),
		tides[:len(tides)/2], []byte("PK\x05\x06"), nil,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		Sniff(raw)
		doc, err := Read(raw, extract.Options{URL: "https://books.example/b.epub"})
		if err != nil {
			if doc != nil {
				t.Fatalf("a document with the error %v", err)
			}
			if !errors.Is(err, ErrNotEPUB) && !errors.Is(err, ErrLimit) && !errors.Is(err, ErrEncrypted) {
				t.Fatalf("an error of no kind of the package's: %v", err)
			}
			return
		}
		for name, s := range map[string]string{"title": doc.Title, "author": doc.Author, "lang": doc.Lang, "description": doc.Description, "markdown": doc.Markdown} {
			if !utf8.ValidString(s) {
				t.Fatalf("the %s is not valid UTF-8: %q", name, s)
			}
		}
		if len(doc.Title) > maxTitle || len(doc.Author) > maxTitle || len(doc.Description) > maxDescription || len(doc.Markdown) > MaxMarkdownBytes {
			t.Fatalf("over a cap: title %d, author %d, description %d, Markdown %d bytes", len(doc.Title), len(doc.Author), len(doc.Description), len(doc.Markdown))
		}
		seen := map[string]bool{}
		for _, l := range doc.Links {
			if !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") || seen[l] {
				t.Fatalf("links %q", doc.Links)
			}
			seen[l] = true
		}
		if strings.Contains(doc.Markdown, "](epub:") {
			t.Fatalf("a link inside the book is kept:\n%s", doc.Markdown)
		}
	})
}
