package extract

import (
	"net/url"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Main-content selection: every element gets a score from the paragraphs
// it holds (their length and commas), weighted by what its class and id
// say it is and discounted by how much of its text is links; the best
// element, with those of its siblings that read as content too, is the
// main content. Semantic markup (main, article, role=main) is a strong
// hint, not a requirement, so that pages without it come out well too.

// stats are the text measures of one element, over the content that is
// not skipped.
type stats struct {
	text     int // letters of text, whitespace excluded
	link     int // letters of text inside links
	comma    int
	articles int // article elements inside, itself included
	// Elements inside, for conditional cleaning.
	paras, imgs, items, heads, inputs, embeds int
	// Letters of text inside quotes, and of that inside links.
	quote, quoteLink int
	// title is the heading the element opens with: itself, or the first
	// heading shown inside it before any text (see classID).
	title *html.Node
}

type selector struct {
	weights   map[*html.Node]float64 // classWeight, remembered
	skip      func(*html.Node) bool
	stats     map[*html.Node]*stats
	bodyProse int                     // the text of the page that is not links
	forum     bool                    // the page says it is a discussion, whose comments are the content
	words     map[string]wordKind     // what each class token is, remembered
	elemKinds map[*html.Node]wordKind // what each element's class tokens are (nodeKinds)
	head      map[*html.Node]bool     // blocks at the head of the content that may be a dateline (markHead)
	article   bool                    // the page says it is an article (and is no forum)
	best      *html.Node              // the element that scored best, before any climb
	page      *url.URL                // the page's URL
	panels    map[*html.Node]bool     // the collapsed panels shown (revealed)
	// order numbers the page's nodes in document order (before), once
	// asked.
	order map[*html.Node]int
	// product is whether the page is a product's: its metadata says so,
	// or, once asked (productPage), it has a control that adds to a cart.
	product, askedProduct bool
	// score is the block model's score of a block's features; nil for
	// blockScore (tests give their own).
	score func(*[nFeatures]float64) float64

	// The names each heading's text makes (titleNames), remembered, and
	// how many headings the page names, up to systematicNames
	// (countNamed).
	titles      map[*html.Node][2]string
	namedTitles int
	// How many sections named after their headings each element holds
	// as children (amongSections).
	namedKids map[*html.Node]int
}

// weight scores an element by its class and id: +25 for words that mark
// content, -25 for words that mark boilerplate; remembered per element,
// since scoring, cleaning and sibling choice all ask.
func (s *selector) weight(n *html.Node) float64 {
	if w, ok := s.weights[n]; ok {
		return w
	}
	if s.weights == nil {
		s.weights = map[*html.Node]float64{}
	}
	k := s.nodeKinds(n)
	w := 0.0
	if k&negativeWord != 0 {
		w -= 25
	}
	if k&positiveWord != 0 {
		w += 25
	}
	s.weights[n] = w
	return w
}

// measure computes the stats of every element under n, bottom up.
func (s *selector) measure(n *html.Node) *stats {
	st := &stats{}
	if n.DataAtom == atom.Article {
		st.articles = 1
	}
	if isHeading(n) {
		st.title = n
	}
	s.stats[n] = st
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			letters, commas := countText(c.Data)
			st.text += letters
			st.comma += commas
		case html.ElementNode:
			if s.skip(c) {
				continue
			}
			cs := s.measure(c)
			if st.title == nil && st.text == 0 {
				st.title = cs.title
			}
			st.text += cs.text
			st.link += cs.link
			st.comma += cs.comma
			st.articles += cs.articles
			st.paras += cs.paras
			st.imgs += cs.imgs
			st.items += cs.items
			st.heads += cs.heads
			st.inputs += cs.inputs
			st.embeds += cs.embeds
			st.quote += cs.quote
			st.quoteLink += cs.quoteLink
			if c.DataAtom == atom.Blockquote {
				st.quote += cs.text - cs.quote
				st.quoteLink += cs.link - cs.quoteLink
			}
			switch c.DataAtom {
			case atom.P:
				st.paras++
			case atom.Img:
				st.imgs++
			case atom.Li:
				st.items++
			case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				st.heads++
			case atom.Input, atom.Select, atom.Textarea, atom.Button:
				st.inputs++
			case atom.Iframe, atom.Embed, atom.Object, atom.Video:
				st.embeds++
			}
			if c.DataAtom == atom.A && (s.article || cs.heads+cs.paras == 0) {
				// Outside an article, a link around a heading or a
				// paragraph is a card (a listing's item, a service's
				// tile): its text is read, not followed, and counts as
				// prose. In an article, such cards are teasers of other
				// stories.
				st.link += cs.text - cs.link
			}
		}
	}
	return st
}

