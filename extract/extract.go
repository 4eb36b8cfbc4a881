package extract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"

	"github.com/heedhq/heed/internal/htmltree"
	"github.com/heedhq/heed/robots/directives"
)

// MaxInputBytes is the most HTML Extract reads; longer input is an error.
const MaxInputBytes = 32 << 20

// ErrTooLarge is wrapped by the error of input over MaxInputBytes.
var ErrTooLarge = errors.New("extract: input too large")

// MaxGrowth bounds the Markdown: it is at most MaxGrowth times as long as
// the input, in bytes, whatever the input (see the package doc).
const MaxGrowth = 4

// Document is what a page holds for a reader: its metadata, its main
// content as Markdown, every link on it, and its robots directives.
type Document struct {
	// URL is the page's address, the base its links were resolved against.
	URL         string `json:"url,omitempty"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Lang        string `json:"lang,omitempty"`
	// Author is who the document names as its author, where it does (a
	// PDF's document information, an EPUB's or DOCX's metadata).
	Author string `json:"author,omitempty"`
	// Canonical is the URL the page names as its canonical one, absolute.
	Canonical string `json:"canonical,omitempty"`
	// MarkdownAlternate is the http(s) URL of the page's own Markdown, as
	// its <link rel="alternate" type="text/markdown"> names it, absolute.
	MarkdownAlternate string `json:"markdown_alternate,omitempty"`
	// Published and Modified are the dates the page states, or zero.
	Published time.Time `json:"published,omitzero"`
	Modified  time.Time `json:"modified,omitzero"`
	// Markdown is the main content.
	Markdown string `json:"markdown"`
	// Links are the absolute http(s) URLs of every link on the whole page
	// (not only the main content), without fragments, in document order,
	// each once.
	Links []string `json:"links"`
	// Directives are the page's <meta name="robots"> and <meta name="heed">
	// directives. RobotsFor merges them with X-Robots-Tag for an agent.
	Directives []directives.Set `json:"directives,omitempty"`
}

// RobotsFor is what the page's robots directives say to an agent: its
// meta tags', and those of the X-Robots-Tag header values it was served
// with, merged (directives.For: the most restrictive value wins).
func (d *Document) RobotsFor(agent string, xRobotsTag []string) directives.Set {
	var sets []directives.Set
	for _, v := range xRobotsTag {
		sets = append(sets, directives.Parse(v)...)
	}
	return directives.For(agent, append(sets, d.Directives...)...)
}

// Options configure Extract. The zero value is usable.
type Options struct {
	// URL is where the page came from: relative links and images are
	// resolved against it (or against the page's <base href>).
	URL string
	// ContentType is the Content-Type header the page came with, whose
	// charset wins over the page's own declaration.
	ContentType string
	// Whole renders the whole body as the content, choosing no main part:
	// for fragments that are all content, such as a feed item's HTML.
	// Hidden elements (scripts, styles, hidden attributes) are still left
	// out.
	Whole bool
}

// Extract reads an HTML page in any charset and returns its document.
// It never fetches anything. Broken markup is read much as browsers read
// it (see internal/htmltree); elements nested deeper than 512 are read as
// children of the 512th.
func Extract(r io.Reader, opts Options) (*Document, error) {
	raw, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	if err != nil {
		return nil, fmt.Errorf("extract: read: %w", err)
	}
	return ExtractBytes(raw, opts)
}

// begin checks a body's size and reads the page's URL, as the base its
// relative links resolve against (as valid UTF-8): what every reader of
// a body does first.
func begin(raw []byte, opts Options) (pageURL string, base *url.URL, err error) {
	if len(raw) > MaxInputBytes {
		return "", nil, fmt.Errorf("%w: over %d bytes", ErrTooLarge, MaxInputBytes)
	}
	pageURL = strings.ToValidUTF8(opts.URL, "\uFFFD")
	if base, err = url.Parse(pageURL); err != nil {
		return "", nil, fmt.Errorf("extract: base URL: %w", err)
	}
	return pageURL, base, nil
}

// ExtractBytes is Extract for a page already in memory, which it does not
// copy.
func ExtractBytes(raw []byte, opts Options) (*Document, error) {
	pageURL, base, err := begin(raw, opts)
	if err != nil {
		return nil, err
	}
	// The charset: a byte order mark, then the Content-Type header, then
	// the page's own <meta> declaration, then UTF-8 if the page is valid
	// UTF-8, then a guess (as browsers do). Valid UTF-8 that is declared
	// or taken as UTF-8 is used as it is, without a copy.
	var text []byte
	if enc, name, certain := charset.DetermineEncoding(raw, opts.ContentType); (certain && name != "utf-8") || !utf8.Valid(raw) {
		if text, err = enc.NewDecoder().Bytes(raw); err != nil {
			return nil, fmt.Errorf("extract: decoding: %w", err)
		}
	} else {
		// The page is valid UTF-8, declared so or with nothing declared in
		// its first kilobyte: it is used as it is, less a byte order mark.
		text = bytes.TrimPrefix(raw, []byte("\xEF\xBB\xBF"))
	}
	if !utf8.Valid(text) {
		// Taken as UTF-8 from its first kilobyte, or declared so, but not
		// UTF-8 further on (or decoded as UTF-16 from a bad pair): each
		// run of bytes that are no character becomes U+FFFD.
		text = bytes.ToValidUTF8(text, []byte("\uFFFD"))
	}
	// What rendering may add to the text (prefixes, indentation, resolved
	// links) is budgeted by the characters the page holds, no more than
	// its bytes in any encoding.
	page := string(text)
	doc := fromTree(htmltree.Parse(page), base, pageURL, opts.Whole, utf8.RuneCountInString(page))
	// The tree's strings are slices of the page: what the document keeps
	// of them is copied, so that it does not keep the whole page alive.
	// (Links are built anew, and directives are parsed from a copy.)
	doc.Title, doc.Description = strings.Clone(doc.Title), strings.Clone(doc.Description)
	doc.Lang, doc.Canonical = strings.Clone(doc.Lang), strings.Clone(doc.Canonical)
	return doc, nil
}

// fromTree reads a document from a page's tree. budget is what rendering
// may add to the page's text (see renderer), and resolving its links to
// their hrefs (see links).
func fromTree(doc *html.Node, base *url.URL, pageURL string, whole bool, budget int) *Document {
	out := &Document{URL: pageURL, Links: []string{}}
	root := findElement(doc, atom.Html)
	body := findElement(doc, atom.Body)
	if root != nil {
		out.Lang = strings.TrimSpace(attr(root, "lang"))
	}
	if b := findElement(doc, atom.Base); b != nil {
		if u, err := base.Parse(strings.TrimSpace(attr(b, "href"))); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
			base = u
		}
	}
	m := readMeta(doc, base)
	out.Title, out.Description, out.Canonical, out.MarkdownAlternate = m.title, m.description, m.canonical, m.markdown
	out.Published, out.Modified, out.Directives = m.published, m.modified, m.directives
	if out.Lang == "" {
		out.Lang = m.lang
	}
	out.Links = links(doc, base, budget)
	if body == nil {
		return out
	}
	if whole {
		out.Markdown = newRenderer(base, hidden, budget).render(body)
		return out
	}
	c := selectContent(body, base, m)
	out.Markdown = c.markdown(base, budget)
	// The share of the page's prose the choice must say: a fifth of an
	// article, two fifths of another page (a landing page of many
	// sections says no more in one than in the next). (The page's prose
	// is compared first, alone: measuring what its class calls
	// boilerplate walks the page, and most pages pass.)
	fifths := 1
	if !c.article && !c.s.forum {
		fifths = 2
	}
	if letters := shownLetters(out.Markdown); 5*letters < fifths*c.s.bodyProse && 5*letters < fifths*(c.s.bodyProse-c.s.negativeProse(body, c.s.best)) {
		// Less than that, outside what its class calls boilerplate
		// (comments, sidebars): the choice missed the content (a listing
		// of small parts, a page built of widgets, one section of many).
		// The page less its boilerplate, if that says more.
		whole := content{s: c.s, nodes: []*html.Node{body}, roots: map[*html.Node]bool{body: true}, article: c.article, wraps: c.wraps}
		if md := whole.markdown(base, budget); len(md) > len(out.Markdown) {
			out.Markdown = md
		}
	}
	if out.Title == "" {
		if h := findElement(body, atom.H1); h != nil {
			out.Title = strings.Join(strings.Fields(textOf(h)), " ")
		}
	}
	if c.article {
		out.Markdown = dropTitle(out.Markdown, out.Title)
	}
	return out
}

// listMade reports whether content is laid out in lists rather than
// told in paragraphs: 30 list items or more, and more than three for each
// paragraph, outside the boxes its classes call chrome (a share bar, a
// box of related posts), whose lists an article has too. Such a page (a
// hub, a profile, a schedule, a directory) is no story, though its
// lists need not be most of its text.
func (s *selector) listMade(nodes []*html.Node) bool {
	items, paras := 0, 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			st := s.stats[c]
			if c.Type != html.ElementNode || st == nil || s.skip(c) || s.softBoilerplate(c) {
				continue
			}
			switch c.DataAtom {
			case atom.P:
				paras++
			case atom.Li:
				items++
			}
			walk(c)
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	return items >= 30 && items > 3*paras
}

// content is the main content chosen on a page: its nodes, the
// selector that chose them, and whether the page is an article.
type content struct {
	s       *selector
	nodes   []*html.Node
	roots   map[*html.Node]bool
	article bool
	wraps   map[*html.Node]bool // the elements that hold the page's main (revealed)
}

// selectContent chooses the main content under body.
func selectContent(body *html.Node, page *url.URL, m meta) content {
	// A product's page is no article, though its og:type says so (as some
	// shops write it); a post whose JSON-LD says it is one is, though a
	// review plugin adds a Product beside it.
	article := (m.article || postURL(page)) && !m.forum && !(m.product && !m.ldArticle) && !shopArchive(body)
	shown, panels, wraps := revealed(body)
	gone := func(n *html.Node) bool { return (hidden(n) || hardBoilerplate(n)) && !shown[n] }
	s := &selector{forum: m.forum, article: article, page: page, skip: gone, panels: panels, product: m.product}
	nodes := s.choose(body)
	if article && s.listMade(nodes) {
		// A page that says it is an article but is laid out in lists (a
		// hub, a profile, a schedule): its parts are not an article's
		// clutter.
		article = false
		s.article = false
	}
	if !article && !m.forum && !m.typed && len(nodes) == 1 && nodes[0].DataAtom == atom.Article && s.datedHead(nodes[0]) {
		// A page that says nothing of what it is, whose content is its
		// one article element, dated at its head: a post.
		article = true
		s.article = true
	}
	// In an article, blocks of teasers, link lists and forms inside the
	// content are clutter; on other pages they are often the content.
	roots := map[*html.Node]bool{}
	for _, n := range nodes {
		roots[n] = true
	}
	if article {
		s.markHead(nodes)
	}
	return content{s: s, nodes: nodes, roots: roots, article: article, wraps: wraps}
}

// markdown renders the content, less the blocks the block model leaves
// out; in an article, less its clutter too, unless that takes away most
// of its text.
func (c content) markdown(base *url.URL, budget int) string {
	drop := c.s.dropBlocks(c.nodes, c.skip(c.article))
	render := func(clean bool) string {
		skip := c.skip(clean)
		r := newRenderer(base, func(n *html.Node) bool { return skip(n) || drop[n] }, budget)
		var parts []string
		for _, n := range c.nodes {
			if md := r.render(n); md != "" {
				parts = append(parts, md)
			}
		}
		return strings.Join(parts, "\n\n")
	}
	md := render(c.article)
	if c.article {
		// Cleaning that takes away most of the text took the content with
		// the clutter: keep it all instead.
		prose := 0
		for _, n := range c.nodes {
			prose += c.s.stats[n].text - c.s.stats[n].link
		}
		if letters := shownLetters(md); float64(letters) < 0.5*float64(prose) {
			md = render(false)
		}
	}
	return md
}

// shownLetters counts the letters of Markdown that a reader sees, as
// countText counts a page's: a link's or picture's address is not read,
// though a page of teaser pictures renders more of it than of text.
func shownLetters(md string) int {
	// An escaped bracket ("\[[1](url)\](2019)") ends no link.
	letters, from := 0, 0
	for i := 0; i+1 < len(md); i++ {
		if md[i] != ']' || md[i+1] != '(' || escaped(md, i) {
			continue
		}
		n, _ := countText(md[from:i])
		letters += n
		// Past the address, to its closing parenthesis (an address may
		// hold balanced ones); a line's end closes it anyway.
		depth := 0
		j := i + 2
		for ; j < len(md) && md[j] != '\n'; j++ {
			if md[j] == '(' {
				depth++
			} else if md[j] == ')' {
				if depth == 0 {
					break
				}
				depth--
			}
		}
		i, from = j, min(j+1, len(md))
	}
	n, _ := countText(md[from:])
	return letters + n
}

// skip is what rendering the content leaves out; clean, the clutter
// inside an article's content too.
func (c content) skip(clean bool) func(*html.Node) bool {
	s := c.s
	// A box about the article goes only once its text has begun: not a
	// paper's list of authors at its head, nor the article itself in a
	// theme that calls it "author-single". Its first paragraph is looked
	// for once a box is met.
	var first *html.Node
	looked := false
	afterText := func(n *html.Node) bool {
		if !looked {
			looked, first = true, c.firstProse()
		}
		return first != nil && s.before(first, n)
	}
	return func(n *html.Node) bool {
		// The chosen content is the content, whatever its class says.
		return s.skip(n) || !c.roots[n] && !c.wraps[n] && (s.softBoilerplate(n) || s.actionBar(n) || navBar(n) || controlLabel(n) || ctaLink(n) || s.postNumber(n) || clean && (s.clutter(n) || s.metaLine(n) || s.leadsClutter(n) || s.aboutBox(n) && afterText(n)))
	}
}

// firstProse returns the content's first paragraph of prose (150
// letters or more, few of them links), or, in content of short
// paragraphs, the block that scored best.
func (c content) firstProse() *html.Node {
	for _, root := range c.nodes {
		for d := range descendants(root) {
			if st := c.s.stats[d]; d.DataAtom == atom.P && st != nil && prose(st) >= 150 && 5*st.link < st.text {
				return d
			}
		}
	}
	return c.s.best
}

// escaped reports whether the byte at i follows an odd number of
// backslashes: Markdown's escape, not markup.
func escaped(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// dropTitle takes an article's leading heading off its Markdown when it
// repeats the title, which the document carries already (and heed's
// frontmatter shows): the body starts with what the article says.
func dropTitle(md, title string) string {
	first, rest, _ := strings.Cut(md, "\n")
	h, ok := strings.CutPrefix(first, "# ")
	if !ok || title == "" {
		return md
	}
	h, t := plainTitle(unlink(h)), plainTitle(escapeText(title, false))
	if h == "" || !sameTitle(h, t) {
		return md
	}
	return strings.TrimLeft(rest, "\n")
}

// sameTitle reports whether a heading is the title, or the title's first
// part before a separator ("Harbour walls" of "Harbour walls | The Town
// Paper").
func sameTitle(h, t string) bool {
	if h == t {
		return true
	}
	rest, ok := strings.CutPrefix(t, h)
	if !ok {
		return false
	}
	rest = strings.TrimSpace(rest)
	for _, sep := range []string{"|", "-", "–", "—", ":", "·", "/", "«", "»"} {
		if strings.HasPrefix(rest, sep) {
			return true
		}
	}
	return false
}

// unlink is a Markdown heading's text with a link that makes all of it
// ("[Title](url)") taken to its text.
func unlink(h string) string {
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, ")") {
		if i := strings.LastIndex(h, "]("); i > 0 {
			return h[1:i]
		}
	}
	return h
}

// plainTitle is text written as Markdown, as a title is compared: without
// escapes and emphasis marks, spaces collapsed, lower case.
func plainTitle(s string) string {
	return strings.ToLower(clean(strings.NewReplacer("\\", "", "*", "", "_", "", "`", "").Replace(s)))
}

