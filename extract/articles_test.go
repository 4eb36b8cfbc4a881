package extract

// Tests of what the rules for articles (page wrappers, teasers, dated
// article elements, headline lists, wrapped quotes) must leave alone.

import (
	"fmt"
	"strings"
	"testing"
)

func revSentences(w string, n int) string {
	return strings.Repeat(w+" goes on, sentence after sentence, with commas and words. ", n)
}

func wantAll(t *testing.T, name, md string, want ...string) {
	t.Helper()
	var lost []string
	for _, w := range want {
		if !strings.Contains(md, w) {
			lost = append(lost, w)
		}
	}
	if len(lost) > 0 {
		t.Errorf("%s: lost %q:\n%s", name, lost, md)
	}
}

// A digest whose briefs are each titled by a link to the full story, one
// of them (the lead) longer: the briefs, side by side, are the page, not
// teasers beside the lead.
func TestDigestWithLinkedBriefs(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<article class="brief"><h2><a href="/news/walls">The harbour walls held</a></h2><p>` + revSentences("The walls story", 8) + `</p></article>`)
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&b, `<article class="brief"><h2><a href="/news/b%d">Brief %d</a></h2><p>Brief %d: the council met on Monday, argued about the budget, and agreed to meet again.</p></article>`, i, i, i)
	}
	doc := extractPageString(t, articleOf("Morning briefing", `<main><h1>Morning briefing</h1>`+b.String()+`</main>`))
	wantAll(t, "digest", doc.Markdown, "The walls story goes on", "Brief 1: the council", "Brief 5: the council")
}

// A blog's front page with the newest post in full and the older ones as
// excerpts, each titled by a link to its post (no og:type): the page is
// the listing.
func TestBlogFrontPage(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<article class="post"><h2><a href="/latest">The latest post</a></h2><p>` + revSentences("The latest post", 8) + `</p></article>`)
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&b, `<article class="post"><h2><a href="/older-%d">Older post %d</a></h2><p>Older post %d, in short: what happened, to whom, and why it mattered.</p></article>`, i, i, i)
	}
	doc := extractPageString(t, `<html><head><title>My blog</title></head><body><main>`+b.String()+`</main></body></html>`)
	wantAll(t, "front page", doc.Markdown, "The latest post goes on", "Older post 1, in short", "Older post 5, in short")
}

// A live blog whose update headings link to each update's permalink,
// written as an absolute URL of the page itself with a fragment or as a
// query on it (not as "#..."), one update (a pinned analysis) long: every
// update stays, beside the analysis or in a box of their own below it.
func TestLiveBlogPermalinks(t *testing.T) {
	for _, link := range []string{"https://example.com/p#update-%d", "?page=with:block-%d"} {
		var b strings.Builder
		fmt.Fprintf(&b, `<article class="update"><h2><a href="`+link+`">Analysis: what the count means</a></h2><p>%s</p></article>`, 0, revSentences("The analysis", 9))
		for i := 1; i <= 5; i++ {
			fmt.Fprintf(&b, `<article class="update"><h2><a href="`+link+`">Seat %d declared</a></h2><p>Seat %d: the returning officer read the result, and the winner thanked her team.</p></article>`, i, i, i)
		}
		doc := extractPageString(t, articleOf("Election night", `<main><h1>Election night</h1>`+b.String()+`</main>`))
		wantAll(t, "live blog "+link, doc.Markdown, "The analysis goes on", "Seat 1: the returning", "Seat 5: the returning")
		first, rest, _ := strings.Cut(b.String(), `</article>`)
		doc = extractPageString(t, articleOf("Election night", `<main><h1>Election night</h1><div class="pinned">`+first+`</article></div><div class="stream">`+rest+`</div></main>`))
		wantAll(t, "live blog in boxes "+link, doc.Markdown, "The analysis goes on", "Seat 1: the returning", "Seat 5: the returning")
	}
}

