package docx

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/internal/testutil"
)

// read reads a DOCX as heed would from https://docs.example/a/report.docx,
// failing on an error or on Markdown that a CommonMark reader finds raw
// HTML or a link to anything but http(s) in.
func read(t *testing.T, raw []byte) *extract.Document {
	t.Helper()
	doc, err := Read(raw, extract.Options{URL: "https://docs.example/a/report.docx"})
	if err != nil {
		t.Fatal(err)
	}
	if bad := testutil.UnsafeMarkdown(doc.Markdown, false); bad != "" {
		t.Fatalf("%s in\n%s", bad, doc.Markdown)
	}
	return doc
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestPandocDocument reads a document pandoc made (testdata/make.sh):
// its title paragraph and headings by style, emphasis, nested bullet and
// ordered lists by numbering (an item of two paragraphs, the second in
// a list level with no marker), a table with a pipe in a cell, a link to
// the web and one to a heading (plain text), a line break, footnotes
// (one with a link), text that would be HTML or a javascript: link
// written inert, and the metadata of its core properties.
func TestPandocDocument(t *testing.T) {
	doc := read(t, readFile(t, "features.docx"))
	want := `# Field Notes on Rivers

Ada Lovelace

2024-03-05

# Sources

The river rises in the hills, where **three springs** meet and *slow* water gathers.[^1] Read more at [the survey](https://survey.example/rivers?id=4#upper) or see the tables below.

## Tributaries

- The north fork
  - Fed by snow
  - Fed by rain
- The south fork

1. Measure the depth
2. Measure the flow
   1. At the surface
   2. At the bed
3. Write it down

   In ink, not in pencil.

## Measurements

| Station | Depth (m) | Note |
| --- | --- | --- |
| Upper | 1.2 | a \| b |
| Lower | 3.4 | *fast* |

A line\
broken in two.

Text with \<script\>alert(1)\</script\> and x and \[y\](javascript:alert(2)) written as words.[^2]

[^1]: The springs were named in 1820.

[^2]: Notes gathered by the survey team, see [https://survey.example/team](https://survey.example/team).`
	if doc.Markdown != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", doc.Markdown, want)
	}
	date := time.Date(2024, 3, 5, 12, 0, 0, 0, time.UTC)
	if doc.Title != "Field Notes on Rivers" || doc.Author != "Ada Lovelace" || doc.Lang != "en-GB" ||
		doc.Description != "What the rivers of the valley carry, season by season." ||
		!doc.Published.Equal(date) || !doc.Modified.Equal(date) || doc.URL != "https://docs.example/a/report.docx" {
		t.Errorf("metadata: %+v", doc)
	}
	if want := []string{"https://survey.example/rivers?id=4", "https://survey.example/team"}; !slices.Equal(doc.Links, want) {
		t.Errorf("Links = %q, want %q", doc.Links, want)
	}
}

// TestPlainDocument: a document with no metadata and no heading has no
// title, and its paragraphs apart.
func TestPlainDocument(t *testing.T) {
	doc := read(t, readFile(t, "plain.docx"))
	if want := "Just one paragraph, with no metadata at all.\n\nAnother paragraph follows it."; doc.Markdown != want {
		t.Errorf("Markdown = %q, want %q", doc.Markdown, want)
	}
	if doc.Title != "" || doc.Author != "" || doc.Links == nil || len(doc.Links) != 0 {
		t.Errorf("metadata: %+v", doc)
	}
}

// germanStyles are the styles of a German Word: its heading styles' ids
// and names are German, and only their outline levels say they are
// headings. "Kapitel" is based on a heading style; "Zitat" on Normal.
const germanStyles = `<?xml version="1.0" encoding="UTF-8"?><w:styles ` + nsW + `>` +
	`<w:docDefaults><w:rPrDefault><w:rPr><w:lang w:val="de-DE"/></w:rPr></w:rPrDefault></w:docDefaults>` +
	`<w:style w:type="paragraph" w:default="1" w:styleId="Standard"><w:name w:val="Normal"/></w:style>` +
	`<w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="Überschrift 1"/><w:basedOn w:val="Standard"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>` +
	`<w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="Überschrift 2"/><w:basedOn w:val="Standard"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>` +
	`<w:style w:type="paragraph" w:styleId="Kapitel"><w:name w:val="Kapitel"/><w:basedOn w:val="berschrift2"/></w:style>` +
	`<w:style w:type="paragraph" w:styleId="Zitat"><w:name w:val="Zitat"/><w:basedOn w:val="Standard"/></w:style>` +
	`<w:style w:type="character" w:styleId="Fett"><w:name w:val="Fett"/><w:rPr><w:b/></w:rPr></w:style>` +
	`<w:style w:type="character" w:styleId="FettKursiv"><w:name w:val="Fett Kursiv"/><w:basedOn w:val="Fett"/><w:rPr><w:i/></w:rPr></w:style>` +
	`</w:styles>`

