package extract

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// A CommonMark renderer with GitHub's tables, strikethrough and task
// lists, as people and agents read Markdown: safe, it writes "raw HTML
// omitted" for each piece of raw HTML; unsafe, it writes the raw HTML and
// every destination as it is. (GFM's bare-link extension is left out: it
// makes links of text, which no Markdown says is a link.)
var (
	mdSafe   = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList))
	mdUnsafe = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList), goldmark.WithRendererOptions(html.WithUnsafe()))
	urlAttr  = regexp.MustCompile(`(?:href|src)="([^"]*)"`)
)

// checkRendered fails when FromMarkdown's Markdown of in, read by a
// CommonMark renderer, holds raw HTML or a link or image to anything but
// an http(s) URL (or a relative one).
func checkRendered(t *testing.T, in string) {
	t.Helper()
	doc, err := FromMarkdown([]byte(in), Options{URL: "https://docs.example/a/"})
	if err != nil {
		return
	}
	if !utf8.ValidString(doc.Markdown) || !utf8.ValidString(doc.Title) || !utf8.ValidString(doc.Description) {
		t.Fatalf("invalid UTF-8 from %q", in)
	}
	for _, l := range doc.Links {
		if !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") {
			t.Fatalf("link %q from %q", l, in)
		}
	}
	var b bytes.Buffer
	if err := mdSafe.Convert([]byte(doc.Markdown), &b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "raw HTML omitted") {
		t.Fatalf("raw HTML:\nin  %q\nout %q", in, doc.Markdown)
	}
	b.Reset()
	if err := mdUnsafe.Convert([]byte(doc.Markdown), &b); err != nil {
		t.Fatal(err)
	}
	for _, m := range urlAttr.FindAllStringSubmatch(b.String(), -1) {
		u := strings.ToLower(m[1])
		if i := strings.IndexAny(u, ":/?#"); i >= 0 && u[i] == ':' && !strings.HasPrefix(u, "http:") && !strings.HasPrefix(u, "https:") {
			t.Fatalf("a link to %q:\nin  %q\nout %q", m[1], in, doc.Markdown)
		}
	}
}

// attacks are inputs that once got raw HTML or a script link through:
// what taking bytes out joined (a tag, a comment or an autolink between
// "]" and "(", a rejected image between them, backtick runs), code spans
// taken across lines that a reader splits into blocks, list items that
// made lines look like code, and the spellings of a script link.
var attacks = []string{
	"[x]<b>(javascript:alert(1))", "[x]<!---->(javascript:alert(1))", "[x]<javascript:a>(javascript:alert(1))",
	"[y]![](javascript:a)(javascript:alert(1))", "![x]<b>(javascript:alert(1))", "[x]<b>: javascript:alert(1)\n\n[x]",
	"a ``<b>` ```<img src=x onerror=alert(1)>``` ", "a ``[`](javascript:alert(1)) ```<img src=x onerror=alert(1)>``` ",
	"a `\n# <img src=x onerror=alert(1)> `", "a `\n<details open ontoggle=alert(1)>\n`", "- a `\n- <img src=x onerror=alert(1)> `",
	"a `\n***\n<img src=x onerror=alert(1)> `", "a `\n| x | y |\n|---|---|\n| <img src=x onerror=alert(1)> `|",
	"a `\n# [x](javascript:alert(1)) `", "a `\n- [x]: javascript:alert(1)\n`\n\n[x]",
	"-\n  a\n\n    <img src=x onerror=alert(1)>", "123456789.\n           a\n\n           <img src=x onerror=alert(1)>",
	"<!--\nhidden\n--> after <img src=x onerror=alert(1)>", "<script>\nsteal()\n</script> <img src=x onerror=alert(1)>",
	"[x](<javascript:alert(1)>)", "[x](java&#115;cript:alert(1))", "[x](javascript&colon;alert(1))", "[x](\njavascript:alert(1))",
	"[x]\n\n[x]:\njavascript:alert(1)", "[x]\n\n[x\ny]: javascript:alert(1)\n\n[x y]", "> [x]: javascript:alert(1)\n\n[x]",
	"- [x]: javascript:alert(1)\n\n[x]", "<div>\n<img src=x onerror=alert(1)>\n</div>", "<a href=\"javascript:alert(1)\">x</a>",
	"[![i](https://ok.example/i.png)](javascript:alert(1))", "[a [b] c](javascript:alert(1))", "<a@b.example> <vbscript:x>",
	"x <b\nonclick=alert(1)>y</b>", "``a\n<img src=x onerror=alert(1)>``", "  <!-- c --> <img src=x onerror=alert(1)>",
	"> ```\n<img src=x onerror=alert(1)>\n```", "1. a\n\n       <img src=x onerror=alert(1)>",
}

func TestFromMarkdownRendered(t *testing.T) {
	for _, in := range attacks {
		checkRendered(t, in)
	}
}

// FuzzFromMarkdown checks every input as TestFromMarkdownRendered checks
// the known attacks.
//
//	go test -run '^$' -fuzz FuzzFromMarkdown ./extract
func FuzzFromMarkdown(f *testing.F) {
	for _, in := range attacks {
		f.Add(in)
	}
	for _, in := range []string{"# a\n\n[x](http://a) `c` <b>x</b>\n", "- a\n  - b\n\n    c\n", "```\nx\n```\n", "[x]\n\n[x]: http://a 't'\n", "---\ntitle: x\n---\n# H\n"} {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) { checkRendered(t, in) })
}