func countText(s string) (letters, commas int) {
	for _, r := range s {
		switch {
		case r == ',' || r == '，' || r == '、':
			commas++
			letters++
		case r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '\u00a0':
		default:
			letters++
		}
	}
	return letters, commas
}

// markHead marks the blocks that may be an article's dateline
// (metaLine): short blocks (up to 100 letters, with no picture) of the
// chosen content's head, that is before its first paragraph of 200
// letters or more and within its first 500 letters, and not inside a
// list, table, quote, figure or code.
func (s *selector) markHead(nodes []*html.Node) {
	s.head = map[*html.Node]bool{}
	letters := 0
	var walk func(n *html.Node, inside bool) bool // false once past the head
	walk = func(n *html.Node, inside bool) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				l, _ := countText(c.Data)
				if letters += l; letters > 500 || l >= 200 {
					return false
				}
			case html.ElementNode:
				st := s.stats[c]
				if st == nil {
					continue // not shown
				}
				in := inside
				switch c.DataAtom {
				case atom.P:
					if st.text >= 200 {
						return false
					}
					fallthrough
				case atom.Div, atom.Header, atom.Section:
					if !inside && st.text > 0 && st.text <= 100 && st.imgs == 0 {
						s.head[c] = true
					}
				case atom.Pre, atom.Code, atom.Table, atom.Ul, atom.Ol, atom.Li, atom.Dl, atom.Blockquote, atom.Figure:
					in = true
				}
				if !walk(c, in) {
					return false
				}
			}
		}
		return true
	}
	for _, n := range nodes {
		if !walk(n, false) {
			return
		}
	}
}

// lineText is the text shown of a short block, if it is a plain line: no
// more than 200 bytes in no more than 32 inline elements (no heading,
// list, quote or other block inside), and not all of it emphasised (a
// heading written as a bold or italic paragraph, "March 2020").
func (s *selector) lineText(n *html.Node) (string, bool) {
	var b strings.Builder
	elements, plain := 0, false
	var walk func(n *html.Node, bold bool) bool
	walk = func(n *html.Node, bold bool) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if strings.TrimSpace(c.Data) != "" {
					plain = plain || !bold
				}
				if b.WriteString(c.Data); b.Len() > 200 {
					return false
				}
			case html.ElementNode:
				if elements++; elements > 32 {
					return false
				}
				if s.stats[c] == nil {
					continue // not shown
				}
				if !inlineAtoms()[c.DataAtom] {
					return false // a block: a heading, a list, a quote, a line of its own
				}
				if !walk(c, bold || emphasis()[c.DataAtom]) {
					return false
				}
			}
		}
		return true
	}
	if !walk(n, false) || !plain {
		return "", false
	}
	return clean(b.String()), true
}

// inlineAtoms are the elements a line of text is made of.
var inlineAtoms = sync.OnceValue(func() map[atom.Atom]bool {
	return map[atom.Atom]bool{
		atom.A: true, atom.Span: true, atom.B: true, atom.Strong: true, atom.Em: true, atom.I: true, atom.Time: true,
		atom.Abbr: true, atom.Small: true, atom.Sup: true, atom.Sub: true, atom.Br: true, atom.U: true, atom.S: true,
		atom.Mark: true, atom.Cite: true, atom.Font: true, atom.Bdi: true, atom.Data: true,
	}
})

