package extract

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestCharsets(t *testing.T) {
	tests := []struct {
		name        string
		page        []byte
		contentType string
		want        string
	}{
		{"header charset", []byte("<p>caf\xe9 cr\xe8me, a long enough sentence to be the content of this page.</p>"), "text/html; charset=iso-8859-1", "café crème"},
		{"meta charset", []byte("<meta charset=\"windows-1252\"><p>\x93quoted\x94 text, a long enough sentence to be the content of this page.</p>"), "", "“quoted” text"},
		{"http-equiv", []byte("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=shift_jis\"><p>\x93\xfa\x96\x7b\x8c\xea\x82\xcc\x95\xb6\x8f\xcd\x82\xc5\x82\xb7\x81\x42</p>"), "", "日本語の文章です。"},
		{"utf-8 by default", []byte("<p>naïve façade, a long enough sentence to be the content of this page.</p>"), "", "naïve façade"},
		{"utf-8 past the first kilobyte", []byte("<head><title>t</title><style>" + strings.Repeat("/* padding */\n", 100) + "</style></head><p>Our café serves crème brûlée, a long enough sentence to be the content.</p>"), "text/html", "café serves crème brûlée"},
		{"byte order mark", []byte("\xef\xbb\xbf<p>ünïcode, a long enough sentence to be the content of this page.</p>"), "text/html; charset=iso-8859-1", "ünïcode"},
	}
	for _, tt := range tests {
		doc, err := Extract(bytes.NewReader(tt.page), Options{URL: "https://example.com/", ContentType: tt.contentType})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !strings.Contains(doc.Markdown, tt.want) || !utf8.ValidString(doc.Markdown) || strings.ContainsRune(doc.Markdown, '\ufeff') {
			t.Errorf("%s: got %q, want it to contain %q", tt.name, doc.Markdown, tt.want)
		}
	}
}

func TestPathologicalHTML(t *testing.T) {
	deep := strings.Repeat("<div>", 100_000) + "<p>deep text at the bottom of the page</p>" + strings.Repeat("</div>", 100_000)
	doc, err := Extract(strings.NewReader(deep), Options{})
	if err != nil || !strings.Contains(doc.Markdown, "deep text at the bottom of the page") {
		t.Errorf("nesting past the parser's limit: got %v, %.80q", err, doc)
	}
	oneLine := "<p>" + strings.Repeat("word ", 1<<20) + "</p>" // 5 MiB on one line
	doc, err = Extract(strings.NewReader(oneLine), Options{})
	if err != nil || len(doc.Markdown) < 5<<20-10 {
		t.Errorf("megabytes of one line: got %v, %d bytes", err, len(doc.Markdown))
	}
	broken := "<html><body><p>Unclosed <b>bold <i>italic</p><table><tr><td>cell<p>para in cell</table></div></span><a href=x>link</body><p>after body"
	doc, err = Extract(strings.NewReader(broken), Options{URL: "https://example.com/"})
	if err != nil || !strings.Contains(doc.Markdown, "para in cell") || !strings.Contains(doc.Markdown, "after body") {
		t.Errorf("broken markup: got %v, %q", err, doc.Markdown)
	}
	if _, err := Extract(strings.NewReader(strings.Repeat("a", MaxInputBytes+1)), Options{}); err == nil {
		t.Errorf("input over the limit: no error")
	}
	if _, err := Extract(strings.NewReader("<p>x</p>"), Options{URL: "http://[::1"}); err == nil {
		t.Errorf("bad base URL: no error")
	}
	for _, in := range []string{"", "   ", "<html></html>", "<!doctype html>", "\x00\x01\x02", "<svg><p>x</p></svg>", "<frameset><frame src=a></frameset>"} {
		if _, err := Extract(strings.NewReader(in), Options{}); err != nil {
			t.Errorf("Extract(%q): %v", in, err)
		}
	}
}

// TestEscaping checks that text never reads as Markdown it is not: fences,
// strikethrough, entities, emphasis, headings, list markers.
func TestEscaping(t *testing.T) {
	tests := []struct{ html, want string }{
		{"<p>~~~</p>", `\~\~\~`},
		{"<p>a ~~b~~ c</p>", `a \~\~b\~\~ c`},
		{"<p>&amp;copy; &amp;#169; AT&amp;T &amp; co</p>", `\&copy; \&#169; AT\&T & co`},
		{"<p>*a* _b_ `c` [d](e) &lt;f&gt;</p>", "\\*a\\* \\_b\\_ \\`c\\` \\[d\\](e) \\<f\\>"},
		{"<p># not a heading</p>", `\# not a heading`},
		{"<p>- not an item</p>", `\- not an item`},
		{"<p>+ not an item</p>", `\+ not an item`},
		{"<p>1. not an item</p>", `1\. not an item`},
		{"<p>2020. A year.</p>", `2020\. A year.`},
		{"<p>> not a quote</p>", `\> not a quote`},
		{"<p>===</p>", `\===`},
		{"<p>plain text stays plain</p>", "plain text stays plain"},
	}
	for _, tt := range tests {
		doc, err := Extract(strings.NewReader(tt.html), Options{})
		if err != nil || doc.Markdown != tt.want {
			t.Errorf("Extract(%q) got %q, want %q", tt.html, doc.Markdown, tt.want)
		}
	}
}

func TestLinks(t *testing.T) {
	page := `<html><head><base href="https://cdn.example.com/docs/"></head><body>
<nav><a href="/">Home</a></nav>
<main><p>Read <a href="intro.html#part">the intro</a>, <a href="intro.html">again</a>,
<a href="mailto:a@example.com">mail</a>, <a href="javascript:void(0)">js</a>, <a href="data:text/html,hi">data</a>,
<a href="vbscript:x">vb</a>, <a href="ftp://example.com/f">ftp</a>, <a href="#top">top</a> and <a href="HTTPS://Other.example/x">other</a>.</p></main>
<footer><a href="/terms">Terms</a></footer></body></html>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://example.com/page"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"https://cdn.example.com/", "https://cdn.example.com/docs/intro.html", "https://other.example/x", "https://cdn.example.com/terms"}
	if strings.Join(doc.Links, " ") != strings.Join(want, " ") {
		t.Errorf("links:\n got %v\nwant %v", doc.Links, want)
	}
	for _, bad := range []string{"javascript:", "data:", "vbscript:", "ftp:"} {
		if strings.Contains(doc.Markdown, bad) {
			t.Errorf("markdown keeps a %s link: %s", bad, doc.Markdown)
		}
	}
	for _, kept := range []string{"js", "data", "vb", "ftp", "[mail](mailto:a@example.com)", "[the intro](https://cdn.example.com/docs/intro.html#part)"} {
		if !strings.Contains(doc.Markdown, kept) {
			t.Errorf("markdown lacks %q: %s", kept, doc.Markdown)
		}
	}
}

// TestBracketedLabels: a link whose label is in brackets ("[1]") keeps
// the brackets outside the link and an icon's bracketed alt loses them,
// so that the text reads the same and a link's or an image's text does
// not end at an escaped bracket; brackets inside a label stay escaped.
func TestBracketedLabels(t *testing.T) {
	page := `<html><body><main><p>The tide turns twice a day.<a href="/notes#n1">[1]</a> See <a href="/paper">[Chen '20]</a>, the <a href="/list">list [draft]</a>
and <a href="/book"><img src="/info.gif" alt="[X-Info]"></a> <img src="/map.png" alt="The [old] map"> <a href="/empty">[ ]</a>
<a href="/runs">[run a] vs [run b]</a> <img src="/runs.png" alt="[run a] vs [run b]"> <a href="/drive">[C:\]</a>
<a href="/open">[open</a> <a href="/one">[a [b]</a> <a href="/two">[a] b]</a>.</p></main></body></html>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://example.com/tides"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`\[[1](https://example.com/notes#n1)\]`,
		`\[[Chen '20](https://example.com/paper)\]`,
		`[list \[draft\]](https://example.com/list)`,
		`[![X-Info](https://example.com/info.gif)](https://example.com/book)`,
		`![The \[old\] map](https://example.com/map.png)`,
		`[\[ \]](https://example.com/empty)`,
		`[\[run a\] vs \[run b\]](https://example.com/runs)`,
		`![\[run a\] vs \[run b\]](https://example.com/runs.png)`,
		`\[[C:\\](https://example.com/drive)\]`,
		`[\[open](https://example.com/open)`,
		`[\[a \[b\]](https://example.com/one)`,
		`[\[a\] b\]](https://example.com/two)`,
	} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("want %s in:\n%s", want, doc.Markdown)
		}
	}
}

