// Tests of what class words, twins, titles and invisible characters must
// not take away.

package extract

import (
	"fmt"
	"strings"
	"testing"
)

func sectionPara(w string) string {
	return "<p>" + strings.Repeat(w+" goes on, sentence after sentence, with commas and words. ", 4) + "</p>"
}

func extractPageString(t *testing.T, page string) *Document {
	t.Helper()
	doc, err := Extract(strings.NewReader(page), Options{URL: "https://example.com/p"})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// WordPress's classic image-with-caption wrapper: the image is content.
func TestWPCaptionKeepsImage(t *testing.T) {
	page := `<html><head><meta property="og:type" content="article"><title>Harbours</title></head><body><article><h1>Harbours</h1>` +
		sectionPara("The story") + sectionPara("The story") +
		`<div id="attachment_12" class="wp-caption aligncenter"><img src="/boats.jpg" alt="Boats at dawn"><p class="wp-caption-text">Boats at dawn.</p></div>` +
		sectionPara("The story") + sectionPara("The story") + `</article></body></html>`
	doc := extractPageString(t, page)
	if !strings.Contains(doc.Markdown, "boats.jpg") {
		t.Errorf("lost the article's image:\n%s", doc.Markdown)
	}
}

// A short blog post whose main column is class "bio-content", and a
// product description in "product-credits": the whole content goes.
func TestShortContentInSoftClass(t *testing.T) {
	for _, class := range []string{"bio-content", "product-credits", "author-guide", "authoring", "previews"} {
		text := "This short post says one thing, plainly, and stops. It has two sentences and a third one too, for good measure and length."
		page := `<html><head><title>A post</title></head><body><nav><a href="/">Home</a> <a href="/about">About</a></nav><div class="` + class + `"><h2>A note</h2><p>` + text + `</p><p>` + text + `</p></div></body></html>`
		doc := extractPageString(t, page)
		if !strings.Contains(doc.Markdown, "This short post") {
			t.Errorf("class %q: lost the content: %q", class, doc.Markdown)
		}
	}
}

// A documentation page whose one content wrapper is class "related-docs"
// holding less than half of the page's prose (a long changelog box below).
func TestRelatedDocsWrapper(t *testing.T) {
	page := `<html><head><title>Guide</title></head><body><div class="related-docs"><h1>Guide</h1>` + strings.Repeat(sectionPara("The guide"), 3) +
		`</div><div class="changelog">` + strings.Repeat(sectionPara("The changelog"), 4) + `</div></body></html>`
	doc := extractPageString(t, page)
	if !strings.Contains(doc.Markdown, "The guide") {
		t.Errorf("lost the guide:\n%s", doc.Markdown)
	}
}

// twins: comment bodies made like the article's body join the content.
func TestTwinsPullComments(t *testing.T) {
	page := `<html><head><title>Post</title></head><body><div class="wrap"><div class="post"><h1>Post</h1><div class="meta">By someone, on a day, in a category, with tags and more words here</div><div class="text">` +
		strings.Repeat(sectionPara("The post"), 5) + `</div></div>
<div class="comments" id="comments"><h3>3 comments</h3>
<div class="comment"><div class="author">Bob</div><div class="text">` + sectionPara("Bob's comment") + `</div></div>
<div class="comment"><div class="author">Eve</div><div class="text">` + sectionPara("Eve's comment") + `</div></div>
</div></div></body></html>`
	doc := extractPageString(t, page)
	if !strings.Contains(doc.Markdown, "The post") {
		t.Fatalf("lost the post:\n%s", doc.Markdown)
	}
	if strings.Contains(doc.Markdown, "comment goes on") {
		t.Errorf("twins pulled comments in:\n%s", doc.Markdown)
	}
}

// twins: a newsletter / sidebar box sharing a generic class.
func TestTwinsPullSidebar(t *testing.T) {
	page := `<html><head><title>Post</title></head><body>
<div class="row"><div class="col"><div class="section">` + strings.Repeat(sectionPara("The post"), 5) + `</div></div>
<div class="col sidebar"><div class="section">` + sectionPara("About me: the sidebar") + `</div></div></div>
<div class="newsletter"><div class="section">` + sectionPara("Subscribe to the newsletter") + `</div></div></body></html>`
	doc := extractPageString(t, page)
	if !strings.Contains(doc.Markdown, "The post") {
		t.Fatalf("lost the post:\n%s", doc.Markdown)
	}
	for _, bad := range []string{"sidebar goes on", "newsletter goes on"} {
		if strings.Contains(doc.Markdown, bad) {
			t.Errorf("twins pulled %q in:\n%s", bad, doc.Markdown)
		}
	}
}

func TestDropTitle(t *testing.T) {
	for _, c := range []struct {
		title, h1, rendered string
		drop                bool
	}{
		{"Part 10: the harbour", "Part 1", "# Part 1", false},                                   // substring, not a repeat
		{"Going home", "Go", "# Go", false},                                                     // substring of a word
		{"Using __init__ well", "Using __init__ well", "# Using", true},                         // escapes only undone on one side
		{"Harbour walls", `<a href="/harbour-walls">Harbour walls</a>`, "Harbour walls]", true}, // linked title heading
	} {
		page := `<html><head><meta property="og:type" content="article"><title>` + c.title + `</title></head><body><article><h1>` + c.h1 + `</h1>` + strings.Repeat(sectionPara("The harbour wall"), 4) + `</article></body></html>`
		doc := extractPageString(t, page)
		if dropped := !strings.Contains(doc.Markdown, c.rendered); dropped != c.drop {
			t.Errorf("title %q, h1 %q: dropped %v, want %v:\n%.120s", c.title, c.h1, dropped, c.drop, doc.Markdown)
		}
	}
}

// A zero-width space between two inline elements is no space.
func TestZeroWidthJoinsNoSpace(t *testing.T) {
	doc := extractPageString(t, `<body><article>`+sectionPara("The story")+`<p><b>Hello</b>&#8203;<b>World</b> is one word here, it really is, believe it.</p>`+sectionPara("The story")+`</article></body>`)
	if strings.Contains(doc.Markdown, "**Hello** **World**") {
		t.Errorf("a zero-width space became a space:\n%s", doc.Markdown)
	}
}

// BenchmarkManySameClass: pages of thousands of elements sharing one
// class, flat and nested, which the choice of twins walks.
func BenchmarkManySameClass(b *testing.B) {
	var flat, nested strings.Builder
	flat.WriteString("<body>")
	for range 8000 {
		fmt.Fprintf(&flat, `<div class="x"><p>%s</p></div>`, strings.Repeat("Some prose, with commas, words and more words here. ", 3))
	}
	nested.WriteString("<body>")
	for range 50 {
		for range 400 {
			fmt.Fprintf(&nested, `<div class="x"><p>%s</p>`, strings.Repeat("Some prose, with commas, words. ", 5))
		}
		nested.WriteString(strings.Repeat("</div>", 400))
	}
	for name, page := range map[string]string{"flat": flat.String(), "nested": nested.String()} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Extract(strings.NewReader(page), Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// twins with a generic class: Bootstrap-style "card" used for the post,
// for each comment, and for a sidebar box.
func TestTwinsGenericCard(t *testing.T) {
	page := `<html><head><title>Post</title></head><body><div class="container"><div class="row">
<div class="col-8"><div class="card"><div class="card-body"><h1>Post</h1>` + strings.Repeat(sectionPara("The post"), 5) + `</div></div>
<div id="comments" class="comments"><h3>2 comments</h3>
<div class="card"><div class="card-body"><b>Bob</b>` + sectionPara("Bob's comment") + `</div></div>
<div class="card"><div class="card-body"><b>Eve</b>` + sectionPara("Eve's comment") + `</div></div></div></div>
<div class="col-4 sidebar"><div class="card"><div class="card-body"><h4>About</h4>` + sectionPara("The sidebar's about box") + `</div></div></div>
</div></div></body></html>`
	doc := extractPageString(t, page)
	if !strings.Contains(doc.Markdown, "The post") {
		t.Fatalf("lost the post:\n%s", doc.Markdown)
	}
	for _, bad := range []string{"comment goes on", "about box goes on"} {
		if strings.Contains(doc.Markdown, bad) {
			t.Errorf("twins pulled %q in", bad)
		}
	}
}

// TestArticleWrappingThePage: an article element that holds the site's
// header (its navigation, no title) and footer wraps the page, as body
// does: the story is found inside it, without the offer boxes above it.
// An article whose own head holds its breadcrumbs and title comes out
// head and all.
func TestArticleWrappingThePage(t *testing.T) {
	offers := ""
	for _, plan := range []string{"Basic", "Pro", "Premium", "Team"} {
		offers += `<div class="plan"><h3>` + plan + `</h3><ul><li>Everything you need to get going, filed for you by our team.</li>` +
			`<li>Documents filed with the state office, checked first.</li><li>Answers from a person within a day of asking.</li></ul></div>`
	}
	story := `<div class="body">` + strings.Repeat(sectionPara("The guide"), 6) + `</div>`
	page := `<html><head><title>Guide</title></head><body><article><header><nav><a href="/">Home</a> <a href="/a">Plans</a> <a href="/b">Help</a></nav></header>` +
		`<div class="offers"><h1>Start today</h1>` + offers + `</div>` + story + `<footer><p>All rights reserved.</p></footer></article></body></html>`
	doc := extractPageString(t, page)
	if !strings.Contains(doc.Markdown, "The guide goes on") || strings.Contains(doc.Markdown, "Everything you need") {
		t.Errorf("want the guide without the offers:\n%s", doc.Markdown)
	}

	page = articleOf("Guide", `<article><header><nav class="crumbs"><a href="/">Home</a> <a href="/docs">Docs</a></nav><h1>Guide</h1>`+
		`<p class="standfirst">`+strings.Repeat("What the guide is for and who should read it, in brief. ", 5)+`</p></header>`+story+
		`<footer><a href="/tags/boats">Boats</a></footer></article>`)
	doc = extractPageString(t, page)
	if !strings.Contains(doc.Markdown, "What the guide is for") || !strings.Contains(doc.Markdown, "The guide goes on") {
		t.Errorf("want the article's head and its text:\n%s", doc.Markdown)
	}
}

// TestTeasersWithExcerpts: other stories' teasers beside the article in a
// main, made like it (a class word shared, as WordPress gives every post
// "post") and carrying excerpts of their own, are teasers all the same
// when each is titled by a link to its story and is small beside the
// article; comments marked up as articles do not hide them. Two stories
// of a size, each titled by a link, stay; so do a live blog's updates
// that link their headings to themselves.
func TestTeasersWithExcerpts(t *testing.T) {
	story := `<article class="post single"><h1>The story</h1>` + strings.Repeat(sectionPara("The story"), 8) + `</article>`
	var teasers, comments, updates strings.Builder
	for i := range 5 {
		fmt.Fprintf(&teasers, `<article class="post teaser"><h4><a href="/story-%d">Another story %d</a></h4><p>An excerpt of story %d, with a comma, that says what it is about and why.</p></article>`, i, i, i)
		fmt.Fprintf(&comments, `<article class="comment-body"><p>Comment %d, said in passing.</p></article>`, i)
		fmt.Fprintf(&updates, `<article class="update"><h2><a href="#u%d">Update %d</a></h2><p>%s</p></article>`, i, i, strings.Repeat(fmt.Sprintf("Update %d has its say, with a comma. ", i), 3))
	}
	doc := extractPageString(t, articleOf("The story", `<main>`+story+`<div class="comments">`+comments.String()+`</div><div class="more">`+teasers.String()+`</div></main>`))
	if !strings.Contains(doc.Markdown, "The story goes on") || strings.Contains(doc.Markdown, "An excerpt of story") {
		t.Errorf("want the story without the teasers:\n%s", doc.Markdown)
	}

	var two strings.Builder
	for _, name := range []string{"first", "second"} {
		fmt.Fprintf(&two, `<article class="post"><h2><a href="/%s">The %s story</a></h2>%s</article>`, name, name, strings.Repeat(sectionPara("The "+name+" story"), 3))
	}
	doc = extractPageString(t, articleOf("Two stories", `<main>`+two.String()+`</main>`))
	if !strings.Contains(doc.Markdown, "The first story goes on") || !strings.Contains(doc.Markdown, "The second story goes on") {
		t.Errorf("two stories: want both:\n%s", doc.Markdown)
	}

	long := `<article class="update"><h2><a href="#top">Pinned</a></h2>` + strings.Repeat(sectionPara("The pinned update"), 8) + `</article>`
	doc = extractPageString(t, articleOf("Election night", `<main><h1>Election night</h1>`+long+updates.String()+`</main>`))
	for _, want := range []string{"The pinned update goes on", "Update 0 has", "Update 4 has"} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("live blog: lost %q:\n%s", want, doc.Markdown)
		}
	}
}

// TestDatedArticleElement: a page that says nothing of what it is, whose
// content is its one article element with a date in it, is cleaned as an
// article (a box of share links inside goes); without a date (a page of
// documentation in an article element) its lists of links stay.
func TestDatedArticleElement(t *testing.T) {
	share := `<div class="box"><a href="/s/1">Send it on to a friend</a> <a href="/s/2">Post it on the board</a> and say so</div>`
	body := strings.Repeat(sectionPara("The post"), 3) + share + strings.Repeat(sectionPara("The post"), 3)
	doc := extractPageString(t, `<html><head><title>A post</title></head><body><article><h1>A post</h1><time datetime="2024-03-05">March 5, 2024</time>`+body+`</article></body></html>`)
	if !strings.Contains(doc.Markdown, "The post goes on") || strings.Contains(doc.Markdown, "Send it on") {
		t.Errorf("dated: want the post without its share links:\n%s", doc.Markdown)
	}
	doc = extractPageString(t, `<html><head><title>A guide</title></head><body><article><h1>A guide</h1>`+body+`</article></body></html>`)
	if !strings.Contains(doc.Markdown, "Send it on") {
		t.Errorf("undated: lost the links:\n%s", doc.Markdown)
	}
}

// TestHeadlineLists: in an article, a list of headlines (each item a
// heading that is a link to another story) goes, with the heading that
// announces it ("More:"); a heading with a colon before prose, a heading
// without one before a box of links and then prose, and a list of
// headings that are not links, stay.
func TestHeadlineLists(t *testing.T) {
	more := `<h4>More:</h4><ul><li><h4><a href="/a">The new race</a></h4></li></ul><ul><li><h4><a href="/b">A walk in space</a></h4></li></ul>`
	history := `<h3>Harbour history</h3><div class="box"><a href="/s/1">Send it on to a friend</a> <a href="/s/2">Post it</a> and say so</div>` + sectionPara("The history")
	steps := `<h3>The steps:</h3><p>First, the harbour master is told, and the boats wait.</p><ul><li><h4>Step one</h4><p>Ask.</p></li><li><h4>Step two</h4><p>Wait.</p></li></ul>`
	doc := extractPageString(t, articleOf("The story", `<article><h1>The story</h1>`+sectionPara("The story")+more+sectionPara("The story")+steps+history+`</article>`))
	for _, gone := range []string{"More:", "The new race", "A walk in space"} {
		if strings.Contains(doc.Markdown, gone) {
			t.Errorf("kept %q:\n%s", gone, doc.Markdown)
		}
	}
	wantAll(t, "headline lists", doc.Markdown, "The steps:", "the harbour master", "Step one", "Step two", "Harbour history", "The history goes on")
}

// TestEmbeddedQuote: an embedded post (a quote with its hashtags, its
// author and a dated link, in a wrapper of its own) is part of the
// article; a wrapped quote that is only a link ("View post") is not.
func TestEmbeddedQuote(t *testing.T) {
	tweet := `<div id="x1"><blockquote class="twitter-tweet"><p>The <a href="https://t.example/h/a">#Harbour</a> walls held again tonight, and the boats are safe <a href="https://t.example/p">pic.example/x</a></p>— Port Office (@port) <a href="https://t.example/s/1">November 15, 2019</a></blockquote></div>`
	placeholder := `<div id="x2"><blockquote class="embed"><a href="https://img.example/1">View post on img.example</a></blockquote></div>`
	doc := extractPageString(t, articleOf("The story", `<article><h1>The story</h1>`+sectionPara("The story")+tweet+placeholder+sectionPara("The story")+`</article>`))
	if !strings.Contains(doc.Markdown, "walls held again tonight") {
		t.Errorf("lost the embedded post:\n%s", doc.Markdown)
	}
	if strings.Contains(doc.Markdown, "View post") {
		t.Errorf("kept the placeholder:\n%s", doc.Markdown)
	}
}

// A manual's bars of links between pages go, however the page is chosen;
// text that merely links to the next page stays.
func TestNavBars(t *testing.T) {
	prose := "<p>" + strings.Repeat("This paragraph is the content of the page, and it says so at length. ", 3) + "</p>"
	for _, tt := range []struct {
		name, bar string
		kept      bool
	}{
		{"DocBook", `<div class="navheader"><table><tr><th colspan="3">5.13. Other Objects</th></tr><tr><td><a href="a.html">Prev</a></td><td><a href="b.html">Up</a></td><th>Chapter 5. Data Definition</th><td><a href="index.html">Home</a></td><td><a href="c.html">Next</a></td></tr></table></div>`, false},
		{"texinfo", `<table><tr><td>[<a href="#a" title="Previous"> &lt;&lt; </a>]</td><td>[<a href="#b"> &gt;&gt; </a>]</td><td>[<a href="index.html#Top">Top</a>]</td><td>[<a href="c.html">Contents</a>]</td><td>[<a href="d.html">Index</a>]</td><td>[<a href="e.html"> ? </a>]</td></tr></table>`, false},
		{"pager", `<p><a href="/p/1">« Previous</a> | <a href="/p/3">Next »</a></p>`, false},
		{"a sentence", `<p>When you have read this far, go on to the <a href="/next">next</a> chapter or back to the <a href="/">contents</a> and choose another one.</p>`, true},
		{"a list of pages", `<ul><li><a href="/a">Installing</a></li><li><a href="/b">Next steps</a></li></ul>`, true},
	} {
		page := `<html><head><title>T</title></head><body><div>` + tt.bar + prose + tt.bar + `</div></body></html>`
		doc, err := Extract(strings.NewReader(page), Options{URL: "https://docs.example/x.html"})
		if err != nil {
			t.Fatal(err)
		}
		kept := strings.Contains(doc.Markdown, "](https://docs.example/")
		if kept != tt.kept {
			t.Errorf("%s: kept %v, want %v:\n%s", tt.name, kept, tt.kept, doc.Markdown)
		}
	}
}

// A product page whose customers' reviews say more than its
// description: the reviews go, the description stays, whether its
// metadata or its cart says it is a product's. A page of reviews (they
// are nearly all it holds) keeps them; so does a business's page whose
// customers' words are most of it.
func TestProductReviewsGo(t *testing.T) {
	var reviews strings.Builder
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&reviews, `<div class="review"><h4>Great kettle %d</h4><p>Review %d: it boils fast, it pours well, and it has lasted a year of daily use without a fault, which is more than my last one did.</p></div>`, i, i)
	}
	desc := `<div class="description"><h2>Description</h2><p>A blue kettle that boils a litre in two minutes, with a spout that pours clean, a lid that opens wide, and a base that stays cool.</p>` +
		`<p>Its body is steel with a blue enamel coat, its handle stays cool in the hand, and it switches itself off when it boils or runs dry.</p><p>It holds 1.7 litres, draws 2,200 watts, and comes with a two-year guarantee.</p></div>`
	section := `<section class="product-reviews"><h2>Reviews</h2>` + reviews.String() + `</section>`
	for name, head := range map[string]string{
		"og:type": `<meta property="og:type" content="product">`,
		"json-ld": `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Blue kettle"}</script>`,
		"cart":    ``,
	} {
		cart := ``
		if name == "cart" {
			cart = `<form class="product-form"><button name="add" class="btn add-to-cart">Add to cart</button></form>`
		}
		doc := extractPageString(t, `<html><head><title>Blue kettle</title>`+head+`</head><body><main><h1>Blue kettle</h1>`+desc+cart+section+`</main></body></html>`)
		if !strings.Contains(doc.Markdown, "boils a litre in two minutes") {
			t.Errorf("%s: the description is missing:\n%s", name, doc.Markdown)
		}
		if strings.Contains(doc.Markdown, "Review 3:") {
			t.Errorf("%s: want the product without its reviews:\n%s", name, doc.Markdown)
		}
	}
	page := `<html><head><title>Blue kettle reviews</title><meta property="og:type" content="product"></head><body><header><a href="/">Shop</a></header><main><h1>Blue kettle: reviews</h1><section class="reviews">` + reviews.String() + `</section></main></body></html>`
	if doc := extractPageString(t, page); !strings.Contains(doc.Markdown, "Review 3:") {
		t.Errorf("a page of reviews: want them:\n%s", doc.Markdown)
	}
	page = `<html><head><title>Our reviews</title></head><body><main><div class="entry-content"><h1>What our customers say</h1><p>We have fixed boilers and pipes across the city since 1998, and we ask every customer what they thought of the job.</p>` +
		`<div class="glsr-reviews">` + reviews.String() + `</div><p>Call us on 0100 000 000.</p></div></main></body></html>`
	if doc := extractPageString(t, page); !strings.Contains(doc.Markdown, "Review 3:") {
		t.Errorf("a business's page of its customers' reviews: want them:\n%s", doc.Markdown)
	}
}