// emphasis are the elements that make a line a heading when they hold all
// of it.
var emphasis = sync.OnceValue(func() map[atom.Atom]bool {
	return map[atom.Atom]bool{atom.B: true, atom.Strong: true, atom.Em: true, atom.I: true}
})

func inFigure(n *html.Node) bool {
	for a := n.Parent; a != nil; a = a.Parent {
		if a.DataAtom == atom.Figure {
			return true
		}
	}
	return false
}

// prose is the text that is not links.
func prose(st *stats) int { return st.text - st.link }

func (st *stats) linkDensity() float64 {
	if st.text == 0 {
		return 0
	}
	return float64(st.link) / float64(st.text)
}

// paragraphLike reports whether n carries running text of its own.
func paragraphLike(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Pre, atom.Blockquote, atom.Td, atom.Dd, atom.Li, atom.H2, atom.H3, atom.Table:
		return true
	case atom.Div, atom.Section, atom.Article, atom.Span:
		// A div that holds text directly, not only through blocks.
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode && utf8.RuneCountInString(strings.TrimSpace(c.Data)) >= 25 {
				return true
			}
		}
	}
	return false
}

// tagWeight is the prior of an element as a container of content.
func tagWeight(n *html.Node) float64 {
	switch n.DataAtom {
	case atom.Article, atom.Main:
		return 10
	case atom.Div, atom.Section:
		return 5
	case atom.Pre, atom.Td, atom.Blockquote:
		return 3
	case atom.Address, atom.Ol, atom.Ul, atom.Dl, atom.Dd, atom.Dt, atom.Li, atom.Form:
		return -3
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Th:
		return -5
	}
	return 0
}