// TestLocalizedHeadings: headings are known by their styles' outline
// levels, through basedOn chains, and by a paragraph's own; bold and
// italic by character styles; the language by the default run
// properties, the title by the first heading.
func TestLocalizedHeadings(t *testing.T) {
	raw := docx(t, body(
		styled("berschrift1", "Einleitung")+
			styled("Zitat", "Ein Zitat.")+
			styled("Kapitel", "Erstes Kapitel")+
			`<w:p><w:pPr><w:outlineLvl w:val="2"/></w:pPr><w:r><w:t>Direkt</w:t></w:r></w:p>`+
			`<w:p><w:pPr><w:pStyle w:val="berschrift1"/><w:outlineLvl w:val="9"/></w:pPr><w:r><w:t>Textkörper</w:t></w:r></w:p>`+
			`<w:p><w:r><w:rPr><w:rStyle w:val="Fett"/></w:rPr><w:t>fett</w:t></w:r><w:r><w:t xml:space="preserve"> und </w:t></w:r><w:r><w:rPr><w:rStyle w:val="FettKursiv"/></w:rPr><w:t>beides</w:t></w:r></w:p>`),
		map[string]string{"word/styles.xml": germanStyles})
	doc := read(t, raw)
	want := "# Einleitung\n\nEin Zitat.\n\n## Erstes Kapitel\n\n### Direkt\n\nTextkörper\n\n**fett** und ***beides***"
	if doc.Markdown != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", doc.Markdown, want)
	}
	if doc.Title != "Einleitung" || doc.Lang != "de-DE" {
		t.Errorf("title %q, lang %q", doc.Title, doc.Lang)
	}
}

// TestHeadingsWithoutStyles: a document with no styles.xml still has
// its headings by the built-in styles' ids.
func TestHeadingsWithoutStyles(t *testing.T) {
	doc := read(t, docx(t, body(styled("Title", "T")+styled("Heading3", "Three")+styled("BodyText", "x")), nil))
	if want := "# T\n\n### Three\n\nx"; doc.Markdown != want {
		t.Errorf("Markdown = %q, want %q", doc.Markdown, want)
	}
}

// item is a list paragraph of a list and level.
func item(numID, ilvl, text string) string {
	return `<w:p><w:pPr><w:numPr><w:ilvl w:val="` + ilvl + `"/><w:numId w:val="` + numID + `"/></w:numPr></w:pPr><w:r><w:t>` + text + `</w:t></w:r></w:p>`
}

const listNumbering = `<?xml version="1.0" encoding="UTF-8"?><w:numbering ` + nsW + `>` +
	`<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/></w:lvl>` +
	`<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/></w:lvl><w:lvl w:ilvl="2"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>` +
	`<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl><w:lvl w:ilvl="1"><w:start w:val="3"/><w:numFmt w:val="decimal"/></w:lvl></w:abstractNum>` +
	`<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>` +
	`<w:num w:numId="2"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="7"/></w:lvlOverride></w:num>` +
	`<w:num w:numId="3"><w:abstractNumId w:val="1"/></w:num>` +
	`</w:numbering>`

const listStyles = `<?xml version="1.0" encoding="UTF-8"?><w:styles ` + nsW + `>` +
	`<w:style w:type="paragraph" w:styleId="ListBullet"><w:name w:val="List Bullet"/><w:pPr><w:numPr><w:numId w:val="3"/></w:numPr></w:pPr></w:style>` +
	`</w:styles>`

