package extract

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// hardBoilerplate reports whether an element is never content: navigation,
// asides, footers, form controls, dialogs, and elements whose
// role says they are one of those.
func hardBoilerplate(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Aside:
		// An aside that says it is an admonition or a footnote is the
		// text's; any other ("callout", "note", "info-box") is what
		// asides are.
		return !admonitionClass(n) && !footnote(n)
	case atom.Nav, atom.Footer, atom.Button, atom.Dialog, atom.Select, atom.Input, atom.Textarea, atom.Label, atom.Option:
		return true
	}
	switch strings.ToLower(attr(n, "role")) {
	case "navigation", "banner", "contentinfo", "complementary", "dialog", "alertdialog", "search", "menu", "menubar", "toolbar":
		return true
	}
	return false
}

// alwaysBoilerplate are words that mark an element as boilerplate however
// much text it holds (comments are often longer than the post), except on
// a forum.
var alwaysBoilerplate = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"comment": true, "comments": true, "commentlist": true, "disqus": true, "cookie": true,
		"consent": true, "gdpr": true, "newsletter": true, "outbrain": true, "taboola": true,
		"related": true, "caption": true, "credit": true, "credits": true, "reviews": true,
	}
})

// softBoilerplate reports whether an element's class or id calls it
// boilerplate (a cookie banner, share buttons, related links, comments)
// and its text agrees: short, or mostly links. Comment sections and the
// like go whatever their length, unless they hold most of the page (on
// a product's page, reviews unless they hold nearly all of it).
func (s *selector) softBoilerplate(n *html.Node) bool {
	if s.nodeKinds(n)&boilerplateWord == 0 {
		return s.namedLinkBox(n) || postSignature(n)
	}
	tokens := s.tokens(n)
	if s.forum && postBox(n) && onlyCommentWords(s, tokens) {
		// On a forum a comment is a post, however short: the thread.
		return s.namedLinkBox(n) || postSignature(n)
	}
	if onlyPictureWords(s, tokens) && findElement(n, atom.Img) != nil {
		return false // a picture's wrapper, caption and all: the picture stays
	}
	if onlyPictureWords(s, tokens) && slices.Contains(tokens, "caption") && s.stats[n] != nil && s.stats[n].heads > 0 {
		return false // a card's caption, titled: what the card says (a site's credits stay out)
	}
	if onlyPictureWords(s, tokens) && besideCode(n) {
		return false // a code listing's caption ("Listing 8-1: ...") says what the code is
	}
	st := s.stats[n]
	if st == nil || st.text < 400 || st.linkDensity() > 0.5 {
		return true
	}
	for _, t := range tokens {
		if s.forum || !alwaysBoilerplate()[t] {
			continue
		}
		if t == "reviews" && s.productPage(n) {
			// A product's reviews are no part of its description, though
			// they say more: they go unless they are nearly all the page
			// says (a page of reviews). Elsewhere (a business's page of
			// its customers' words) they are as comments are.
			return s.bodyProse == 0 || float64(prose(st)) < 0.85*float64(s.bodyProse)
		}
		return s.bodyProse == 0 || float64(prose(st)) < 0.5*float64(s.bodyProse)
	}
	return false
}

// actionBar reports whether a box is a bar of actions, as its class
// names it ("product-actions", "card__actions", "thread-actions"): the
// reader's controls ("Add to cart", "Jump to latest", a subscription's
// popup, a reply and a share link), short or mostly links. A heading is
// none, and an id is not asked: WordPress names a heading's anchor after
// its words ("h-corrective-actions"), and a section with the id
// "actions" is a document's.
func (s *selector) actionBar(n *html.Node) bool {
	class := lowerASCII(attr(n, "class"))
	if !strings.Contains(class, "actions") {
		return false // most classes: not split
	}
	st := s.stats[n]
	if st == nil || isHeading(n) || st.text >= 400 && st.linkDensity() <= 0.5 {
		return false
	}
	return slices.Contains(splitClass(class, ""), "actions")
}