func TestMetadataSources(t *testing.T) {
	page := `<html><head><title>The page's title</title>
<script type="application/ld+json">[{"@type":"ItemList","headline":"A teaser","datePublished":"2001-01-01"},
 {"@type":"NewsArticle","headline":"The headline","datePublished":"2025-04-01T09:00:00Z","dateModified":"2025-04-02"}]</script>
</head><body><svg><g><title>An icon</title></g></svg>
<p>Body text that is long enough to be the main content of the page, with words in it.</p></body></html>`
	doc, err := Extract(strings.NewReader(page), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "The page's title" {
		t.Errorf("title %q, want the <title>", doc.Title)
	}
	if got := doc.Published.Format("2006-01-02"); got != "2025-04-01" {
		t.Errorf("published %s, want the article's date, not a listed item's", got)
	}
	if got := doc.Modified.Format("2006-01-02"); got != "2025-04-02" {
		t.Errorf("modified %s", got)
	}
	noTitle, _ := Extract(strings.NewReader(`<body><svg><title>An icon</title></svg><h1>Heading</h1><p>Text long enough to be content of this page, with commas, too.</p></body>`), Options{})
	if noTitle.Title != "Heading" {
		t.Errorf("title without <title>: %q, want the h1", noTitle.Title)
	}
}

// TestBoilerplateAround checks short and plain pages, where the content
// is small and the page's menus and footers are not marked up as such.
func TestBoilerplateAround(t *testing.T) {
	short := `<body><div class="menu"><a href="/">Home</a> <a href="/docs">Docs</a> <a href="/blog">Blog</a></div>
<h1>Quick start</h1><p>Install it, then run it.</p><pre>go install example.com/x@latest</pre><pre>x run</pre>
<div class="footer-links"><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></div>
<div class="hidden">Hidden by class.</div></body>`
	doc, err := Extract(strings.NewReader(short), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"Home", "Privacy", "Hidden by class"} {
		if strings.Contains(doc.Markdown, bad) {
			t.Errorf("short page keeps %q:\n%s", bad, doc.Markdown)
		}
	}
	if !strings.Contains(doc.Markdown, "x run") {
		t.Errorf("short page lost its content:\n%s", doc.Markdown)
	}
	para := "<p>" + strings.Repeat("The post goes on, sentence after sentence, with commas and words. ", 4) + "</p>"
	comment := "<div class=\"comment\"><p>" + strings.Repeat("A reader writes back at length, agreeing, disagreeing, adding more. ", 6) + "</p></div>"
	beside := `<body><div id="main"><div class="entry">` + strings.Repeat(para, 25) + `</div><div id="comments">` + strings.Repeat(comment, 6) + `</div></div></body>`
	doc, err = Extract(strings.NewReader(beside), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(doc.Markdown, "A reader writes back") || !strings.Contains(doc.Markdown, "The post goes on") {
		t.Errorf("comments beside the post: kept comments or lost the post (%d bytes)", len(doc.Markdown))
	}
}

func TestRelativeLinksWithoutBase(t *testing.T) {
	doc, err := Extract(strings.NewReader(`<p>See <a href="../guide/">the guide</a> and <img src="a.png" alt="A">, a long enough paragraph to count.</p>`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.Markdown, "[the guide](../guide/)") || !strings.Contains(doc.Markdown, "![A](a.png)") {
		t.Errorf("relative links without a base: %s", doc.Markdown)
	}
}

func TestWholeKeepsEveryPart(t *testing.T) {
	// A feed item's HTML: short, and mostly links, which main-content
	// selection would take for navigation.
	frag := `<p>Released: <a href="/v2">v2</a>, <a href="/v3">v3</a></p><ul><li><a href="/notes">notes</a></li></ul><script>alert(1)</script><h2>Why</h2><p>Because.</p>`
	doc, err := ExtractBytes([]byte(frag), Options{URL: "https://example.com/blog/", Whole: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "Released: [v2](https://example.com/v2), [v3](https://example.com/v3)\n\n- [notes](https://example.com/notes)\n\n## Why\n\nBecause."
	if doc.Markdown != want {
		t.Errorf("Whole got\n%q\nwant\n%q", doc.Markdown, want)
	}
}

// TestArticleClutter: what surrounds an article's text on news and shop
// pages — photo captions and credits of a slideshow, an author's box,
// related articles with their blurbs, a product's reviews — is left out,
// and paragraphs of nothing but zero-width characters are no paragraphs.
func TestArticleClutter(t *testing.T) {
	para := "<p>" + strings.Repeat("The story goes on, sentence after sentence, with commas and words. ", 4) + "</p>"
	blurb := "<p>" + strings.Repeat("Another story told at some length, so that this teaser is long. ", 3) + "</p>"
	review := `<div class="review"><p>` + strings.Repeat("A buyer liked it very much and says so at some length here. ", 3) + `</p></div>`
	page := `<body><article><h1>The story</h1>
<div class="gallery"><img src="/a.jpg" alt="A harbour"><div class="caption-full"><p>Boats in the harbour at dawn, as seen from the pier.</p></div><div class="credit">Photo: A. Photographer, Agency</div></div>
` + strings.Repeat(para, 12) + `<p>&#8205;</p><p>&#8205; &#8203;</p><p>A family: 👨&#8205;👩&#8205;👧 at home.</p>
<div class="author__box"><p>Jane Writer has covered harbours for ten years.</p><a href="/jane">More by Jane</a></div>
<section class="related-pages"><h4>More stories</h4>` + strings.Repeat(blurb, 4) + `</section>
<section id="reviews"><h2>Reviews</h2>` + strings.Repeat(review, 4) + `</section>
</article></body>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://news.example/story"})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"Boats in the harbour", "Photo: A. Photographer", "Another story told", "A buyer liked it", "\u200d\n"} {
		if strings.Contains(doc.Markdown, bad) {
			t.Errorf("kept %q:\n%s", bad, doc.Markdown)
		}
	}
	for _, good := range []string{"The story goes on", "👨\u200d👩\u200d👧"} {
		if !strings.Contains(doc.Markdown, good) {
			t.Errorf("lost %q:\n%s", good, doc.Markdown)
		}
	}
	if strings.Contains(doc.Markdown, "\n\n\n") || strings.Contains(doc.Markdown, "\u200b") {
		t.Errorf("empty paragraphs left:\n%q", doc.Markdown)
	}
}

// TestArticleTitleNotRepeated: an article's leading heading that repeats
// its title is the document's title, not its body; other pages, and
// other headings, keep theirs.
func TestArticleTitleNotRepeated(t *testing.T) {
	body := "<p>" + strings.Repeat("The harbour wall was built in a single summer by the town. ", 5) + "</p>"
	for _, c := range []struct {
		head, h1 string
		keep     bool
	}{
		{`<meta property="og:type" content="article"><title>Harbour walls | The Town Paper</title>`, "Harbour walls", false},
		{`<title>Harbour walls | The Town Paper</title>`, "Harbour walls", true},
		{`<meta property="og:type" content="article"><title>Harbour walls</title>`, "Lighthouses", true},
	} {
		page := "<html><head>" + c.head + "</head><body><article><h1>" + c.h1 + "</h1>" + strings.Repeat(body, 4) + "</article></body></html>"
		doc, err := Extract(strings.NewReader(page), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(doc.Markdown, "# "+c.h1); got != c.keep {
			t.Errorf("%s: heading kept %v, want %v:\n%s", c.head, got, c.keep, doc.Markdown)
		}
		if !strings.Contains(doc.Markdown, "The harbour wall") || doc.Title == "" {
			t.Errorf("%s: lost the body or the title: %q\n%s", c.head, doc.Title, doc.Markdown)
		}
	}
}

// TestArticleInSections: an article a page cuts into sections, each in
// its own wrapper far apart in the tree (around a full-width figure),
// comes out whole and in order.
func TestArticleInSections(t *testing.T) {
	para := func(w string) string {
		return "<p>" + strings.Repeat(w+" goes on, sentence after sentence, with commas and words. ", 4) + "</p>"
	}
	page := `<body><div class="page"><div class="wide"><section class="post-section">` + para("The first part") + para("The first part") + `</section></div>
<div class="full-bleed"><figure><img src="/f.jpg" alt="A figure"></figure></div>
<div class="band"><div class="inner"><section class="post-section">` + strings.Repeat(para("The second part"), 4) + `</section></div></div>
<div class="band"><div class="inner"><section class="post-section">` + para("The third part") + para("The third part") + `</section></div></div>
<footer><section class="post-section"><a href="/a">A</a> <a href="/b">B</a></section></footer></div></body>`
	doc, err := Extract(strings.NewReader(page), Options{})
	if err != nil {
		t.Fatal(err)
	}
	first, second, third := strings.Index(doc.Markdown, "The first part"), strings.Index(doc.Markdown, "The second part"), strings.Index(doc.Markdown, "The third part")
	if first < 0 || second < first || third < second {
		t.Errorf("sections missing or out of order (%d, %d, %d):\n%s", first, second, third, doc.Markdown)
	}
}

// articleOf is a page that says it is an article (og:type), titled title,
// with body as its body.
func articleOf(title, body string) string {
	return `<html><head><meta property="og:type" content="article"><title>` + title + `</title></head><body>` + body + `</body></html>`
}

// forumOf is a page whose JSON-LD says it is a discussion.
func forumOf(title, body string) string {
	return `<html><head><title>` + title + `</title><script type="application/ld+json">{"@type":"DiscussionForumPosting","headline":"` + title + `"}</script></head><body>` + body + `</body></html>`
}

// TestMainWithTeasers: a main that holds the article and, beside it,
// other stories' teasers as article elements (in a box of their own, or
// beside it but made otherwise) gives the article alone.
func TestMainWithTeasers(t *testing.T) {
	teasers := func(class string) string {
		var b strings.Builder
		for i := range 6 {
			fmt.Fprintf(&b, `<article class="%s"><h3><a href="/s%d">Another story %d, and what came of it</a></h3><p>In short.</p></article>`, class, i, i)
		}
		return b.String()
	}
	story := `<article class="story"><h1>The story</h1>` + strings.Repeat(sectionPara("The story"), 6) + `</article>`
	for name, main := range map[string]string{
		"in a box": story + `<div class="other-stories"><h2>More stories</h2>` + teasers("card") + `</div>`,
		"beside":   story + teasers("teaser"),
	} {
		doc := extractPageString(t, articleOf("The story", `<main>`+main+`</main>`))
		if !strings.Contains(doc.Markdown, "The story goes on") || strings.Contains(doc.Markdown, "Another story") {
			t.Errorf("%s: want the article without the teasers:\n%s", name, doc.Markdown)
		}
	}
}

// TestMainWithNestedArticles: a main whose only other articles are inside
// the story (posts it quotes) holds no teasers: its head stays.
func TestMainWithNestedArticles(t *testing.T) {
	quoted := `<article class="quoted"><p>A quoted post, said in passing, with a comma.</p></article>`
	page := articleOf("The story", `<main><header><h1>The story</h1><p class="standfirst">`+strings.Repeat("What happened at the harbour and why it matters to the town. ", 7)+`</p></header><article class="story"><div class="text">`+
		strings.Repeat(sectionPara("The story"), 6)+`</div>`+quoted+quoted+`</article></main>`)
	doc := extractPageString(t, page)
	if !strings.Contains(doc.Markdown, "What happened at the harbour") || !strings.Contains(doc.Markdown, "The story goes on") {
		t.Errorf("want the head and the story:\n%s", doc.Markdown)
	}
}

// TestMainWithSequence: a main whose article elements are a sequence
// made alike (a thread's posts, a live blog's updates, a listing's
// cards) is the content whole, however much longer one of them is; so is
// a forum's main, whatever its articles, and a main that holds two
// stories, neither of them a teaser.
func TestMainWithSequence(t *testing.T) {
	items := func(class, word string, n, long int) string {
		var b strings.Builder
		for i := range n {
			reps := 2
			if i == long {
				reps = 12
			}
			fmt.Fprintf(&b, `<article class="%s"><h2>%s %d</h2><p>%s</p></article>`, class, word, i+1,
				strings.Repeat(fmt.Sprintf("%s %d has its say, with a comma, and stops. ", word, i+1), reps))
		}
		return b.String()
	}
	cards := ""
	for i := range 8 {
		cards += fmt.Sprintf(`<article class="card"><h2><a href="/e%d">Event %d</a></h2><p>Event %d, in the town hall, with music and food for all.</p></article>`, i+1, i+1, i+1)
	}
	teaserInBox := `<div class="box">` + items("reply", "Reply", 2, -1) + `</div>`
	for _, c := range []struct {
		name, page string
		want       []string
	}{
		{"thread", `<html><body><main><h1>The boiler</h1><div class="posts">` + items("post", "Reply", 6, 2) + `</div></main></body></html>`,
			[]string{"Reply 1 has", "Reply 3 has", "Reply 6 has"}},
		{"thread in wrappers", `<html><body><main><h1>The boiler</h1><div class="posts">` +
			strings.ReplaceAll(strings.ReplaceAll(items("post", "Reply", 6, 2), `<article`, `<div class="topic-post"><article`), `</article>`, `</article></div>`) + `</div></main></body></html>`,
			[]string{"Reply 1 has", "Reply 3 has", "Reply 6 has"}},
		{"forum thread", forumOf("The boiler", `<main><h1>The boiler</h1><div class="opening">`+items("first", "Question", 1, 0)+`</div>`+teaserInBox+`</main>`),
			[]string{"Question 1 has", "Reply 1 has", "Reply 2 has"}},
		{"live blog", articleOf("Election night", `<main><h1>Election night</h1><p class="standfirst">The count goes on through the night.</p>`+items("update", "Update", 8, 5)+`</main>`),
			[]string{"Update 1 has", "Update 6 has", "Update 8 has"}},
		{"listing", `<html><body><main><h1>Events</h1>` + cards + `</main></body></html>`,
			[]string{"Event 1, in", "Event 8, in"}},
		{"question and answers", `<html><body><main><h1>The boiler</h1><div class="question">` + items("post", "Question", 1, 0) + `</div><div class="answers">` +
			items("post", "Answer", 6, -1) + `</div></main></body></html>`,
			[]string{"Question 1 has", "Answer 1 has", "Answer 6 has"}},
		{"live blog with key events", articleOf("Election night", `<main><h1>Election night</h1><div class="key-events">`+items("update", "Key event", 1, 0)+
			`</div><div class="stream">`+items("update", "Update", 8, -1)+`</div></main>`),
			[]string{"Key event 1 has", "Update 1 has", "Update 8 has"}},
		{"live blog with a pinned update", articleOf("Election night", `<main><h1>Election night</h1>`+
			strings.Replace(items("update", "Update", 8, 0), `class="update"`, `class="pinned update"`, 1)+`</main>`),
			[]string{"Update 1 has", "Update 2 has", "Update 8 has"}},
		{"digest", articleOf("The week", `<main>`+items("lead", "Lead", 1, 0)+items("brief", "Brief", 5, -1)+`</main>`),
			[]string{"Lead 1 has", "Brief 1 has", "Brief 5 has"}},
		{"two stories", articleOf("Two stories", `<main><article class="lead">`+strings.Repeat(sectionPara("The first story"), 6)+`</article><article class="second">`+
			strings.Repeat(sectionPara("The second story"), 3)+`</article></main>`),
			[]string{"The first story goes on", "The second story goes on"}},
	} {
		doc := extractPageString(t, c.page)
		for _, w := range c.want {
			if !strings.Contains(doc.Markdown, w) {
				t.Errorf("%s: lost %q:\n%s", c.name, w, doc.Markdown)
			}
		}
	}
}

// TestClimbStopsAtBoilerplate: the content climbs out of its wrapper to a
// parent that holds little more, but not to one whose more is a list of
// links (a menu beside the article), nor, a little at a time, through
// wrappers that together hold much more than the content. A short note
// beside it with a link in it (under a hundred letters) is little more.
func TestClimbStopsAtBoilerplate(t *testing.T) {
	story := `<div class="story">` + strings.Repeat(sectionPara("The story"), 4) + `</div>`
	var menu strings.Builder
	menu.WriteString(`<ul class="columns">`)
	for i := range 10 {
		fmt.Fprintf(&menu, `<li><a href="/c%d">Section of the site %d</a></li>`, i, i)
	}
	menu.WriteString(`</ul>`)
	note := func(w string) string {
		return `<div class="strip">` + w + ` sits beside the story, a note of a hundred and fifty letters or so, said once.</div>`
	}
	for _, c := range []struct{ name, page, bad, good string }{
		{"menu", `<body><div class="col">` + menu.String() + story + `</div></body>`, "Section of the site", ""},
		{"wrappers", `<body><div>` + note("The third strip") + `<div>` + note("The second strip") + `<div>` + note("The first strip") + story + `</div></div></div></body>`, "The third strip", ""},
		{"short note", `<body><div class="wrap">` + story + `<div class="more">See <a href="/part-two">the second part of it</a> too</div></div></body>`, "", "the second part"},
	} {
		doc := extractPageString(t, c.page)
		if !strings.Contains(doc.Markdown, "The story goes on") || c.bad != "" && strings.Contains(doc.Markdown, c.bad) || !strings.Contains(doc.Markdown, c.good) {
			t.Errorf("%s: want the story, without %q, with %q:\n%s", c.name, c.bad, c.good, doc.Markdown)
		}
	}
}

// TestLongCommentsNotContent: an article whose comments hold more text
// than it does is still a block that holds the content, not one block
// among many small ones: the article comes out, without the wrapper that
// holds it, its comments and a strip of headlines. On a forum, where the
// comments are the content, they come out with it.
func TestLongCommentsNotContent(t *testing.T) {
	comment := `<div class="comment"><div class="content"><p>` + strings.Repeat("A reader says what they think of it, at length, and then some more. ", 8) + `</p></div></div>`
	body := `<div class="wrapper"><div class="promo-strip"><h2>In brief</h2><div><a href="/a">The other story, in short</a></div></div>` +
		`<div class="post"><h1>The story</h1><div class="text">` + strings.Repeat(sectionPara("The story"), 3) + `</div></div>` +
		`<div id="reader-comments"><h2>What readers say</h2>` + strings.Repeat(comment, 8) + `</div></div>`
	doc := extractPageString(t, `<body>`+body+`</body>`)
	if !strings.Contains(doc.Markdown, "The story goes on") {
		t.Errorf("lost the story:\n%s", doc.Markdown)
	}
	for _, bad := range []string{"In brief", "What readers say", "A reader says"} {
		if strings.Contains(doc.Markdown, bad) {
			t.Errorf("kept %q:\n%s", bad, doc.Markdown)
		}
	}
	doc = extractPageString(t, forumOf("The story", body))
	if !strings.Contains(doc.Markdown, "The story goes on") || !strings.Contains(doc.Markdown, "A reader says") {
		t.Errorf("forum: want the post and its replies:\n%s", doc.Markdown)
	}
}

// TestMainWithProductGrid: a main that holds a category's description and
// a grid of product links gives the description: what the main holds
// beside it is mostly links, and many of them.
func TestMainWithProductGrid(t *testing.T) {
	var grid strings.Builder
	grid.WriteString(`<ul class="grid">`)
	for i := range 12 {
		fmt.Fprintf(&grid, `<li><a href="/p%d"><img src="/p%d.jpg" alt=""> Garden lamp model number %d, solar and waterproof</a> <span>$%d.99</span></li>`, i, i, i, 20+i)
	}
	grid.WriteString(`</ul>`)
	page := `<body><nav><a href="/">Home</a></nav><main><div class="intro">` + strings.Repeat(sectionPara("The category"), 3) + `</div>` + grid.String() + `</main></body>`
	doc := extractPageString(t, page)
	if !strings.Contains(doc.Markdown, "The category goes on") || strings.Contains(doc.Markdown, "Garden lamp model") {
		t.Errorf("want the description without the grid:\n%s", doc.Markdown)
	}
}

// TestMainHeadBesideLinks: a main whose text beside the best block is
// mostly links, but little of them (a short head and a few tags), is
// the content: its title and standfirst stay. So is a main whose text
// beside it is prose with links in it.
func TestMainHeadBesideLinks(t *testing.T) {
	tags := `<ul class="tags"><li><a href="/t/1">Tides and currents</a></li><li><a href="/t/2">Sailing for beginners</a></li><li><a href="/t/3">Harbours of the coast</a></li><li><a href="/t/4">Weather at sea</a></li><li><a href="/t/5">Small boats and their care</a></li></ul>`
	head := `<div class="head"><h1>Reading the tide tables</h1><p>What the columns mean, and how to plan a sail around them.</p></div>`
	body := `<div class="body">` + strings.Repeat(sectionPara("The guide"), 3) + `</div>`
	for _, page := range []string{`<body><main>` + head + body + tags + `</main></body>`, articleOf("Tides", `<main>`+head+body+tags+`</main>`)} {
		doc := extractPageString(t, page)
		for _, want := range []string{"Reading the tide tables", "What the columns mean", "The guide goes on"} {
			if !strings.Contains(doc.Markdown, want) {
				t.Errorf("lost %q:\n%s", want, doc.Markdown)
			}
		}
	}
	// A reading list, each entry a link and a line about it: under half
	// links, though many.
	further := `<div class="more"><div><div>` + strings.Repeat(`<p>Read <a href="/x">the story of the harbour master and his long winter</a> for more about the boats of the bay and how they fared</p>`, 48) + `</div></div></div>`
	body = `<div class="body">` + strings.Repeat(sectionPara("The guide"), 10) + `</div>`
	doc := extractPageString(t, `<body><main>`+body+further+`</main></body>`)
	if !strings.Contains(doc.Markdown, "The guide goes on") || !strings.Contains(doc.Markdown, "how they fared") {
		t.Errorf("lost the prose beside the best block:\n%s", doc.Markdown)
	}
}

// TestHiddenClasses: text hidden by a class, or shown to screen readers
// only, under the common class names (in any case) and a site's prefixed
// forms of them, is not the page's text. A class that shows the element
// again on some screens (hidden md:block, d-none d-md-block) or undoes
// screen-reader-only (not-sr-only) leaves it shown, and so do words that
// only hold one of the names.
func TestHiddenClasses(t *testing.T) {
	label := func(class string) *Document {
		page := `<body><div class="description"><p>` + strings.Repeat("The lamp gives a warm light, and it folds flat for travel. ", 4) +
			`<span class="` + class + `">Opens in a window</span></p></div></body>`
		return extractPageString(t, page)
	}
	for _, class := range []string{"hidden", "d-none", "is-hidden", "invisible", "sr-only", "visually-hidden", "visuallyhidden", "screen-reader-text",
		"screen-reader-only", "element-invisible", "acme-sr-only", "site-visually-hidden", "x-screen-reader-text", "Screen-Reader-Text", "SR-ONLY", "D-None",
		"label sr-only", "sr-only focus:not-sr-only", "d-none d-print-block", "hidden md:hidden", "md:hidden", "d-lg-none", "md:invisible", "md:u-sr-only",
		"hidden max-md:block", "hidden min-[900px]:grid", "hidden 3xl:block", "hidden @md:block", "hidden desktop:block", "hidden 2xl:block", "hidden hover:block",
		"hidden print:block", "hidden md:focus:block", "hidden md:block xl:hidden", "visually-hidden-focusable", "show-for-sr", "d-none d-xxl-block",
		"hidden-up-md", "hidden-up-sm", "visible-xs", "visible-sm-block", "visible-md-inline", "visible-md-inline-block", "hidden-lg", "hide-for-large",
		"show-for-small-only", "show-for-medium-only", "Visible-XS", "visible-xs visible-sm"} {
		if doc := label(class); !strings.Contains(doc.Markdown, "The lamp gives") || strings.Contains(doc.Markdown, "Opens in a window") {
			t.Errorf("class %q: want the text without the hidden label:\n%s", class, doc.Markdown)
		}
	}
	for _, class := range []string{"not-sr-only", "focus:not-sr-only", "sr-only md:not-sr-only", "hidden md:block", "hidden lg:flex", "d-none d-md-block",
		"d-none d-lg-inline-flex", "hidden sm:block", "hidden xl:grid", "d-none d-sm-block", "d-none d-xl-flex", "invisible md:visible", "max-md:hidden", "md:hidden lg:block",
		"print:hidden", "focus:sr-only", "hidden-gems", "sr-only-focusable", "hİdden", "hidden-gems hİdden", "screen-reader-textual", "unhidden",
		"hidden-down-md", "hidden-xs", "hidden-md", "visible-lg", "visible-lg-block", "hide-for-small-only", "show-for-large", "visible-on-scroll",
		"visible-xs visible-lg", "visible-lg visible-xs", "visible-sm visible-lg-block", "visible-md visible-lg", "visible-sm-up", "visible-md-up",
		"hidden-up-2xl", "hide-for-medium"} {
		if doc := label(class); !strings.Contains(doc.Markdown, "Opens in a window") {
			t.Errorf("class %q: lost the label, which is shown:\n%s", class, doc.Markdown)
		}
	}
}

// TestMayHide: the quick look at a class attribute never passes over one
// that hides its element, whatever its case or script.
func TestMayHide(t *testing.T) {
	for _, class := range []string{"sr-only", "SR-ONLY", "d-none", "D-NONE", "screen-reader-text", "Screen-Reader-Text", "visually-hidden", "hidden",
		"Hidden", "invisible", "element-invisible", "hİdden", "ſr-only", "\u212aey hidden", "a b c", "menu", "x\u0130nvisible", "VISUALLY-HİDDEN",
		"HİDDEN", "İnvisible", "sr-onİy", "d-NONE md:BLOCK", "show-for-sr", "Show-For-SR", "d-lg-none", "md:hidden", "visible-xs", "hide-for-large",
		"show-for-small-only", "hidden-up-md"} {
		if hiddenByClass(class) && !mayHide(class) {
			t.Errorf("mayHide(%q) false, but the class hides its element", class)
		}
	}
}

// TestUtilityClasses: CSS utility classes say how an element looks, not
// what it is: a block of an article clipped with "overflow-hidden" or
// styled with variants ("md:hidden") is not hidden, nor boilerplate; the
// other words of the class still count, hyphenated or not.
func TestUtilityClasses(t *testing.T) {
	for _, class := range []string{"panel overflow-hidden shadow-sm", "flex max-md:hidden", "hidden md:block", "mt-4 min-h-[150px] lg:p-8"} {
		page := articleOf("Ferries", `<article><h1>Ferries</h1>`+strings.Repeat(sectionPara("The guide"), 4)+
			`<div class="`+class+`"><h4>What the crossing costs</h4><p>A return ticket is twelve pounds.</p><ul><li>Children under five go free.</li></ul></div>`+
			strings.Repeat(sectionPara("The guide"), 2)+`</article>`)
		doc := extractPageString(t, page)
		if !strings.Contains(doc.Markdown, "Children under five") {
			t.Errorf("class %q: lost the block:\n%s", class, doc.Markdown)
		}
	}
	box := `<div class="%s"><h4>Share this</h4><p>Tell a friend about it, or two.</p></div>`
	for _, class := range []string{"share-links md:flex", "share md:flex", "sidebar-box overflow-hidden"} {
		page := articleOf("Ferries", `<article><h1>Ferries</h1>`+strings.Repeat(sectionPara("The guide"), 4)+fmt.Sprintf(box, class)+`</article>`)
		if doc := extractPageString(t, page); strings.Contains(doc.Markdown, "Tell a friend") {
			t.Errorf("class %q: kept the box:\n%s", class, doc.Markdown)
		}
	}
}

// TestArticleDateline: an article's dateline, on a line of its own at its
// head, is its metadata, not its text.
func TestArticleDateline(t *testing.T) {
	for _, line := range []string{
		`<div class="when">March 5, 2024 · 8:41 AM</div>`, `<p>Updated 3 hours ago</p>`, `<p>March 5th, 2024</p>`, `<div><b>Published</b> <time>2024-03-05</time></div>`,
		`<div>March 5, 2024<span class="sr-only">Share this story with a friend</span></div>`, `<div><span>Published</span> <time datetime="2024-03-05">5.3.2024</time></div>`, `<div>2024-03-05 17:32</div>`,
		`<p>Tue., Mar. 5, 2024, 8:41 a.m.</p>`, `<p>05/03/24</p>`,
	} {
		doc := extractPageString(t, articleOf("The harbour", `<article><h1>The harbour</h1>`+line+strings.Repeat(sectionPara("The report"), 5)+`</article>`))
		if !strings.Contains(doc.Markdown, "The report goes on") || strings.Count(doc.Markdown, "\n\n") != 4 {
			t.Errorf("%s: want the article alone:\n%s", line, doc.Markdown)
		}
	}
}

// TestArticleLinesNotMeta: short lines that are not a dateline or a
// byline stay, at an article's head or further on: headings written as
// paragraphs, facts with dates and times in them, version numbers,
// addresses and phone numbers, a picture with its caption, long lines,
// lines in lists, tables and quotes; and at its head only, a date alone.
func TestArticleLinesNotMeta(t *testing.T) {
	for _, c := range []struct {
		line, want string
		headOnly   bool // a dateline at the head, not further on
	}{
		{`<p><strong>By train</strong></p>`, "By train", false},
		{`<p>By car</p>`, "By car", false},
		{`<p>By the numbers</p>`, "By the numbers", false},
		{`<p>By The Numbers</p>`, "By The Numbers", false},
		{`<p>By 2030</p>`, "By 2030", false},
		{`<p>By Monday</p>`, "By Monday", false},
		{`<p>By then, it was over.</p>`, "By then", false},
		{`<p>By Land And Sea To The Islands Beyond</p>`, "By Land And Sea", false},
		{`<p><strong>March 2020</strong></p>`, "March 2020", false},
		{`<p>Monday to Friday: 9 am – 5 pm</p>`, "Monday to Friday", false},
		{`<p>When: Saturday 14 June 2025, 10am</p>`, "When: Saturday", false},
		{`<p>On 5 May 2020 at 10 am.</p>`, "On 5 May 2020", false},
		{`<p>Sunday 3 March: 45 minutes</p>`, "Sunday 3 March", false},
		{`<p>Python 3.12.1</p>`, "Python 3.12.1", false},
		{`<p>3.12.1</p>`, "3.12.1", false},
		{`<p>01.23.45.67.89</p>`, "01.23.45.67.89", false},
		{`<p>2024-13-40</p>`, "2024-13-40", false},
		{`<p>Release 2024.10.1</p>`, "Release 2024.10.1", false},
		{`<p>Server: 10.0.0.1</p>`, "10.0.0.1", false},
		{`<div>Tel. 01.23.45.67.89</div>`, "01.23.45.67.89", false},
		{`<div><img src="/flood.jpg" alt="The flood"><span>Photo: May 2020</span></div>`, "flood.jpg", false},
		{`<div><img src="/flood.jpg" alt="The flood"><span>May 2020</span></div>`, "flood.jpg", false},
		{`<p>Monday 3 March 2025, Tuesday 4 March 2025, Wednesday 5 March 2025, Thursday 6 March 2025, Friday 7 March 2025, Saturday 8 March 2025</p>`, "Saturday 8 March 2025", false},
		{`<ul><li><p>14 June 2025</p></li><li><p>21 June 2025</p></li></ul>`, "21 June 2025", false},
		{`<table><tr><th>Date</th><th>Price</th></tr><tr><td><div>5 March 2024</div></td><td>$60</td></tr></table>`, "5 March 2024", false},
		{`<blockquote><p>The news, in a line.</p><p>March 4, 2024</p></blockquote>`, "March 4, 2024", false},
		{`<div><h2>March 2020</h2></div>`, "March 2020", false},
		{`<section><h2>By Air</h2></section>`, "By Air", false},
		{`<div class="subhead"><h3>By Air</h3></div>`, "By Air", false},
		{`<div><em>March 2020</em></div>`, "March 2020", false},
		{`<p><i>By Air</i></p>`, "By Air", false},
		{`<div class="dates"><ul><li>14 June 2025</li><li>21 June 2025</li></ul></div>`, "21 June 2025", false},
		{`<section><ol><li>14 June 2025</li><li>21 June 2025</li><li>28 June 2025</li></ol></section>`, "28 June 2025", false},
		{`<div><blockquote>March 4, 2024</blockquote></div>`, "March 4, 2024", false},
		{`<div><pre><code>2024-03-05</code></pre></div>`, "2024-03-05", false},
		{`<p>By Air</p>`, "By Air", false},
		{`<p>By Rail</p>`, "By Rail", false},
		{`<p>By Christmas Eve</p>`, "By Christmas Eve", false},
		{`<p>By Popular Demand</p>`, "By Popular Demand", false},
		{`<p>By Invitation Only</p>`, "By Invitation Only", false},
		{`<p>Saturday 14 June 2025, 10am</p>`, "Saturday 14 June 2025", false},
		{`<p>1024-03-05</p>`, "1024-03-05", false},
		{`<p>12.03.05</p>`, "12.03.05", false},
		{`<p>2024-03/05</p>`, "2024-03/05", false},
		{`<p>12 May 2020</p>`, "12 May 2020", true},
	} {
		pages := map[string]string{"further on": `<article><h1>The harbour</h1>` + strings.Repeat(sectionPara("The report"), 3) + c.line + strings.Repeat(sectionPara("The report"), 2) + `</article>`}
		if !c.headOnly {
			pages["at the head"] = `<article><h1>The harbour</h1>` + c.line + strings.Repeat(sectionPara("The report"), 5) + `</article>`
		}
		for where, body := range pages {
			doc := extractPageString(t, articleOf("The harbour", body))
			if !strings.Contains(doc.Markdown, c.want) {
				t.Errorf("%s %s: lost it:\n%s", where, c.line, doc.Markdown)
			}
		}
	}
	// The head ends at the first paragraph of 200 letters (or block of
	// text), or after 500 letters of shorter ones.
	for where, before := range map[string]string{
		"after a paragraph":      "<p>" + strings.Repeat("The report opens, <em>with a comma</em>, and goes on. ", 6) + "</p>",
		"after a block of text":  "<div>" + strings.Repeat("The report opens and goes on. ", 9) + "</div>",
		"after short paragraphs": strings.Repeat("<p>A short line of the report, with a comma.</p>", 16),
	} {
		doc := extractPageString(t, articleOf("The harbour", `<article><h1>The harbour</h1>`+before+`<p>12 May 2020</p>`+strings.Repeat(sectionPara("The report"), 3)+`</article>`))
		if !strings.Contains(doc.Markdown, "12 May 2020") {
			t.Errorf("%s: lost the date:\n%s", where, doc.Markdown)
		}
	}
}

// TestMetaLinesCost: looking for datelines costs little however a page
// nests its short blocks: nested wrappers around a short line, over
// thousands of empty elements, cost no more than the same page that is
// not an article, where no dateline is looked for.
func TestMetaLinesCost(t *testing.T) {
	body := `<article>` + strings.Repeat("<div>", 300) + "hello there" + strings.Repeat("<span></span>", 100_000) + strings.Repeat("</div>", 300) +
		strings.Repeat(sectionPara("The report"), 3) + `</article>`
	plain, article := fastest(t, 3, `<html><body>`+body+`</body></html>`, articleOf("Hello", body))
	if article > 3*plain {
		t.Errorf("the article took %v, the same page not an article %v", article, plain)
	}
}

// TestAuthorBox: a class that names an author or a biography does not make
// a box boilerplate on a page that is not an article (a book's page), or
// where the biography is what the page is about (an about page, article
// or not), or where it is the author's note in an article: it stays.
// (Beside an article, an author's box goes: TestAuthorBoxLeavesArticle.)
func TestAuthorBox(t *testing.T) {
	bio := `<div class="author bio"><h4>Ann Example</h4><p>` + strings.Repeat("Ann Example has written about harbours for a decade, and her work has appeared widely. ", 6) + `</p></div>`
	note := `<div class="author-note"><p>Author's note: the figures in this story come from the harbour board's own records, which it shared with us in March, and from two interviews with its engineers.</p></div>`
	doc := extractPageString(t, articleOf("Housing", `<article><div class="entry">`+strings.Repeat(sectionPara("The story"), 8)+note+`</div></article>`))
	if !strings.Contains(doc.Markdown, "The story goes on") || !strings.Contains(doc.Markdown, "Author's note: the figures") {
		t.Errorf("want the article and the author's note:\n%s", doc.Markdown)
	}
	doc = extractPageString(t, `<html><body><main><div class="book">`+strings.Repeat(sectionPara("The book"), 8)+`</div>`+bio+`</main></body></html>`)
	if !strings.Contains(doc.Markdown, "The book goes on") || !strings.Contains(doc.Markdown, "written about harbours") {
		t.Errorf("book page: want the description and the author's biography:\n%s", doc.Markdown)
	}
	var pubs strings.Builder
	for i := range 12 {
		fmt.Fprintf(&pubs, `<li>Paper number %d: a study of the tides in small harbours, in the Journal of Coastal Things, volume %d, 2019.</li>`, i+1, i+1)
	}
	about := `<main><section id="bio"><h2>About me</h2>` + strings.Repeat(sectionPara("My work"), 4) + `</section><section id="publications"><h2>Publications</h2><ul>` + pubs.String() + `</ul></section></main>`
	for name, page := range map[string]string{"about page": `<html><body>` + about + `</body></html>`, "about article": articleOf("About", about)} {
		doc := extractPageString(t, page)
		if !strings.Contains(doc.Markdown, "My work goes on") {
			t.Errorf("%s: lost the biography:\n%s", name, doc.Markdown)
		}
	}
}

// TestManyArticleBodies: finding a page's articleBody costs work in
// proportion to the page, however many elements call themselves one.
// The work is counted in bytes allocated, which a busy machine does not
// change: collecting the elements by prepending each one allocated 2.5 GB
// for 25,000 of them.
func TestManyArticleBodies(t *testing.T) {
	page := func(attr string) string {
		return `<body>` + strings.Repeat(`<div `+attr+`><p>A line.</p></div>`, 25_000) + `</body>`
	}
	plain, bodies := allocated(t, page(`class="x"`)), allocated(t, page(`itemprop="articleBody"`))
	if bodies > 3*plain {
		t.Errorf("25,000 articleBody elements took %d MB, as many plain ones %d MB", bodies>>20, plain>>20)
	}
}

// allocated is how many bytes extracting page allocates.
func allocated(t *testing.T, page string) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	extractPageString(t, page)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestAuthorBoxesStay: boxes about people that an article is made of stay:
// a page of contributors, each in a box of class "bio", and a profile's
// section on a life.
func TestAuthorBoxesStay(t *testing.T) {
	var bios strings.Builder
	for i := range 8 {
		fmt.Fprintf(&bios, `<div class="bio"><h3>Writer %d</h3><p>Writer %d grew up by the sea and has written about boats, nets and weather, for papers and for radio, for twenty years now. They live in a small town on the coast with two cats.</p></div>`, i+1, i+1)
	}
	life := `<section class="bio"><h2>Her life</h2>` + strings.Repeat(sectionPara("Her life"), 3) + `</section>`
	for name, c := range map[string]struct{ body, want string }{
		"contributors": {`<article><h1>Our contributors</h1><p>The people who write for us, in alphabetical order.</p>` + bios.String() + `</article>`, "Writer 8 grew up"},
		"profile":      {`<article><h1>A life at sea</h1>` + strings.Repeat(sectionPara("The profile"), 3) + life + strings.Repeat(sectionPara("The profile"), 3) + `</article>`, "Her life goes on"},
	} {
		doc := extractPageString(t, articleOf("People", c.body))
		if !strings.Contains(doc.Markdown, c.want) || name == "contributors" && !strings.Contains(doc.Markdown, "Writer 1 grew up") {
			t.Errorf("%s: lost %q:\n%s", name, c.want, doc.Markdown)
		}
	}
}

// TestResponsivePairs: a page that writes the same block twice, one for
// small screens and one for large, gives it once: classes are judged at a
// desktop's width.
func TestResponsivePairs(t *testing.T) {
	for _, pair := range [][2]string{{"md:hidden", "hidden md:block"}, {"d-md-none", "d-none d-md-block"}, {"lg:hidden", "hidden lg:flex"}, {"block lg:hidden", "hidden lg:block"},
		{"elementor-element elementor-hidden-desktop", "elementor-element elementor-hidden-tablet elementor-hidden-mobile"},
		{"ipsBox ipsResponsive_hideDesktop", "ipsBox ipsResponsive_hidePhone"}, {"is-hidden-desktop", "is-hidden-mobile"}} {
		page := `<body><div class="description">` + strings.Repeat(sectionPara("The lamp"), 3) +
			`<div class="` + pair[0] + `"><p>Folds flat for travel, with a strap.</p></div><div class="` + pair[1] + `"><p>Folds flat for travel, with a strap.</p></div>` +
			strings.Repeat(sectionPara("The lamp"), 2) + `</div></body>`
		doc := extractPageString(t, page)
		if n := strings.Count(doc.Markdown, "Folds flat"); n != 1 {
			t.Errorf("%q and %q: %d copies, want 1:\n%s", pair[0], pair[1], n, doc.Markdown)
		}
	}
}

// TestNamedDesktopHidden: class words that end by saying their element
// is hidden on a desktop hide it, in a page as well as word by word;
// words that say more, or something else, do not.
func TestNamedDesktopHidden(t *testing.T) {
	for c, want := range map[string]bool{
		"elementor-hidden-desktop": true, "is-hidden-desktop": true, "ipsresponsive_hidedesktop": true,
		"hide-on-desktop": true, "hide-for-desktop": true, "newsletter-button-desktop-hide": true, "container--hide-desktop": true,
		"elementor-hidden-mobile": false, "desktop-only": false, "hidden-desktop-down": false, "hidden-desktop-xl": false,
		"is-hidden-below-desktop": false, "hidden-until-desktop": false, "hidden-on-small-desktop": false,
		"sr-only-desktop": false, "hide-desktop-show-mobile": false, "show-on-desktop": false, "desktop-menu": false, "desktop": false,
		"_hidden-lt-lg_snh3y_30": false, "hidden": false, "hidedesktop-nav": false,
	} {
		if got := namedDesktopHidden(c); got != want {
			t.Errorf("namedDesktopHidden(%q) = %v, want %v", c, got, want)
		}
	}
	for _, c := range []string{"hide-on-desktop", "desktop-hide", "Hide-Desktop"} {
		page := `<body><div class="description">` + strings.Repeat(sectionPara("The lamp"), 3) + `<p class="` + c + `">Tap to call us.</p></div></body>`
		if md := extractPageString(t, page).Markdown; strings.Contains(md, "Tap to call") || !strings.Contains(md, "The lamp goes on") {
			t.Errorf("%q: want the lamp without the phone's line:\n%s", c, md)
		}
	}
}

// TestMainWithTagCloud: a main whose best block stands beside a large tag
// cloud keeps its head and its closing paragraph, without the tags.
func TestMainWithTagCloud(t *testing.T) {
	var tags strings.Builder
	tags.WriteString(`<ul class="cloud">`)
	for i := range 40 {
		fmt.Fprintf(&tags, `<li><a href="/t/%d">Subject number %d</a></li>`, i, i)
	}
	tags.WriteString(`</ul>`)
	page := `<body><main><div class="head"><h1>Reading the tide tables</h1><p>What the columns mean, and how to plan a sail around them.</p></div><div class="body">` +
		strings.Repeat(sectionPara("The guide"), 3) + `</div><div class="more"><p>Fair winds, and check the tables twice before you leave.</p></div>` + tags.String() + `</main></body>`
	doc := extractPageString(t, page)
	for _, want := range []string{"Reading the tide tables", "What the columns mean", "The guide goes on", "Fair winds"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("lost %q:\n%s", want, doc.Markdown)
		}
	}
	if strings.Contains(doc.Markdown, "Subject number") {
		t.Errorf("kept the tags:\n%s", doc.Markdown)
	}
}

// TestDocumentDoesNotKeepThePage: the page is read into a tree of slices
// of it; what a document keeps besides its Markdown (title, description,
// canonical URL, language, links) and what extraction remembers across
// pages (class words) are copies, so that neither keeps an 8 MB page
// alive.
func TestDocumentDoesNotKeepThePage(t *testing.T) {
	page := `<html lang="en-GB"><head><title>A title</title><meta name="description" content="A description">` +
		`<link rel="canonical" href="https://example.com/c"><meta name="robots" content="otherbot: noindex"></head><body>` +
		`<div class="unique-wrapper-class" id="unique-id"><p>` + strings.Repeat("padding ", 1<<20) + `</p><a href="https://example.com/next">next</a></div></body></html>`
	var kept Document
	func() {
		doc, err := ExtractBytes([]byte(page), Options{URL: "https://example.com/"})
		if err != nil {
			t.Fatal(err)
		}
		kept = *doc
		kept.Markdown = ""
	}()
	page = ""
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapAlloc > 6<<20 {
		t.Errorf("%d MB of heap in use after the extraction: the page is kept", m.HeapAlloc>>20)
	}
	if kept.Title != "A title" || kept.Description != "A description" || kept.Canonical != "https://example.com/c" || len(kept.Links) == 0 {
		t.Errorf("the document lost its fields: %+v", kept)
	}
}

// fastest is the least time of n extractions of each of two pages.
func fastest(t *testing.T, n int, a, b string) (ta, tb time.Duration) {
	ta, tb = time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	// The two pages take turns, so that a busy spell of the machine
	// slows both alike rather than the one measured during it.
	for range n {
		start := time.Now()
		extractPageString(t, a)
		ta = min(ta, time.Since(start))
		start = time.Now()
		extractPageString(t, b)
		tb = min(tb, time.Since(start))
	}
	return ta, tb
}

// TestRobotsFor: a page's meta directives and its X-Robots-Tag headers
// merge for the agent, the most restrictive winning, and directives for
// another bot do not apply.
func TestRobotsFor(t *testing.T) {
	doc, err := Extract(strings.NewReader(`<html><head><meta name="robots" content="nofollow"><meta name="otherbot" content="noindex"></head><body><p>x</p></body></html>`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := doc.RobotsFor("heed/1.0", []string{"otherbot: none", "heed: noindex", "max-snippet: 20"})
	if !got.NoIndex || !got.NoFollow || got.String() != "noindex, nofollow, max-snippet:20" {
		t.Errorf("RobotsFor: %q (%+v); want noindex from heed's header, nofollow from the meta tag, max-snippet", got.String(), got)
	}
	if plain := doc.RobotsFor("heed", nil); plain.NoIndex || !plain.NoFollow {
		t.Errorf("RobotsFor without headers: %q", plain.String())
	}
}

// A list whose items are sections, each opening with its heading
// (javadoc's summary and details), is written as those sections; a list
// whose items only hold headings among other items is a list.
func TestSectionList(t *testing.T) {
	page := `<html><body><main><h1>Class X</h1><p>` + strings.Repeat("The class does many things well. ", 8) + `</p>
<ul class="summary-list"><li><section><h2>Method Summary</h2><p>` + strings.Repeat("Every method in a table. ", 6) + `</p></section></li>
<li><section><h2>Method Details</h2><ul class="member-list"><li><section><h3>toString</h3><p>Returns the string.</p></section></li></ul></section></li></ul>
<ul><li><h3>One</h3></li><li>two</li></ul></main></body></html>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://docs.example/X.html"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\n## Method Summary\n", "\n## Method Details\n", "\n### toString\n", "- ### One"} {
		if !strings.Contains("\n"+doc.Markdown+"\n", want) {
			t.Errorf("no %q in:\n%s", want, doc.Markdown)
		}
	}
}

// rustdoc's markup: an impl's header is a heading in a <summary>, after a
// source link; a "!" before a trait's link is text, not an image; a
// <pre class="rust"> is Rust; a highlighted comment in code is code.
func TestRustdocMarkup(t *testing.T) {
	page := `<html><body><main><h1>Struct X</h1><p>` + strings.Repeat("The struct holds many things. ", 8) + `</p>
<pre class="rust item-decl"><code>pub struct X {
    <span class="comment">// the field</span>
    pub a: u8,
}</code></pre>
<details open><summary><section id="impl-Send" class="impl"><span class="rightside"><a class="srclink" href="/src/x.rs.html#1">source</a></span><h3 class="code-header">impl !<a class="trait" href="/core/trait.Send.html">Send</a> for X</h3></section></summary><p>Not sent.</p></details>
<pre><code><span class="hljs-comment"># a comment</span>
run()</code></pre></main></body></html>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://docs.example/x.html"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"```rust\npub struct X {\n    // the field\n", "\n### impl \\![Send](https://docs.example/core/trait.Send.html) for X\n", "```\n# a comment\nrun()\n```"} {
		if !strings.Contains("\n"+doc.Markdown+"\n", want) {
			t.Errorf("no %q in:\n%s", want, doc.Markdown)
		}
	}
	if strings.Contains(doc.Markdown, "![Send]") && !strings.Contains(doc.Markdown, `\![Send]`) {
		t.Errorf("a ! before a link reads as an image:\n%s", doc.Markdown)
	}
}

// A man page as AsciiDoc writes it: a header with the title and the NAME
// line, then sections, the longest a list of options after a paragraph.
// The whole page is the content, its head first.
func TestManPage(t *testing.T) {
	option := `<dt>--opt</dt><dd><p>` + strings.Repeat("What the option does, at length, with care. ", 4) + `</p></dd>`
	page := `<html><body class="manpage"><div id="header"><h1>tool(1) Manual Page</h1><h2>NAME</h2><div class="sectionbody"><p>tool - do one thing well</p></div></div>
<div id="content"><div class="sect1"><h2 id="_synopsis">SYNOPSIS</h2><div class="sectionbody"><div class="verseblock"><pre class="content">tool [--opt] &lt;file&gt;</pre></div></div></div>
<div class="sect1"><h2>DESCRIPTION</h2><div class="sectionbody"><p>The tool reads a file and writes another, as its options say.</p></div></div>
<div class="sect1"><h2>OPTIONS</h2><div class="sectionbody"><p>These options are read:</p><div class="dlist"><dl>` + strings.Repeat(option, 12) + `</dl></div></div></div></div>
<div id="footer"><div id="footer-text">Last updated 2024-01-01</div></div></body></html>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://docs.example/tool.html"})
	if err != nil {
		t.Fatal(err)
	}
	md := doc.Markdown
	order := []string{"# tool(1) Manual Page", "## NAME", "tool - do one thing well", "## SYNOPSIS", "tool [--opt] <file>", "## DESCRIPTION", "## OPTIONS", "--opt"}
	at := 0
	for _, want := range order {
		i := strings.Index(md[at:], want)
		if i < 0 {
			t.Fatalf("no %q after offset %d in:\n%s", want, at, md)
		}
		at += i
	}
	if strings.Contains(md, "Last updated") {
		t.Errorf("the footer is kept:\n%s", md)
	}
}

// Doxygen's markup: code as a div of div.line, its comments kept; member
// tables with a heading row between their groups are layout, the
// headings headings.
func TestDoxygenMarkup(t *testing.T) {
	page := `<html><body><div class="contents"><div class="textblock"><p>` + strings.Repeat("The example shows how links are made. ", 8) + `</p>
<div class="fragment"><div class="line"><span class="comment">/*! A test */</span></div>
<div class="line"><span class="keyword">class</span> <a class="code" href="class_test.html">Test</a> {</div>
<div class="line">};</div></div></div>
<table class="memberdecls"><tr class="heading"><td colspan="2"><h2 class="groupheader">Public Member Functions</h2></td></tr>
<tr><td class="memItemLeft">void </td><td class="memItemRight"><a href="#a1">member</a> ()</td></tr>
<tr><td class="memItemLeft">int </td><td class="memItemRight"><a href="#a2">other</a> ()</td></tr></table></div></body></html>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://docs.example/x.html"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"```\n/*! A test */\nclass Test {\n};\n```", "\n## Public Member Functions\n"} {
		if !strings.Contains("\n"+doc.Markdown+"\n", want) {
			t.Errorf("no %q in:\n%s", want, doc.Markdown)
		}
	}
}

// Every tab's panel is content, the hidden ones too, each under its
// tab's label; "default" is no code block's language.
func TestTabPanels(t *testing.T) {
	page := `<html><body><main><h1>Install</h1><p>` + strings.Repeat("Set the variable in your shell first. ", 6) + `</p>
<div class="tabs"><div role="tablist"><button role="tab" id="t-bash" aria-controls="p-bash">Bash</button><button role="tab" id="t-cmd" aria-controls="p-cmd">CMD</button></div>
<div role="tabpanel" id="p-bash" aria-labelledby="t-bash"><div class="highlight-default"><pre>$ export APP=hello</pre></div></div>
<div role="tabpanel" id="p-cmd" aria-labelledby="t-cmd" hidden><div class="highlight-default"><pre>&gt; set APP=hello</pre></div></div></div></main></body></html>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://docs.example/x.html"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**Bash**\n\n```\n$ export APP=hello\n```", "**CMD**\n\n```\n> set APP=hello\n```"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("no %q in:\n%s", want, doc.Markdown)
		}
	}
}

// Callouts come out as quotes that open with their title: Sphinx's
// admonitions, an <aside> callout (kept, where other asides go), and
// DocBook's div.note, whose title heading stays a heading.
func TestAdmonitions(t *testing.T) {
	page := `<html><body><div class="body" role="main"><h1>Page</h1><p>` + strings.Repeat("Some text about the feature, at length. ", 5) + `</p>
<div class="admonition warning"><p class="admonition-title">Warning</p><p>Do not do this.</p></div>
<aside class="admonition tip"><p class="admonition-title">Tip</p><p>Use it well.</p></aside>
<aside class="sidebar"><p>Related reading, elsewhere.</p></aside>
<div class="note"><h3 class="title">Note</h3><p>DocBook's note.</p><pre>code in it</pre></div></div></body></html>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://docs.example/x.html"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"> **Warning**\n>\n> Do not do this.", "> **Tip**\n>\n> Use it well.", "> ### Note\n>\n> DocBook's note.\n>\n> ```\n> code in it\n> ```"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("no %q in:\n%s", want, doc.Markdown)
		}
	}
	if strings.Contains(doc.Markdown, "Related reading") {
		t.Errorf("an aside that is no callout is kept:\n%s", doc.Markdown)
	}
}

// Footnotes that docutils writes as asides are the document's: as it
// wrote them before 0.20 (role "note") and since (role "doc-footnote"),
// and endnotes or a footnote named by their role alone. A sidebar and
// a tip box (role "note", no footnote's class) beside them still go.
func TestAsideFootnotes(t *testing.T) {
	page := `<html><body><div class="body" role="main"><section><h1>Data Structures</h1><p>` + strings.Repeat("Methods that only modify the list return nothing, by design. ", 5) + `<a class="footnote-reference brackets" href="#id2" id="id1" role="doc-noteref">1</a></p>
<aside class="footnote-list brackets"><aside class="footnote brackets" id="id2" role="doc-footnote"><span class="label"><a role="doc-backlink" href="#id1">1</a></span><p>Other languages may return the mutated object, for chaining.</p></aside>
<aside class="footnote brackets" id="id3" role="note"><span class="label"><a role="doc-backlink" href="#id1">2</a></span><p>An older writer's note, said the same way.</p></aside></aside>
<aside role="doc-endnotes"><ol><li id="en1"><p>The endnote of a chapter, at its end.</p></li></ol></aside>
<aside role="doc-footnote" id="fn9"><p>A note known by its role alone.</p></aside>
<aside class="sidebar"><p>Related reading, elsewhere.</p></aside><aside role="note" class="tip-box"><p>A tip in a box, beside the text.</p></aside></section></div></body></html>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://docs.example/x.html"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Other languages may return the mutated object", "An older writer's note", "The endnote of a chapter", "A note known by its role alone"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("no %q in:\n%s", want, doc.Markdown)
		}
	}
	if strings.Contains(doc.Markdown, "Related reading") || strings.Contains(doc.Markdown, "A tip in a box") {
		t.Errorf("an aside that is no footnote is kept:\n%s", doc.Markdown)
	}
}

// mdBook's markup: a pre in a pre, the language on the inner code; a
// listing's caption beside its code is kept (a photo's caption is not).
func TestMdBookMarkup(t *testing.T) {
	page := `<html><body><main><h1>Vectors</h1><p>` + strings.Repeat("A vector holds many values of one type. ", 6) + `</p>
<pre><pre class="playground"><code class="language-rust"><span class="boring">fn main() {
</span>    let v: Vec&lt;i32&gt; = Vec::new();
<span class="boring">}
</span></code></pre></pre>
<p><span class="caption">Listing 8-1: Creating a new, empty vector</span></p>
<figure><img src="/cat.png" alt="A cat"><p class="caption">Photo: someone</p></figure></main></body></html>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://docs.example/x.html"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"```rust\nfn main() {\n    let v: Vec<i32> = Vec::new();\n}\n```", "Listing 8-1: Creating a new, empty vector"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("no %q in:\n%s", want, doc.Markdown)
		}
	}
}