// TestLists: ordered and bullet lists by numbering.xml, nested by level
// (a level skipped is read as the next), counted per list and level and
// started again below a new item; a list that starts past 1; two lists
// side by side; a list by its paragraph style, and at a level the
// paragraph states; numId 0, no list.
func TestLists(t *testing.T) {
	raw := docx(t, body(
		item("1", "0", "one")+item("1", "1", "a")+item("1", "1", "b")+item("1", "0", "two")+item("1", "1", "c")+
			item("1", "3", "deep")+item("1", "0", "three")+
			p("between")+
			item("2", "0", "seven")+item("2", "0", "eight")+
			item("1", "0", "four")+
			styled("ListBullet", "styled")+
			`<w:p><w:pPr><w:pStyle w:val="ListBullet"/><w:numPr><w:numId w:val="0"/></w:numPr></w:pPr><w:r><w:t>not listed</w:t></w:r></w:p>`+
			item("3", "0", "dot")+item("3", "1", "three")+item("9", "0", "undefined")+
			`<w:p><w:pPr><w:pStyle w:val="ListBullet"/><w:numPr><w:ilvl w:val="1"/></w:numPr></w:pPr><w:r><w:t>styled, deeper</w:t></w:r></w:p>`),
		map[string]string{"word/numbering.xml": listNumbering, "word/styles.xml": listStyles})
	doc := read(t, raw)
	want := `1. one
   1. a
   2. b
2. two
   1. c
      - deep
3. three

between

7. seven
8. eight

4) four

- styled

not listed

- dot

  3. three
- undefined

  4. styled, deeper`
	if doc.Markdown != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", doc.Markdown, want)
	}
}

// tc is a table cell of one paragraph, with its properties.
func tc(props, text string) string {
	return "<w:tc><w:tcPr>" + props + "</w:tcPr>" + p(text) + "</w:tc>"
}

// TestTables: merged cells (a span, a vertical merge), a row that starts
// past the grid's first column, a nested table flattened into its cell,
// a cell of two paragraphs, and a table after a list.
func TestTables(t *testing.T) {
	nested := "<w:tbl><w:tr>" + tc("", "in1") + tc("", "in2") + "</w:tr><w:tr>" + tc("", "in3") + "</w:tr></w:tbl>"
	raw := docx(t, body(item("1", "0", "listed")+
		"<w:tbl><w:tblPr/><w:tblGrid/>"+
		"<w:tr>"+tc(`<w:gridSpan w:val="2"/>`, "Wide")+tc(`<w:vMerge w:val="restart"/>`, "Tall")+"</w:tr>"+
		"<w:tr>"+tc("", "a")+tc("", "b|c")+tc(`<w:vMerge/>`, "hidden")+"</w:tr>"+
		"<w:tr><w:trPr><w:gridBefore w:val="+`"1"`+"/></w:trPr>"+tc("", "after")+"</w:tr>"+
		"<w:tr><w:tc>"+p("outer")+nested+p("tail")+"</w:tc><w:tc>"+p("two")+p("paras")+"</w:tc></w:tr>"+
		"</w:tbl>"), map[string]string{"word/numbering.xml": listNumbering})
	doc := read(t, raw)
	want := `1. listed

| Wide |  | Tall |
| --- | --- | --- |
| a | b\|c |  |
|  | after |
| outer in1 in2 in3 tail | two paras |`
	if doc.Markdown != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", doc.Markdown, want)
	}
}

// TestLinks: external hyperlinks by their relationships, each once in
// Links without its fragment; a relative one resolved against the
// document's address; internal anchors, internal relationships and
// links to other schemes as plain text; a HYPERLINK field's result
// linked; a "!" before a link escaped so that it is no image.
func TestLinks(t *testing.T) {
	link := func(id, text string) string {
		return `<w:hyperlink r:id="` + id + `"><w:r><w:t>` + text + `</w:t></w:r></w:hyperlink>`
	}
	raw := docx(t, body(
		`<w:p>`+link("rId1", "Example")+`<w:r><w:t xml:space="preserve"> and </w:t></w:r>`+link("rId1", "again")+
			`<w:r><w:t xml:space="preserve"> then </w:t></w:r>`+link("rId2", "same page")+`<w:r><w:t xml:space="preserve">, </w:t></w:r>`+
			link("rId3", "relative")+`<w:r><w:t xml:space="preserve">, </w:t></w:r>`+link("rId4", "script")+
			`<w:r><w:t xml:space="preserve">, </w:t></w:r>`+link("rId5", "internal")+`<w:r><w:t xml:space="preserve">, </w:t></w:r>`+
			`<w:hyperlink w:anchor="_Toc1"><w:r><w:t>a heading</w:t></w:r></w:hyperlink><w:r><w:t>!</w:t></w:r>`+link("rId6", "bang")+`</w:p>`+
			`<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> HYPERLINK "https://field.example/x" \o "tip" </w:instrText></w:r>`+
			`<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>field link</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>`+
			`<w:r><w:t xml:space="preserve"> </w:t></w:r><w:fldSimple w:instr="HYPERLINK \l &quot;bookmark&quot;"><w:r><w:t>to a bookmark</w:t></w:r></w:fldSimple></w:p>`),
		map[string]string{"word/_rels/document.xml.rels": rels(
			hyperlinkRel("rId1", "https://Example.COM/path#part") +
				hyperlinkRel("rId2", "https://example.com/path#other") +
				hyperlinkRel("rId3", "../b/other.docx") +
				hyperlinkRel("rId4", "javascript:alert(1)") +
				`<Relationship Id="rId5" Type="` + relNS + `/hyperlink" Target="media/x.xml"/>` +
				hyperlinkRel("rId6", "http://bang.example/"))})
	doc := read(t, raw)
	want := "[Example](https://example.com/path#part) and [again](https://example.com/path#part) then [same page](https://example.com/path#other), " +
		"[relative](https://docs.example/b/other.docx), script, internal, a heading\\![bang](http://bang.example/)\n\n" +
		"[field link](https://field.example/x) to a bookmark"
	if doc.Markdown != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", doc.Markdown, want)
	}
	if want := []string{"https://example.com/path", "https://docs.example/b/other.docx", "http://bang.example/", "https://field.example/x"}; !slices.Equal(doc.Links, want) {
		t.Errorf("Links = %q, want %q", doc.Links, want)
	}
}