// choose returns the elements that make the main content of the page
// under body, in document order.
func (s *selector) choose(body *html.Node) []*html.Node {
	s.stats = map[*html.Node]*stats{}
	s.bodyProse = prose(s.measure(body))
	s.countNamed(body)

	// Score: every paragraph gives to its ancestors, less the further up.
	scores := map[*html.Node]float64{}
	var order []*html.Node
	give := func(n *html.Node, v float64) {
		if _, ok := scores[n]; !ok {
			scores[n] = tagWeight(n) + s.weight(n)
			order = append(order, n)
		}
		scores[n] += v
	}
	for n := range descendants(body) {
		if n.Type != html.ElementNode || !paragraphLike(n) {
			continue
		}
		st := s.stats[n]
		if st == nil || st.text < 25 {
			continue
		}
		v := 1 + float64(st.comma) + min(float64(st.text)/100, 3)
		level := 0
		for a := n.Parent; a != nil && level < 5; a = a.Parent {
			if a.Type != html.ElementNode {
				break
			}
			div := 1.0
			switch level {
			case 0:
			case 1:
				div = 2
			default:
				div = float64(level) * 3
			}
			give(a, v/div)
			if a == body {
				break
			}
			level++
		}
	}
	var best *html.Node
	bestScore := 0.0
	for _, n := range order {
		st := s.stats[n]
		if st == nil {
			continue
		}
		final := scores[n] * (1 - st.linkDensity())
		if st.articles > 1 {
			final /= 2 // a listing of articles is rarely the one the reader came for
		}
		scores[n] = final
		if best == nil || final > bestScore {
			best, bestScore = n, final
		}
	}
	s.best = best

	// A semantic container that holds the best candidate, or most of the
	// page's text, is the content, unless what it holds beside the best
	// candidate is other stories. When what it holds beside it is mostly
	// links (a product grid, a tag cloud), its parts that are mostly links
	// are left out.
	if sem := s.semantic(body); sem != nil && !s.holdsTeasers(sem, best) {
		st := s.stats[sem]
		if best == nil || contains(sem, best) && st.linkDensity() < 0.5 ||
			float64(st.text) >= 0.5*float64(s.stats[body].text) && st.linkDensity() < 0.33 ||
			postContent(sem) && prose(st) >= prose(s.stats[best]) && st.linkDensity() < 0.33 {
			if s.mostlyLinksBeside(sem, best) {
				return s.withoutLinks(sem, best)
			}
			return []*html.Node{sem}
		}
	}
	if best == nil || s.stats[best].text < 140 {
		return []*html.Node{body}
	}
	// A page of many small blocks (a landing page, a product page) has no
	// one block that holds most of its text: take the smallest ancestor
	// that does, if it is not mostly links.
	bodyProse := prose(s.stats[body])
	if float64(prose(s.stats[best])) < 0.3*float64(bodyProse-s.negativeProse(body, best)) {
		for a := best.Parent; a != nil && a.Type == html.ElementNode; a = a.Parent {
			st := s.stats[a]
			if a == body || float64(prose(st)) >= 0.6*float64(bodyProse) && st.linkDensity() < 0.4 {
				return []*html.Node{a}
			}
		}
	}

	// Climb while the parent has little more than the best candidate: the
	// content often spans a few sibling wrappers under one parent. "More"
	// is counted from the candidate itself, not step by step, and more
	// that is mostly links (a menu beside the article) stops the climb, as
	// do other article elements (teasers of other stories).
	// Deep in one section of a document of sections (a parameter's
	// description in a reference page's Parameters): the document.
	for a, up := best, 0; up < 8 && a.Parent != nil && a.Parent != body && a.Parent.Type == html.ElementNode; a, up = a.Parent, up+1 {
		if s.sectionsOf(a.Parent, a) {
			best = a.Parent
			break
		}
	}
	bs := s.stats[best]
	for best.Parent != nil && best.Parent != body && best.Parent.Type == html.ElementNode {
		p := best.Parent
		ps := s.stats[p]
		if ps != nil && s.sectionsOf(p, best) {
			// The best candidate is one section of a document whose other
			// sections are its siblings (a reference page's Synopsis,
			// Description and Options): the document is the content.
			best, bs = p, ps
			continue
		}
		if g := p.Parent; ps != nil && g != nil && g != body && g.Type == html.ElementNode && s.sectionsOf(g, p) {
			// The best candidate is the body of such a section (its list
			// of options, after the section's heading and a paragraph).
			best, bs = g, s.stats[g]
			continue
		}
		if ps == nil || ps.linkDensity() > 0.33 || float64(bs.text) < 0.8*float64(ps.text) ||
			ps.text-bs.text >= 100 && float64(ps.link-bs.link) > 0.5*float64(ps.text-bs.text) ||
			ps.articles > s.stats[best].articles+articleCount(p) {
			break
		}
		best = p
	}

	// Siblings that read as content join the best candidate.
	threshold := max(10, bestScore*0.2)
	head := s.documentHead(best)
	var out []*html.Node
	beforeBest := true
	for sib := best.Parent.FirstChild; sib != nil; sib = sib.NextSibling {
		if sib == best || sib == head {
			beforeBest = beforeBest && sib != best
			out = append(out, sib)
			continue
		}
		if sib.Type != html.ElementNode || s.skip(sib) {
			continue
		}
		st := s.stats[sib]
		if st == nil {
			continue
		}
		if sib.DataAtom == atom.Article && best.DataAtom == atom.Article || st.articles > 1 {
			continue // another article, or a listing of them, is not this one
		}
		sc, scored := scores[sib]
		switch {
		case scored && sc >= threshold && s.weight(sib) >= 0:
			out = append(out, sib)
		case sib.DataAtom == atom.P || sib.DataAtom == atom.Pre || sib.DataAtom == atom.Blockquote || sib.DataAtom == atom.Ul || sib.DataAtom == atom.Ol || sib.DataAtom == atom.Table:
			if st.text >= 80 && st.linkDensity() < 0.25 || st.text > 0 && st.text < 80 && st.link == 0 && strings.ContainsAny(textOf(sib), ".!?。") {
				out = append(out, sib)
			}
		case isHeading(sib) && st.text > 0 && sib.NextSibling != nil:
			out = append(out, sib)
		case beforeBest && s.wrapsHeading(sib) && st.text > 0:
			// A heading in wrappers of its own (DocBook's div.titlepage)
			// before the content: the section's title. (After it, one is
			// the next block's: "Related articles".)
			out = append(out, sib)
		}
	}
	return trimHeadings(s.twins(body, best, out))
}

