package htmltree

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/heedhq/heed/internal/extractdev"
)

// outline writes the tree under n an element or text a line, indented by
// depth: "<p class=x>" and "|text|".
func outline(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node, depth int)
	walk = func(n *html.Node, depth int) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			b.WriteString(strings.Repeat(" ", depth))
			switch c.Type {
			case html.ElementNode:
				b.WriteString("<")
				if c.Namespace != "" {
					b.WriteString(c.Namespace + ":")
				}
				b.WriteString(c.Data)
				for _, a := range c.Attr {
					fmt.Fprintf(&b, " %s=%s", a.Key, a.Val)
				}
				b.WriteString(">\n")
				walk(c, depth+1)
			case html.TextNode:
				b.WriteString("|" + c.Data + "|\n")
			}
		}
	}
	walk(n, 0)
	return b.String()
}

// body is the outline of a page's body, under its html and body lines.
func body(page string) string {
	out := outline(Parse(page))
	_, rest, _ := strings.Cut(out, " <body")
	_, rest, _ = strings.Cut(rest, "\n")
	return strings.ReplaceAll(rest, "\n  ", "\n")[2:]
}

func TestTree(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"paragraphs close paragraphs", `<p>one<p>two<div>three</div>`,
			"<p>\n |one|\n<p>\n |two|\n<div>\n |three|\n"},
		{"items close items, the list's end closes both", `<ul><li>a<li>b<p>c</ul>d`,
			"<ul>\n <li>\n  |a|\n <li>\n  |b|\n  <p>\n   |c|\n|d|\n"},
		{"an item in a nested list stays there", `<ul><li>a<ul><li>b</ul><li>c</ul>`,
			"<ul>\n <li>\n  |a|\n  <ul>\n   <li>\n    |b|\n <li>\n  |c|\n"},
		{"definitions", `<dl><dt>t<dd>d<dt>u</dl>`,
			"<dl>\n <dt>\n  |t|\n <dd>\n  |d|\n <dt>\n  |u|\n"},
		{"a heading closes a heading", `<h1>a<h2>b</h1>c`,
			"<h1>\n |a|\n<h2>\n |b|\n|c|\n"},
		{"a table's implied body and row", `<table><td>a<td>b<tr><th>c</table>`,
			"<table>\n <tbody>\n  <tr>\n   <td>\n    |a|\n   <td>\n    |b|\n  <tr>\n   <th>\n    |c|\n"},
		{"stray table content goes before it", `<table>stray<b>bold</b><tr><td>a</table>`,
			"|stray|\n<b>\n |bold|\n<table>\n <tbody>\n  <tr>\n   <td>\n    |a|\n"},
		{"a table in a cell", `<table><tr><td><table><tr><td>in</table>out</table>`,
			"<table>\n <tbody>\n  <tr>\n   <td>\n    <table>\n     <tbody>\n      <tr>\n       <td>\n        |in|\n    |out|\n"},
		{"a cell outside a table is no cell", `<td>a</td><tr>b`, "|ab|\n"},
		{"raw text", `<p>a</p><script>if (a<b) s = "</div>"</script><style>p{}</style><p>x`,
			"<p>\n |a|\n<script>\n |if (a<b) s = \"</div>\"|\n<style>\n |p{}|\n<p>\n |x|\n"},
		{"references in text and values, not in scripts", `<p title="a &amp; b">x &lt; y&nbsp;&copy<script>&amp;</script>`,
			"<p title=a & b>\n |x < y\u00a0©|\n <script>\n  |&amp;|\n"},
		{"a newline after pre goes", "<pre>\ncode\n</pre><textarea>\nt</textarea>",
			"<pre>\n |code\n|\n<textarea>\n |t|\n"},
		{"tags and keys in lower case, the first of two keys kept", `<DIV ID=a Class="x" id=b>x</Div>`,
			"<div id=a class=x>\n |x|\n"},
		{"end tags that match nothing are ignored", `<div>a</span></p></li>b</div>`,
			"<div>\n |ab|\n"},
		{"an end tag closes what is open inside", `<div><span><b>a</div>b`,
			"<div>\n <span>\n  <b>\n   |a|\n|b|\n"},
		{"a link closes a link", `<a href=1>a<a href=2>b`,
			"<a href=1>\n |a|\n<a href=2>\n |b|\n"},
		{"svg, self-closing inside, ended by a paragraph", `<svg viewBox="0 0 1 1"><path d="M0"/><g><title>t</title></g><p>out`,
			"<svg:svg viewbox=0 0 1 1>\n <svg:path d=M0>\n <svg:g>\n  <svg:title>\n   |t|\n<p>\n |out|\n"},
		{"comments join the text around them", `<p>Wed<!-- -->, Nov 20<!---->!</p>`,
			"<p>\n |Wed, Nov 20!|\n"},
		{"</br> is a break", `a</br>b`, "|a|\n<br>\n|b|\n"},
		{"void elements hold nothing", `<img src=a>x<br>y<hr>z<input value=v>w`,
			"<img src=a>\n|x|\n<br>\n|y|\n<hr>\n|z|\n<input value=v>\n|w|\n"},
		{"a '<' that starts no tag is text", `a < b <3 <> c`, "|a < b <3 <> c|\n"},
		{"a tag cut off at the end is dropped", `<p>a<a href="x`, "<p>\n |a|\n"},
		{"after the body's end, the body still", `<p>a</body></html><p>b`,
			"<p>\n |a|\n<p>\n |b|\n"},
		{"options", `<select><option>a<option>b<optgroup><option>c</select>`,
			"<select>\n <option>\n  |a|\n <option>\n  |b|\n <optgroup>\n  <option>\n   |c|\n"},
		{"line ends and NUL", "<p>a\r\nb\rc\x00d", "<p>\n |a\nb\ncd|\n"},
		{"references in attributes: whole names only, none before '='", `<a href="/s?q=go&region=eu&amp;x=1&copy=2&copy &#38;&notin">x</a>`,
			"<a href=/s?q=go&region=eu&x=1&copy=2© &&notin>\n |x|\n"},
		{"a template's end closes what is open in it", `<div><template><p>Loading<li>x</template><p>The text.</p></div>`,
			"<div>\n <template>\n  <p>\n   |Loading|\n  <li>\n   |x|\n <p>\n  |The text.|\n"},
		{"an escaped script holds a script it writes", "<p>a</p><script><!--\ndocument.write('<script src=x></script>');\n//--></script><p>b",
			"<p>\n |a|\n<script>\n |<!--\ndocument.write('<script src=x></script>');\n//-->|\n<p>\n |b|\n"},
		{"a self-closed script is a script", `<p>a<script src=x.js />hidden</script>b`,
			"<p>\n |a|\n <script src=x.js>\n  |hidden|\n |b|\n"},
		{"HTML in SVG's foreignObject stays in it", `<svg><foreignObject><div>in</div></foreignObject><text>label</text></svg><p>out`,
			"<svg:svg>\n <svg:foreignobject>\n  <div>\n   |in|\n <svg:text>\n  |label|\n<p>\n |out|\n"},
		{"SVG's title is no raw text", `<svg><title>icon</svg><p>after`,
			"<svg:svg>\n <svg:title>\n  |icon|\n<p>\n |after|\n"},
		{"</p> ends SVG", `<svg><path></p>text`, "<svg:svg>\n <svg:path>\n|text|\n"},
		{"a select: closed by another or by an input, deaf to other end tags", `<select><option>a</div><select>b<select><option>c<input>d`,
			"<select>\n <option>\n  |a|\n|b|\n<select>\n <option>\n  |c|\n<input>\n|d|\n"},
		{"text in a column group goes before the table", `<table><colgroup>first<col>second</table>`,
			"|firstsecond|\n<table>\n <colgroup>\n <col>\n"},
		{"an end tag's quoted attribute may hold '>'", `<div>a</div class="x>y">b`, "<div>\n |a|\n|b|\n"},
	} {
		if got := body(c.in); got != c.want {
			t.Errorf("%s: %q\ngot:\n%s\nwant:\n%s", c.name, c.in, got, c.want)
		}
	}
}