// postSignature reports whether an element is a forum post's
// signature: the poster's motto, links and badges under every post they
// write. It is a box (a div, an aside, a quote...) whose first class
// names it so ("signature", "post-signature", "message-signature",
// "postsignature"). Documentation generators put "signature" on an API's
// headings and spans (ExDoc, JSDoc, YARD, Scaladoc, dartdoc), a letter
// on its closing paragraph, a testimonial on its name, a menu beside
// "dish": those are content.
func postSignature(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Div, atom.Aside, atom.Blockquote, atom.Section, atom.Footer, atom.Td, atom.Li:
	default:
		return false
	}
	first := ""
	for c := range strings.FieldsSeq(attr(n, "class")) {
		first = c
		break
	}
	switch strings.ToLower(first) {
	case "signature", "postsignature", "post-signature", "message-signature", "forum-signature", "user-signature":
		return true
	}
	return false
}

// namedLinkBox reports whether a box whose boilerplate words are those
// of its heading's name (classID) is mostly links all the same: a site's
// "Most popular" or "Related articles" box, named after the heading it
// shows, is what those words say. A heading named after itself is not
// such a box, whatever links it holds (its permalink).
func (s *selector) namedLinkBox(n *html.Node) bool {
	st := s.stats[n]
	if st == nil || isHeading(n) || st.linkDensity() <= 0.5 {
		return false
	}
	return s.classKinds(attr(n, "class"), attr(n, "id"))&boilerplateWord != 0
}

// onlyPictureWords reports whether the boilerplate words among tokens are
// all words of a picture's caption or credit.
func onlyPictureWords(s *selector, tokens []string) bool {
	for _, t := range tokens {
		if s.kind(t)&boilerplateWord != 0 && !pictureWords()[t] {
			return false
		}
	}
	return true
}

// postBox reports whether an element is of the kinds that hold posts: a
// div, an article, a section, a list of them or an item of one, a table
// cell; not a line's span or link (a comment's date, its reply link).
func postBox(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Div, atom.Article, atom.Section, atom.Ol, atom.Ul, atom.Li, atom.Td:
		return true
	}
	return false
}

// onlyCommentWords reports whether the boilerplate words among tokens are
// all words of a comment ("comment", "comments", "commentlist",
// Invision's "elComment").
func onlyCommentWords(s *selector, tokens []string) bool {
	for _, t := range tokens {
		if s.kind(t)&boilerplateWord != 0 && !strings.Contains(t, "comment") {
			return false
		}
	}
	return true
}

// clutter reports whether a block inside the main content is clutter
// rather than content: a strip of teaser images, a list of links, a form.
// Blocks with many commas are prose and stay. The rules are those of
// Mozilla's Readability ("clean conditionally"), on heed's measures.
func (s *selector) clutter(n *html.Node) bool {
	st := s.stats[n]
	if st == nil {
		return false
	}
	weight := s.weight(n)
	switch n.DataAtom {
	case atom.Div, atom.Section, atom.Ul, atom.Ol, atom.Table, atom.Form, atom.Header:
	case atom.P:
		return weight < 0 && st.text < 200 // a byline, a dateline, a credit
	default:
		return false
	}
	if weight < 0 && st.comma < 10 {
		return true
	}
	if st.comma >= 10 || s.wrapsQuote(n) {
		return false
	}
	isList := n.DataAtom == atom.Ul || n.DataAtom == atom.Ol
	p, img := float64(st.paras), float64(st.imgs)
	ld := st.linkDensity()
	switch {
	case st.imgs > 1 && p/img < 0.5 && !inFigure(n):
		return true
	case st.inputs > st.paras/3:
		return true
	case isList && st.items > 0 && st.heads >= st.items && ld > 0.8:
		return true // a list of headlines, each a link to another story
	case !isList && st.text < 25 && (st.imgs == 0 || st.imgs > 2) && ld > 0:
		return true
	case !isList && weight < 25 && ld > 0.2:
		return true
	case weight >= 25 && ld > 0.5:
		return true
	case st.embeds == 1 && st.text < 75 || st.embeds > 1:
		return true
	}
	return false
}

// aboutBox reports whether a block inside an article is about the
// article rather than of it: a box whose class or id names its author
// ("author-bio", "about-author", "authorbox") or its disclaimer
// ("disclaimer-box") and that says more than a name (a byline is
// metaLine's). What the writer did before, and that the article is no
// advice, are not what the article says; an author's note
// ("author-note") is. Rendering leaves such a box out only after the
// article's text has begun (content.skip).
func (s *selector) aboutBox(n *html.Node) bool {
	st := s.stats[n]
	if st == nil || st.text < 100 || 2*prose(st) > s.bodyProse {
		return false // a name; or the article, in a theme that calls it "author__content"
	}
	about := false
	for _, t := range s.tokens(n) {
		if strings.Contains(t, "note") {
			return false // the author's note: the author's words, in the article
		}
		about = about || strings.HasPrefix(t, "author") || strings.HasPrefix(t, "disclaimer")
	}
	return about
}

