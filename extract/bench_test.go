package extract

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// BenchmarkExtract measures extraction over the whole development set
// (bytes per second of HTML).
func BenchmarkExtract(b *testing.B) {
	var pages [][]byte
	total := 0
	for _, pg := range devPages(b) {
		raw, err := pg.HTML()
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, raw)
		total += len(raw)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range pages {
			if _, err := ExtractBytes(p, Options{URL: "https://example.com/"}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkExtractTree measures extraction from parsed pages, the HTML
// parser left out: the part of the work that is heed's own.
func BenchmarkExtractTree(b *testing.B) {
	var trees []*html.Node
	var sizes []int
	for _, pg := range devPages(b) {
		raw, err := pg.HTML()
		if err != nil {
			b.Fatal(err)
		}
		doc, err := html.Parse(bytes.NewReader(raw))
		if err != nil {
			b.Fatal(err)
		}
		trees, sizes = append(trees, doc), append(sizes, utf8.RuneCount(raw))
	}
	base, _ := url.Parse("https://example.com/")
	b.ReportAllocs()
	for b.Loop() {
		for i, doc := range trees {
			fromTree(doc, base, base.String(), false, sizes[i])
		}
	}
}

// BenchmarkHostile measures shapes of HTML that cost a naive extractor
// quadratic time: deep inline nesting over a megabyte of text, long runs
// of backticks in code, thousands of line breaks, an article's short
// blocks nested around hundreds of thousands of empty elements.
func BenchmarkHostile(b *testing.B) {
	shapes := []struct{ name, page string }{
		{"nested-emphasis", strings.Repeat("<b><i>", 250) + strings.Repeat("word ", 200_000)},
		{"nested-quotes", strings.Repeat("<blockquote>", 500) + strings.Repeat("word ", 200_000)},
		{"backtick-code", "<pre>" + strings.Repeat("`", 1<<20) + "</pre>"},
		{"line-breaks", strings.Repeat("word<br>", 300_000)},
		{"nesting-past-limit", strings.Repeat("<div>", 100_000) + "text"},
		{"quotes-of-lines", strings.Repeat("<blockquote>", 250) + strings.Repeat("a<br>", 200_000)},
		{"lists-of-code", strings.Repeat("<ul><li>", 120) + "<pre>" + strings.Repeat("line\n", 100_000) + "</pre>"},
		{"nested-summaries", "<details>" + strings.Repeat("<summary>", 400) + strings.Repeat("word ", 1_000_000)},
		{"emphasis-over-spans", strings.Repeat("<b><i>", 200) + strings.Repeat("<span>x</span>", 500_000)},
		{"nested-tables", strings.Repeat("<table><tr><td>", 150) + strings.Repeat("cell<br>", 100_000)},
		{"nested-short-blocks", `<meta property="og:type" content="article"><article>` + strings.Repeat("<div>", 500) + "hello there" +
			strings.Repeat("<span></span>", 400_000) + strings.Repeat("</div>", 500) + `</article>`},
		// Shapes for the documentation rules: bars of navigation links,
		// documents of sections, lists of sections, callouts and tabs,
		// each nested as deep as a page may go, over much text.
		{"nested-divs-of-words", strings.Repeat("<div>a <a href=/next>Next</a> ", 500) + strings.Repeat("<span>w</span> ", 300_000)},
		{"nested-sections", strings.Repeat("<section><h2>Part</h2><p>Some words of the part, and more of them.</p>", 500) + strings.Repeat("word ", 200_000)},
		{"nested-section-lists", strings.Repeat("<ul><li><h2>Part</h2>", 120) + strings.Repeat("word ", 200_000)},
		{"nested-callouts", strings.Repeat(`<div class="admonition note"><p class="admonition-title">Note</p>`, 500) + strings.Repeat("word ", 200_000)},
		{"many-tab-panels", strings.Repeat(`<div role="tabpanel" aria-labelledby="t" hidden>x</div>`, 100_000)},
		{"tab-panels-of-one-big-label", `<main><div id="big">` + strings.Repeat("w ", 200_000) + strings.Repeat("<i></i>", 50_000) + `</div>` +
			strings.Repeat(`<div role="tabpanel" aria-labelledby="big"><p>Some words in a panel here.</p></div>`, 8_000) + `</main>`},
		{"nested-divs-round-a-big-link", strings.Repeat("<div>", 400) + `<a href="/x">` + strings.Repeat("<b>w</b> ", 100_000) + `</a>`},
		{"nested-untitled-notes", strings.Repeat(`<div class="note">`, 500) + strings.Repeat("word ", 200_000)},
		{"nested-summary-headings", "<details>" + strings.Repeat("<summary><h3>h</h3>", 400) + strings.Repeat("word ", 200_000)},
		// Sections named after their headings: nested, round one long
		// heading, and with a class of many words.
		{"nested-named-sections", strings.Repeat(`<section id="related-part"><h2>Related part</h2><p>Some words of the part, and more of them.</p>`, 500) + strings.Repeat("word ", 200_000)},
		{"named-boxes-round-a-long-heading", strings.Repeat(`<div class="related">`, 500) + "<h2>" + strings.Repeat("related ", 200_000) + "</h2>"},
		{"named-box-of-many-class-words", `<div class="` + strings.Repeat("related-words ", 100_000) + `"><h2>Related words</h2>` + strings.Repeat("<p>word word word</p>", 50_000) + `</div>`},
		{"lines-of-code", `<div class="fragment">` + strings.Repeat(`<div class="line">x = 1</div>`, 200_000) + `</div>`},
	}
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(s.page)))
			for b.Loop() {
				if _, err := Extract(strings.NewReader(s.page), Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFromMarkdownHostile measures shapes of Markdown that cost a
// naive reader quadratic time or memory: front matter of repeated keys,
// relative links at a long URL, runs of backticks of many lengths before
// many lines of runs, tags left out before list markers and fences.
//
//	go test -run '^$' -bench FromMarkdownHostile -benchmem ./extract
func BenchmarkFromMarkdownHostile(b *testing.B) {
	var runs strings.Builder
	for n := 1; runs.Len() < 1<<20; n++ {
		runs.WriteString(strings.Repeat("`", n) + " ")
	}
	long := "https://docs.example/" + strings.Repeat("d", 8<<10) + "/"
	shapes := []struct{ name, doc, url string }{
		{"repeated-keys", "---\n" + strings.Repeat("k:\n", (maxFrontMatter-8)/3) + "---\n# T\n", ""},
		{"links-at-a-long-url", strings.Repeat("[a](x) [b](/y) ", 40_000), long},
		{"backtick-runs-then-lines", runs.String() + "\n" + strings.Repeat("`a\n", 300_000), ""},
		{"tags-before-markers", strings.Repeat("<b>-</b> a\n<i>~~~</i>\n", 50_000), ""},
		{"less-indented-fence-lines", "- a\n  ```\n" + strings.Repeat("x <b>y</b>\n", 200_000), ""},
	}
	for _, s := range shapes {
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(s.doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := FromMarkdown([]byte(s.doc), Options{URL: s.url}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
