package extract

import (
	"bytes"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkBound extracts page and fails unless its Markdown is within
// MaxGrowth times the page's length, and every string of the document is
// valid UTF-8. It returns the document.
func checkBound(t *testing.T, name string, page []byte, opts Options) *Document {
	t.Helper()
	doc, err := ExtractBytes(page, opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(doc.Markdown) > MaxGrowth*len(page) {
		t.Errorf("%s: %d bytes of Markdown from %d bytes of HTML, %.1f times, over %d", name, len(doc.Markdown), len(page),
			float64(len(doc.Markdown))/float64(len(page)), MaxGrowth)
	}
	if n := linksBytes(doc); n > MaxGrowth*len(page) {
		t.Errorf("%s: %d bytes of links from %d bytes of HTML", name, n, len(page))
	}
	if s := invalidString(doc); s != "" {
		t.Errorf("%s: invalid UTF-8 in %s", name, s)
	}
	return doc
}

// invalidString names the first string of a document that is not valid
// UTF-8, or returns "".
func invalidString(doc *Document) string {
	fields := map[string]string{"url": doc.URL, "title": doc.Title, "description": doc.Description, "lang": doc.Lang,
		"canonical": doc.Canonical, "markdown": doc.Markdown}
	for i, l := range doc.Links {
		fields[fmt.Sprintf("link %d", i)] = l
	}
	for i, d := range doc.Directives {
		fields[fmt.Sprintf("directive %d", i)] = fmt.Sprint(d)
	}
	for name, s := range fields {
		if !utf8.ValidString(s) {
			return fmt.Sprintf("%s %q", name, s)
		}
	}
	return ""
}

// linksBytes is the length of a document's links, together.
func linksBytes(doc *Document) int {
	n := 0
	for _, l := range doc.Links {
		n += len(l)
	}
	return n
}

// TestRaggedTable: one row of C cells and R rows of one cell give a table
// of C columns whose body rows hold their own cells only (GFM fills in the
// rest), not C×R cells.
func TestRaggedTable(t *testing.T) {
	const cols, rows = 300, 300
	page := "<table><tr>" + strings.Repeat("<th>h", cols) + strings.Repeat("<tr><td>c", rows) + "</table>"
	doc := checkBound(t, "ragged table", []byte(page), Options{})
	lines := strings.Split(doc.Markdown, "\n")
	if len(lines) != rows+2 {
		t.Fatalf("%d lines, want a header, a delimiter row and %d rows", len(lines), rows)
	}
	if got := strings.Count(lines[0], "| h "); got != cols {
		t.Errorf("the header has %d cells, want %d", got, cols)
	}
	if got := strings.Count(lines[1], "---"); got != cols {
		t.Errorf("the delimiter row has %d cells, want %d", got, cols)
	}
	for _, l := range lines[2:] {
		if l != "| c |" {
			t.Fatalf("a body row reads %.80q, want %q", l, "| c |")
		}
	}
	// A table without a header row of its own: the empty header and the
	// delimiter row have every column, the rows their own cells.
	page = "<table><tr><td>a<td>b<td>c<tr><td>d</table>"
	doc = checkBound(t, "no header", []byte(page), Options{})
	if want := "|  |  |  |\n| --- | --- | --- |\n| a | b | c |\n| d |"; doc.Markdown != want {
		t.Errorf("got\n%s\nwant\n%s", doc.Markdown, want)
	}
}

// TestLongBaseHref: a long <base href>, or a long page URL, is not copied
// into every relative link without bound. The bytes link resolution adds
// are at most the page's length; past that, relative targets are kept as
// written. Absolute targets, and the first links, are written absolute.
func TestLongBaseHref(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("d", 8000) + "/"
	links := strings.Repeat(`<a href="a">a link</a> and `, 4000)
	for _, c := range []struct {
		name, page, url string
	}{
		{"base href", `<html><head><base href="` + long + `"></head><body><p>` + links + `</p></body></html>`, "https://example.com/"},
		{"page URL", `<html><body><p>` + links + `</p></body></html>`, long},
		{"images", `<html><body><p>` + strings.Repeat(`<img src="a" alt="x">`, 4000) + `</p></body></html>`, long},
	} {
		doc := checkBound(t, c.name, []byte(c.page), Options{URL: c.url})
		if n := strings.Count(doc.Markdown, "](a)"); n == 0 || !strings.Contains(doc.Markdown, "]("+long+"a)") {
			t.Errorf("%s: want the first links absolute and the rest as written (%d)", c.name, n)
		}
		if linksBytes(doc) > len(c.page) {
			t.Errorf("%s: %d bytes of links from %d bytes of HTML", c.name, linksBytes(doc), len(c.page))
		}
	}
	// An absolute target is written absolute, however many there are.
	abs := `<p>` + strings.Repeat(`<a href="https://example.org/x">x</a> `, 4000) + `</p>`
	doc := checkBound(t, "absolute", []byte(abs), Options{URL: long})
	if n := strings.Count(doc.Markdown, "](https://example.org/x)"); n != 4000 {
		t.Errorf("%d absolute links of 4000 written absolute", n)
	}
}

// TestDevSetLinksAbsolute: on the pages of the development set, every
// link and image of the Markdown is absolute, as it was before link
// resolution had a budget.
func TestDevSetLinksAbsolute(t *testing.T) {
	target := regexp.MustCompile(`\]\(([^)\s]*)`)
	for _, pg := range devPages(t) {
		doc := extractPage(t, pg)
		for _, m := range target.FindAllStringSubmatch(doc.Markdown, -1) {
			if u := m[1]; !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "mailto:") {
				t.Errorf("%s: a relative target %q", pg.ID, u)
			}
		}
	}
}

// TestDeepNestingLines: the prefixes and indentation that quotes and lists
// give each line are bounded however many lines they hold and however
// wide a list's markers are: past a budget of the page's length, a
// quote or list is written without them.
func TestDeepNestingLines(t *testing.T) {
	lines := strings.Repeat("a\n", 20000)
	for _, c := range []struct {
		name, page string
		text       int // the a's the page holds
	}{
		{"quoted code", strings.Repeat("<blockquote>", 8) + "<pre>" + lines + "</pre>", 20000},
		{"quoted blank lines", strings.Repeat("<blockquote>", 8) + "<pre>a" + strings.Repeat("\n", 40000) + "a</pre>", 2},
		{"listed code", strings.Repeat("<ol start=999999999><li>", 8) + "<pre>" + lines + "</pre>", 20000},
		{"listed breaks", strings.Repeat("<ol start=999999999><li>", 8) + strings.Repeat("a<br>", 20000), 20000},
		{"listed paragraphs", strings.Repeat("<ol start=999999999><li>", 8) + strings.Repeat("<p>a", 20000), 20000},
		{"wide markers", "<ol start=999999999>" + strings.Repeat("<li>a", 20000), 20000},
		{"mixed", strings.Repeat("<ul><li><blockquote>", 4) + "<pre>" + lines + "</pre>", 20000},
	} {
		doc := checkBound(t, c.name, []byte(c.page), Options{})
		if got := strings.Count(doc.Markdown, "a"); got != c.text {
			t.Errorf("%s: %d a's of %d kept", c.name, got, c.text)
		}
	}
	// Quotes and lists of a normal size keep their structure.
	doc := checkBound(t, "small", []byte("<blockquote><ul><li>one<ul><li>two<pre>x\ny</pre></ul></ul></blockquote>"), Options{})
	if want := "> - one\n>   - two\n>\n>     ```\n>     x\n>     y\n>     ```"; doc.Markdown != want {
		t.Errorf("got\n%s\nwant\n%s", doc.Markdown, want)
	}
}

// TestInheritedCodeLanguage: a code block takes the language its
// wrapper's class names, but a class of any length is not copied into
// every block.
func TestInheritedCodeLanguage(t *testing.T) {
	page := `<div class="language-` + strings.Repeat("x", 5000) + `">` + strings.Repeat("<pre>a</pre>", 5000) + `</div>`
	checkBound(t, "long language", []byte(page), Options{})
	doc := checkBound(t, "language", []byte(`<div class="highlight-go"><div class="highlight"><pre>x := 1</pre></div></div>`), Options{})
	if doc.Markdown != "```go\nx := 1\n```" {
		t.Errorf("got %q", doc.Markdown)
	}
}

// TestInvalidUTF8: a page taken as UTF-8 (its first kilobyte is) whose
// later bytes are not gives valid UTF-8 in every string of its document.
func TestInvalidUTF8(t *testing.T) {
	bad := "\xc8\x87\xff"
	page := `<html lang="en` + bad + `"><head><meta charset="utf-8"><title>Caf` + bad + `é</title>` +
		`<meta name="description" content="d` + bad + `"><link rel="canonical" href="/c` + bad + `"></head><body>` +
		`<p>Café, ` + strings.Repeat("a long enough sentence, ", 60) + `</p>` +
		`<p>Then ` + bad + ` and <a href="/x` + bad + `">a link` + bad + `</a> and <img src="i` + bad + `.png" alt="alt` + bad + `">.</p>` +
		`<pre class="language-go">` + bad + `</pre></body></html>`
	for _, ct := range []string{"", "text/html; charset=utf-8"} {
		for _, start := range []string{"", "é" + strings.Repeat(" ", 1100)} {
			doc := checkBound(t, "invalid bytes", []byte(start+page), Options{URL: "https://example.com/", ContentType: ct})
			if !strings.Contains(doc.Markdown, "\uFFFD") {
				t.Errorf("the invalid bytes are not replaced: %q", doc.Markdown)
			}
		}
	}
	// A base URL that is not UTF-8 gives none.
	checkBound(t, "invalid base", []byte(`<p><a href="x">x</a></p>`), Options{URL: "https://example.com/" + bad})
}

// TestMarkdownBoundAtSizes: for each shape of page that made extraction
// multiply its input, the Markdown stays within MaxGrowth times the
// page at every size.
func TestMarkdownBoundAtSizes(t *testing.T) {
	for _, s := range amplifiers {
		for _, n := range []int{1000, 2000, 4000, 8000} {
			page, opts := s.page(n)
			checkBound(t, fmt.Sprintf("%s/%d", s.name, n), page, opts)
		}
	}
}

// amplifiers are shapes of page whose Markdown grew faster than the page
// before it was bounded, each made with n repeats of its part.
var amplifiers = []struct {
	name string
	page func(n int) ([]byte, Options)
}{
	{"table", func(n int) ([]byte, Options) {
		return []byte("<table><tr>" + strings.Repeat("<td>x", n) + strings.Repeat("<tr><td>y", n) + "</table>"), Options{}
	}},
	{"base-href", func(n int) ([]byte, Options) {
		return []byte(`<base href="https://example.com/` + strings.Repeat("d", 8000) + `/"><p>` + strings.Repeat("<a href=a>x</a> ", n)), Options{URL: "https://example.com/"}
	}},
	{"page-url", func(n int) ([]byte, Options) {
		return []byte(strings.Repeat("<a href=a>x</a> ", n)), Options{URL: "https://example.com/" + strings.Repeat("d", 8000) + "/"}
	}},
	{"nested-code", func(n int) ([]byte, Options) {
		return []byte(strings.Repeat("<ol start=999999999><li><blockquote>", 8) + "<pre>" + strings.Repeat("a\n", n)), Options{}
	}},
	{"language", func(n int) ([]byte, Options) {
		return []byte("<div class=language-" + strings.Repeat("x", 5000) + ">" + strings.Repeat("<pre>a</pre>", n)), Options{}
	}},
}

// BenchmarkAmplifiers extracts each shape of amplifiers at four sizes,
// reporting the Markdown's bytes per byte of HTML (out/in): both it and
// the time per byte stay flat as the page grows.
func BenchmarkAmplifiers(b *testing.B) {
	for _, s := range amplifiers {
		for _, n := range []int{1000, 2000, 4000, 8000} {
			page, opts := s.page(n)
			b.Run(fmt.Sprintf("%s/n=%d", s.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(page)))
				var out int
				for b.Loop() {
					doc, err := ExtractBytes(page, opts)
					if err != nil {
						b.Fatal(err)
					}
					out = len(doc.Markdown)
				}
				b.ReportMetric(float64(out)/float64(len(page)), "out/in")
			})
		}
	}
}

