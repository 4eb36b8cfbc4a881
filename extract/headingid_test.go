// Tests of sections and headings whose id or class is named after their
// own heading, as documentation generators name them: the name is the
// heading's, not a word about the page's chrome.

package extract

import (
	"strings"
	"testing"
)

// docPage is a documentation page of sections named after their
// headings, in a body role=main as Sphinx writes it, with a site header
// and a sidebar of navigation.
func docPage(sections string) string {
	return `<html><head><title>Guide</title></head><body>
<div id="header"><h1>Example Project</h1><p>The example project's documentation, version 1.0</p></div>
<div class="sphinxsidebar" role="navigation"><ul><li><a href="/a">Install</a></li><li><a href="/b">Usage</a></li></ul></div>
<div class="body" role="main"><section id="guide"><h1>Guide</h1>` + sectionPara("The guide") +
		`<section id="installing"><h2>Installing</h2>` + sectionPara("The guide") + `</section>` +
		`<section id="first-steps"><h2>First steps</h2>` + sectionPara("The guide") + `</section>` +
		sections + `</section></div></body></html>`
}

// A section whose id is its heading's ("comments", "related-topics",
// "skip-lists") keeps its heading, its text and its code, however the
// generator writes it: Sphinx's section, docutils' div.section, MkDocs'
// and mdBook's heading with the id, asciidoc's "_"-joined id, and a
// second section of one name with a numeric suffix.
func TestSectionNamedAfterHeadingKept(t *testing.T) {
	code := `<pre>x = parse(&#34;# a comment&#34;)  # the parser keeps it</pre>`
	for _, c := range []struct{ name, html, heading string }{
		{"sphinx section", `<section id="comments"><h2>Comments<a class="headerlink" href="#comments">¶</a></h2>` + sectionPara("A comment") + code + `</section>`, "## Comments"},
		{"docutils div", `<div class="section" id="related-topics"><h2><a class="toc-backref" href="#toc-entry-4">Related topics</a></h2>` + sectionPara("A topic") + code + `</div>`, "## Related topics"},
		{"mdbook heading", `<h2 id="comments"><a class="header" href="#comments">Comments</a></h2>` + sectionPara("A comment") + code, "## Comments"},
		{"mkdocs heading", `<h3 id="configure-pages-and-navigation">Configure Pages and Navigation<a class="headerlink" href="#configure-pages-and-navigation">¶</a></h3>` + sectionPara("A page") + code, "### Configure Pages and Navigation"},
		{"asciidoc heading", `<div class="sect2"><h3 id="_bisect_skip">Bisect skip</h3>` + sectionPara("A skip") + code + `</div>`, "### Bisect skip"},
		{"numeric suffix", `<section id="credits-1"><h2>Credits</h2>` + sectionPara("A credit") + code + `</section>`, "## Credits"},
		{"docutils number", `<div class="section" id="comments"><h2><a class="toc-backref" href="#toc-entry-2">2&nbsp;&nbsp;&nbsp;Comments</a></h2>` + sectionPara("A comment") + code + `</div>`, "## 2 Comments"},
		{"sphinx number", `<section id="related-topics"><h2><span class="section-number">5.1. </span>Related topics</h2>` + sectionPara("A topic") + code + `</section>`, "## 5.1. Related topics"},
	} {
		doc := extractPageString(t, docPage(c.html))
		if !strings.Contains(doc.Markdown, "\n"+c.heading+"\n") {
			t.Errorf("%s: lost the heading %q:\n%s", c.name, c.heading, doc.Markdown)
		}
		if !strings.Contains(doc.Markdown, "```\nx = parse(") {
			t.Errorf("%s: lost the code block:\n%s", c.name, doc.Markdown)
		}
		if strings.Contains(doc.Markdown, "Example Project") || strings.Contains(doc.Markdown, "(https://example.com/a)") {
			t.Errorf("%s: kept the site's header or navigation:\n%s", c.name, doc.Markdown)
		}
	}
}