// A WordPress post filed under "Cookie recipes" and "Reviews", under
// more comments than it says: its wrapper's classes
// ("category-cookie-recipes", "tag-reviews") say where it is filed, not
// that it is a cookie banner or a box of reviews, and it stays.
func TestPostFiledUnderBoilerplateWords(t *testing.T) {
	var comments strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&comments, `<li class="comment"><p>I saw it last week, comment %d, and the harbour shots stayed with me for days after, as the review says.</p></li>`, i)
	}
	post := `<html><head><title>Harbour review</title></head><body><main><div class="post type-post status-publish hentry category-cookie-recipes tag-reviews"><h1>Harbour review</h1><div class="entry-content">` +
		strings.Repeat(`<p>The film opens on a long shot of the harbour at dawn, and the camera stays there, patient, as the boats go out one by one.</p>`, 6) +
		`</div></div><div id="comments"><ol>` + comments.String() + `</ol></div></main></body></html>`
	if doc := extractPageString(t, post); !strings.Contains(doc.Markdown, "long shot of the harbour") {
		t.Errorf("a post filed under cookie recipes and reviews: want it:\n%s", doc.Markdown)
	}
}

// TestMainInSidebarWrapper: a theme's wrapper around the main element
// and its sidebar ("content-sidebar-wrap", as Genesis names it on every
// page) is no sidebar, nor is a wrapper around that ("sidebar-layout").
// A portfolio of card links, whose best block is its heading so that the
// whole body is the content, keeps its title, its words and its cards,
// on a page that says it is an article and on one that does not; the
// sidebar beside it goes.
func TestMainInSidebarWrapper(t *testing.T) {
	var cards strings.Builder
	for i := range 30 {
		fmt.Fprintf(&cards, `<div class="project portfolio-item"><a href="/case-study/%d/"><img src="/shot%d.jpg" alt=""></a><h4><a href="/case-study/%d/">Client number %d</a></h4></div>`, i, i, i, i)
	}
	body := `<div class="site-container"><header class="site-header"><nav><ul><li><a href="/">Home</a></li><li><a href="/services/">Services</a></li></ul></nav></header>` +
		`<div class="site-inner sidebar-layout"><div class="content-sidebar-wrap"><main class="content"><section class="subpage-header"><article><h1>Web Designs</h1><h2>Shiny new websites we built for our clients</h2></article></section>` +
		`<section class="portfolio"><ul class="filter"><li><a href="#">All</a></li><li><a href="#">Healthcare</a></li><li><a href="#">Education</a></li></ul><article class="page">` + cards.String() + `</article></section></main>` +
		`<aside class="sidebar"><ul><li><a href="/blog/one/">Our latest post on search</a></li><li><a href="/blog/two/">Another post on ads</a></li></ul></aside></div></div></div>`
	for name, page := range map[string]string{"article": articleOf("Web Designs", body), "page": `<html><body>` + body + `</body></html>`} {
		md := extractPageString(t, page).Markdown
		for _, want := range []string{"Shiny new websites we built", "Client number 0", "Client number 29"} {
			if !strings.Contains(md, want) {
				t.Errorf("%s: lost %q:\n%s", name, want, md)
			}
		}
		if strings.Contains(md, "Our latest post") {
			t.Errorf("%s: kept the sidebar:\n%s", name, md)
		}
	}
}

