package extract

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heedhq/heed/internal/testutil"
)

// checkExtracted fails when Extract's Markdown of page, read by a
// CommonMark parser, holds raw HTML or a link or image to anything but an
// http(s) or mailto URL (a relative one resolving against the page's).
func checkExtracted(t *testing.T, page string, whole bool) {
	t.Helper()
	doc, err := ExtractBytes([]byte(page), Options{URL: "https://docs.example/a/", Whole: whole})
	if err != nil {
		return
	}
	if !utf8.ValidString(doc.Markdown) {
		t.Fatalf("invalid UTF-8 from %q", page)
	}
	if bad := testutil.UnsafeMarkdown(doc.Markdown, true); bad != "" {
		t.Fatalf("%s:\nin  %q\nout %q", bad, page, doc.Markdown)
	}
}

// htmlAttacks are pages whose Markdown once held raw HTML as a CommonMark
// parser reads it: code and kbd elements that touch, whose backticks
// made one run that closed no span, so that the page's escaped
// "&lt;img&gt;" came out as a tag; a line break after a backslash; a
// list numbered past what a list marker holds; code after a bare link.
var htmlAttacks = []string{
	"<p><code>a</code><code>`&lt;img src=x onerror=alert(1)&gt;</code></p>",
	"<p><kbd>a</kbd><kbd>`&lt;img src=x onerror=alert(1)&gt;</kbd></p>",
	"<p><code>a</code><kbd>`&lt;img src=x onerror=alert(1)&gt;</kbd> b</p>",
	// A line break after a backslash, which goldmark misreads.
	"<p>a\\<br>&lt;img src=x onerror=alert(1)&gt;</p>",
	// An item numbered past nine digits, which is no item.
	"<ol start=999999999><li>a<li><pre>&lt;img src=x onerror=alert(1)&gt;</pre></ol>",
	// Code after a bare link, which a GFM reader reads on over the
	// code's backticks, to the next space or "<".
	"<p>www.ok.example/a<code>&lt;img src=x onerror=alert(1)&gt;</code></p>",
	"<p>http://ok.example/<b><code>&lt;img src=x onerror=alert(1)&gt;</code></b></p>",
	"<p>http://ok.example/<a href=/x><code>&lt;img src=x onerror=alert(1)&gt;</code></a></p>",
}

func TestExtractRendered(t *testing.T) {
	for _, page := range htmlAttacks {
		checkExtracted(t, page, false)
		checkExtracted(t, page, true)
	}
}

// FuzzExtractMarkdown checks every page as TestExtractRendered checks the
// known attacks.
//
//	go test -run '^$' -fuzz FuzzExtractMarkdown ./extract
func FuzzExtractMarkdown(f *testing.F) {
	for _, page := range htmlAttacks {
		f.Add(page, true)
	}
	for _, page := range []string{
		"<h1>T</h1><p>a <b>b</b> <a href=/x>x</a> <code>c</code> &lt;b&gt;</p><ul><li>l</ul>",
		"<pre><code class=language-go>x := `a`\n</code></pre><blockquote><p>q</p></blockquote>",
		"<table><tr><th>a<th>b<tr><td><code>|</code><td>[x](javascript:y)</table>",
		"<p><a href=\"javascript:alert(1)\">x</a> <img src=\"data:x\" alt=y> <a href=mailto:a@b.example>m</a></p>",
	} {
		f.Add(page, false)
	}
	f.Fuzz(func(t *testing.T, page string, whole bool) { checkExtracted(t, page, whole) })
}

// TestExtractCombinations checks, as TestExtractRendered does, pages put
// together at random (with a fixed seed) from inline and block elements
// and text that Markdown reads as syntax (backticks, escapes, brackets,
// escaped tags, line starts): more of them than the fuzzer reaches.
func TestExtractCombinations(t *testing.T) {
	tags := []string{"<code>", "</code>", "<kbd>", "</kbd>", "<b>", "</b>", "<i>", "</i>", "<a href=/x>", "<a href=javascript:x>",
		"<a href=\"/a b(c\">", "<a href=mailto:a@b>", "</a>", "<p>", "</p>", "<br>", "<li>", "<ul>", "</ul>", "<ol start=0>",
		"<ol start=999999999>", "</ol>", "<pre>", "</pre>", "<pre><code class=language-x>", "<table><tr><td>", "<td>", "<th>", "<tr>",
		"</table>", "<blockquote>", "</blockquote>", "<h2>", "</h2>", "<img src=/i.png alt=\"", "<img src=\"javascript:x\" alt=y>",
		"\">", "<s>", "</s>", "<samp>", "<tt>", "<q>", "<sup>", "<summary>", "<details>", "<dl><dt>", "<dd>", "<hr>", "<span>",
		"<figure>", "<figcaption>", "<div>", "</div>", "<del>", "<em>", "<strong>", "<textarea>", "<button>", "<label>"}
	texts := []string{"a", "`", "``", "```", "&lt;img src=x onerror=alert(1)&gt;", "&lt;b&gt;", "\\", "\\\\", "[x](javascript:alert(1))",
		"|", "-", " ", "](", ")", "(", "[", "]", "&lt;", "&gt;", "*", "_", "~", "~~~", "!", "\n", "\n\n", "    ", "1.", "1)", "#",
		"&amp;", "<!--x-->", "http://ok.example/", "<", ">", "&#96;", "&nbsp;", "\t", "+", "=", ":", "'", "\""}
	r := rand.New(rand.NewPCG(1, 7))
	for range 50_000 {
		var b strings.Builder
		for range 1 + r.IntN(14) {
			if r.IntN(2) == 0 {
				b.WriteString(tags[r.IntN(len(tags))])
			} else {
				b.WriteString(texts[r.IntN(len(texts))])
			}
		}
		checkExtracted(t, b.String(), r.IntN(2) == 0)
	}
}
