package mdtext

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heedhq/heed/internal/printable"
)

func TestSnippetOfLongUnspacedText(t *testing.T) {
	body := strings.Repeat("これは長い文章です。", 50) + "灯台守は潮を記録する。" + strings.Repeat("海は静かでした。", 50)
	text, spans := Snippet(body, Terms("灯台"))
	got := printable.Marked(text, spans, "**", "**")
	if !strings.Contains(got, "**灯台**守は潮を記録する。") || !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") {
		t.Errorf("snippet %q", got)
	}
	if n := utf8.RuneCountInString(got); n > 40 {
		t.Errorf("snippet of %d characters: %q", n, got)
	}
}

// BenchmarkSnippet makes a snippet of a large body whose match comes
// early: the cost is one pass over the body, whatever the query.
func BenchmarkSnippet(b *testing.B) {
	body := "The lighthouse keeper wrote. " + strings.Repeat("Waves broke on the rocks all night long. ", 100_000)
	terms := Terms(strings.Repeat("lighthouse waves rocks night ", 50))
	for b.Loop() {
		Snippet(body, terms)
	}
}

func TestSaid(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"no links at all", "no links at all"},
		{"See [the guide](https://e.com/guide) first.", "See [the guide] first."},
		// A title is an image's caption: it is text, its target is not.
		{"![a map](https://e.com/map.png \"A map of the coast\") and more", "![a map] \"A map of the coast\" and more"},
		{"![plot](/p.png \"plot of f(\\\"x\\\") for tides\") after", "![plot] \"plot of f(\\\"x\\\") for tides\" after"},
		{"![a map](https://e.com/map.png)[b](/b)", "![a map][b]"},
		{"[![logo](/logo.png)](https://e.com/)", "[![logo]]"},
		{"[nested [brackets]](https://e.com/n) and f(x)", "[nested [brackets]] and f(x)"},
		{"an array[i](j) call", "an array[i] call"},
		{"unclosed [a](https://e.com/a", "unclosed [a](https://e.com/a"},
		{"two](lines\n)", "two](lines\n)"},
		{"[東京](https://e.com/東京)に", "[東京]に"},
		// Code is kept whole, and so is escaped prose.
		{"```js\nhandlers[eventName](dispatchPayload)\n```\n[a](/a)", "```js\nhandlers[eventName](dispatchPayload)\n```\n[a]"},
		{"````\n```\nf[x](y)\n````\nf[x](y)", "````\n```\nf[x](y)\n````\nf[x]"},
		{"call `handlers[e](payload)` then [a](/a)", "call `handlers[e](payload)` then [a]"},
		{"``a`b[x](y)`` and `c", "``a`b[x](y)`` and `c"},
		{"` unclosed [a](/a)", "` unclosed [a]"},
		{"note \\[1\\](optional) and \\\\[2](/two)", "note \\[1\\](optional) and \\\\[2]"},
		{"[a](x \"unclosed title) and [b](/b)", "[a](x \"unclosed title) and [b]"},
		// Fences with tildes, in lists and in blockquotes; inline code
		// at a line's start is no fence.
		{"~~~\nf[x](y)\n~~~\n[a](/a)", "~~~\nf[x](y)\n~~~\n[a]"},
		{"- item\n\n  ```\n  f[x](y)\n  ```\n[a](/a)", "- item\n\n  ```\n  f[x](y)\n  ```\n[a]"},
		{"> ```js\n> f[x](y)\n> ```\n> [a](/a)", "> ```js\n> f[x](y)\n> ```\n> [a]"},
		{"```a``b``` then [docs](https://e.com/x)\n\n```\nf[x](y)\n```\n[c](/c)", "```a``b``` then [docs]\n\n```\nf[x](y)\n```\n[c]"},
	} {
		if got := Said(c.in); got != c.want {
			t.Errorf("Said(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSaidHostile: shapes that a scan back and forth would take
// quadratic time over (minutes at these sizes) come back whole, in one
// pass.
func TestSaidHostile(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("](", 1<<20),
		strings.Repeat("](x \"", 1<<19),
		strings.Repeat("](x ", 1<<19),
		func() string { // unclosed backtick runs of every length
			var b strings.Builder
			for n := 1; b.Len() < 1<<21; n++ {
				b.WriteString(strings.Repeat("`", n) + "](")
			}
			return b.String()
		}(),
	} {
		if got := Said(in); got != in {
			t.Errorf("said of %d bytes (%.20q...) changed it", len(in), in)
		}
	}
}

// A snippet is plain text: no code span's or fence's backticks (or
// tildes), around words or around punctuation alone.
func TestSnippetCode(t *testing.T) {
	for _, c := range []struct{ md, query, want string }{
		{"Run `go vet ./...` then ```\nfunc vetted() {}\n``` and vet again", "vet",
			"Run go **vet** ./... then func **vetted**() {} and **vet** again"},
		{"~~~sh\nheed crawl\n~~~\nthen `--delay` and `->`.", "crawl",
			"sh heed **crawl** then --delay and ->."},
	} {
		text, spans := Snippet(c.md, Terms(c.query))
		if got := printable.Marked(text, spans, "**", "**"); got != c.want {
			t.Errorf("Snippet(%q, %q) = %q, want %q", c.md, c.query, got, c.want)
		}
	}
}

// A query's run of an unspaced script is looked for by its first
// maxTermChars characters at most: each place of the body is compared
// with a bounded number of them, whatever the query, so that a body of
// one character repeated and a query of it repeated cost one pass, not
// the product of their lengths (BenchmarkSnippetLongUnspacedQuery). The
// match is still marked where the run's head is.
func TestTermsLongUnspaced(t *testing.T) {
	q := strings.Repeat("東", 300) + "西"
	for _, term := range Terms(q) {
		if len(term) > maxTermChars {
			t.Errorf("a term of %d characters", len(term))
		}
	}
	body := strings.Repeat("南", 100) + "。" + q + "。"
	text, spans := Snippet(body, Terms(q))
	if got := printable.Marked(text, spans, "[", "]"); !strings.Contains(got, "。["+strings.Repeat("東", 10)) {
		t.Errorf("snippet %q", got)
	}
}

// BenchmarkSnippetLongUnspacedQuery makes a snippet of the largest body
// a team's search reads, one character repeated, for a query of that
// character repeated that no place matches whole.
func BenchmarkSnippetLongUnspacedQuery(b *testing.B) {
	body := strings.Repeat("東", 310_000)
	terms := Terms(strings.Repeat("東", 330) + "西")
	for b.Loop() {
		Snippet(body, terms)
	}
}

// A hard line break (a <br> is written as a backslash at the line's
// end) is a space in a snippet, not a backslash; an escaped backslash
// stays one.
func TestSnippetHardBreak(t *testing.T) {
	for _, c := range []struct{ md, want string }{
		{"line one tide\\\nline two", "line one **tide** line two"},
		{"tide\\\n\\\nafter", "**tide** after"},
		{"a path C:\\\\ and the tide", "…path C:\\ and the **tide**"},
	} {
		text, spans := Snippet(c.md, Terms("tide"))
		if got := printable.Marked(text, spans, "**", "**"); got != c.want {
			t.Errorf("Snippet(%q) = %q, want %q", c.md, got, c.want)
		}
	}
}