// A forum thread in Invision Community's markup (posts are
// article.cPost.ipsComment, the author's name a linked h3, here in the
// author pane aside, which the extractor never shows) without its
// JSON-LD (as the dev set's forum pages come, scripts removed). The
// replies are 400+ letters, so not boilerplate, but under a quarter of
// the opening post. The replies stay.
func TestForumThreadReplies(t *testing.T) {
	post := func(id int, user, text string) string {
		return fmt.Sprintf(`<article id="elComment_%d" class="cPost ipsBox ipsComment ipsComment_parent"><aside class="ipsComment_author cAuthorPane"><h3 class="cAuthorPane_author"><strong><a href="https://forum.example/profile/%d-%s/">%s</a></strong></h3></aside>`+
			`<div class="ipsColumn ipsColumn_fluid"><div class="cPost_contentWrap"><div data-role="commentContent" class="ipsType_normal ipsType_richText ipsContained"><p>%s</p></div></div></div></article>`, id, id, user, user, text)
	}
	first := post(1, "ann", revSentences("The opening post about the boiler", 30))
	replies := ""
	for i, u := range []string{"bob", "cat", "dan"} {
		replies += post(i+2, u, strings.Repeat(fmt.Sprintf("Reply %d: check the expansion vessel first, then the relief valve, then the radiators. ", i+1), 6))
	}
	for name, thread := range map[string]string{"side by side": first + replies, "replies in a box": first + `<div class="replies">` + replies + `</div>`} {
		doc := extractPageString(t, `<html><head><title>Boiler loses pressure</title></head><body><main><h1>Boiler loses pressure</h1>`+thread+`</main></body></html>`)
		wantAll(t, name, doc.Markdown, "The opening post about the boiler goes on", "Reply 1: check", "Reply 3: check")
	}
}

// A news article whose own header holds its breadcrumbs (a nav) and
// title, with a one-line standfirst, a lead picture, a fact list and a
// tag footer, is the content container, not a page wrapper.
func TestArticleWithBreadcrumbsInItsHeader(t *testing.T) {
	page := articleOf("The harbour walls held", `<article><header><nav class="breadcrumbs"><a href="/">Home</a> › <a href="/news">News</a></nav><h1>The harbour walls held</h1>`+
		`<p class="standfirst">Storm surge tested the new walls overnight, and they held.</p></header>`+
		`<figure><img src="/img/lead.jpg" alt="The harbour at dawn"><figcaption>The harbour at dawn after the storm.</figcaption></figure>`+
		`<div class="article-body">`+sectionPara("The walls")+sectionPara("The walls")+`</div>`+
		`<figure><img src="/img/east.jpg" alt="The east wall"><figcaption>The east wall, where the surge hit hardest.</figcaption></figure>`+
		`<ul><li>Wall height: 4 m</li><li>Cost: £2m</li></ul>`+
		`<div class="article-body">`+sectionPara("The boats")+sectionPara("The boats")+`</div><footer><a href="/tag/storms">Storms</a></footer></article>`)
	doc := extractPageString(t, page)
	wantAll(t, "article with breadcrumbs", doc.Markdown, "Storm surge tested", "img/lead.jpg", "img/east.jpg", "Wall height: 4 m", "The walls goes on", "The boats goes on")
}