// TestProductIsNoArticle: a shop's page whose metadata says both that it
// is an article (og:type, as Yoast writes it) and a product (JSON-LD) is
// a product's: its table of specifications, a list of terms each linked
// to the shop's glossary, stays, as an article's link list would not. A
// post whose JSON-LD says it is one stays an article.
func TestProductIsNoArticle(t *testing.T) {
	var specs strings.Builder
	for _, s := range []string{"Wattage: 2,200 W", "Capacity: 1.7 litres", "Cord: 75 cm", "Weight: 1.1 kg", "Guarantee: two years"} {
		term, value, _ := strings.Cut(s, ": ")
		fmt.Fprintf(&specs, `<li><a href="/glossary/%s">%s</a>: %s</li>`, strings.ToLower(term), term, value)
	}
	head := `<meta property="og:type" content="article"><script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Blue kettle"}</script>`
	page := `<html><head><title>Blue kettle</title>` + head + `</head><body><main><h1>Blue kettle</h1>` + strings.Repeat(sectionPara("The kettle"), 3) +
		`<div class="specs"><h2>Specifications</h2><ul>` + specs.String() + `</ul></div></main></body></html>`
	md := extractPageString(t, page).Markdown
	wantAll(t, "product", md, "The kettle goes on", "Capacity", "1.7 litres", "Guarantee")
	// A blog's review of the kettle, whose JSON-LD says it is a post
	// beside the Product a review plugin adds, is an article: its list
	// of other reviews goes.
	var more strings.Builder
	for i := range 8 {
		fmt.Fprintf(&more, `<li><a href="/reviews/%d">Review %d</a>: another kettle.</li>`, i, i)
	}
	head = `<meta property="og:type" content="article"><script type="application/ld+json">{"@context":"https://schema.org","@type":"BlogPosting","headline":"Blue kettle, reviewed"}</script>` +
		`<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Blue kettle","review":{"@type":"Review","reviewRating":{"@type":"Rating","ratingValue":4}}}</script>`
	page = `<html><head><title>Blue kettle, reviewed</title>` + head + `</head><body><main><article><h1>Blue kettle, reviewed</h1>` + strings.Repeat(sectionPara("The review"), 3) +
		`<div class="more"><ul>` + more.String() + `</ul></div></article></main></body></html>`
	md = extractPageString(t, page).Markdown
	if !strings.Contains(md, "The review goes on") || strings.Contains(md, "another kettle") {
		t.Errorf("a post with a Product beside it: want it cleaned as an article:\n%s", md)
	}
}

