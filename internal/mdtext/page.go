package mdtext

import (
	"strconv"
	"strings"

	"github.com/heedhq/heed"
)

// PageMarker is the line a document's Markdown puts before each page's
// text, "<!-- page 3 -->": an HTML comment, so that the Markdown renders
// as the document reads, while the index, snippets and a reader of the
// file can still say which page a passage is on.
func PageMarker(n int) string { return "<!-- page " + strconv.Itoa(n) + " -->" }

// pageOf is the page a line marks, or 0 when it is no page marker.
func pageOf(line string) int {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "<!-- page ") || !strings.HasSuffix(t, " -->") {
		return 0
	}
	n, err := strconv.Atoi(t[len("<!-- page ") : len(t)-len(" -->")])
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// pages cuts a document's Markdown at its page markers: each page's
// number and text. nil when it has none (a page of the web).
func pages(md string) (out []pageText) {
	if !strings.Contains(md, "<!-- page ") {
		return nil
	}
	n, start, at := 0, 0, 0
	var code fences
	for line := range strings.Lines(md) {
		// A marker counts outside code only.
		if !code.in(line) {
			if p := pageOf(line); p > 0 {
				if at > start || n > 0 {
					out = append(out, pageText{n, md[start:at]})
				}
				n, start = p, at+len(line)
			}
		}
		at += len(line)
	}
	if out == nil && n == 0 {
		return nil
	}
	return append(out, pageText{n, md[start:]})
}

// pageText is a page's number (0 for text before the first marker) and
// its Markdown.
type pageText struct {
	n  int
	md string
}

// SnippetPage is Snippet, and the page of a document the snippet is
// from: the page whose text holds the most of the query's terms, the
// first of those, and the first page where none does; 0 for a page of
// the web (whose Markdown has no page markers). The first page that
// matches any term would be a manual's table of contents for most
// queries of two words. Each page is read once to count its terms, and
// the one chosen once more for its snippet, so that the cost stays
// linear in the Markdown.
func SnippetPage(markdown string, terms [][]string) (string, []heed.Span, int) {
	ps := pages(markdown)
	if ps == nil {
		s, m := Snippet(markdown, terms)
		return s, m, 0
	}
	best, most := 0, 0
	for i, p := range ps {
		if n := termsIn(p.md, terms); n > most {
			best, most = i, n
			if n == min(len(terms), maxSnippetTerms) {
				break
			}
		}
	}
	s, m := Snippet(ps[best].md, terms)
	return s, m, ps[best].n
}