// hidden reports whether an element is never shown as text: scripts,
// styles, templates, embedded graphics and media, and elements hidden by
// attribute or inline style.
func hidden(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	if hiddenTag(n) {
		return true
	}
	if strings.EqualFold(attr(n, "role"), "tabpanel") && shownPanelBeside(n) {
		// A tab's panel is hidden until its tab is chosen: its content
		// is the page's, as the shown tab's is (a command for each
		// shell, an example in each language). A lone hidden panel (a
		// sign-in form) is hidden.
		return false
	}
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "popover":
			// A popover (a menu, a tip, a prompt) is not shown until it
			// is opened: the browser's own style hides it.
			return true
		case "class":
			if !mayHide(a.Val) {
				continue
			}
			// Text for screen readers only is shown where it speaks for a
			// price the eye sees (speaksFor).
			if h := classHiding(a.Val); h != notHidden && !(h == readerOnly && speaksFor(n)) {
				return true
			}
		case "aria-hidden":
			if ariaHidden(a.Val) {
				return true
			}
		case "style":
			if hiddenStyle(a.Val) {
				return true
			}
		}
	}
	return false
}

// ariaHidden reports whether an aria-hidden attribute's value hides its
// element from screen readers.
func ariaHidden(v string) bool {
	return strings.EqualFold(strings.TrimSpace(v), "true")
}