// TestHead: what comes before the body goes in the head, the first text
// or body element starts the body, and a second html or body tag adds its
// attributes.
func TestHead(t *testing.T) {
	got := outline(Parse(`<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>A &amp; B</title>` +
		`<noscript><img src=x></noscript></head> <body class=a><p>x<body id=b class=c><html dir=ltr>`))
	want := "<html lang=en dir=ltr>\n <head>\n  <meta charset=utf-8>\n  <title>\n   |A & B|\n  <noscript>\n   |<img src=x>|\n" +
		" <body class=a id=b>\n  <p>\n   |x|\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	got = outline(Parse(`<title>T</title>text`))
	if want := "<html>\n <head>\n  <title>\n   |T|\n <body>\n  |text|\n"; got != want {
		t.Errorf("text starts the body: got:\n%s\nwant:\n%s", got, want)
	}
	got = outline(Parse(`<head><template><title>No</title></template><title>Real</title></head><div hidden id=sprite>x</div><p>y`))
	if want := "<html>\n <head>\n  <title>\n   |Real|\n <body>\n  <div hidden= id=sprite>\n   |x|\n  <p>\n   |y|\n"; got != want {
		t.Errorf("a template in the head, a body implied by a div: got:\n%s\nwant:\n%s", got, want)
	}
	if got, want := outline(Parse("")), "<html>\n <head>\n <body>\n"; got != want {
		t.Errorf("empty page: got:\n%s\nwant:\n%s", got, want)
	}
}

