package extract

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heedhq/heed/internal/testutil"
)

// checkRendered fails when FromMarkdown's Markdown of in, read by a
// CommonMark parser, holds raw HTML or a link or image to anything but
// an http(s) URL (a relative one resolving against the page's).
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
	if bad := testutil.UnsafeMarkdown(doc.Markdown, false); bad != "" {
		t.Fatalf("%s:\nin  %q\nout %q", bad, in, doc.Markdown)
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
	// What a CommonMark parser read otherwise than heed: a backslash
	// before a closing backtick, a code span across lines, a line of
	// U+00A0 (no blank line), a tag left out before a list marker, a
	// "[label]:" that is no definition (in a paragraph, or with nothing
	// after it), and a tag left out before a fence.
	"`\\`<img src=x onerror=alert(1)>`", "`a\nb `<img src=x onerror=alert(1)>`",
	"a\n\u00a0\n    <img src=x onerror=alert(1)>", "<b>-</b> a\n\n    <img src=x onerror=alert(1)>",
	"a\n[<img src=x onerror=alert(1)>]: http://ok.example/", "[<img src=x onerror=alert(1)>]:\n",
	"<b>```</b>\n```\n<img src=x onerror=alert(1)>\n```", "<b>~~~</b>\n~~~\n<img src=x onerror=alert(1)>\n~~~",
	"<b>1.</b> a\n\n    <img src=x onerror=alert(1)>", "[- a](javascript:x)\n\n    <img src=x onerror=alert(1)>",
	// A list item made of what follows an HTML block left out.
	"<!-- x --> - a\n\n    <img src=x onerror=alert(1)>", "<!--\nx\n--> 1. a\n\n    <img src=x onerror=alert(1)>",
	// A list item's fence, which a less indented line ends; a line that
	// is no closing fence for having more after its marks.
	"1. a\n   ```\n<img src=x onerror=alert(1)>\n   ```", "- a\n\n  ~~~\n<img src=x onerror=alert(1)>\n  ~~~",
	"```\nx\n``` ```\n```\n<img src=x onerror=alert(1)>\n```",
	// A list item's closing fence indented four or five columns, which
	// is less than four past the item's content.
	"- a\n\n  ```\n  b\n     ```\n  <img src=x onerror=alert(1)>", "1. a\n\n   ~~~\n   b\n      ~~~\n   <img src=x onerror=alert(1)>",
	// A line of a tag alone, blank once the tag is left out, does not
	// end a list.
	"- a\n\n</b>\n\n    <img src=x onerror=alert(1)>", "1) &lt;\n\n</script>\n\n    <img src=x onerror=alert(1)>",
	// A backslash break after an escaped backslash, which goldmark
	// misreads, taking the next line's escape for none.
	"a\\\\\\\n\\<img src=x onerror=alert(1)>", "a\\\\\\\n\\[x](javascript:alert(1))",
	// A bare URL that took in the backslash escaping a backtick.
	"http://ok.example/\\`a`<img src=x onerror=alert(1)>`",
	// A code span after a bare link, which a GFM reader reads on over
	// its backticks, to the next space or "<".
	"http://ok.example/`<img src=x onerror=alert(1)>`", "a www.ok.example/x`<img src=x onerror=alert(1)>`",
	"ftp://ok.example/[`<img src=x onerror=alert(1)>`](/x)",
	// A definition list's description, whose indented lines after a
	// blank line are its text, as a list item's are.
	"term\n: a\n\n    <img src=x onerror=alert(1)>", "[^1]\n\n[^1]: a\n\n    <img src=x onerror=alert(1)>",
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

// TestFromMarkdownCombinations checks, as TestFromMarkdownRendered does,
// documents of lines put together at random (with a fixed seed) from
// what makes blocks (list markers, indentation, fences, tags, comments,
// definitions) and what the sanitizer rewrites (tags, script links,
// backticks, escapes): the shapes where heed and a CommonMark reader
// could see different blocks, more of them than the fuzzer reaches.
func TestFromMarkdownCombinations(t *testing.T) {
	starts := []string{"", " ", "  ", "   ", "    ", "      ", "\t", "- ", "* ", "1. ", "1) ", "10. ", "> ", "  - ", "    - ", "> - ",
		"- > ", "<b></b>", "<b>", "</b>", "<div>", "</div>", "<!-- x -->", "<!--", "-->", "<script>", "</script>", "<?x", "?>", "<!X",
		"[-](javascript:x)", "![x](", "[", "```", "~~~", "`", "|", "| a | b |", "|---|---|", "[x]: ", "[x]:", "-", "#", "===", "---",
		"***", "\\", "\\\\", "<http://ok.example/>", "<a@b.example>", "\u00a0"}
	parts := []string{"a", "`", "``", "```", "`<b>`", "<img src=x onerror=alert(1)>", "<b>", "</b>", "\\", "\\\\",
		"[x](javascript:alert(1))", "[x]", "]:", "](", ")", "(", "[", "]", "<", ">", "<!--", "-->", "|-|", "|", "-", ":", "*", "_", "~",
		"!", "\u00a0", " ", "\t", "&lt;", "&#60;", "'t'", "\"t\"", "http://ok.example/", "<http://ok.example/>", "<x@y.z>",
		"<javascript:x>"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100_000 {
		var b strings.Builder
		for range 1 + r.IntN(7) {
			b.WriteString(starts[r.IntN(len(starts))])
			for range r.IntN(6) {
				b.WriteString(parts[r.IntN(len(parts))])
			}
			b.WriteString([]string{"\n", "\n", "\n\n"}[r.IntN(3)])
		}
		checkRendered(t, b.String())
	}
}