// siblingSteps step from a node to its previous sibling, and to its next.
var siblingSteps = [...]func(*html.Node) *html.Node{
	func(c *html.Node) *html.Node { return c.PrevSibling },
	func(c *html.Node) *html.Node { return c.NextSibling },
}

// hiddenStyle reports whether an inline style hides its element.
func hiddenStyle(style string) bool {
	if !strings.Contains(style, ":") {
		return false
	}
	v := strings.ToLower(strings.ReplaceAll(style, " ", ""))
	return strings.Contains(v, "display:none") || strings.Contains(v, "visibility:hidden")
}

// mayHide reports whether a class attribute may hold a word that
// hiddenClass takes: most do not, and are passed over without being split.
// Class words are compared in ASCII lower case, so that only ASCII upper
// case needs a closer look.
func mayHide(class string) bool {
	for i := range len(class) {
		if 'A' <= class[i] && class[i] <= 'Z' {
			return true // in any case: split and see
		}
	}
	for _, w := range []string{"hidden", "none", "only", "reader", "invisible", "for-sr", "location-popup", "visible-", "hide-for-", "desktop"} {
		if strings.Contains(class, w) {
			return true
		}
	}
	return false
}

// hiding is a way a class word hides an element, or shows it again.
type hiding uint8

const (
	notHidden  hiding = iota
	display           // display: none ("hidden", "d-none")
	visibility        // visibility: hidden ("invisible")
	readerOnly        // shown to screen readers only ("sr-only")
)