// FuzzExtract checks that any input gives a document or an error, never a
// panic; that every string of the document is valid UTF-8; that the
// Markdown holds no raw HTML tags; and that the Markdown, and the links
// together, are at most MaxGrowth times the input.
func FuzzExtract(f *testing.F) {
	f.Add([]byte("<p>hello <b>world</b></p>"), "https://example.com/")
	f.Add([]byte("<table><tr><td>a<td>b<tr><td>c</table><pre class=language-go>x</pre>"), "")
	f.Add([]byte("<ul><li>a<ol><li>b</ol></ul><blockquote>q</blockquote><a href=javascript:x>y</a>"), "http://x/")
	f.Add([]byte(strings.Repeat("<div>", 600)), "")
	f.Add([]byte("<base href=http://e.com/dddddddddddddddddddd/><a href=a>x</a><a href=a>x</a><img src=b>"), "")
	f.Add([]byte("<blockquote><blockquote><ol start=999999999><li><pre>a\nb\nc\n</pre></ol>"), "")
	f.Add([]byte("<meta charset=windows-1252><p>\x80\x80<a href=\"\x80\x80\">\x80</a>"), "http://e.com/")
	f.Fuzz(func(t *testing.T, page []byte, base string) {
		doc, err := Extract(bytes.NewReader(page), Options{URL: base})
		if err != nil {
			return
		}
		if s := invalidString(doc); s != "" {
			t.Fatalf("invalid UTF-8 in %s", s)
		}
		if len(doc.Markdown) > MaxGrowth*len(page) {
			t.Fatalf("%d bytes of Markdown from %d bytes: %q", len(doc.Markdown), len(page), doc.Markdown)
		}
		if n := linksBytes(doc); n > MaxGrowth*len(page) {
			t.Fatalf("%d bytes of links from %d bytes: %q", n, len(page), doc.Links)
		}
		// A tag that text says, its "<" escaped ("\\<a 0": an odd run
		// of backslashes before it), is text, as is one in code.
		lower := strings.ToLower(outsideCode(doc.Markdown))
		for _, tag := range []string{"<script", "<style", "<div", "<p>", "<a "} {
			for i := strings.Index(lower, tag); i >= 0; i = next(lower, tag, i) {
				if !escaped(lower, i) {
					t.Fatalf("raw HTML %q in %q", tag, doc.Markdown)
				}
			}
		}
	})
}