// The documentation rules leave general pages as they were: a data table
// ending in a "↑ Top" link, a sentence that starts with a "Next" link,
// product cards with an arrow link, a site's masthead, a lone hidden tab panel (a
// sign-in form), an aside called a callout, a data table with headings
// in its cells, a ranked list of sections, a poem's lines.
func TestDocumentationRulesOnGeneralPages(t *testing.T) {
	words := strings.Repeat("The story goes on at length, with many words in it. ", 12)
	for _, tt := range []pageCase{
		{"table with a top link", `<main><h1>Bread</h1><p>` + words + `</p><table><tr><th>Ingredient</th><th>Grams</th></tr><tr><td>Flour</td><td>500</td></tr><tr><td>Water</td><td>350</td></tr><tr><td colspan="2"><a href="#top">↑ Top</a></td></tr></table></main>`,
			[]string{"| Flour | 500 |"}, nil},
		{"a sentence starting with Next", `<main><h1>Bread</h1><p>` + words + `</p><p><a href="/next">Next</a>, add the starter and salt.</p><p>See the <a href="/index">index</a> of recipes.</p></main>`,
			[]string{"add the starter and salt", "of recipes"}, nil},
		{"product cards", `<main><h1>Stools</h1><p>` + words + `</p><div class="card"><h3>Oak stool</h3><p>Price: 120</p><a href="/p/1">→</a></div><div class="card"><h3>Ash stool</h3><p>Price: 90</p><a href="/p/2">→</a></div></main>`,
			[]string{"Oak stool", "Ash stool"}, nil},
		{"a masthead", `<div id="masthead"><h1>Joe's Garden Blog</h1><p>Growing things since 2004</p></div><div class="post"><h2>Tomatoes</h2><p>` + words + `</p><h2>Beans</h2><p>` + words + `</p></div>`,
			[]string{"Tomatoes"}, []string{"Growing things since"}},
		{"a lone hidden tab panel", `<main><h1>Post</h1><p>` + words + `</p><div role="tabpanel" aria-labelledby="t-login" style="display:none"><h2>Sign in to comment</h2><p>Your e-mail address</p></div></main>`,
			[]string{"The story goes on"}, []string{"Sign in to comment"}},
		{"an aside called a callout", `<main><h1>Post</h1><p>` + words + `</p><aside class="callout"><h4>Sponsored</h4><p>Buy the thing today.</p></aside></main>`,
			[]string{"The story goes on"}, []string{"Sponsored", "Buy the thing"}},
		{"a data table with headings in cells", `<main><h1>Phones</h1><p>` + words + `</p><table><tr><th>Model</th><th>Price</th></tr><tr><td><h4>Alpha</h4></td><td>100</td></tr><tr><td><h4>Beta</h4></td><td>200</td></tr></table></main>`,
			[]string{"| --- | --- |", "200 |"}, nil},
		{"a ranked list of sections", `<main><h1>Best cities</h1><p>` + words + `</p><ol><li><h2>Paris</h2><p>First, for its bread.</p></li><li><h2>Rome</h2><p>Second, for its light.</p></li></ol></main>`,
			[]string{"1. ## Paris", "2. ## Rome"}, nil},
		{"a poem", `<main><h1>A poem</h1><p>` + words + `</p><div class="poem"><div class="line">The sea is <em>calm</em> tonight</div><div class="line">The tide is full</div></div></main>`,
			[]string{"*calm*"}, []string{"```"}},
	} {
		checkPage(t, tt)
	}
}