// shownPanelBeside reports whether a tab panel is one of a set of panels
// one of which is shown: itself, or one of its eight nearest element
// siblings on either side is a tab panel hidden by no attribute, class
// or style.
func shownPanelBeside(n *html.Node) bool {
	shown := func(p *html.Node) bool {
		if !strings.EqualFold(attr(p, "role"), "tabpanel") {
			return false
		}
		for _, a := range p.Attr {
			switch a.Key {
			case "hidden":
				return false
			case "aria-hidden":
				if ariaHidden(a.Val) {
					return false
				}
			case "class":
				if mayHide(a.Val) && hiddenByClass(a.Val) {
					return false
				}
			case "style":
				if hiddenStyle(a.Val) {
					return false
				}
			}
		}
		return true
	}
	if shown(n) {
		return true
	}
	for _, step := range siblingSteps {
		seen := 0
		for c := step(n); c != nil && seen < 8; c = step(c) {
			if c.Type != html.ElementNode {
				continue
			}
			seen++
			if shown(c) {
				return true
			}
		}
	}
	return false
}

// hiddenByClass reports whether a class attribute hides its element from a
// reader on a desktop (a screen 1280 pixels wide). Mobile-first variants
// that apply at that width ("md:hidden", "hidden lg:block", Bootstrap's
// "d-md-none", "d-none d-lg-flex") override the base words and smaller
// breakpoints; those that do not apply (max-*, larger or custom
// breakpoints, states such as focus or hover, print) are passed over.
func hiddenByClass(class string) bool {
	return classHiding(class) != notHidden
}

// classHiding says how a class attribute hides its element on a desktop
// (see hiddenByClass): from sight (display or visibility), or from sight
// but not from screen readers (readerOnly); notHidden if it does not.
func classHiding(class string) hiding {
	var level [4]int // the breakpoint that decided each way of hiding, 0 if none
	var hides [4]bool
	for c := range strings.FieldsSeq(class) {
		h, hide, l := classAtDesktop(lowerASCII(c))
		if h == notHidden || l < level[h] || l == level[h] && !hide {
			continue
		}
		level[h], hides[h] = l, hide
	}
	switch {
	case hides[display]:
		return display
	case hides[visibility]:
		return visibility
	case hides[readerOnly]:
		return readerOnly
	}
	return notHidden
}

// price reports whether a text is a price: more digits than letters,
// and a currency sign ("$30.00", "21 €"). A count ("14", "1.2K"), a
// version or a section's number ("3.2"), a rating or a footnote's number
// is none.
func price(t string) bool {
	digits, letters, money := 0, 0, false
	for _, r := range t {
		switch {
		case unicode.IsDigit(r):
			digits++
		case unicode.IsLetter(r):
			letters++
		case unicode.Is(unicode.Sc, r):
			money = true
		}
	}
	return money && letters < digits
}

// speaksFor reports whether an element shown to screen readers only
// stands beside an element hidden from them (aria-hidden="true") that
// shows a price: the reader's words for what the eye sees, as a shop's
// "Original price was: $30.00." beside the struck-out "$30.00". They say
// it, where the page says it twice. Beside a sign (×, «, ★), a count
// ("Slide 1 of 3", "1.2K comments"), a rating or a section's number, the
// label is a control's or the page's furniture, and stays out.
func speaksFor(n *html.Node) bool {
	for _, step := range siblingSteps {
		c := step(n)
		for c != nil && c.Type == html.TextNode && strings.TrimSpace(c.Data) == "" {
			c = step(c)
		}
		if c == nil || c.Type != html.ElementNode || !ariaHidden(attr(c, "aria-hidden")) {
			continue
		}
		if t, ok := boundedText(c, 200); ok && price(t) {
			return true
		}
	}
	return false
}

// classAtDesktop says what a class word (in ASCII lower case) does at a
// desktop's width: which way of hiding it sets, whether it hides or shows,
// and at which breakpoint (1 for none, 2 to 5 for sm to xl); notHidden if
// it does neither there.
func classAtDesktop(c string) (h hiding, hide bool, level int) {
	if i := strings.LastIndexByte(c, ':'); i > 0 {
		for v := range strings.SplitSeq(c[:i], ":") {
			l := breakpoints()[v]
			if l == 0 {
				return notHidden, false, 0 // max-md:, 2xl:, focus:, print:...
			}
			level = max(level, l)
		}
		switch u := c[i+1:]; {
		case displayValues()[u]:
			return display, false, level
		case u == "visible":
			return visibility, false, level
		case u == "not-sr-only":
			return readerOnly, false, level
		default:
			h = hiddenClass(u)
			return h, h != notHidden, level
		}
	}
	if rest, ok := strings.CutPrefix(c, "d-"); ok {
		if bp, value, ok := strings.Cut(rest, "-"); ok && breakpoints()[bp] > 0 {
			switch {
			case value == "none":
				return display, true, breakpoints()[bp]
			case displayValues()[value]:
				return display, false, breakpoints()[bp]
			}
			return notHidden, false, 0
		}
	}
	if desktopHidden(c) {
		return display, true, 1
	}
	if desktopShown(c) {
		// Beside a phone's class ("visible-xs visible-lg"), a desktop's
		// shows the element: it outranks it, as a wider breakpoint does.
		return display, false, breakpoints()["xl"]
	}
	h = hiddenClass(c)
	return h, h != notHidden, 1
}