// outsideCode is Markdown less its fenced blocks and code spans, whose
// text is code as written: "<p>" there is no tag.
func outsideCode(md string) string {
	var b strings.Builder
	fence := ""
	for line := range strings.Lines(md) {
		t := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:len(t)-len(strings.TrimLeft(t, t[:1]))]
		default:
			b.WriteString(line)
		}
	}
	return withoutSpans(b.String())
}

// withoutSpans is text less its code spans: a run of backticks, and what
// follows it up to a run of as many.
func withoutSpans(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			return b.String() + s
		}
		n := len(s[i:]) - len(strings.TrimLeft(s[i:], "`"))
		closed := -1
		for j := i + n; j < len(s); {
			k := strings.IndexByte(s[j:], '`')
			if k < 0 {
				break
			}
			m := len(s[j+k:]) - len(strings.TrimLeft(s[j+k:], "`"))
			if m == n {
				closed = j + k + m
				break
			}
			j += k + m
		}
		if closed < 0 {
			b.WriteString(s[:i+n])
			s = s[i+n:]
			continue
		}
		b.WriteString(s[:i])
		s = s[closed:]
	}
}

// next is the index of tag in s after the one at i, or -1.
func next(s, tag string, i int) int {
	if j := strings.Index(s[i+1:], tag); j >= 0 {
		return i + 1 + j
	}
	return -1
}