// A documentation page made as Docusaurus makes one (the doc in an
// article element, "Last updated on <time>" in the article's footer,
// which is never shown) is no post to clean as an article, nor is a page
// that says it is a product (og:type product) with a dated review.
func TestDatedDocsAndProduct(t *testing.T) {
	doc := `<h1>Configuring the client</h1>` + sectionPara("The client") +
		`<div class="theme-admonition theme-admonition-note alert alert--secondary"><p>Read <a href="/docs/auth">authentication</a> and <a href="/docs/proxies">proxies</a> first.</p></div>` +
		`<h2>Options</h2><table><thead><tr><th>Option</th><th>Meaning</th></tr></thead><tbody>` +
		`<tr><td><a href="/docs/opt/timeout"><code>timeout</code></a></td><td>How long to wait</td></tr>` +
		`<tr><td><a href="/docs/opt/retries"><code>retries</code></a></td><td>How often to retry</td></tr></tbody></table>` +
		sectionPara("The options") + `<h2>See also</h2><div class="cards"><a href="/docs/a">Authentication guide</a> <a href="/docs/b">Proxy guide</a></div>` +
		`<footer class="theme-doc-footer"><span>Last updated on <time datetime="2024-03-05T10:00:00Z">Mar 5, 2024</time></span></footer>`
	page := `<html><head><title>Configuring the client | Harbour docs</title></head><body><nav><a href="/">Harbour docs</a></nav><main><div class="docItemContainer"><article>` + doc + `</article></div></main></body></html>`
	d := extractPageString(t, page)
	wantAll(t, "docs", d.Markdown, "authentication", "`timeout`", "`retries`", "Authentication guide")
	// A date in its text, past its head, makes it no post either.
	d = extractPageString(t, strings.Replace(page, `<footer class="theme-doc-footer"><span>Last updated on <time datetime="2024-03-05T10:00:00Z">Mar 5, 2024</time></span></footer>`,
		`<p>Retries came in version 2, released on <time datetime="2024-03-05">March 5, 2024</time>.</p>`, 1))
	wantAll(t, "docs with a date in its text", d.Markdown, "authentication", "`timeout`", "`retries`", "Authentication guide")

	product := `<html><head><meta property="og:type" content="product"><title>Harbour lamp</title></head><body><main><article class="product"><h1>Harbour lamp</h1><p>Listed <time datetime="2023-11-02">2 Nov 2023</time></p>` + sectionPara("The lamp") +
		`<table class="specs"><tr><th>Brand</th><td><a href="/brand/harbour">Harbour Works</a></td></tr><tr><th>Material</th><td><a href="/material/brass">Brass</a></td></tr><tr><th>Size</th><td>30 cm</td></tr></table>` +
		`<div class="variants"><a href="/lamp-red">Red</a> <a href="/lamp-blue">Blue</a> in stock</div>` +
		`<div class="review"><p>Lovely lamp, bright and warm.</p><time datetime="2024-01-02">2 Jan 2024</time></div></article></main></body></html>`
	d = extractPageString(t, product)
	wantAll(t, "product", d.Markdown, "Harbour Works", "Brass", "30 cm", "Red")
}

// A heading ending in ":" followed by text not wrapped in a paragraph
// (as CMS output often is), then a box of share links: the heading
// announces the text and stays.
func TestColonHeadingBeforeBareText(t *testing.T) {
	page := articleOf("The story", `<article><h1>The story</h1>`+sectionPara("The story")+`<section><h3>Opening hours:</h3>The harbour office opens at eight and closes at noon on Fridays. `+
		`It stays shut on public holidays and during the regatta week each summer. <div class="box"><a href="/s/1">Send it on to a friend</a> <a href="/s/2">Post it</a></div></section>`+sectionPara("The end")+`</article>`)
	wantAll(t, "colon heading", extractPageString(t, page).Markdown, "Opening hours:", "opens at eight")
}

// The headline-list rule needs headings: a plain list of links in an
// article (sources, a reading list) stays.
func TestPlainLinkListStays(t *testing.T) {
	page := articleOf("The story", `<article><h1>The story</h1>`+sectionPara("The story")+`<h3>Sources</h3><ul><li><a href="https://a.example/report">The council's flood report, 2023</a></li><li><a href="https://b.example/data">Tide gauge data for the harbour</a></li></ul>`+sectionPara("The end")+`</article>`)
	wantAll(t, "link list", extractPageString(t, page).Markdown, "flood report", "Tide gauge data")
}

// The dated-article rule needs the content to be one article element: a
// page of no declared type whose content is a div, with a date in it,
// keeps its box of links.
func TestDatedRuleNeedsArticleElement(t *testing.T) {
	share := `<div class="box"><a href="/s/1">Send it on to a friend</a> <a href="/s/2">Post it on the board</a> and say so</div>`
	page := `<html><head><title>A guide</title></head><body><div class="content"><h1>A guide</h1><time datetime="2024-03-05">March 5, 2024</time>` +
		strings.Repeat(sectionPara("The guide"), 3) + share + strings.Repeat(sectionPara("The guide"), 3) + `</div></body></html>`
	wantAll(t, "undated div", extractPageString(t, page).Markdown, "Send it on")
}