// desktopHidden reports whether a class word (in ASCII lower case) of a
// framework's that is not mobile-first hides its element at a desktop's
// width: Squarespace's "hidden-up-md", Bootstrap 3's "hidden-lg" and
// "visible-xs" (visible on phones only), Foundation's "hide-for-large"
// and "show-for-small-only". A page that says a thing twice, once for
// phones and once for desktops, is read as a desktop shows it.
func desktopHidden(c string) bool {
	if bp, ok := strings.CutPrefix(c, "hidden-up-"); ok {
		return breakpoints()[bp] > 0
	}
	switch visibleSize(c) {
	case "xs", "sm", "md":
		return true
	}
	switch c {
	case "hidden-lg", "hide-for-large", "show-for-small-only", "show-for-medium-only":
		// Not "hide-for-medium": Foundation 6 hides at medium and up,
		// Foundation 5 at medium only.
		return true
	}
	return namedDesktopHidden(c)
}

// namedDesktopHidden reports whether a class word says in words, and
// in nothing else, that its element is hidden on a desktop, as site
// builders and themes end their words: Elementor's "elementor-hidden-
// desktop", Bulma's "is-hidden-desktop", Invision's
// "ipsResponsive_hideDesktop", "hide-on-desktop", "desktop-hide". A word
// that says more ("is-hidden-below-desktop", "hidden-until-desktop",
// "hidden-desktop-xl") is not taken at its word.
func namedDesktopHidden(c string) bool {
	if !strings.Contains(c, "desktop") {
		return false
	}
	parts := strings.FieldsFunc(c, func(r rune) bool { return r == '-' || r == '_' })
	hide := func(p string) bool { return p == "hide" || p == "hidden" }
	switch k := len(parts); {
	case k >= 1 && parts[k-1] == "hidedesktop":
		return true
	case k >= 2 && hide(parts[k-2]) && parts[k-1] == "desktop", k >= 2 && parts[k-2] == "desktop" && hide(parts[k-1]):
		return true
	case k >= 3 && hide(parts[k-3]) && (parts[k-2] == "on" || parts[k-2] == "for") && parts[k-1] == "desktop":
		return true
	}
	return false
}

// visibleSize is the size of a Bootstrap 3 "visible-<size>" class word
// ("visible-xs", "visible-md-block"), or "" for any other word
// ("visible-sm-up", which other frameworks mean from sm up).
func visibleSize(c string) string {
	size, ok := strings.CutPrefix(c, "visible-")
	if !ok {
		return ""
	}
	size, display, _ := strings.Cut(size, "-")
	switch display {
	case "", "block", "inline", "inline-block":
		return size
	}
	return ""
}

// desktopShown reports whether a class word shows its element at a
// desktop's width whatever else its classes say of narrower screens:
// Bootstrap 3's "visible-lg" beside "visible-xs" or "visible-md" (seen
// on phones and desktops, or on desktops only).
func desktopShown(c string) bool {
	return visibleSize(c) == "lg"
}

// hiddenClass says how a class word (in ASCII lower case, without a
// variant) hides its element, or shows it to screen readers only:
// "hidden", "sr-only", "visuallyhidden" (HTML5 Boilerplate),
// "element-invisible" (Drupal), "visually-hidden-focusable" (Bootstrap),
// "show-for-sr" (Foundation), and a site's own prefixed forms of them
// ("acme-sr-only"); "not-sr-only" undoes, and does not hide.
func hiddenClass(c string) hiding {
	switch c {
	case "hidden", "d-none", "is-hidden":
		return display
	case "elementor-location-popup":
		// Elementor's popup, which its script shows on a trigger (a
		// time, a scroll, leaving): hidden until then.
		return display
	case "invisible":
		return visibility
	case "visuallyhidden", "element-invisible", "visually-hidden-focusable", "show-for-sr":
		return readerOnly
	}
	if strings.Contains(c, ":") {
		return notHidden
	}
	for _, w := range []string{"visually-hidden", "sr-only", "screen-reader-text", "screen-reader-only"} {
		if c == w || strings.HasSuffix(c, "-"+w) && !strings.HasSuffix(c, "not-"+w) {
			return readerOnly
		}
	}
	return notHidden
}

var (
	// breakpoints are the mobile-first screen widths that apply on a
	// desktop, from the smallest: Tailwind's and Bootstrap's sm to xl.
	breakpoints   = sync.OnceValue(func() map[string]int { return map[string]int{"sm": 2, "md": 3, "lg": 4, "xl": 5} })
	displayValues = sync.OnceValue(func() map[string]bool {
		return map[string]bool{
			"block": true, "inline": true, "inline-block": true, "flex": true, "inline-flex": true, "grid": true, "inline-grid": true,
			"table": true, "inline-table": true, "table-row": true, "table-cell": true, "contents": true, "flow-root": true, "list-item": true,
		}
	})
)