// datedHead reports whether an article shows a date (a time element) at
// its head, before its first paragraph of 200 letters or more: a post,
// not a page with "last updated" in its footer.
func (s *selector) datedHead(n *html.Node) bool {
	found, past := false, false
	var walk func(p *html.Node)
	walk = func(p *html.Node) {
		for c := p.FirstChild; c != nil && !found && !past; c = c.NextSibling {
			st := s.stats[c]
			if c.Type != html.ElementNode || st == nil {
				continue
			}
			switch {
			case c.DataAtom == atom.Time:
				found = true
			case c.DataAtom == atom.P && st.text >= 200:
				past = true
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return found
}

// leadsClutter reports whether a heading announces the block after it
// ("More:", "Read also:") and that block is clutter: it goes with it.
func (s *selector) leadsClutter(n *html.Node) bool {
	if !isHeading(n) || !strings.HasSuffix(strings.TrimSpace(textOf(n)), ":") {
		return false
	}
	next := n.NextSibling
	for next != nil && (next.Type != html.ElementNode || s.stats[next] == nil) {
		if next.Type == html.TextNode && strings.TrimSpace(next.Data) != "" {
			return false // text of its own comes first
		}
		next = next.NextSibling
	}
	return next != nil && s.clutter(next)
}

// wrapsQuote reports whether a block is a quote's wrapper: a quotation
// (an embedded post's text, with its links) holds nearly all its text. A
// quote that is mostly links ("View post on imgur.com") is a placeholder.
func (s *selector) wrapsQuote(n *html.Node) bool {
	st := s.stats[n]
	return st.quote > 0 && 2*st.quoteLink < st.quote && float64(st.quote) >= 0.9*float64(st.text)
}

// metaLine reports whether a block at the head of an article is its
// dateline ("March 5, 2024 · 8:41 AM", "Updated 3 hours ago"): what the
// page's metadata says, not what the article says. Only the short blocks
// that markHead marked are looked at: at the head, outside lists, tables,
// quotes, figures and code, and with no picture in them. Bylines are not
// looked for: "By Ann Example" and "By Popular Demand" read alike.
func (s *selector) metaLine(n *html.Node) bool {
	if !s.head[n] {
		return false
	}
	text, ok := s.lineText(n)
	if !ok {
		return false
	}
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(words) == 0 {
		return false
	}
	if last := words[len(words)-1]; strings.ContainsAny(text[len(text)-1:], ".!?") && utf8.RuneCountInString(last) > 1 {
		return false // a sentence ("On 5 May we met at 10 am."), not a line of metadata
	}
	return dateline(words, text)
}

// navWords are the words of links that move between the pages of a
// manual, their arrows and brackets aside: "Prev", "Up", "Home", "Next",
// texinfo's "[ << ]", "[Top]", "[Contents]", Sphinx's "« previous".
var navWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"": true, "prev": true, "previous": true, "next": true, "up": true, "home": true, "top": true,
		"contents": true, "table of contents": true, "index": true, "about": true, "back": true,
		"forward": true, "first": true, "last": true, "parent": true, "previous page": true, "next page": true,
		"previous topic": true, "next topic": true, "previous chapter": true, "next chapter": true,
		"previous section": true, "next section": true, "start": true,
	}
})