// wrapsPage needs the site's header: an article with a header holding
// only its title, and a footer, stays the content container, picture
// and all.
func TestArticleWithOwnHeaderIsContainer(t *testing.T) {
	page := articleOf("The harbour walls held", `<article><header><h1>The harbour walls held</h1><p class="standfirst">Storm surge tested the new walls overnight, and they held.</p></header>`+
		`<figure><img src="/img/lead.jpg" alt="The harbour at dawn"><figcaption>The harbour at dawn.</figcaption></figure>`+
		`<div class="article-body">`+sectionPara("The walls")+sectionPara("The walls")+`</div><figure><img src="/img/east.jpg" alt="The east wall"></figure>`+
		`<div class="article-body">`+sectionPara("The boats")+sectionPara("The boats")+`</div><footer><a href="/tag/storms">Storms</a></footer></article>`)
	wantAll(t, "own header", extractPageString(t, page).Markdown, "Storm surge tested", "img/lead.jpg", "img/east.jpg")
	// A contents list in its header, and a footer only in a quote it
	// holds (the quote's attribution): no page wrapper.
	quoted := strings.Replace(strings.Replace(page, `<footer><a href="/tag/storms">Storms</a></footer>`, `<blockquote><p>They held.</p><footer>The harbour master</footer></blockquote>`, 1),
		`<header>`, `<header><nav class="contents"><a href="#walls">Walls</a> <a href="#boats">Boats</a></nav>`, 1)
	quoted = strings.Replace(quoted, `<h1>The harbour walls held</h1>`, ``, 1)
	wantAll(t, "quote's footer", extractPageString(t, quoted).Markdown, "Storm surge tested", "img/lead.jpg", "img/east.jpg")
	// Breadcrumbs in its header but no footer: no page wrapper either.
	page = strings.Replace(strings.Replace(page, `<header>`, `<header><nav class="breadcrumbs"><a href="/">Home</a> › <a href="/news">News</a></nav>`, 1), `<footer><a href="/tag/storms">Storms</a></footer>`, ``, 1)
	wantAll(t, "crumbs, no footer", extractPageString(t, page).Markdown, "Storm surge tested", "img/lead.jpg", "img/east.jpg")
}

// wrapsQuote needs the quote to hold nearly all the block: a box of
// links with a short quote in it is still clutter.
func TestQuoteInLinkBoxIsClutter(t *testing.T) {
	box := `<div class="box"><blockquote>Brilliant.</blockquote><a href="/s/1">Send it on to a friend</a> <a href="/s/2">Post it on the board</a> <a href="/s/3">Print it out for later</a></div>`
	page := articleOf("The story", `<article><h1>The story</h1>`+sectionPara("The story")+box+sectionPara("The story")+`</article>`)
	if md := extractPageString(t, page).Markdown; strings.Contains(md, "Send it on") {
		t.Errorf("kept the box of links:\n%s", md)
	}
}

