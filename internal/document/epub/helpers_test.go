package epub

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// entry is a file of an archive a test builds.
type entry struct{ name, body string }

// zipOf is an archive of the entries, in order, the first stored and the
// rest deflated, as EPUBs are laid out.
func zipOf(tb testing.TB, entries ...entry) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i, e := range entries {
		method := zip.Deflate
		if i == 0 {
			method = zip.Store
		}
		f, err := w.CreateHeader(&zip.FileHeader{Name: e.name, Method: method})
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := f.Write([]byte(e.body)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

const (
	mimetype  = "application/epub+zip"
	container = `<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>`
)

// epubOf is a book of the package document opf (at OEBPS/content.opf) and
// the other files, after its mimetype and container.
func epubOf(tb testing.TB, opf string, files ...entry) []byte {
	tb.Helper()
	return zipOf(tb, append([]entry{{"mimetype", mimetype}, {"META-INF/container.xml", container}, {"OEBPS/content.opf", opf}}, files...)...)
}

// opfOf is a package document of the manifest's and spine's XML, with a
// title.
func opfOf(manifest, spine string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<package version="3.0" xmlns="http://www.idpf.org/2007/opf" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="id">urn:x</dc:identifier><dc:title>Handmade</dc:title><dc:language>en</dc:language>
  </metadata>
  <manifest>` + manifest + `</manifest>
  <spine>` + spine + `</spine>
</package>`
}

// chapter is an XHTML chapter holding body.
func chapter(body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title></head><body>` + body + `</body></html>`
}

// simple is a book of chapters c1, c2... each holding its body, in a
// spine in that order.
func simple(tb testing.TB, bodies ...string) []byte {
	tb.Helper()
	var manifest, spine strings.Builder
	var files []entry
	for i, b := range bodies {
		fmt.Fprintf(&manifest, `<item id="c%d" href="c%d.xhtml" media-type="application/xhtml+xml"/>`, i+1, i+1)
		fmt.Fprintf(&spine, `<itemref idref="c%d"/>`, i+1)
		files = append(files, entry{fmt.Sprintf("OEBPS/c%d.xhtml", i+1), chapter(b)})
	}
	return epubOf(tb, opfOf(manifest.String(), spine.String()), files...)
}

// testBook is one of the books testdata/make.sh makes.
func testBook(tb testing.TB, name string) []byte {
	tb.Helper()
	raw, err := os.ReadFile("testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}