// A tab's label is text, escaped; inside code, hidden elements and
// buttons still go (a "Copy" button, a screen-reader-only prompt).
func TestTabLabelAndCodeButtons(t *testing.T) {
	page := `<html><body><main><h1>T</h1><p>` + strings.Repeat("Words of the page, enough of them. ", 6) + `</p>
<button role="tab" id="t1">*nix [beta]</button><button role="tab" id="t2">Other</button>
<div role="tabpanel" aria-labelledby="t1"><pre><button class="copy">Copy</button><span hidden>secret </span>make</pre></div>
<div role="tabpanel" aria-labelledby="t2" hidden><pre>build</pre></div></main></body></html>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://docs.example/x.html"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`**\*nix \[beta\]**`, "```\nmake\n```", "**Other**\n\n```\nbuild\n```"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("no %q in:\n%s", want, doc.Markdown)
		}
	}
	if strings.Contains(doc.Markdown, "Copy") || strings.Contains(doc.Markdown, "secret") {
		t.Errorf("a button or a hidden element kept in code:\n%s", doc.Markdown)
	}
}

// A control's label beside documentation goes (RDoc's "click to toggle
// source", Sphinx's viewcode "[source]"); the word in a sentence stays,
// classed or not, and so does a function named copy with a parameter
// named src.
func TestControlLabels(t *testing.T) {
	page := `<html><body><main><h1>T</h1><p>` + strings.Repeat("Words of the page, enough of them. ", 6) + `</p>
<div class="method-heading"><span class="method-name">parse</span><span class="method-args">(text)</span><span class="method-click-advice">click to toggle source</span></div>
<p>Parses text. <a class="reference internal" href="/_modules/x.html"><span class="viewcode-link"><span class="pre">[source]</span></span></a></p>
<p>Read the <a href="/src/x.rs">source</a> for details, open <a class="text-blue-600" href="/os">source</a> next month; buy a <a class="product-link" href="/b">copy</a>.</p>
<dl><dt><span class="sig-name descname">copy</span>(<em class="sig-param">src</em>)</dt><dd><p>Copies it.</p></dd></dl></main></body></html>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://docs.example/x.html"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(doc.Markdown, "toggle") || strings.Contains(doc.Markdown, "_modules") || strings.Contains(doc.Markdown, "\\[source\\]") {
		t.Errorf("a control's label kept:\n%s", doc.Markdown)
	}
	for _, want := range []string{"Read the [source](https://docs.example/src/x.rs) for details, open [source](https://docs.example/os) next month; buy a [copy](https://docs.example/b).", "copy(*src*)", "parse"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("no %q in:\n%s", want, doc.Markdown)
		}
	}
}