// An article's box about its writer, after the article, goes, as does
// its disclaimer; a theme that calls the whole article
// "author__content" keeps the article, and its cleaning (which would
// undo itself, had it taken the article); a page that is no article (a
// team page) keeps its people's bios; a post wrapped in "author-single"
// stays, and a paper keeps its list of authors at its head.
func TestAuthorBoxLeavesArticle(t *testing.T) {
	bio := `<div class="about-author"><img src="/ann.jpg" alt="Ann Example"><h4>Ann Example</h4><p>Ann Example is a harbour engineer who has written about sea walls, tides and storms for twenty years, and edits the quarterly.</p></div>`
	story := `<p>` + revSentences("The walls story", 6) + `</p><p>` + revSentences("The tides story", 5) + `</p>`
	disclaimer := `<div class="disclaimer-box"><p>This article is for information only and is no engineering advice: ask a chartered engineer before you build anything by the sea.</p></div>`
	doc := extractPageString(t, articleOf("Sea walls", `<main><h1>Sea walls</h1>`+story+disclaimer+bio+`</main>`))
	wantAll(t, "article", doc.Markdown, "The walls story goes on", "The tides story goes on")
	if strings.Contains(doc.Markdown, "harbour engineer") || strings.Contains(doc.Markdown, "no engineering advice") {
		t.Errorf("want the article without its writer's bio and disclaimer:\n%s", doc.Markdown)
	}
	more := `<div class="more"><a href="/a">Tides explained</a> <a href="/b">Storm season</a> <a href="/c">Sea levels</a></div>`
	doc = extractPageString(t, articleOf("Sea walls", `<main><h1>Sea walls</h1><div id="article_content" class="author__content">`+story+more+`</div></main>`))
	wantAll(t, "author__content", doc.Markdown, "The walls story goes on", "The tides story goes on")
	if strings.Contains(doc.Markdown, "Storm season") {
		t.Errorf("author__content: want the article cleaned of its links:\n%s", doc.Markdown)
	}
	doc = extractPageString(t, `<html><head><title>Our team</title></head><body><main><h1>Our team</h1><p>`+revSentences("The team page", 4)+`</p>`+bio+`</main></body></html>`)
	wantAll(t, "team page", doc.Markdown, "harbour engineer")
	// A theme that wraps the post in "author-single", under more
	// comments than the post says: the post stays.
	var comments strings.Builder
	for range 7 {
		comments.WriteString(`<li><p>` + revSentences("A reader's comment", 2) + `</p></li>`)
	}
	doc = extractPageString(t, articleOf("Sea walls", `<div class="post"><h2>Sea walls</h2><div class="post-content author-single">`+story+`</div></div><div id="comments"><h3>7 responses</h3><ol>`+comments.String()+`</ol></div>`))
	wantAll(t, "author-single", doc.Markdown, "The walls story goes on", "The tides story goes on")
	// After the text, an author's signature (a name, no bio) and a box
	// whose class only starts like the word ("authentication-steps")
	// stay.
	sign := `<p class="author-sign">Ann Example, in Harbourton</p>`
	steps := `<div class="authentication-steps"><p>Sign in with your harbour board account, then open the tide tables, choose the month you want to read, and print it or save it for later.</p></div>`
	doc = extractPageString(t, articleOf("Sea walls", `<main><h1>Sea walls</h1>`+story+steps+sign+`</main>`))
	wantAll(t, "signature and steps", doc.Markdown, "Ann Example, in Harbourton", "open the tide tables")
	// A paper's authors and their affiliations, at its head: what the
	// paper says of itself.
	authors := `<div class="authors"><p>Ann Example, Department of Coastal Engineering, Harbour University; Bo Sample, Institute of Tides, Sea College; corresponding author Ann Example.</p></div>`
	kicker := `<p class="kicker">Coastal engineering, research paper</p>`
	doc = extractPageString(t, articleOf("Sea walls", `<main><h1>Sea walls</h1>`+kicker+authors+story+`</main>`))
	wantAll(t, "paper", doc.Markdown, "Institute of Tides", "The walls story goes on")
	// A disclaimer between the article's paragraphs goes too: the text
	// has begun.
	doc = extractPageString(t, articleOf("Sea walls", `<main><h1>Sea walls</h1><p>`+revSentences("The walls story", 6)+`</p>`+disclaimer+`<p>`+revSentences("The tides story", 5)+`</p></main>`))
	wantAll(t, "disclaimer between", doc.Markdown, "The walls story goes on", "The tides story goes on")
	if strings.Contains(doc.Markdown, "no engineering advice") {
		t.Errorf("disclaimer between: want the article without it:\n%s", doc.Markdown)
	}
	// ... though a long paragraph comes before the paper, outside it.
	intro := `<div class="site-intro"><p>The Harbour Review is an open journal of coastal engineering, publishing research on sea walls, tides, storms and harbours since 1998, free to read for everyone who cares for the coast.</p></div>`
	doc = extractPageString(t, articleOf("Sea walls", intro+`<main><h1>Sea walls</h1>`+authors+story+`</main>`))
	wantAll(t, "paper after a notice", doc.Markdown, "Institute of Tides", "The walls story goes on")
	// An article of short paragraphs has begun all the same: its
	// writer's bio after it goes.
	short := strings.Repeat(`<p>The harbour wall held on Monday, and the town was glad of it.</p>`, 12)
	doc = extractPageString(t, articleOf("Sea walls", `<main><h1>Sea walls</h1>`+short+bio+`</main>`))
	wantAll(t, "short paragraphs", doc.Markdown, "The harbour wall held on Monday")
	if strings.Contains(doc.Markdown, "harbour engineer") {
		t.Errorf("short paragraphs: want the article without its writer's bio:\n%s", doc.Markdown)
	}
}