// TestWorkLinear: what many elements ask of one they share is found once,
// not once each: a figure's caption and first image, which each of its
// images and captions asks for, and the language a wrapper's class names,
// which each code block in it asks for; and the base URL each relative
// link is resolved against is read no more than a budget allows. The
// memory extraction allocates grows with the page, not with the elements
// times the shared one.
func TestWorkLinear(t *testing.T) {
	alloc := func(page []byte) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := ExtractBytes(page, Options{URL: "https://example.com/"}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	for name, page := range map[string]func(n int) string{
		"figure": func(n int) string {
			return "<figure><figcaption>" + strings.Repeat("caption words ", n) + "</figcaption>" +
				strings.Repeat("<img src=a.png><figcaption>x</figcaption>", n) + "</figure>"
		},
		"code language": func(n int) string {
			return `<div class="` + strings.Repeat("wrapper ", n) + `">` + strings.Repeat("<pre>x</pre>", n) + "</div>"
		},
		// Links that keep little of a long base URL: each resolution reads
		// all of it, whatever it adds.
		"base URL": func(n int) string {
			var b strings.Builder
			b.WriteString(`<base href="https://example.com/` + strings.Repeat("d", 4*n) + `/"><p>`)
			for i := range n {
				fmt.Fprintf(&b, `<a href="../x%d">x</a> `, i)
			}
			return b.String()
		},
	} {
		small, large := alloc([]byte(page(2000))), alloc([]byte(page(8000)))
		t.Logf("%s: %d bytes allocated, then %d", name, small, large)
		if large > 6*small {
			t.Errorf("%s: four times the page allocates %.1f times the memory (%d bytes, then %d)", name, float64(large)/float64(small), small, large)
		}
	}
}

// TestOutsideCode: FuzzExtract's search for raw HTML passes over code
// (a fence, a span) and nothing else.
func TestOutsideCode(t *testing.T) {
	md := "a <p> `<b>` c\n```html\n<div>\n```\nd <a \n~~~~\n<style>\n~~~\n~~~~\ne ``x ` <i>`` f\n"
	want := "a <p>  c\nd <a \ne  f\n"
	if got := outsideCode(md); got != want {
		t.Errorf("outsideCode:\n%q\nwant\n%q", got, want)
	}
}