// navBar reports whether a block is a manual's bar of links between its
// pages (DocBook's Prev/Up/Home/Next tables, texinfo's panels, a pager of
// arrows): every link in it a navigation word or an arrow, no run of
// text outside them longer than a title (8 words), and either two links
// or more that are most of its text, or a class that says navigation
// ("navheader", "pager": a manual's first page has only Next).
func navBar(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Table, atom.Div, atom.P, atom.Ul, atom.Ol, atom.Header:
	default:
		return false
	}
	links, words, seen, letters, linkLetters := 0, 0, 0, 0, 0
	for d := range descendants(n) {
		// A bar is small: one that reads more than this is none, and
		// nested blocks cost no more than this each.
		if seen++; seen > maxNavNodes || letters > maxNavText {
			return false
		}
		switch {
		case d.Type == html.ElementNode && d.DataAtom == atom.A && attr(d, "href") != "":
			// A link of no text (a picture's) says nothing: not a bar's.
			// Its text is read no further than a bar's can run.
			t, ok := boundedText(d, maxNavText)
			if !ok || strings.TrimSpace(t) == "" {
				return false
			}
			w := navText(t)
			if !navWords()[w] {
				return false
			}
			if w != "" {
				words++
			}
			links++
			linkLetters += len(strings.TrimSpace(t))
		case d.Type == html.TextNode:
			letters += min(len(strings.TrimSpace(d.Data)), maxNavText+1)
			if letters <= maxNavText && wordsOver(d.Data, 8) && !inLink(d, n) {
				return false
			}
		}
		if links > 12 {
			return false // an index of many pages, not a bar
		}
	}
	switch {
	case links == 0:
		return false
	case navClass(n):
		return true
	default:
		// Two links or more, one a word and not only arrows, that are
		// most of the block's text.
		return links >= 2 && words >= 1 && 2*linkLetters >= letters
	}
}

// navClass reports whether an element's class or id says it is a bar of
// navigation or a pager.
func navClass(n *html.Node) bool {
	for _, t := range classTokens(n) {
		if strings.HasPrefix(t, "nav") || strings.HasPrefix(t, "pager") || strings.HasPrefix(t, "pagination") {
			return true
		}
	}
	return false
}

// A bar of navigation holds at most maxNavNodes nodes and maxNavText
// bytes of text.
const (
	maxNavNodes = 256
	maxNavText  = 2000
)

// wordsOver reports whether s has more than n words, reading no more of
// it than it takes to know.
func wordsOver(s string, n int) bool {
	words, in := 0, false
	for i := 0; i < len(s); i++ {
		space := s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r'
		if !space && !in {
			if words++; words > n {
				return true
			}
		}
		in = !space
	}
	return false
}

// navText is a link's text as navWords holds it: lower case, its arrows,
// brackets and bars left out, its spaces collapsed.
func navText(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '[', ']', '(', ')', '|', '<', '>', '«', '»', '‹', '›', '←', '→', '↑', '⇐', '⇒', '?', ':':
			return ' '
		}
		return unicode.ToLower(r)
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// inLink reports whether n is inside a link below top.
func inLink(n, top *html.Node) bool {
	for a := n.Parent; a != nil && a != top; a = a.Parent {
		if a.DataAtom == atom.A {
			return true
		}
	}
	return false
}

// besideCode reports whether n, or the block it alone fills (two levels
// up at most), stands next to a code block: a <pre>, or an element that
// holds one two levels down at most.
func besideCode(n *html.Node) bool {
	for a, up := n, 0; a != nil && a.Type == html.ElementNode && up < 3; a, up = a.Parent, up+1 {
		for _, sib := range []*html.Node{prevElement(a), nextElement(a)} {
			if sib != nil && holdsPre(sib, 2) {
				return true
			}
		}
		if prevElement(a) != nil || nextElement(a) != nil {
			if a.Parent == nil || a.Parent.DataAtom != atom.P {
				break // not alone in its block: its neighbours were asked
			}
		}
	}
	return false
}

func holdsPre(n *html.Node, depth int) bool {
	if n.DataAtom == atom.Pre {
		return true
	}
	if depth == 0 {
		return false
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && holdsPre(c, depth-1) {
			return true
		}
	}
	return false
}

func prevElement(n *html.Node) *html.Node {
	for c := n.PrevSibling; c != nil; c = c.PrevSibling {
		if c.Type == html.ElementNode {
			return c
		}
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return nil
		}
	}
	return nil
}

func nextElement(n *html.Node) *html.Node {
	for c := n.NextSibling; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return c
		}
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return nil
		}
	}
	return nil
}

// footnote reports whether an element is a footnote, or a list of them:
// its role says so (DPUB-ARIA's doc-footnote, doc-endnotes), or a word of
// its class or id does ("footnote", "footnotes", "footnote-list"). Docutils writes
// a document's footnotes as asides, and a footnote is what the text says.
func footnote(n *html.Node) bool {
	switch strings.ToLower(strings.TrimSpace(attr(n, "role"))) {
	case "doc-footnote", "doc-endnote", "doc-endnotes":
		return true
	}
	for _, t := range classTokens(n) {
		if t == "footnote" || t == "footnotes" {
			return true
		}
	}
	return false
}