// A button's label that expands or folds text goes, whatever its class,
// when the element's role says it is a button: XenForo's "Click to
// expand..." under every quote, a "Read more" that unfolds a post. A
// sentence saying the words stays, and so does a button's label that
// says something ("Subscribe to the harbour's notices").
func TestButtonLabels(t *testing.T) {
	quote := `<blockquote class="bbCodeBlock bbCodeBlock--quote"><div class="bbCodeBlock-title"><a href="/goto/post?id=1">ann said:</a></div><div class="bbCodeBlock-content"><div class="bbCodeBlock-expandContent">Did you click on Messages and choose to disable them?</div><div class="bbCodeBlock-expandLink"><a role="button" tabindex="0">Click to expand...</a></div></div></blockquote>`
	post := `<article class="message"><div class="bbWrapper">` + quote + `Yes, and the messages stayed on the phone, which is what I wanted. ` + strings.Repeat("The rest of the reply goes on about the settings. ", 4) +
		`<p>To read more of the manual, click to expand the chapter list beside it.</p><p><a role="button" href="/notices">Subscribe to the harbour's notices</a></p>` +
		`<span role="button" class="fold">Read more…</span></div></article>`
	page := forumOf("Messages", `<main><h1>Messages</h1>`+post+`</main>`)
	md := extractPageString(t, page).Markdown
	for _, not := range []string{"Click to expand", "Read more…"} {
		if strings.Contains(md, not) {
			t.Errorf("a button's label %q kept:\n%s", not, md)
		}
	}
	for _, want := range []string{"Did you click on Messages", "the messages stayed on the phone", "click to expand the chapter list", "Subscribe to the harbour's notices"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in:\n%s", want, md)
		}
	}
}