// TestShortForumReplies: on a page that says it is a discussion, a reply
// is a post however short, though its id or class calls it a comment
// (Invision's article#elComment_N, WordPress's ol.comment-list of
// li.comment, a table cell, a section): a thread of one-line thanks keeps
// them all. A comment's reply link, its date, its
// reply form and a sponsor's box still go; and on a page that is no discussion,
// comments that short go.
func TestShortForumReplies(t *testing.T) {
	var replies, comments strings.Builder
	for i, r := range []string{"Thanks, the valve was the culprit.", "Same here: bled the radiators and it held.", "Good to know, thank you all."} {
		fmt.Fprintf(&replies, `<article id="elComment_%d" class="ipsEntry ipsEntry--post"><div class="ipsEntry__content"><p>%s</p></div></article>`, i+2, r)
		fmt.Fprintf(&comments, `<li class="comment even depth-%d"><div class="comment-meta commentmetadata"><a href="#c%d">Posted on 4 March 2024</a></div><p>Reply %d of the thread, short. <span class="comment-date">3 March, 10:0%d</span></p><div class="reply"><a rel="nofollow" class="comment-reply-link" href="?replytocom=%d">Reply to this</a></div></li>`, i, i, i, i, i)
	}
	list := `<ol class="comment-list">` + comments.String() + `</ol>`
	replies.WriteString(list + `<table class="posts"><tr><td class="comment-cell"><p>A reply in a table cell.</p></td></tr></table><section class="comment-entry"><p>A reply in a section.</p></section>`)
	chrome := `<div class="comment sponsored"><p>Sponsored: boilers at half price this week.</p></div>` +
		`<div id="respond" class="comment-respond"><h3 id="reply-title" class="comment-reply-title">Leave a Reply</h3><form class="comment-form"><p class="comment-notes">Your email address will not be published.</p><textarea name="comment"></textarea></form></div>`
	first := `<article id="elComment_1" class="ipsEntry ipsEntry--post"><div class="ipsEntry__content">` + revSentences("The opening post about the boiler", 8) + `</div></article>`
	md := extractPageString(t, forumOf("Boiler loses pressure", `<main><h1>Boiler loses pressure</h1>`+first+replies.String()+chrome+`</main>`)).Markdown
	wantAll(t, "forum", md, "The opening post about the boiler", "Thanks, the valve was the culprit.", "Good to know, thank you all.", "Reply 0 of the thread", "Reply 2 of the thread",
		"A reply in a table cell", "A reply in a section")
	for _, not := range []string{"Reply to this", "3 March", "Posted on", "Sponsored", "Leave a Reply", "will not be published"} {
		if strings.Contains(md, not) {
			t.Errorf("forum: kept a comment's chrome %q:\n%s", not, md)
		}
	}
	md = extractPageString(t, `<html><body><main><h1>Boiler loses pressure</h1>`+revSentences("The opening post about the boiler", 3)+`<div class="comments">`+list+`</div></main></body></html>`).Markdown
	if strings.Contains(md, "Reply 0 of the thread") || !strings.Contains(md, "The opening post about the boiler") {
		t.Errorf("a page that is no discussion: want it without its short comments:\n%s", md)
	}
}