// TestDepth: elements nest 512 deep at most; deeper ones are children of
// the 512th, and the text at the bottom is kept.
func TestDepth(t *testing.T) {
	page := strings.Repeat("<div>", 100_000) + "<p>deep</p>" + strings.Repeat("</div>", 100_000) + "<p>after</p>"
	doc := Parse(page)
	deepest, text := 0, ""
	var walk func(n *html.Node, d int)
	walk = func(n *html.Node, d int) {
		deepest = max(deepest, d)
		if n.Type == html.TextNode {
			text += n.Data + " "
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, d+1)
		}
	}
	walk(doc, 0)
	if deepest > MaxDepth+3 || text != "deep after " {
		t.Errorf("deepest %d, text %q", deepest, text)
	}
}

// visibleText is the text of a tree outside the head, scripts, styles and
// other elements whose text is not shown, joined.
func visibleText(n *html.Node, b *strings.Builder) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			b.WriteString(c.Data)
		case html.ElementNode:
			switch c.DataAtom {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head, atom.Title, atom.Textarea, atom.Iframe:
				continue
			}
			if c.Namespace == "" {
				visibleText(c, b)
			}
		}
	}
}

// TestSameTextAsHTMLParse: on the 181 real pages of the extraction
// development set, the text shown is the text golang.org/x/net/html's
// parser reads, in the same order.
func TestSameTextAsHTMLParse(t *testing.T) {
	pages, err := extractdev.Load("../../extract/testdata/extract-dev")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		page, err := p.HTML()
		if err != nil {
			t.Fatal(err)
		}
		want, err := html.Parse(bytes.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		var a, b strings.Builder
		visibleText(want, &a)
		visibleText(Parse(string(page)), &b)
		if strings.Join(strings.Fields(a.String()), " ") != strings.Join(strings.Fields(b.String()), " ") {
			t.Errorf("%s: the text differs", p.ID)
		}
	}
}

// TestMaxNodes: a page that would make more than MaxNodes nodes is read
// up to them, and what comes first is kept.
func TestMaxNodes(t *testing.T) {
	doc := Parse("<p>first</p>" + strings.Repeat("<b>", MaxNodes) + "<p>last")
	n, first, last := 0, false, false
	for d := range doc.Descendants() {
		n++
		first = first || d.Data == "first"
		last = last || d.Data == "last"
	}
	if n > MaxNodes || !first || last {
		t.Errorf("%d nodes, first %v, last %v", n, first, last)
	}
}

// TestHotSlots: each element kept outside the map has a place of its own.
func TestHotSlots(t *testing.T) {
	for i, a := range hotAtoms {
		if got := hotSlot(a); got != i {
			t.Errorf("hotSlot(%s) = %d, want %d", a, got, i)
		}
	}
	if got := hotSlot(atom.Em); got != -1 {
		t.Errorf("hotSlot(em) = %d, want -1", got)
	}
}