// A link that only asks the reader on ("Learn more", "Get started →"),
// alone in its block, goes; the same words in a sentence, a link that
// says where it leads, a heading that is a link (mdBook links every
// heading) and a list of links stay.
func TestCallToActionLinks(t *testing.T) {
	feature := func(name string) string {
		return `<section class="feature"><h2>` + name + `</h2><p>` + strings.Repeat(name+" keeps the harbour's records in one place, for every boat and berth. ", 3) + `</p>`
	}
	page := `<html><body><main><h1>Harbour software</h1>` +
		feature("Berths") + `<p><a href="/berths">Learn more</a></p></section>` +
		feature("Tides") + `<div class="cta"><a class="btn" href="/start">Get started →</a></div></section>` +
		feature("Fees") + `<p>Fees are set each spring; <a href="/fees">learn more</a> in the harbour's rules.</p><p><a href="/fees/2024">The fees for 2024</a></p></section>` +
		`<h2 id="learn-more"><a class="header" href="#learn-more">Learn more</a></h2><p>` + strings.Repeat("The manual says more of the harbour's records, chapter by chapter. ", 3) + `</p>` +
		`<h3>Next steps</h3><ul><li><a href="/docs/get-started">Get started</a></li><li><a href="/docs/sign-up">Sign up</a></li></ul>` +
		`<h2 id="see-all"><span><span><a href="#see-all">See all</a></span></span></h2><ul class="cards"><li><div class="card"><div class="card-body"><a href="/docs/tour">Learn more</a></div></div></li></ul>` +
		`<p>The harbour's figures for the year, in full.</p><p><a href="/report-2024.pdf">Source</a></p><p><a href="/more">Read more</a></p></main></body></html>`
	md := extractPageString(t, page).Markdown
	for _, not := range []string{"[Learn more](https://example.com/berths)", "example.com/start", "Read more"} {
		if strings.Contains(md, not) {
			t.Errorf("kept the call to action %q:\n%s", not, md)
		}
	}
	for _, want := range []string{"Berths keeps the harbour's records", "[learn more](https://example.com/fees) in the harbour's rules", "[The fees for 2024]",
		"## Learn more\n", "- [Get started](https://example.com/docs/get-started)", "- [Sign up]", "## See all", "[Learn more](https://example.com/docs/tour)",
		"[Source](https://example.com/report-2024.pdf)"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in:\n%s", want, md)
		}
	}
}