// lowerASCII is s with ASCII letters in lower case, as browsers compare
// class names where they ignore case: no other letter becomes one of them.
func lowerASCII(s string) string {
	for i := range len(s) {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// treeRoot returns the root of the tree n is in: the document.
func treeRoot(n *html.Node) *html.Node {
	for n.Parent != nil {
		n = n.Parent
	}
	return n
}

// descendants yields the nodes under n in document order, as
// n.Descendants does, but in constant time a node however deep they are.
func descendants(n *html.Node) iter.Seq[*html.Node] {
	return func(yield func(*html.Node) bool) {
		for c := n.FirstChild; c != nil; {
			if !yield(c) {
				return
			}
			if c.FirstChild != nil {
				c = c.FirstChild
				continue
			}
			for c != n && c.NextSibling == nil {
				c = c.Parent
			}
			if c == n {
				return
			}
			c = c.NextSibling
		}
	}
}

func findElement(n *html.Node, a atom.Atom) *html.Node {
	for d := range descendants(n) {
		if d.Type == html.ElementNode && d.DataAtom == a {
			return d
		}
	}
	return nil
}

// resolver resolves links against a base URL, and says how much of the
// base each reads: resolving reads the whole base URL (but its query and
// fragment) for a relative path, its scheme and host for an absolute
// path, and nothing for a link with a scheme or host of its own.
type resolver struct {
	base, root       *url.URL // root: the base without its path
	baseLen, rootLen int
}

func newResolver(base *url.URL) *resolver {
	b, root := *base, *base
	b.RawQuery, b.ForceQuery, b.Fragment, b.RawFragment = "", false, "", ""
	root.Path, root.RawPath, root.RawQuery, root.ForceQuery, root.Fragment, root.RawFragment = "", "", "", false, "", ""
	return &resolver{base: base, root: &root, baseLen: len(b.String()), rootLen: len(root.String())}
}

// cost is how many bytes of the base resolving ref reads.
func (v *resolver) cost(ref *url.URL) int {
	switch {
	case ref.Scheme != "" || ref.Host != "" || ref.User != nil:
		return 0
	case strings.HasPrefix(ref.Path, "/"):
		return v.rootLen
	}
	return v.baseLen
}

// resolve is base.ResolveReference(ref), reading no more of the base than
// cost says.
func (v *resolver) resolve(ref *url.URL) *url.URL {
	if ref.Scheme == "" && ref.Host == "" && ref.User == nil && strings.HasPrefix(ref.Path, "/") {
		return v.root.ResolveReference(ref)
	}
	return v.base.ResolveReference(ref)
}

// links returns every http(s) link of the page, absolute, without
// fragments, each once. What resolving them adds to the hrefs as written
// is at most budget bytes in all, and so is the base URL that resolving
// relative ones reads: past either, links that would add more, or need
// the base, are left out (a long base URL copied into every relative
// link would otherwise multiply the page, or the time it takes).
func links(doc *html.Node, base *url.URL, budget int) []string {
	work, v := budget, newResolver(base)
	seen := map[string]bool{}
	read := map[string]bool{} // hrefs as written: pages repeat their links
	out := []string{}
	for n := range descendants(doc) {
		if n.Type != html.ElementNode || n.DataAtom != atom.A && n.DataAtom != atom.Area {
			continue
		}
		href := strings.TrimSpace(attr(n, "href"))
		if href == "" || strings.HasPrefix(href, "#") || read[href] {
			continue
		}
		read[href] = true
		ref, err := url.Parse(href)
		if err != nil {
			continue
		}
		if ref.Scheme == "" && base.Scheme != "http" && base.Scheme != "https" {
			continue
		}
		c := v.cost(ref)
		if c > work {
			continue
		}
		work -= c
		u := v.resolve(ref)
		if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			continue
		}
		u.Fragment, u.RawFragment = "", ""
		u.Host = strings.ToLower(u.Host)
		s := u.String()
		if seen[s] {
			continue
		}
		if extra := len(s) - len(href); extra > 0 {
			if extra > budget {
				continue
			}
			budget -= extra
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// meta is what a page's head (and a few body elements) say about it.
type meta struct {
	title, description, canonical, lang string
	markdown                            string // the Markdown alternate's URL
	published, modified                 time.Time
	directives                          []directives.Set
	article                             bool // og:type or JSON-LD says the page is an article
	ldArticle                           bool // JSON-LD says so (BlogPosting, NewsArticle...)
	forum                               bool // JSON-LD says it is a discussion
	product                             bool // og:type or JSON-LD says the page is a product's
	typed                               bool // og:type says what it is, article or not
}

// maxAlternateURL is the longest Markdown alternate's URL kept, as long
// as heed fetches.
const maxAlternateURL = 8 << 10

// isMarkdownType reports whether a type attribute names Markdown.
func isMarkdownType(t string) bool {
	mt, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(t)), ";")
	mt = strings.TrimSpace(mt)
	return mt == "text/markdown" || mt == "text/x-markdown"
}

func readMeta(doc *html.Node, base *url.URL) meta {
	var m meta
	var titleTag, ogTitle, ldTitle, ogDesc, desc string
	for n := range descendants(doc) {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.DataAtom {
		case atom.Title:
			if titleTag == "" && n.Namespace == "" && n.Parent != nil && n.Parent.DataAtom == atom.Head {
				titleTag = clean(textOf(n))
			}
		case atom.Meta:
			name := strings.ToLower(strings.TrimSpace(firstNonEmpty(attr(n, "name"), attr(n, "property"), attr(n, "itemprop"), attr(n, "http-equiv"))))
			content := strings.TrimSpace(attr(n, "content"))
			switch name {
			case "og:title", "twitter:title":
				ogTitle = firstNonEmpty(ogTitle, content)
			case "description":
				desc = firstNonEmpty(desc, content)
			case "og:description", "twitter:description":
				ogDesc = firstNonEmpty(ogDesc, content)
			case "og:type":
				m.article = m.article || strings.EqualFold(content, "article")
				m.product = m.product || strings.EqualFold(content, "product") || strings.HasPrefix(strings.ToLower(content), "product.")
				m.typed = m.typed || strings.TrimSpace(content) != ""
			case "robots", "heed":
				// A copy: the page is not kept with the directives.
				m.directives = append(m.directives, directives.ParseMeta(name, strings.Clone(content))...)
			case "content-language":
				m.lang = firstNonEmpty(m.lang, content)
			case "article:published_time", "datepublished", "date", "dc.date", "dc.date.issued", "dcterms.created", "dcterms.issued", "pubdate", "publish-date", "publishdate", "sailthru.date", "parsely-pub-date":
				if m.published.IsZero() {
					m.published = parseTime(content)
				}
			case "article:modified_time", "og:updated_time", "datemodified", "dcterms.modified", "last-modified":
				if m.modified.IsZero() {
					m.modified = parseTime(content)
				}
			}
		case atom.Link:
			if hasToken(attr(n, "rel"), "canonical") && m.canonical == "" {
				if u, err := base.Parse(strings.TrimSpace(attr(n, "href"))); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
					m.canonical = u.String()
				}
			}
			if hasToken(attr(n, "rel"), "alternate") && m.markdown == "" && isMarkdownType(attr(n, "type")) {
				if u, err := base.Parse(strings.TrimSpace(attr(n, "href"))); err == nil && (u.Scheme == "http" || u.Scheme == "https") && len(u.String()) <= maxAlternateURL {
					u.Fragment, u.RawFragment = "", ""
					m.markdown = u.String()
				}
			}
		case atom.Time:
			switch strings.ToLower(attr(n, "itemprop")) {
			case "datepublished":
				if m.published.IsZero() {
					m.published = parseTime(attr(n, "datetime"))
				}
			case "datemodified":
				if m.modified.IsZero() {
					m.modified = parseTime(attr(n, "datetime"))
				}
			}
		case atom.Script:
			if strings.EqualFold(strings.TrimSpace(attr(n, "type")), "application/ld+json") {
				ld := readJSONLD(textOf(n))
				if m.published.IsZero() {
					m.published = parseTime(ld.DatePublished)
				}
				if m.modified.IsZero() {
					m.modified = parseTime(ld.DateModified)
				}
				ldTitle = firstNonEmpty(ldTitle, ld.Headline)
				m.article = m.article || ld.article
				m.ldArticle = m.ldArticle || ld.article
				m.forum = m.forum || ld.forum
				m.product = m.product || ld.product
			}
		}
	}
	m.title = clean(firstNonEmpty(ogTitle, titleTag, ldTitle))
	m.description = clean(firstNonEmpty(desc, ogDesc))
	return m
}

// jsonLD is the part of a schema.org JSON-LD block that Extract reads.
type jsonLD struct {
	Headline      string
	DatePublished string
	DateModified  string
	article       bool // its @type is an Article, NewsArticle, BlogPosting...
	forum         bool // its @type is a DiscussionForumPosting
	product       bool // its @type is a Product
}

// readJSONLD reads the first object of a JSON-LD block that states a date
// or headline, looking into arrays and @graph.
func readJSONLD(s string) jsonLD {
	var v any
	if len(s) > 1<<20 || json.Unmarshal([]byte(s), &v) != nil {
		return jsonLD{}
	}
	var find func(v any, depth int) jsonLD
	find = func(v any, depth int) jsonLD {
		if depth > 4 {
			return jsonLD{}
		}
		switch t := v.(type) {
		case []any:
			for _, e := range t {
				if r := find(e, depth+1); r != (jsonLD{}) {
					return r
				}
			}
		case map[string]any:
			// Only the page's own object says what the page is: an
			// article, a discussion, a web page; not the items it lists.
			typ, _ := t["@type"].(string)
			var r jsonLD
			r.article = strings.HasSuffix(typ, "Article") || typ == "BlogPosting" || typ == "Report"
			r.forum = typ == "DiscussionForumPosting" || typ == "QAPage"
			r.product = typ == "Product"
			if r.article || r.forum || r.product || typ == "WebPage" {
				r.Headline, _ = t["headline"].(string)
				r.DatePublished, _ = t["datePublished"].(string)
				r.DateModified, _ = t["dateModified"].(string)
				return r
			}
			if g, ok := t["@graph"]; ok {
				return find(g, depth+1)
			}
		}
		return jsonLD{}
	}
	return find(v, 0)
}

var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999-0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02",
	time.RFC1123,
	time.RFC1123Z,
}