// TestTrackedChanges: deleted text (and a deleted paragraph's runs) is
// left out, inserted text kept; field instructions are left out and
// their results kept; hidden text is left out; tabs are spaces.
func TestTrackedChanges(t *testing.T) {
	raw := docx(t, body(
		`<w:p><w:r><w:t xml:space="preserve">The </w:t></w:r>`+
			`<w:del w:id="1" w:author="A"><w:r><w:delText>old</w:delText></w:r></w:del>`+
			`<w:ins w:id="2" w:author="A"><w:r><w:t>new</w:t></w:r></w:ins>`+
			`<w:r><w:t xml:space="preserve"> text</w:t></w:r><w:moveFrom w:id="3"><w:r><w:t>moved away</w:t></w:r></w:moveFrom></w:p>`+
			`<w:p><w:r><w:t xml:space="preserve">Page </w:t></w:r><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>PAGE \* MERGEFORMAT</w:instrText></w:r>`+
			`<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>3</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>`+
			`<w:r><w:rPr><w:vanish/></w:rPr><w:t>hidden</w:t></w:r><w:r><w:tab/><w:t>after a tab</w:t></w:r></w:p>`+
			`<w:del w:id="4"><w:p><w:r><w:t>a deleted block</w:t></w:r></w:p></w:del>`+
			`<w:sdt><w:sdtPr><w:alias w:val="box"/></w:sdtPr><w:sdtContent>`+p("in a content control")+`</w:sdtContent></w:sdt>`), nil)
	doc := read(t, raw)
	if want := "The new text\n\nPage 3 after a tab\n\nin a content control"; doc.Markdown != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", doc.Markdown, want)
	}
}

const notesPart = `<?xml version="1.0" encoding="UTF-8"?><w:%[1]ss ` + nsW + `>` +
	`<w:%[1]s w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:%[1]s>` +
	`<w:%[1]s w:id="1"><w:p><w:r><w:%[1]sRef/></w:r><w:r><w:t xml:space="preserve"> %[2]s</w:t></w:r></w:p>%[3]s</w:%[1]s>` +
	`<w:%[1]s w:id="2"><w:p><w:r><w:%[1]sRef/></w:r></w:p></w:%[1]s>` +
	`</w:%[1]ss>`