// TestActionBars: a short box whose class words name it a card's or a
// post's actions ("product-actions", "thread-actions") holds controls,
// not content, and goes. The word must be whole ("transactions" is
// content) and a class word: a heading whose anchor WordPress names after
// it ("h-corrective-actions"), and a section whose id is "actions", are a
// document's; a long box so named says something.
func TestActionBars(t *testing.T) {
	page := `<html><head><title>Blue kettle</title></head><body><main><h1>Blue kettle</h1>` + strings.Repeat(sectionPara("The kettle"), 3) +
		`<div class="product-actions"><a href="/cart?add=1">Put it in the basket</a> <a href="/list?add=1">Keep it for later</a></div>` +
		`<div class="recent-transactions"><p>Sold 14 times this week.</p></div>` +
		`<h2 class="wp-block-heading" id="h-corrective-actions">Corrective actions</h2>` + sectionPara("The correction") +
		`<div class="actions">` + strings.Repeat(sectionPara("The long box"), 2) + `</div>` +
		`<h2 class="actions">What you can do</h2>` + sectionPara("The doing") + `</main></body></html>`
	md := extractPageString(t, page).Markdown
	wantAll(t, "product", md, "The kettle goes on", "Sold 14 times", "Corrective actions", "The long box goes on", "What you can do")
	if strings.Contains(md, "Keep it for later") {
		t.Errorf("product: want no action bar:\n%s", md)
	}
	doc := `<html><head><title>Workflow syntax</title></head><body><main><h1>Workflow syntax</h1>` + sectionPara("The workflow") +
		`<section id="triggers"><h2>Triggers</h2>` + sectionPara("The trigger") + `</section>` +
		`<section id="actions"><h2>Steps</h2><p>Steps run actions by name.</p></section>` +
		`<section id="jobs"><h2>Jobs</h2>` + sectionPara("The job") + `</section></main></body></html>`
	wantAll(t, "docs", extractPageString(t, doc).Markdown, "Steps run actions by name", "The job goes on")
}