// A section's title in wrappers of its own (DocBook's div.titlepage)
// joins the section's content chosen beside it.
func TestWrappedTitle(t *testing.T) {
	rows := strings.Repeat(`<tr><td><p><code>oid</code> <code>oid</code></p><p>Row identifier, which names the row among all the others.</p></td></tr>`, 8)
	page := `<html><body><div class="navheader"><a href="a.html">Prev</a> <a href="b.html">Next</a></div><div class="sect1"><div class="titlepage"><div><div><h2 class="title">53.14. pg_conversion</h2></div></div></div>
<p>The catalog describes encoding conversion functions, for more information. ` + strings.Repeat("It says a good deal more about them, at length. ", 4) + `</p><div class="table"><table class="table">` + rows + `</table></div></div></body></html>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://docs.example/x.html"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.Markdown, "## 53.14. pg\\_conversion\n") {
		t.Errorf("the section's title is not its first line:\n%s", doc.Markdown)
	}
}

// A one-line Doxygen fragment is code too, its hover tooltip left out.
func TestDoxygenOneLine(t *testing.T) {
	page := `<html><body><div class="contents"><p>` + strings.Repeat("First we create an object of the class, as shown. ", 6) + `</p>
<div class="fragment"><div class="line">  <a class="code hl_class" href="class_t.html">Include_Test</a> t;</div>
<div class="ttc" id="x"><div class="ttname"><a href="class_t.html">Include_Test</a></div><div class="ttdef"><b>Definition:</b> include.cpp:5</div></div>
</div><p>Then we call the member function.</p></div></body></html>`
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://docs.example/x.html"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.Markdown, "```\n  Include_Test t;\n```") || strings.Contains(doc.Markdown, "Definition") {
		t.Errorf("the fragment is not one line of code alone:\n%s", doc.Markdown)
	}
}

// Review's cases for the last rules: a wrapped heading after the content
// is the next block's and stays out; a site's name linking home, in a
// branding block, is no document's head; one line in a class that ends
// in "highlight" is no code.
func TestLastRulesOnGeneralPages(t *testing.T) {
	words := strings.Repeat("The recipe goes on at length, with many words in it. ", 10)
	for _, tt := range []pageCase{
		{"a wrapped heading after the content", `<div class="wrap"><div class="post"><h2>Bread</h2><p>` + words + `</p><p>` + words + `</p></div><div class="box"><div><h3>Related articles</h3></div></div><ul>` + strings.Repeat(`<li><a href="/a">Another story about bread and its making</a></li>`, 20) + `</ul></div>`,
			[]string{"Bread"}, []string{"Related articles"}},
		{"a branding block", `<div class="branding"><h1><a href="/">Jane's Kitchen</a></h1><p>Food for all</p></div><div class="recipe"><h2>Ingredients</h2><p>` + words + `</p><h2>Method</h2><p>` + words + `</p></div>`,
			[]string{"Ingredients"}, []string{"Jane's Kitchen"}},
		{"a quote's highlight", `<main><h1>Song</h1><p>` + words + `</p><div class="lyric-highlight"><div class="line">A line of the <em>song</em></div></div></main>`,
			[]string{"*song*"}, []string{"```"}},
	} {
		checkPage(t, tt)
	}
}