// admonitionClass reports whether an element's class says, in so many
// words, that it is an admonition (Sphinx's, MkDocs', Docusaurus's) or
// GitHub's alert.
func admonitionClass(n *html.Node) bool {
	tokens := classTokens(n)
	for _, t := range tokens {
		if strings.Contains(t, "admonition") {
			return true
		}
	}
	return slices.Contains(tokens, "markdown") && slices.Contains(tokens, "alert")
}

// controlLabels are the words of a control beside documentation that
// works it, rather than says anything: RDoc's "click to toggle source",
// YARD's "View source", rustdoc's and Sphinx's "source" and "[src]"
// links, "Copy", "Expand description". The words of a control that
// unfolds text are unfoldLabel's.
var controlLabels = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"click to toggle source": true, "toggle source": true, "view source": true, "show source": true,
		"hide source": true, "source": true, "src": true, "copy": true, "copy to clipboard": true,
		"copy code": true, "expand description": true, "collapse": true, "expand": true,
	}
})

// unfoldLabel reports whether a label is that of a control or a link
// that unfolds or folds text: "Click to expand...", "Show more", "Read
// less".
func unfoldLabel(l string) bool {
	switch l {
	case "show more", "show less", "see more", "see less", "read more", "read less", "click to expand",
		"click to shrink", "click to collapse":
		return true
	}
	return false
}

// controlLabel reports whether an element is such a control's label: a
// span or link whose class names a control (src, toggle, click, copy,
// btn, expand, viewcode, ...) and whose whole text is one of
// controlLabels (its brackets aside). A word in a sentence ("open
// source", a function named copy) is classed as a link or a name, if at
// all, and stays.
func controlLabel(n *html.Node) bool {
	if n.DataAtom != atom.Span && n.DataAtom != atom.A || !controlClass(n) {
		return false
	}
	l, ok := labelText(n)
	return ok && (controlLabels()[l] || unfoldLabel(l))
}

// ctaLabel reports whether a label is that of a link that asks the reader
// to go on, and says nothing of where: "Learn more", "Get started", "Add
// to cart".
func ctaLabel(l string) bool {
	switch l {
	case "learn more", "get started", "shop now", "see all", "view all", "add to cart", "buy now",
		"find out more", "discover more", "explore more", "view more", "watch demo", "book a demo",
		"request a demo", "start free trial", "get in touch", "sign up":
		return true
	}
	return false
}

// ctaLink reports whether a link is a call to action, or unfolds text,
// standing alone: its whole text is a ctaLabel or an unfoldLabel (not a
// source's "Source" under a figure), and so is its parent's, a paragraph
// or a button's wrapper ("<p><a>Learn more</a></p>"). In a sentence the
// words stay; so does a heading that is a link ("## Get started", as
// mdBook links every heading) and an item of a list of links ("Next
// steps"), however deep the link sits in its wrappers.
func ctaLink(n *html.Node) bool {
	p := n.Parent
	if n.DataAtom != atom.A || p == nil {
		return false
	}
	switch p.DataAtom {
	case atom.P, atom.Div, atom.Span:
	default:
		return false
	}
	l, ok := labelText(n)
	if !ok || !ctaLabel(l) && !unfoldLabel(l) {
		return false
	}
	top := labelTop(n, l)
	if top == n {
		return false // its parent says more
	}
	// The wrappers that say no more than the link, and the block that
	// does: none of them a heading or a list's item.
	for a := p; a != nil && a.Type == html.ElementNode; a = a.Parent {
		if isHeading(a) || a.DataAtom == atom.Li || a.DataAtom == atom.Dt || a.DataAtom == atom.Dd {
			return false
		}
		if a == top.Parent {
			break
		}
	}
	return true
}

// labelTop is the outermost of n and the wrappers around it whose whole
// text is n's label l: where a link that stands alone stands.
func labelTop(n *html.Node, l string) *html.Node {
	top := n
	for a := n.Parent; a != nil && a.Type == html.ElementNode; a = a.Parent {
		if al, ok := labelText(a); !ok || al != l {
			break
		}
		top = a
	}
	return top
}