// TestNotes: footnotes and endnotes become Markdown footnotes, labelled
// in the order of their first reference; a note of two paragraphs and a
// table; a note referenced from a note; an empty note's reference and
// one to no note are left out.
func TestNotes(t *testing.T) {
	ref := func(kind, id string) string {
		return `<w:r><w:` + kind + `Reference w:id="` + id + `"/></w:r>`
	}
	foot := strings.NewReplacer("%[1]s", "footnote", "%[2]s", "First *note*.", "%[3]s",
		p("Second paragraph.")+"<w:tbl><w:tr>"+tc("", "cell")+"</w:tr></w:tbl>").Replace(notesPart)
	end := strings.NewReplacer("%[1]s", "endnote", "%[2]s", "An endnote.", "%[3]s",
		`<w:p><w:r><w:t>See also</w:t></w:r>`+ref("footnote", "1")+`</w:p>`).Replace(notesPart)
	raw := docx(t, body(`<w:p><w:r><w:t>Text</w:t></w:r>`+ref("endnote", "1")+`<w:r><w:t xml:space="preserve"> more</w:t></w:r>`+
		ref("footnote", "1")+ref("footnote", "2")+ref("footnote", "9")+`</w:p>`+`<w:p><w:r><w:t>Again</w:t></w:r>`+ref("endnote", "1")+`</w:p>`),
		map[string]string{"word/footnotes.xml": foot, "word/endnotes.xml": end})
	doc := read(t, raw)
	want := "Text[^1] more[^2]\n\nAgain[^1]\n\n[^1]: An endnote.\n\n    See also[^2]\n\n[^2]: First \\*note\\*.\n\n    Second paragraph.\n\n    cell"
	if doc.Markdown != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", doc.Markdown, want)
	}
}

// TestMetadata: the core properties' subject stands for a description
// where there is none, and dates are read in the forms W3CDTF allows.
func TestMetadata(t *testing.T) {
	core := `<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ` +
		`xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/">` +
		`<dc:title>  A   title </dc:title><dc:subject>The subject</dc:subject><dc:creator>B. Author</dc:creator>` +
		`<dcterms:created>2023-07</dcterms:created><dcterms:modified>2023-07-08T09:10+02:00</dcterms:modified></cp:coreProperties>`
	doc := read(t, docx(t, body(styled("Heading1", "Not the title")), map[string]string{"docProps/core.xml": core}))
	if doc.Title != "A title" || doc.Description != "The subject" || doc.Author != "B. Author" ||
		!doc.Published.Equal(time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC)) || !doc.Modified.Equal(time.Date(2023, 7, 8, 7, 10, 0, 0, time.UTC)) {
		t.Errorf("metadata: %+v", doc)
	}
}

// TestUTF16Part: a part in UTF-16, as XML allows, is read.
func TestUTF16Part(t *testing.T) {
	src := strings.Replace(body(p("Grüße")), `encoding="UTF-8"`, `encoding="UTF-16"`, 1)
	u := []byte{0xFF, 0xFE}
	for _, r := range src {
		u = append(u, byte(r), byte(r>>8))
	}
	if doc := read(t, docx(t, string(u), nil)); doc.Markdown != "Grüße" {
		t.Errorf("Markdown = %q", doc.Markdown)
	}
}

// TestSniff: DOCX files are recognised, by their parts' names or by
// the package's relationships and content types, and so are encrypted
// Office files; other zips and files are not.
func TestSniff(t *testing.T) {
	relsOnly := map[string]string{
		"[Content_Types].xml": strings.Replace(contentTypes, "/word/document.xml", "/doc/main.xml", 1),
		"_rels/.rels":         strings.Replace(rootRels, "word/document.xml", "doc/main.xml", 1),
		"doc/main.xml":        body(p("moved")),
	}
	sheet := map[string]string{
		"[Content_Types].xml": strings.Replace(strings.Replace(contentTypes, "/word/document.xml", "/xl/workbook.xml", 1), "wordprocessingml.document", "spreadsheetml.sheet", 1),
		"_rels/.rels":         strings.Replace(rootRels, "word/document.xml", "xl/workbook.xml", 1),
		"xl/workbook.xml":     `<workbook/>`,
	}
	for _, c := range []struct {
		name string
		raw  []byte
		want bool
	}{
		{"pandoc", readFile(t, "features.docx"), true},
		{"built", docx(t, body(p("x")), nil), true},
		{"by relationships", zipOf(t, relsOnly), true},
		{"encrypted", encryptedFile(), true},
		{"spreadsheet", zipOf(t, sheet), false},
		{"other zip", zipOf(t, map[string]string{"a.txt": "a"}), false},
		{"legacy doc", oleFile(3, "WordDocument", "1Table"), false},
		{"text", []byte("hello"), false},
		{"empty", nil, false},
	} {
		if got := Sniff(c.raw); got != c.want {
			t.Errorf("%s: Sniff = %v, want %v", c.name, got, c.want)
		}
	}
	if doc := read(t, zipOf(t, relsOnly)); doc.Markdown != "moved" {
		t.Errorf("the main part by relationships: %q", doc.Markdown)
	}
}