// TestListMadeArticle: a page that says it is an article but is laid
// out in lists (a directory of the harbour's clubs, 40 links in lists,
// each with a line, under four paragraphs) keeps its lists: they are its
// text. An article of twelve paragraphs still loses the list of 32 links
// to other clubs inside it; so does a short story whose share bar and
// box of related posts hold 36 links between them, and a two-paragraph
// note with a list of 8 links to other notes.
func TestListMadeArticle(t *testing.T) {
	var clubs strings.Builder
	for g := range 4 {
		fmt.Fprintf(&clubs, `<div class="quarter"><h2>Clubs of quarter %d</h2><ul>`, g+1)
		for i := range 10 {
			fmt.Fprintf(&clubs, `<li><a href="https://club%d-%d.example/">Rowing club %d-%d</a>: meets on Sundays.</li>`, g, i, g, i)
		}
		clubs.WriteString(`</ul></div>`)
	}
	md := extractPageString(t, articleOf("Harbour clubs", `<main><article><h1>Harbour clubs</h1>`+strings.Repeat(sectionPara("The harbour's clubs"), 4)+clubs.String()+`</article></main>`)).Markdown
	wantAll(t, "directory", md, "Rowing club 0-0", "Rowing club 3-9", "Clubs of quarter 4")
	var others strings.Builder
	others.WriteString(`<div class="others"><h2>Other clubs</h2><ul>`)
	for i := range 32 {
		fmt.Fprintf(&others, `<li><a href="https://other%d.example/">Sailing club %d</a>: meets on Sundays.</li>`, i, i)
	}
	others.WriteString(`</ul></div>`)
	md = extractPageString(t, articleOf("The story", `<main><article><h1>The story</h1>`+strings.Repeat(sectionPara("The story"), 12)+others.String()+`</article></main>`)).Markdown
	if !strings.Contains(md, "The story goes on") || strings.Contains(md, "Sailing club 3") {
		t.Errorf("an article of paragraphs: want it without the list of other clubs:\n%s", md)
	}
	var chrome strings.Builder
	chrome.WriteString(`<ul class="share-buttons">`)
	for i := range 6 {
		fmt.Fprintf(&chrome, `<li><a href="https://s%d.example/share">Share on network %d</a></li>`, i, i)
	}
	chrome.WriteString(`</ul><section class="related-posts"><h2>More from the harbour</h2><ul>`)
	for i := range 30 {
		fmt.Fprintf(&chrome, `<li><a href="/news/%d">Another headline from the harbour, number %d</a>: read it.</li>`, i, i)
	}
	chrome.WriteString(`</ul></section>`)
	md = extractPageString(t, articleOf("The wall", `<main><article><h1>The wall</h1>`+strings.Repeat(sectionPara("The wall"), 4)+chrome.String()+`</article></main>`)).Markdown
	if !strings.Contains(md, "The wall goes on") || strings.Contains(md, "Share on network") || strings.Contains(md, "Another headline") || strings.HasPrefix(md, "# The wall") {
		t.Errorf("a story with a share bar and related posts: want it cleaned as an article:\n%s", md)
	}
	var notes strings.Builder
	notes.WriteString(`<div class="more"><ul>`)
	for i := range 8 {
		fmt.Fprintf(&notes, `<li><a href="/notes/%d">Note %d</a>: on the tides.</li>`, i, i)
	}
	notes.WriteString(`</ul></div>`)
	md = extractPageString(t, articleOf("A note", `<main><article><h1>A note</h1>`+strings.Repeat(sectionPara("The note"), 2)+notes.String()+`</article></main>`)).Markdown
	if !strings.Contains(md, "The note goes on") || strings.Contains(md, "on the tides") {
		t.Errorf("a short note with a list of 8 links: want it cleaned as an article:\n%s", md)
	}
}