// parseTime reads a date as pages state it, or returns the zero time.
func parseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

func hasToken(list, token string) bool {
	for _, t := range strings.Fields(list) {
		if strings.EqualFold(t, token) {
			return true
		}
	}
	return false
}

func clean(s string) string { return strings.Join(strings.Fields(s), " ") }

// revealed returns the elements that hidden or hardBoilerplate would
// leave out but that hold the page's text, and of them the collapsed
// panels: a page does not hide most of what it
// says. A streamed page keeps its content in hidden containers that a
// script shows ("S:0", "S:1"), a page fades in from a wrapper hidden
// until its scripts run, and a stray unclosed aside or banner swallows
// the main element after it. When what is shown holds less than a
// quarter of the body's prose (the text outside links) and shows no main
// element, article or h1 with text of its own, the outermost hidden parts
// are shown again, unless they are mostly links (a menu) or say they are
// a modal, a popup or a drawer. An element that is boilerplate by its tag
// or role only (not hidden) is shown when it holds the page's main
// element. A collapsed panel that a control on the page names is shown
// too (controlledPanels). Elements hidden by what they are (scripts,
// styles, templates) stay hidden, and so does boilerplate by tag or role
// however long (a footer, a dialog). A streamed part (React's hidden
// "S:0", which its script moves into the shell) is shown whenever the
// shell shows less than a quarter of the body's prose, though the shell
// has a main of its own around a banner and its footer.
//
// wraps are the elements below body that hold a main element (or one
// whose role is main): a theme's wrappers around the content and its
// sidebar ("content-sidebar-wrap"), which are no box of chrome whatever
// their class says.
func revealed(body *html.Node) (shown, panels, wraps map[*html.Node]bool) {
	type count struct {
		text, link int
		main       bool // a main element is inside
	}
	var held []*html.Node // candidates, with their counts
	var outer []*html.Node
	counts := map[*html.Node]count{}
	titled := false // the shown page has a main, article or h1 with text
	var walk func(n *html.Node, inLink, inHidden bool) count
	walk = func(n *html.Node, inLink, inHidden bool) count {
		c := count{main: isMain(n)}
		holds := false // a main is below n
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			switch k.Type {
			case html.TextNode:
				letters, _ := countText(k.Data)
				c.text += letters
				if inLink {
					c.link += letters
				}
			case html.ElementNode:
				if hiddenTag(k) {
					continue
				}
				hides := hidden(k) && !hardBoilerplate(k)
				kc := walk(k, inLink || k.DataAtom == atom.A, inHidden || hides)
				c.text += kc.text
				c.link += kc.link
				c.main = c.main || kc.main
				holds = holds || kc.main
				if !inHidden && !hides && kc.text > 0 && (k.DataAtom == atom.Main || k.DataAtom == atom.Article || k.DataAtom == atom.H1) {
					titled = true
				}
				if hidden(k) || hardBoilerplate(k) {
					held = append(held, k)
					counts[k] = kc
					if hides && !inHidden {
						outer = append(outer, k)
					}
				}
			}
		}
		if holds && n != body {
			if wraps == nil {
				wraps = map[*html.Node]bool{}
			}
			wraps[n] = true
		}
		return c
	}
	all := walk(body, false, false)
	bodyProse := all.text - all.link
	hiddenProse := 0
	for _, n := range outer {
		hiddenProse += counts[n].text - counts[n].link
	}
	thin := bodyProse > 0 && 4*(bodyProse-hiddenProse) < bodyProse
	shell := !titled && thin
	controlled := controlledPanels(body)
	show := func(n *html.Node) {
		if shown == nil {
			shown = map[*html.Node]bool{}
		}
		shown[n] = true
	}
	for _, n := range outer {
		if c := counts[n]; (shell || thin && streamedPart(n)) && c.text > c.link && 4*c.link < 3*c.text && !overlayClass(n) {
			show(n)
		}
	}
	for _, n := range held {
		c := counts[n]
		holdsMain := !hidden(n) && c.main && !isMain(n)
		// A collapsed panel (an accordion's answer, a "read more") is
		// shown by the control that names it: the page's text, unless
		// it is mostly links (a menu a button opens).
		panel := controlled[attr(n, "id")] && !hardBoilerplate(n) && c.text > 0 && 2*c.link < c.text && !overlayClass(n)
		if holdsMain || panel {
			show(n)
		}
		if panel {
			if panels == nil {
				panels = map[*html.Node]bool{}
			}
			panels[n] = true
		}
	}
	return shown, panels, wraps
}