// Chrome stays chrome: a comment section named for what it is, not
// after a heading (none, or a count of comments), the comments in a
// section named after its heading, a box of links named after its
// heading ("Most popular"), a related box whose heading is another, a
// box whose class (not id) is its heading's, and a site header, all go.
func TestChromeNotNamedAfterHeadingDropped(t *testing.T) {
	comment := `<div class="comment"><div class="author">Bob</div><p>Bob's remark rambles on, at length, about nothing much, and on, and on, with commas.</p></div>`
	for _, c := range []struct{ name, html string }{
		{"no heading", `<div id="comments">` + comment + comment + `</div>`},
		{"a count", `<div id="comments"><h3>3 Comments</h3>` + comment + comment + `</div>`},
		{"comments inside", `<section id="comments"><h2>Comments</h2>` + comment + comment + `</section>`},
		{"a box of links", `<div class="most-popular"><h3>Most popular</h3><ul><li><a href="/bob-1">Bob's first story</a></li><li><a href="/bob-2">Bob's second story</a></li><li><a href="/bob-3">Bob's third story</a></li></ul></div>`},
		{"another heading", `<div class="related"><h3>Read next</h3><p>Bob's remark rambles on, at length, about nothing much, and on, and on, with commas.</p></div>`},
		// A class is a site's styling, named after the label it shows
		// as often as not: generators name sections by id.
		{"a class of its heading", `<section class="related-posts"><h2>Related posts</h2><article><h3><a href="/bob-1">Bob's first story</a></h3><p>Bob's remark rambles on, at length, about nothing much, and on, and on, with commas.</p></article></section>`},
		{"a class of its label", `<div class="share"><h3>Share</h3><p>Share Bob's post with your friends, on every site there is, with commas and words.</p></div>`},
	} {
		doc := extractPageString(t, docPage(sectionPara("The usage")+c.html))
		if !strings.Contains(doc.Markdown, "The usage goes on") {
			t.Fatalf("%s: lost the content:\n%s", c.name, doc.Markdown)
		}
		if strings.Contains(doc.Markdown, "Bob") {
			t.Errorf("%s: kept the chrome:\n%s", c.name, doc.Markdown)
		}
	}
	// On a page that names no other section so, a section named after
	// its heading is taken at its word: a site's comments.
	page := `<html><head><title>Guide</title></head><body><main><h1>Guide</h1>` + sectionPara("The guide") + sectionPara("The guide") +
		`<section id="comments"><h2>Comments</h2><p>Bob's remark rambles on, at length, about nothing much, and on, and on, with commas.</p></section></main></body></html>`
	if doc := extractPageString(t, page); strings.Contains(doc.Markdown, "Bob") {
		t.Errorf("kept the comments of a page that names no other section:\n%s", doc.Markdown)
	}
	page = `<html><head><title>Guide</title></head><body><header id="header"><h1><a href="/">Header</a></h1><p>The example project's documentation</p></header><main><h1>Guide</h1>` +
		sectionPara("The guide") + sectionPara("The guide") + `</main></body></html>`
	if doc := extractPageString(t, page); strings.Contains(doc.Markdown, "example project") {
		t.Errorf("kept the site's header:\n%s", doc.Markdown)
	}
}

// blogPage is an article whose headings carry ids of their text, as
// static site generators and editors write them, with a box after its
// text.
func blogPage(box string) string {
	return `<html><head><title>Post</title></head><body><header><a href="/">Blog</a></header><main><article><h1>Post</h1>` +
		`<h2 id="installing">Installing</h2>` + sectionPara("The guide") + `<h2 id="first-steps">First steps</h2>` + sectionPara("The steps") +
		`<h2 id="usage">Usage</h2>` + sectionPara("The usage") + box + `</article></main></body></html>`
}

// A site's box named after its label stays chrome on a page that names
// its headings: it stands among the article's paragraphs, not among
// sections named so, as a generator's section does.
func TestBoxNamedAfterLabelDropped(t *testing.T) {
	prose := `<p>Bob's remark rambles on, at length, about nothing much, and on, and on, with commas.</p>`
	excerpt := `<article><h3><a href="/bob-1">Bob's first story</a></h3>` + prose + `</article>`
	for _, c := range []struct{ name, html string }{
		{"newsletter", `<section id="newsletter"><h2>Newsletter</h2><p>Sign up to Bob's newsletter to get the latest posts in your inbox, every week, for free.</p><form><input type=email><button>Subscribe</button></form></section>`},
		{"related posts", `<section id="related-posts"><h2>Related posts</h2>` + excerpt + excerpt + `</section>`},
		{"subscribe", `<div id="subscribe"><h3>Subscribe</h3>` + prose + `</div>`},
		{"advertisement", `<div id="advertisement"><h3>Advertisement</h3>` + prose + `</div>`},
		{"sponsors", `<div id="sponsors"><h3>Sponsors</h3>` + prose + `</div>`},
		{"comments", `<section id="comments"><h2>Comments</h2>` + prose + `</section>`},
		{"navigation", `<div id="navigation"><h2>Navigation</h2>` + prose + `<ul><li><a href="/bob-1">Bob's first</a></li></ul></div>`},
	} {
		doc := extractPageString(t, blogPage(c.html))
		if !strings.Contains(doc.Markdown, "The usage goes on") || !strings.Contains(doc.Markdown, "## First steps") {
			t.Fatalf("%s: lost the content:\n%s", c.name, doc.Markdown)
		}
		if strings.Contains(doc.Markdown, "Bob") {
			t.Errorf("%s: kept the chrome:\n%s", c.name, doc.Markdown)
		}
	}
}