// sectionsOf reports whether p is a document made of sections, best one
// of them: best opens with a heading, and p's children that open with a
// heading of that level, none of them boilerplate, hold nearly all of
// p's text, in two or more sections, with few links. An article is none
// (the page says so): its sections are under one element already.
func (s *selector) sectionsOf(p, best *html.Node) bool {
	if s.article {
		// A story beside boxes that open with a heading as it does
		// (more from the section, a newsletter) is not one document.
		return false
	}
	level := leadingHeading(best)
	ps := s.stats[p]
	if level == 0 || ps == nil || ps.linkDensity() > 0.33 || ps.articles > s.stats[best].articles+articleCount(p) {
		return false
	}
	sections, text := 0, 0
	for c := p.FirstChild; c != nil; c = c.NextSibling {
		st := s.stats[c]
		if c.Type != html.ElementNode || st == nil || s.skip(c) {
			continue
		}
		// Sections of one document open with headings of one level: a
		// widget's higher heading beside a post's is not one of them.
		if l := leadingHeading(c); l == level && s.weight(c) >= 0 && !s.softBoilerplate(c) {
			sections++
			text += st.text
		}
	}
	return sections >= 2 && float64(text) >= 0.9*float64(ps.text)
}

// documentHead returns the element before a document of sections that
// holds its title, when the document holds none: a man page's header,
// with its title and NAME line ("git-add - Add file contents to the
// index"), before the sections that follow. It is the element just
// before best, opening with an h1, with a third of best's text at most
// and few links; nil when there is none.
func (s *selector) documentHead(best *html.Node) *html.Node {
	if leadingHeading(best) < 2 || findElement(best, atom.H1) != nil {
		return nil
	}
	prev := best.PrevSibling
	for prev != nil && prev.Type != html.ElementNode {
		prev = prev.PrevSibling
	}
	if s.article || prev == nil || s.skip(prev) || leadingHeading(prev) != 1 {
		return nil
	}
	if h1 := findElement(prev, atom.H1); h1 == nil || prev.DataAtom == atom.Header || wholeLink(h1) {
		return nil // a site's name, linking home, in its header: no document's title
	}
	if (s.weight(prev) < 0 || s.softBoilerplate(prev)) && !holdsHeading(prev, leadingHeading(best)) {
		// A site's masthead (its name, a tagline) is no document's
		// title; a man page's header, whose NAME is a section as the
		// document's are, is.
		return nil
	}
	ps, bs := s.stats[prev], s.stats[best]
	if ps == nil || bs == nil || ps.text > bs.text/3 || ps.linkDensity() > 0.3 {
		return nil
	}
	return prev
}

// leadingHeading is the level of the heading n opens with (n itself, or
// its first element child that holds text, two levels down at most), or
// 0 when it opens with none.
func leadingHeading(n *html.Node) int {
	for depth := 0; n != nil && depth < 3; depth++ {
		if l := headingLevel(n); l != 0 {
			return l
		}
		var first *html.Node
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
				return 0
			}
			if c.Type == html.ElementNode && hasText(c) {
				first = c
				break
			}
		}
		n = first
	}
	return 0
}

// wholeLink reports whether all of an element's text is one link's.
func wholeLink(n *html.Node) bool {
	a := findElement(n, atom.A)
	return a != nil && strings.TrimSpace(textOf(a)) != "" && strings.Join(strings.Fields(textOf(a)), " ") == strings.Join(strings.Fields(textOf(n)), " ")
}