// streamedPart reports whether n is a part of a page streamed by React
// (a hidden div whose id is "S:" and a number), which a script moves into
// its place in the shell as it arrives.
func streamedPart(n *html.Node) bool {
	id, ok := strings.CutPrefix(attr(n, "id"), "S:")
	if !ok || id == "" || n.DataAtom != atom.Div {
		return false
	}
	for _, r := range id {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// overlayClass reports whether an element's class or id says it is laid
// over the page when shown: a modal, a popup, a drawer, a lightbox.
func overlayClass(n *html.Node) bool {
	for _, w := range splitClass(attr(n, "class"), attr(n, "id")) {
		switch w {
		case "modal", "popup", "overlay", "offcanvas", "drawer", "lightbox", "dialog", "popover":
			return true
		}
	}
	return false
}

// hiddenTag reports whether an element is hidden for what it is (a
// script, a style, an embedded graphic), whatever the page does with it.
func hiddenTag(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Math, atom.Iframe,
		atom.Object, atom.Embed, atom.Canvas, atom.Video, atom.Audio, atom.Source, atom.Track,
		atom.Head, atom.Link, atom.Meta, atom.Title, atom.Map, atom.Area, atom.Frame, atom.Frameset:
		return true
	}
	return n.Namespace == "svg" || n.Namespace == "math"
}

// isMain reports whether n is a main element, or one whose role is main.
func isMain(n *html.Node) bool {
	return n.DataAtom == atom.Main || strings.EqualFold(attr(n, "role"), "main")
}

// controlledPanels are the ids that the page's controls say they show
// or hide: aria-controls, and Bootstrap's collapse targets ("#id").
func controlledPanels(body *html.Node) map[string]bool {
	var ids map[string]bool
	add := func(id string) {
		if id == "" {
			return
		}
		if ids == nil {
			ids = map[string]bool{}
		}
		ids[id] = true
	}
	for n := range descendants(body) {
		if n.Type != html.ElementNode || len(n.Attr) == 0 {
			continue
		}
		for _, a := range n.Attr {
			switch a.Key {
			case "aria-controls":
				for id := range strings.FieldsSeq(a.Val) {
					add(id)
				}
			case "data-bs-target", "data-target":
				if id, ok := strings.CutPrefix(strings.TrimSpace(a.Val), "#"); ok {
					add(id)
				}
			}
		}
	}
	return ids
}

// shopArchive reports whether body is a WooCommerce shop's or product
// category's (body class "post-type-archive-product", "tax-product_cat",
// "tax-product_tag"): a listing of products, whatever its metadata says
// of it (an SEO plugin may call every page an article).
func shopArchive(body *html.Node) bool {
	return hasClass(body, "post-type-archive-product", "tax-product_cat", "tax-product_tag")
}

// postURL reports whether a page's address is a post's: its last segment
// a slug of three or more words, under a segment that names a blog or
// news section ("/blog/how-to-set-up-a-desk"), and not under one that
// names a listing of posts (a category, a tag, an author). A help centre
// files its pages as articles too ("/hc/en-us/articles/360001-how-to"):
// they are documentation, whose tables of links and screenshots are its
// content, so an address on a help or documentation host or path is no
// post's.
func postURL(u *url.URL) bool {
	if u == nil {
		return false
	}
	for label := range strings.SplitSeq(strings.ToLower(u.Hostname()), ".") {
		if helpWord(label) {
			return false
		}
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(segs) < 2 {
		return false
	}
	words := 0
	for range strings.FieldsFuncSeq(segs[len(segs)-1], func(r rune) bool { return r == '-' || r == '_' }) {
		words++
	}
	if words < 3 {
		return false
	}
	post := false
	for _, seg := range segs[:len(segs)-1] {
		seg = strings.ToLower(seg)
		switch {
		case helpWord(seg):
			return false
		case seg == "blog" || seg == "blogs" || seg == "news" || seg == "article" || seg == "articles" ||
			seg == "post" || seg == "posts" || seg == "story" || seg == "stories":
			post = true
		case listingWord(seg):
			return false // a listing of posts, under a blog
		}
	}
	return post
}

// helpWord reports whether a host's label or a path's segment names a
// help centre or documentation.
func helpWord(w string) bool {
	switch w {
	case "help", "hc", "helpcenter", "help-center", "support", "kb", "knowledgebase", "knowledge-base",
		"docs", "doc", "documentation", "solutions", "faq", "faqs", "manual":
		return true
	}
	return false
}

// listingWord reports whether a path's segment names a listing of a
// blog's posts.
func listingWord(w string) bool {
	switch w {
	case "category", "categories", "tag", "tags", "tagged", "topic", "topics", "author", "authors",
		"page", "archive", "archives":
		return true
	}
	return false
}