// pageCase is a page's body and what its Markdown must and must not
// hold.
type pageCase struct {
	name, page    string
	want, wantNot []string
}

func checkPage(t *testing.T, tt pageCase) {
	t.Helper()
	doc, err := Extract(strings.NewReader("<html><body>"+tt.page+"</body></html>"), Options{URL: "https://example.com/x"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range tt.want {
		if !strings.Contains(doc.Markdown, w) {
			t.Errorf("%s: no %q in:\n%s", tt.name, w, doc.Markdown)
		}
	}
	for _, w := range tt.wantNot {
		if strings.Contains(doc.Markdown, w) {
			t.Errorf("%s: %q kept in:\n%s", tt.name, w, doc.Markdown)
		}
	}
}

// TestPhoneCopyHidden: a page that says its description twice, once for
// phones ("hidden-up-md", Bootstrap 3's "visible-xs") and once for wider
// screens, says it once, as a desktop shows it.
func TestPhoneCopyHidden(t *testing.T) {
	desc := "A wheel-thrown mug with a matte glaze, made by hand in a small studio, that holds 350 ml."
	for _, pair := range [][2]string{{"hidden-down-md", "hidden-up-md"}, {"hidden-xs", "visible-xs"}} {
		page := `<html><head><title>Mug</title></head><body><main><h1>Mug</h1><div class="price">60 dollars</div>` +
			`<div class="description ` + pair[0] + `"><p>` + desc + `</p></div><button class="add-to-cart">Add to cart</button>` +
			`<div class="description ` + pair[1] + `"><p>` + desc + `</p></div></main></body></html>`
		doc := extractPageString(t, page)
		if n := strings.Count(doc.Markdown, "wheel-thrown mug"); n != 1 {
			t.Errorf("%v: want the description once, got it %d times:\n%s", pair, n, doc.Markdown)
		}
	}
}