// holdsHeading reports whether a heading of the given level is among
// n's children or theirs.
func holdsHeading(n *html.Node, level int) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if headingLevel(c) == level {
			return true
		}
		for g := c.FirstChild; g != nil; g = g.NextSibling {
			if headingLevel(g) == level {
				return true
			}
		}
	}
	return false
}

// wrapsHeading reports whether n is wrappers around one heading and
// nothing else: each level one element, three levels at most.
func (s *selector) wrapsHeading(n *html.Node) bool {
	st := s.stats[n]
	for depth := 0; n != nil && depth < 4; depth++ {
		if isHeading(n) {
			hs := s.stats[n]
			return hs != nil && st != nil && hs.text == st.text
		}
		var only *html.Node
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode && strings.TrimSpace(c.Data) != "":
				return false
			case c.Type == html.ElementNode && !s.skip(c):
				if only != nil {
					return false
				}
				only = c
			}
		}
		n = only
	}
	return false
}

// hasText reports whether n holds any text, reading no further than the
// first.
func hasText(n *html.Node) bool {
	for d := range descendants(n) {
		if d.Type == html.TextNode && strings.TrimSpace(d.Data) != "" {
			return true
		}
	}
	return false
}

func headingLevel(n *html.Node) int {
	switch n.DataAtom {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}

// negativeProse is the prose of the page under elements whose class calls
// them boilerplate (comments, sidebars, related links), outside best; on a
// forum, whose comments are the content, none.
func (s *selector) negativeProse(n, best *html.Node) int {
	if s.forum {
		return 0
	}
	sum := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		st := s.stats[c]
		if c.Type != html.ElementNode || st == nil {
			continue
		}
		if s.weight(c) < 0 && !contains(c, best) {
			sum += prose(st)
		} else {
			sum += s.negativeProse(c, best)
		}
	}
	return sum
}

// cleanAncestry reports whether n's ancestors, below the one it shares
// with best, are none of them boilerplate: a card in a comment list or a
// sidebar is not a part of the article, however it is made.
func (s *selector) cleanAncestry(n, best *html.Node) bool {
	for a := n.Parent; a != nil && a.Type == html.ElementNode && !contains(a, best); a = a.Parent {
		if s.skip(a) || s.weight(a) < 0 || s.softBoilerplate(a) {
			return false
		}
	}
	return true
}

// twins adds to the chosen nodes the elements elsewhere on the page that
// are made like the best one (the same tag and class) and read as prose:
// an article that a page cuts into sections around figures and quotes,
// each in its own wrapper, far apart in the tree. They keep the page's
// order.
func (s *selector) twins(body, best *html.Node, chosen []*html.Node) []*html.Node {
	class := attr(best, "class")
	if class == "" {
		return chosen
	}
	in := map[*html.Node]bool{}
	for _, n := range chosen {
		in[n] = true
	}
	inside := func(n *html.Node) bool {
		for a := n; a != nil; a = a.Parent {
			if in[a] {
				return true
			}
		}
		return false
	}
	added := false
	for n := range descendants(body) {
		if n.Type != html.ElementNode || n.DataAtom != best.DataAtom || in[n] || attr(n, "class") != class || s.skip(n) || inside(n) {
			continue
		}
		st := s.stats[n]
		if st == nil || prose(st) < 140 || st.linkDensity() >= 0.25 || st.articles > 0 || s.weight(n) < 0 || s.softBoilerplate(n) {
			continue
		}
		if contains(n, best) || !s.cleanAncestry(n, best) {
			continue // an ancestor made like it, or one inside comments, a sidebar...
		}
		in[n], added = true, true
	}
	if !added {
		return chosen
	}
	var out []*html.Node
	for n := range descendants(body) {
		if in[n] {
			out = append(out, n)
		}
	}
	return out
}