// postNumber reports whether a link is a post's number standing alone,
// as forums link each post to itself beside its date: XenForo's "#2" in
// a list item of its own, MyBB's in a bold box, NodeBB's beside an icon.
// Its label is "#" and digits; the wrappers that say no more than it end
// at a block (a list, its item, a division, a paragraph), not inside a
// sentence or a table's cell; and it leads to a post of this page (on
// its site, under its address or to one that names a post or its id).
// An issue's number in a changelog, a ticket's in a table, a chart's
// "reached <strong>#1</strong>" and an archive of numbered issues stay.
func (s *selector) postNumber(n *html.Node) bool {
	if n.DataAtom != atom.A || !startsWithHash(n) {
		return false
	}
	l, ok := labelText(n)
	if !ok || len(l) < 2 || l[0] != '#' || strings.Trim(l[1:], "0123456789") != "" {
		return false
	}
	switch labelTop(n, l).DataAtom {
	case atom.Li, atom.Ul, atom.Ol, atom.Div, atom.P:
	default:
		return false
	}
	u, err := s.page.Parse(strings.TrimSpace(attr(n, "href")))
	if err != nil || u.Host != s.page.Host {
		return false
	}
	if p := strings.TrimSuffix(s.page.Path, "/"); p != "" && (u.Path == p || strings.HasPrefix(u.Path, p+"/")) {
		return true // the thread's own address, or a post's under it
	}
	where := strings.ToLower(u.Path + "?" + u.RawQuery + "#" + u.Fragment)
	return strings.Contains(where, "post") || strings.Contains(where, "pid")
}

// startsWithHash reports whether the first text in n, spaces aside, is
// "#": most links' is not, and their labels are not read.
func startsWithHash(n *html.Node) bool {
	for d := range descendants(n) {
		if d.Type != html.TextNode {
			continue
		}
		if t := strings.TrimLeft(d.Data, " \t\n\r\f"); t != "" {
			return t[0] == '#'
		}
	}
	return false
}

// labelText is the text of a control or a link as its label reads, in
// lower case, its brackets, dots and arrows aside ("[src]", "Read
// more…", "Get started →"); ok is false past 40 bytes.
func labelText(n *html.Node) (string, bool) {
	t, ok := shortText(n, 40)
	if !ok {
		return "", false
	}
	return strings.ToLower(strings.Trim(t, "[]()<> .…›»→")), true
}

// controlClass reports whether an element's class names a control.
func controlClass(n *html.Node) bool {
	if strings.EqualFold(strings.TrimSpace(attr(n, "role")), "button") {
		return true
	}
	for _, t := range classTokens(n) {
		switch {
		case t == "src" || strings.HasPrefix(t, "srclink") || t == "toggle" || t == "click" || t == "copy" ||
			t == "btn" || t == "button" || t == "expand" || t == "collapse" || t == "viewcode" || t == "advice" ||
			t == "clipboard":
			return true
		}
	}
	return false
}

// productPage reports whether the page is a product's: its metadata says
// so (og:type "product", JSON-LD's Product), or an element is a
// schema.org Product or a control that adds to a cart ("add-to-cart",
// "addToCart"). The page is looked through once, when first asked.
func (s *selector) productPage(n *html.Node) bool {
	if s.product || s.askedProduct {
		return s.product
	}
	s.askedProduct = true
	for d := range descendants(treeRoot(n)) {
		if d.Type != html.ElementNode {
			continue
		}
		for _, a := range d.Attr {
			switch a.Key {
			case "itemtype":
				if strings.HasSuffix(strings.TrimRight(a.Val, "/ "), "schema.org/Product") {
					s.product = true
					return true
				}
			case "class", "id", "name":
				if cartControl(a.Val) {
					s.product = true
					return true
				}
			}
		}
	}
	return false
}

// cartControl reports whether a class, id or name names a control that
// adds to a cart: "add-to-cart", "add_to_cart", "addToCart".
func cartControl(v string) bool {
	if len(v) > 512 {
		return false
	}
	v = strings.ToLower(v)
	if !strings.Contains(v, "cart") {
		return false
	}
	v = strings.ReplaceAll(strings.ReplaceAll(v, "-", ""), "_", "")
	return strings.Contains(v, "addtocart")
}
