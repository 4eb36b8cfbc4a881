package extract

import (
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
// "&lt;img&gt;" came out as a tag.
var htmlAttacks = []string{
	"<p><code>a</code><code>`&lt;img src=x onerror=alert(1)&gt;</code></p>",
	"<p><kbd>a</kbd><kbd>`&lt;img src=x onerror=alert(1)&gt;</kbd></p>",
	"<p><code>a</code><kbd>`&lt;img src=x onerror=alert(1)&gt;</kbd> b</p>",
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