// trimHeadings drops headings left at the end with nothing under them.
func trimHeadings(nodes []*html.Node) []*html.Node {
	for len(nodes) > 1 && isHeading(nodes[len(nodes)-1]) {
		nodes = nodes[:len(nodes)-1]
	}
	return nodes
}

func isHeading(n *html.Node) bool {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// semantic returns the page's one main, role=main, or article element (or
// articleBody), if it has one with enough text.
func (s *selector) semantic(body *html.Node) *html.Node {
	var mains, bodies, articles []*html.Node
	for n := range descendants(body) {
		if n.Type != html.ElementNode || s.stats[n] == nil {
			continue
		}
		switch {
		case postBody(n):
			bodies = append(bodies, n)
		case n.DataAtom == atom.Main || strings.EqualFold(attr(n, "role"), "main"):
			mains = append(mains, n)
		case n.DataAtom == atom.Article:
			articles = append(articles, n)
		}
	}
	// The articleBody elements come first, the last of them first.
	slices.Reverse(bodies)
	articles = append(bodies, articles...)
	pick := func(ns []*html.Node) *html.Node {
		if len(ns) == 0 {
			return nil
		}
		// One article among many (a listing) is not the content.
		if len(ns) > 1 && !postBody(ns[0]) {
			return nil
		}
		if s.stats[ns[0]].text < 200 || ns[0].DataAtom == atom.Article && wrapsPage(ns[0]) {
			return nil
		}
		return ns[0]
	}
	if a := pick(articles); a != nil {
		return a
	}
	return pick(mains)
}

// holdsTeasers reports whether a semantic container (a main) holds, beside
// the article the best candidate is in, other stories' teasers: article
// elements that share no class word with it and are mostly links, or,
// in a box of their own beside it (a "most read" list), that are each
// titled by a link to another page and small beside it. The article
// alone is then the content. Articles that share a class word (a
// thread's posts, a live blog's updates, a listing's cards, however they
// are wrapped) or carry text of their own (a digest's briefs, a front
// page's excerpts) and stand beside it rather than in a box of their own
// are a sequence that the main holds whole, as are a forum's.
func (s *selector) holdsTeasers(sem, best *html.Node) bool {
	if best == nil || s.forum || sem.DataAtom == atom.Article || s.stats[sem].articles < 2 {
		return false
	}
	var own *html.Node // the outermost article below sem that holds best
	for a := best; a != nil && a != sem; a = a.Parent {
		if a.DataAtom == atom.Article {
			own = a
		}
	}
	if own == nil {
		return false
	}
	ownClass := classWords(own)
	teasers := 0
	// box is the outermost element on the way down to an article that does
	// not hold own: the box the article is in, or the article itself.
	var walk func(n, box *html.Node) bool // false: not teasers
	walk = func(n, box *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			st := s.stats[c]
			if c.Type != html.ElementNode || st == nil || st.articles == 0 || c == own {
				continue
			}
			in := box
			if in == nil && !contains(c, own) {
				in = c
			}
			if c.DataAtom != atom.Article {
				if !walk(c, in) {
					return false
				}
				continue
			}
			switch {
			case s.softBoilerplate(c):
				continue // a comment, which the content leaves out anyway
			case !sharesWord(classWords(c), ownClass) && st.linkDensity() > 0.3:
			case in != c && s.stats[in].articles > 1 && 4*prose(st) < prose(s.stats[own]) && s.titledElsewhere(c):
			default:
				return false
			}
			teasers++
		}
		return true
	}
	return walk(sem, nil) && teasers > 0
}

// articleCount is 1 for an article element, else 0.
func articleCount(n *html.Node) int {
	if n.DataAtom == atom.Article {
		return 1
	}
	return 0
}

