package docx

import (
	"archive/zip"
	"bytes"
	"maps"
	"slices"
	"testing"
)

// The namespaces of the documents the tests build.
const (
	nsW   = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	relNS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
)

// contentTypes and rootRels are the [Content_Types].xml and _rels/.rels
// of the documents the tests build.
const (
	contentTypes = `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
		`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
		`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`
	rootRels = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
		`<Relationship Id="rId1" Type="` + relNS + `/officeDocument" Target="word/document.xml"/>` +
		`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`
)

// body is a document.xml holding the given body content.
func body(content string) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ` + nsW + `><w:body>` + content + `</w:body></w:document>`
}

// rels is a relationships part holding the given relationships.
func rels(content string) string {
	return `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + content + `</Relationships>`
}

// hyperlinkRel is a relationship to an external hyperlink.
func hyperlinkRel(id, target string) string {
	return `<Relationship Id="` + id + `" Type="` + relNS + `/hyperlink" Target="` + target + `" TargetMode="External"/>`
}

// zipOf is a zip holding the parts, in the order of their names.
func zipOf(tb testing.TB, parts map[string]string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(parts)) {
		w, err := zw.Create(name)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := w.Write([]byte(parts[name])); err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// docx is a DOCX of the given document.xml and other parts, with the
// content types and package relationships every document has.
func docx(tb testing.TB, document string, parts map[string]string) []byte {
	tb.Helper()
	all := map[string]string{"[Content_Types].xml": contentTypes, "_rels/.rels": rootRels, "word/document.xml": document}
	maps.Copy(all, parts)
	for k, v := range all {
		if v == "" {
			delete(all, k) // a part named with no content is left out
		}
	}
	return zipOf(tb, all)
}

// p is a paragraph of plain runs, one for each text.
func p(texts ...string) string {
	s := "<w:p>"
	for _, t := range texts {
		s += `<w:r><w:t xml:space="preserve">` + t + `</w:t></w:r>`
	}
	return s + "</w:p>"
}

// styled is a paragraph of one run in a paragraph style.
func styled(style, text string) string {
	return `<w:p><w:pPr><w:pStyle w:val="` + style + `"/></w:pPr><w:r><w:t>` + text + `</w:t></w:r></w:p>`
}