// mostlyLinksBeside reports whether what a semantic container holds
// beside the best candidate is mostly links, and many of them (at least
// 30% of the container's text): a product grid, a list of other stories, a
// tag cloud, which withoutLinks leaves out. A few links beside it (a head
// and its tags) leave the container the content whole.
func (s *selector) mostlyLinksBeside(sem, best *html.Node) bool {
	if best == nil || !contains(sem, best) {
		return false
	}
	ss, bs := s.stats[sem], s.stats[best]
	rest, links := ss.text-bs.text, ss.link-bs.link
	return rest > 0 && float64(links) > 0.5*float64(rest) && float64(links) >= 0.3*float64(ss.text)
}

// withoutLinks is what n holds but its parts that are mostly links, best
// and the parts around it kept: n's children, and within those that hold
// best, theirs.
func (s *selector) withoutLinks(n, best *html.Node) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		st := s.stats[c]
		switch {
		case c.Type != html.ElementNode || st == nil:
		case c == best || !contains(c, best) && st.linkDensity() <= 0.5:
			out = append(out, c)
		case contains(c, best):
			out = append(out, s.withoutLinks(c, best)...)
		}
	}
	return out
}

func contains(a, b *html.Node) bool {
	for n := b; n != nil; n = n.Parent {
		if n == a {
			return true
		}
	}
	return false
}

// before reports whether a comes before b in the page (an element
// comes before what it holds). The page's nodes are numbered once, on
// the first call.
func (s *selector) before(a, b *html.Node) bool {
	if s.order == nil {
		root := treeRoot(a)
		s.order = map[*html.Node]int{root: 0}
		for d := range descendants(root) {
			s.order[d] = len(s.order)
		}
	}
	oa, oka := s.order[a]
	ob, okb := s.order[b]
	return oka && okb && oa < ob
}

// wrapsPage reports whether a semantic container holds the page's own
// chrome: a header with the site's navigation and not the article's title
// (an article's own head may hold its breadcrumbs) and a footer, outside
// any article, quote, figure or aside inside it (where a footer is an
// attribution). It is then the page's wrapper, as body is, and says
// nothing of where the content is.
func wrapsPage(n *html.Node) bool {
	var header, footer bool
	var walk func(*html.Node)
	walk = func(p *html.Node) {
		for c := p.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Article, atom.Blockquote, atom.Figure, atom.Aside:
				continue
			case atom.Header:
				if findElement(c, atom.Nav) != nil && findElement(c, atom.H1) == nil {
					header = true
				}
				continue
			case atom.Footer:
				footer = true
				continue
			}
			walk(c)
		}
	}
	walk(n)
	return header && footer
}

// titledElsewhere reports whether an element's first heading shown is a
// link to another page: a story's teaser, whose title leads to the story.
// A link to the page itself (a live blog's permalink to an update) is no
// other page, whatever its fragment or query.
func (s *selector) titledElsewhere(n *html.Node) bool {
	var h *html.Node
	var find func(p *html.Node)
	find = func(p *html.Node) {
		for c := p.FirstChild; c != nil && h == nil; c = c.NextSibling {
			if c.Type != html.ElementNode || s.stats[c] == nil {
				continue // not shown: an author's pane, a hidden title
			}
			if isHeading(c) {
				h = c
				return
			}
			find(c)
		}
	}
	find(n)
	if h == nil {
		return false
	}
	a := findElement(h, atom.A)
	if a == nil {
		return false
	}
	href := strings.TrimSpace(attr(a, "href"))
	if href == "" {
		return false
	}
	u, err := s.page.Parse(href)
	return err == nil && (u.Host != s.page.Host || u.Path != s.page.Path)
}

// postContent reports whether n is a site builder's widget for the
// post's own content (Elementor's "Post Content", which renders what
// the post says and nothing else), as articleBody names it: a page
// built of widgets has the post's sections in boxes of their own.
func postContent(n *html.Node) bool { return hasClass(n, "elementor-widget-theme-post-content") }

// postBody reports whether n says it is the post's body: itemprop
// articleBody, or a builder's post content widget (postContent).
func postBody(n *html.Node) bool {
	return strings.EqualFold(attr(n, "itemprop"), "articleBody") || postContent(n)
}
