package extract

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// renderer writes an HTML subtree as Markdown: ATX headings, nested lists,
// GFM tables, fenced code with its language, blockquotes, images and links
// made absolute. It writes no raw HTML.
//
// What it writes is bounded by what it reads: the text of the page, each
// character escaped at most, and for each element a few bytes of marks
// (heading marks, fences, table pipes, list markers...), never copied per
// line, per cell or per level of nesting, but for two things that are,
// which share a budget: the prefixes and indentation of quotes and
// lists, which every line they hold is given, and the base URL that link
// resolution puts before every relative link. Past the budget, a quote
// or a list is written flat, without them, and a link as the page wrote
// it (a relative link stays relative). Resolving a relative link costs
// time and memory for the whole base URL, whatever it adds: that has a
// budget of its own (the same size), so that a long base URL and many
// distinct links that keep little of it ("../x1", "../x2") cost no more
// than their product allows; past it, relative links are written as the
// page wrote them too.
type renderer struct {
	base *url.URL
	skip func(*html.Node) bool // nodes left out (boilerplate, hidden)

	// spare is how many bytes quotes' and lists' prefixes and link
	// resolution may still add; work is how many bytes of base URL
	// resolving relative links may still read.
	spare, work int
	resolver    *resolver

	// nest counts the constructs being rendered into Markdown of their own
	// to be indented, prefixed or joined (quotes, lists, tables, headings).
	// Past maxNest they are rendered flat, so that hostile nesting costs
	// at most maxNest copies of the text, not one per level.
	nest      int
	blockMemo map[*html.Node]bool
	tableMemo map[*html.Node]bool
	hrefMemo  map[string]target     // href, resolved: pages repeat their links
	figMemo   map[*html.Node]figure // a figure's captioned image and caption
	langMemo  map[*html.Node]string // the language a code block's wrapper names
	ids       map[string]*html.Node // the document's elements by id, for tabs' labels
	labels    map[string]string     // tabs' labels by id, read once each
}

// admonitionKinds are the kinds of callout documentation sets apart from
// its text.
var admonitionKinds = []string{"note", "warning", "tip", "caution", "important", "danger", "hint", "attention", "error", "info", "seealso", "todo"}

// admonition returns the kind of callout n is ("note", "warning", ...),
// or "": a div, aside or section whose class says "admonition",
// "callout" or "markdown-alert" (Sphinx, MkDocs, GitHub), or names a
// kind with a title first in it (DocBook's div.note and its h3.title).
func admonition(n *html.Node) string {
	switch n.DataAtom {
	case atom.Div, atom.Aside, atom.Section:
	default:
		return ""
	}
	class := attr(n, "class")
	if class == "" {
		return ""
	}
	tokens := strings.FieldsFunc(strings.ToLower(class), func(r rune) bool { return !('a' <= r && r <= 'z') })
	marked := false
	kind := ""
	for _, t := range tokens {
		switch {
		case t == "admonition" || t == "callout" || t == "alert" && slices.Contains(tokens, "markdown"):
			marked = true
		case kind == "" && slices.Contains(admonitionKinds, t):
			kind = t
		}
	}
	if !marked && (kind == "" || admonitionTitle(n) == nil) {
		return ""
	}
	if kind == "" {
		kind = "callout" // marked, of no kind it names: titled only by its own title
	}
	return kind
}

// admonitionTitle is a callout's title: its first element, when that is
// short and a heading, or classed as a title.
func admonitionTitle(n *html.Node) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode && strings.TrimSpace(c.Data) != "" {
			return nil
		}
		if c.Type != html.ElementNode {
			continue
		}
		if t, ok := shortText(c, 60); !ok || t == "" {
			return nil
		}
		if isHeading(c) || strings.Contains(strings.ToLower(attr(c, "class")), "title") {
			return c
		}
		return nil
	}
	return nil
}

// admonition writes a callout as a quote that opens with its title in
// bold (its own, or its kind's name): "> **Warning**".
func (b *block) admonition(n *html.Node, kind string) {
	if !b.r.enter() {
		b.flat(n)
		return
	}
	defer b.r.leave()
	t := admonitionTitle(n)
	s := &block{r: b.r}
	switch {
	case t != nil && isHeading(t):
		// A title that is a heading stays one, in the quote.
	case t != nil:
		// Its own title, links and code and all.
		if title := strings.TrimSuffix(b.inlineOf(t), ":"); title != "" {
			s.add("**" + title + "**")
		}
	case kind != "callout":
		s.add("**" + strings.ToUpper(kind[:1]) + kind[1:] + "**")
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c != t || isHeading(c) {
			s.node(c)
		}
	}
	inner := s.finish()
	if lines, blank := countLines(inner); b.r.spend(2*lines - blank) {
		b.add(prefixLines(inner, "> ", ">"))
	} else {
		b.add(inner) // past the budget: flat
	}
}

// maxLabel is the longest tab label written.
const maxLabel = 80

// tabLabel is the text of the tab that labels a tab panel (its
// aria-labelledby), or "". The document's ids are read once.
func (r *renderer) tabLabel(panel *html.Node) string {
	id := strings.TrimSpace(attr(panel, "aria-labelledby"))
	if id == "" || strings.ContainsAny(id, " \t\n") {
		return ""
	}
	if r.ids == nil {
		r.ids = map[string]*html.Node{}
		for n := range descendants(treeRoot(panel)) {
			if v := attr(n, "id"); v != "" {
				if _, ok := r.ids[v]; !ok {
					r.ids[v] = n
				}
			}
		}
	}
	tab := r.ids[id]
	if tab == nil || contains(panel, tab) {
		return ""
	}
	if l, ok := r.labels[id]; ok {
		return l
	}
	label, ok := shortText(tab, maxLabel)
	if !ok {
		label = ""
	}
	if r.labels == nil {
		r.labels = map[string]string{}
	}
	r.labels[id] = label
	return label
}

// shortText is n's text, its white space collapsed, when it is at most
// max bytes; ok is false, and no more of n is read, when it is longer.
// (A label or a title is short: one that is not costs no more than max
// to find out, however many ask.)
func shortText(n *html.Node, max int) (string, bool) {
	raw, ok := boundedText(n, 4*max)
	t := clean(raw)
	return t, ok && len(t) <= max
}

// boundedText is n's text as written, when it is at most max bytes in
// at most max nodes; ok is false, and no more of n is read, past either.
func boundedText(n *html.Node, max int) (string, bool) {
	var b strings.Builder
	seen := 0
	for d := range descendants(n) {
		if seen++; seen > max {
			return "", false
		}
		if d.Type == html.TextNode {
			if b.Len()+len(d.Data) > max {
				return "", false
			}
			b.WriteString(d.Data)
		}
	}
	return b.String(), true
}

// newRenderer is a renderer whose prefixes and link resolution may add
// budget bytes.
func newRenderer(base *url.URL, skip func(*html.Node) bool, budget int) *renderer {
	return &renderer{base: base, skip: skip, spare: budget, work: budget, resolver: newResolver(base)}
}

// spend takes n bytes from the budget if it has them.
func (r *renderer) spend(n int) bool {
	if n > r.spare {
		return false
	}
	r.spare -= max(n, 0)
	return true
}

// maxNest is how deep quotes, lists and the like keep their structure.
const maxNest = 8

func (r *renderer) enter() bool {
	if r.nest >= maxNest {
		return false
	}
	r.nest++
	return true
}

func (r *renderer) leave() { r.nest-- }

// block is Markdown being built: finished blocks, and the inline text of
// the paragraph under way.
type block struct {
	r      *renderer
	blocks []string
	inline strings.Builder
	space  bool // a space is owed before the next inline text
	// bangs are the offsets in inline of "!"s of text that a link
	// follows at once, to be escaped at flush, so that "!" and a link
	// ("impl !Send", a "!" before a trait's link) do not read as an image.
	bangs []int
	// pending are emphasis marks opened but not yet written: they are
	// written with the first text inside them, so that an element with
	// no text leaves no marks.
	pending []string
	active  map[string]int // marks open, so that <b><b>x</b></b> is **x**
	bare    bareLinkTail   // whether inline ends in what may be a bare link
}

func (r *renderer) render(n *html.Node) string {
	b := &block{r: r}
	b.node(n)
	return b.finish()
}

// finish returns the blocks, separated by blank lines.
func (b *block) finish() string {
	b.flush()
	return strings.Join(b.blocks, "\n\n")
}

// flush ends the paragraph under way.
func (b *block) flush() {
	raw := b.inline.String()
	if len(b.bangs) > 0 {
		var e strings.Builder
		e.Grow(len(raw) + len(b.bangs))
		prev := 0
		for _, at := range b.bangs {
			e.WriteString(raw[prev:at])
			e.WriteByte('\\')
			prev = at
		}
		e.WriteString(raw[prev:])
		raw = e.String()
		b.bangs = b.bangs[:0]
	}
	if s := strings.TrimSpace(raw); s != "" {
		b.blocks = append(b.blocks, strings.TrimRight(s, "\\ \n"))
	}
	b.inline.Reset()
	b.bare = bareLinkTail{}
	b.space = false
	b.pending = b.pending[:0]
}

func (b *block) add(s string) {
	b.flush()
	if s = strings.Trim(s, "\n"); strings.TrimSpace(s) != "" {
		b.blocks = append(b.blocks, s)
	}
}

// children renders n's children into b.
func (b *block) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.node(c)
	}
}

// sub renders n's children as a document of their own.
func (b *block) sub(n *html.Node) string {
	s := &block{r: b.r}
	s.children(n)
	return s.finish()
}

func (b *block) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		b.text(n.Data)
		return
	case html.DocumentNode:
		b.children(n)
		return
	case html.ElementNode:
	default:
		return
	}
	if b.r.skip(n) {
		return
	}
	if kind := admonition(n); kind != "" {
		b.admonition(n, kind)
		return
	}
	if strings.EqualFold(attr(n, "role"), "tabpanel") {
		// Every tab's panel is written, each under its tab's label.
		if label := b.r.tabLabel(n); label != "" {
			b.add("**" + escapeText(label, false) + "**")
		}
	}
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		level := int(n.Data[1] - '0')
		if text := b.inlineOf(n); text != "" {
			b.add(strings.Repeat("#", level) + " " + text)
		}
	case atom.P:
		b.flush()
		b.children(n)
		b.flush()
	case atom.Br:
		switch in := b.inline.String(); {
		case strings.HasSuffix(in, "\\\n") || strings.HasSuffix(in, "  \n"):
			if !b.inMarks() {
				b.flush() // two line breaks in a row end the paragraph
			}
		case strings.HasSuffix(in, "\\"):
			// After an escaped backslash, a backslash break is misread by
			// some CommonMark parsers (goldmark), which then take the next
			// line's first escape for none: two spaces break it instead.
			b.inline.WriteString("  \n")
			b.space = false
		case b.inline.Len() > 0:
			b.inline.WriteString("\\\n")
			b.space = false
		}
	case atom.Hr:
		b.add("---")
	case atom.Pre:
		b.add(b.r.code(n))
	case atom.Div:
		if code := b.r.lineCode(n); code != "" {
			b.add(code)
			return
		}
		b.flush()
		b.children(n)
		b.flush()
	case atom.Blockquote:
		if !b.r.enter() {
			b.flat(n)
			return
		}
		if inner := b.sub(n); inner != "" {
			if lines, blank := countLines(inner); b.r.spend(2*lines - blank) {
				b.add(prefixLines(inner, "> ", ">"))
			} else {
				b.add(inner) // past the budget: flat
			}
		}
		b.r.leave()
	case atom.Ul, atom.Ol, atom.Menu:
		if !b.r.enter() {
			b.flat(n)
			return
		}
		if b.r.sectionList(n) {
			// A list that lays out sections (javadoc's summary and
			// details), each item opening with its heading: the sections,
			// as sections, not list items.
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && !b.r.skip(c) {
					b.children(c)
				}
			}
		} else if list := b.r.list(n); list != "" {
			b.add(list)
		}
		b.r.leave()
	case atom.Table:
		if !b.r.enter() {
			b.flat(n)
			return
		}
		b.add(b.r.table(n))
		b.r.leave()
	case atom.Dl:
		b.flush()
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && b.r.skip(c) {
				continue // a hidden term or definition, as anything hidden
			}
			switch c.DataAtom {
			case atom.Dt:
				if t := b.inlineOf(c); t != "" {
					b.add("**" + t + "**")
				}
			case atom.Dd:
				b.flush()
				b.children(c)
				b.flush()
			default:
				b.node(c)
			}
		}
	case atom.Img:
		b.inlineText(b.r.image(n))
	case atom.A:
		b.link(n)
	case atom.Strong, atom.B:
		b.wrap(n, "**")
	case atom.Em, atom.I, atom.Cite, atom.Dfn:
		b.wrap(n, "*")
	case atom.Del, atom.S, atom.Strike:
		b.wrap(n, "~~")
	case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
		if b.r.hasBlock(n) {
			b.add(b.r.code(n))
			return
		}
		b.inlineText(codeSpan(textOf(n)))
	case atom.Figcaption:
		if b.r.figure(n.Parent).img != nil {
			return // written as the title of the figure's image
		}
		if t := b.inlineOf(n); t != "" {
			b.add(t)
		}
	case atom.Summary, atom.Caption:
		if n.DataAtom == atom.Summary && findHeading(n) {
			// A summary that holds a heading (rustdoc's impl and method
			// headers) is a heading and what goes with it: blocks.
			b.flat(n)
			return
		}
		if t := b.inlineOf(n); t != "" {
			b.add(t)
		}
	default:
		if isBlock(n) {
			b.flush()
			b.children(n)
			b.flush()
			return
		}
		b.children(n)
	}
}

// inMarks reports whether an emphasis element is open.
func (b *block) inMarks() bool {
	for _, n := range b.active {
		if n > 0 {
			return true
		}
	}
	return false
}

// atLineStart reports whether inline text written now starts a line.
func (b *block) atLineStart() bool {
	return len(b.pending) == 0 && (b.inline.Len() == 0 || strings.HasSuffix(b.inline.String(), "\n"))
}

// emit adds ready-made inline Markdown to the paragraph under way, after
// the space and the marks it is owed.
func (b *block) emit(s string) {
	if b.space && b.inline.Len() > 0 && !strings.HasSuffix(b.inline.String(), "\n") {
		b.inline.WriteByte(' ')
	} else if len(b.pending) == 0 && strings.HasPrefix(s, "`") && strings.HasSuffix(b.inline.String(), "`") {
		// Two code spans that touch (<code>a</code><code>b</code>): their
		// backticks would make one run, which closes neither.
		b.inline.WriteByte(' ')
	} else if codeInWord(s) && openIn(&b.bare, b.inline.String()) {
		// A bare link before a code span would take in its backticks.
		b.inline.WriteByte(' ')
	}
	for _, m := range b.pending {
		b.inline.WriteString(m)
	}
	b.pending = b.pending[:0]
	b.inline.WriteString(s)
	b.space = false
}

// invisible are the characters that show nothing: a word made of them
// alone (a paragraph of one zero-width joiner, as some site builders
// leave) is no word. Within words they stay (emoji sequences, Persian).
const invisible = "\u200b\u200c\u200d\u2060\ufeff"

// text adds text to the paragraph under way, collapsing whitespace.
func (b *block) text(s string) {
	if s == "" {
		return
	}
	lead, trail := startSpace(s), endSpace(s)
	text, plain := collapsed(s)
	if !plain {
		words := strings.Fields(s)
		if strings.ContainsAny(s, invisible) {
			n := len(words)
			words = slices.DeleteFunc(words, func(w string) bool { return strings.Trim(w, invisible) == "" })
			if len(words) == 0 && n == 1 && !lead && !trail {
				return // a zero-width character alone between two words joins them
			}
		}
		text = strings.Join(words, " ")
	}
	if text == "" {
		b.space = b.space || b.inline.Len() > 0
		return
	}
	b.space = b.space || lead
	b.emit(escapeText(text, b.atLineStart()))
	b.space = trail
}

// collapsed is s as words joined by single spaces, and plain true, when s
// is that already: no space at either end, none doubled, no other
// whitespace and no invisible characters. Text nodes mostly are, and are
// then used without a copy.
func collapsed(s string) (text string, plain bool) {
	space := true // before the first byte, as if after a space
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == ' ':
				if space {
					return "", false
				}
				space = true
			case c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
				return "", false
			default:
				space = false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) || strings.ContainsRune(invisible, r) {
			return "", false
		}
		space = false
		i += size
	}
	if space {
		return "", false // empty, or a space at the end
	}
	return s, true
}

// inlineText adds ready-made Markdown to the paragraph under way.
func (b *block) inlineText(s string) {
	if s != "" {
		b.emit(s)
	}
}

// flat renders n's content as plain blocks, without the structure its
// element would give it (past maxNest).
func (b *block) flat(n *html.Node) {
	b.flush()
	b.children(n)
	b.flush()
}

// findHeading reports whether a heading is inside n.
func findHeading(n *html.Node) bool {
	for d := range descendants(n) {
		if isHeading(d) {
			return true
		}
	}
	return false
}

// bareBang reports whether s ends with a "!" that no backslash escapes.
func bareBang(s string) bool {
	return strings.HasSuffix(s, "!") && !escaped(s, len(s)-1)
}

// inlineOf renders n's content as one line of inline Markdown; past
// maxNest, as its plain text.
func (b *block) inlineOf(n *html.Node) string {
	if !b.r.enter() {
		return escapeText(clean(textOf(n)), false)
	}
	defer b.r.leave()
	s := &block{r: b.r}
	s.children(n)
	return oneLine(s.finish())
}

// wrap renders an inline element between emphasis marks, streaming its
// content into the paragraph (nesting costs no copies).
func (b *block) wrap(n *html.Node, mark string) {
	if b.r.hasBlock(n) || b.active[mark] > 0 {
		b.children(n)
		return
	}
	if startsWithSpace(n) {
		b.space = b.space || b.inline.Len() > 0
	}
	if b.active == nil {
		b.active = map[string]int{}
	}
	b.pending = append(b.pending, mark)
	depth := len(b.pending)
	b.active[mark]++
	b.children(n)
	b.active[mark]--
	if len(b.pending) >= depth {
		b.pending = b.pending[:depth-1] // no text inside: no marks
		return
	}
	trail := b.space
	b.inline.WriteString(mark)
	b.space = trail
}

func (b *block) link(n *html.Node) {
	if b.r.hasBlock(n) {
		b.children(n)
		return
	}
	if permalink(n) {
		return
	}
	text := b.inlineOf(n)
	href := b.r.href(attr(n, "href"))
	if startsWithSpace(n) {
		b.space = b.space || b.inline.Len() > 0
	}
	switch {
	case text == "":
		return // an empty link is dropped
	case href == "":
		b.inlineText(text) // an unsafe or empty target: the text is kept
	default:
		if !b.space && len(b.pending) == 0 && bareBang(b.inline.String()) {
			b.bangs = append(b.bangs, b.inline.Len()-1)
		}
		// A label in brackets ("[1]", "[email protected]") keeps them
		// outside the link, where they read the same and do not end its
		// text for a reader that takes Markdown apart by pattern.
		pre, post := "", ""
		if inner, ok := bracketed(text); ok {
			pre, post, text = `\[`, `\]`, inner
		}
		b.inlineText(pre + "[" + text + "](" + href + ")" + post)
	}
	b.space = endsWithSpace(n)
}

// bracketed returns escaped Markdown text without the escaped brackets
// that enclose it, if they do, it is more than them, and no other
// bracket stands inside ("[a] and [b]" is two bracketed phrases, not
// one).
func bracketed(text string) (string, bool) {
	inner, ok := strings.CutPrefix(text, `\[`)
	if !ok {
		return "", false
	}
	inner, ok = strings.CutSuffix(inner, `\]`)
	return inner, ok && strings.TrimSpace(inner) != "" && !strings.Contains(inner, `\[`) && !strings.Contains(inner, `\]`)
}

// permalink reports whether a link is a heading's anchor, such as
// <a class="headerlink" href="#usage">¶</a>: a link to a fragment whose
// text is a symbol or nothing.
func permalink(n *html.Node) bool {
	href := strings.TrimSpace(attr(n, "href"))
	if !strings.HasPrefix(href, "#") {
		return false
	}
	for _, r := range textOf(n) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// href resolves a link target, keeping only http, https and mailto. What
// resolving adds to the target as written is taken from the budget; past
// it, the target is written as the page wrote it.
func (r *renderer) href(raw string) string {
	t, ok := r.hrefMemo[raw]
	if !ok {
		t = r.resolve(raw)
		if r.hrefMemo == nil {
			r.hrefMemo = map[string]target{}
		}
		r.hrefMemo[raw] = t
	}
	if t.full != "" && r.spend(len(t.full)-len(t.plain)) {
		return t.full
	}
	return t.plain
}

// target is a link target, resolved (full) and as written (plain), or
// neither when it is unsafe or empty; plain only, when resolving it was
// past the budget.
type target struct{ full, plain string }

// resolve is href's target, not remembered.
func (r *renderer) resolve(raw string) target {
	raw = strings.TrimSpace(raw)
	if raw == "" || strings.HasPrefix(raw, "#") {
		return target{}
	}
	ref, err := url.Parse(raw)
	if err != nil {
		return target{}
	}
	if ref.Scheme == "" && r.base.Scheme == "" && r.base.Host == "" {
		// No base URL to resolve against: keep a relative link as written.
		return target{escapeURL(ref.String()), asWritten(raw)}
	}
	if !safeScheme(ref.Scheme) && (ref.Scheme != "" || !safeScheme(r.base.Scheme)) {
		return target{}
	}
	c := r.resolver.cost(ref)
	if c > r.work {
		return target{plain: asWritten(raw)} // past the budget: as written
	}
	r.work -= c
	u := r.resolver.resolve(ref)
	if !safeScheme(u.Scheme) {
		return target{}
	}
	return target{escapeURL(u.String()), asWritten(raw)}
}

// safeScheme reports whether links to a scheme are kept: http, https and
// mailto.
func safeScheme(scheme string) bool {
	switch strings.ToLower(scheme) {
	case "http", "https", "mailto":
		return true
	}
	return false
}

// asWritten is a link target as the page wrote it, with what would end
// it or break it in a Markdown link (white space and control characters,
// parentheses, angle brackets, backslashes) percent-encoded.
func asWritten(raw string) string {
	var b strings.Builder
	done := 0 // raw[:done] is in b
	for i := range len(raw) {
		if c := raw[i]; c <= ' ' || c == 0x7f || c == '(' || c == ')' || c == '<' || c == '>' || c == '\\' {
			b.WriteString(raw[done:i])
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
			done = i + 1
		}
	}
	if done == 0 {
		return raw
	}
	b.WriteString(raw[done:])
	return b.String()
}

const hexDigits = "0123456789ABCDEF"

func (r *renderer) image(n *html.Node) string {
	src := attr(n, "src")
	if src == "" || strings.HasPrefix(strings.TrimSpace(src), "data:") {
		src = firstNonEmpty(attr(n, "data-src"), attr(n, "data-original"), attr(n, "data-lazy-src"))
	}
	u := r.href(src)
	if u == "" || len(u) >= 7 && strings.EqualFold(u[:7], "mailto:") {
		return ""
	}
	alt := escapeText(strings.Join(strings.Fields(attr(n, "alt")), " "), false)
	if inner, ok := bracketed(alt); ok {
		alt = inner // an icon's "[X-Info]": the words are the description
	}
	title := ""
	for a := n.Parent; a != nil && title == "" && a.Type == html.ElementNode; a = a.Parent {
		if a.DataAtom == atom.Figure {
			if f := r.figure(a); f.img == n {
				title = f.caption
			}
			break
		}
	}
	if title != "" {
		return "![" + alt + "](" + u + ` "` + strings.ReplaceAll(title, `"`, `\"`) + `")`
	}
	return "![" + alt + "](" + u + ")"
}

// figure is a figure's first image, when it has a caption, and the
// caption's text on one line.
type figure struct {
	img     *html.Node
	caption string
}

// figure finds a figure's captioned image, remembering it: each of a
// figure's images and captions asks.
func (r *renderer) figure(fig *html.Node) figure {
	if fig == nil || fig.DataAtom != atom.Figure {
		return figure{}
	}
	if f, ok := r.figMemo[fig]; ok {
		return f
	}
	f := figure{caption: figureCaption(fig)}
	if f.caption != "" {
		for d := range descendants(fig) {
			if d.Type == html.ElementNode && d.DataAtom == atom.Img {
				f.img = d
				break
			}
		}
	}
	if r.figMemo == nil {
		r.figMemo = map[*html.Node]figure{}
	}
	r.figMemo[fig] = f
	return f
}

// figureCaption is the text of a figure's figcaption, on one line.
func figureCaption(fig *html.Node) string {
	for c := fig.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Figcaption {
			return clean(textOf(c))
		}
	}
	return ""
}

// code renders a preformatted block as a fenced code block, with the
// language named by a language-*, lang-* or highlight-* class of the
// block or of the code element inside it.
func (r *renderer) code(n *html.Node) string {
	lang := codeLanguage(n)
	for c := n.FirstChild; c != nil && lang == ""; c = c.NextSibling {
		switch c.DataAtom {
		case atom.Code:
			lang = codeLanguage(c)
		case atom.Pre:
			// A pre in a pre (mdBook's playground): the inner one's
			// language, or its code's.
			if lang = codeLanguage(c); lang == "" {
				for g := c.FirstChild; g != nil && lang == ""; g = g.NextSibling {
					if g.DataAtom == atom.Code {
						lang = codeLanguage(g)
					}
				}
			}
		}
	}
	for a, up := n.Parent, 0; lang == "" && a != nil && a.Type == html.ElementNode && up < 2; a, up = a.Parent, up+1 {
		lang = r.wrapperLanguage(a) // <div class="highlight-go"><div class="highlight"><pre>
	}
	// Inside code, a class names a token, not a part of the page: a
	// "comment" span (highlight.js's hljs-comment, RDoc's ruby-comment)
	// is the code's comment, kept. Hidden elements and buttons (a
	// "Copy" button) still go.
	body := preText(n, func(c *html.Node) bool { return hidden(c) || hardBoilerplate(c) })
	body = strings.TrimPrefix(body, "\n")
	body = strings.TrimRight(body, " \t\n")
	if strings.TrimSpace(body) == "" {
		return ""
	}
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	return fence + lang + "\n" + body + "\n" + fence
}

// lineCode renders a block of code made of one element a line (Doxygen's
// div.fragment of div.line) as a fenced code block, or returns "" when n
// is not one: a class that says code, every child element a div or span
// whose class says "line" (or a tooltip, left out), one line at least,
// and no text outside them.
func (r *renderer) lineCode(n *html.Node) string {
	if !codeClass(n) {
		return "" // a poem's lines are lines, not code
	}
	lines := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode:
			if strings.TrimSpace(c.Data) != "" {
				return ""
			}
		case c.Type != html.ElementNode:
		case (c.DataAtom == atom.Div || c.DataAtom == atom.Span) && slices.Contains(strings.Fields(attr(c, "class")), "line"):
			lines++
		case tooltip(c):
			// A hover's tooltip (Doxygen's div.ttc): not a line.
		default:
			return ""
		}
	}
	if lines == 0 || lines == 1 && !slices.Contains(strings.Fields(strings.ToLower(attr(n, "class"))), "fragment") {
		return "" // one line is code in Doxygen's fragment, not in any block of lines
	}
	skip := func(c *html.Node) bool { return hidden(c) || hardBoilerplate(c) }
	var body []string
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && !tooltip(c) {
			body = append(body, strings.TrimRight(strings.ReplaceAll(preText(c, skip), "\n", ""), " \t"))
		}
	}
	text := strings.Trim(strings.Join(body, "\n"), "\n")
	if strings.TrimSpace(text) == "" {
		return ""
	}
	lang := codeLanguage(n)
	fence := strings.Repeat("`", max(3, longestRun(text, '`')+1))
	return fence + lang + "\n" + text + "\n" + fence
}

// tooltip reports whether an element's class says it is a tooltip.
func tooltip(n *html.Node) bool {
	for _, t := range strings.Fields(strings.ToLower(attr(n, "class"))) {
		if t == "ttc" || strings.Contains(t, "tooltip") {
			return true
		}
	}
	return false
}

// codeClass reports whether an element's class says it holds code:
// "fragment" (Doxygen), "code", "listing", "source" or "highlight".
func codeClass(n *html.Node) bool {
	for _, t := range strings.Fields(strings.ToLower(attr(n, "class"))) {
		switch t { // whole class words: "lyric-highlight" is none
		case "fragment", "code", "listing", "source", "sourcecode", "highlight":
			return true
		}
	}
	return false
}

// wrapperLanguage is codeLanguage for an element that wraps code blocks,
// remembered: every block in it asks, and its class may be long.
func (r *renderer) wrapperLanguage(n *html.Node) string {
	if lang, ok := r.langMemo[n]; ok {
		return lang
	}
	lang := codeLanguage(n)
	if r.langMemo == nil {
		r.langMemo = map[*html.Node]string{}
	}
	r.langMemo[n] = lang
	return lang
}

func codeLanguage(n *html.Node) string {
	classes := strings.Fields(attr(n, "class"))
	if len(classes) == 2 && strings.EqualFold(classes[0], "sourceCode") && safeLang(classes[1]) {
		return strings.ToLower(classes[1]) // pandoc: <pre class="sourceCode python">
	}
	for _, class := range classes {
		for _, prefix := range []string{"language-", "lang-", "highlight-source-", "highlight-"} {
			if lang, ok := strings.CutPrefix(class, prefix); ok && lang != "" && safeLang(lang) && !noLang()[strings.ToLower(lang)] {
				return strings.ToLower(lang)
			}
		}
	}
	if lang := attr(n, "data-lang"); lang != "" && safeLang(lang) {
		return strings.ToLower(lang)
	}
	if n.DataAtom == atom.Pre {
		// A block classed with a language's bare name: rustdoc's
		// <pre class="rust">, RDoc's <pre class="ruby">.
		for _, class := range classes {
			if c := strings.ToLower(class); bareLangs()[c] {
				return c
			}
		}
	}
	return ""
}

// bareLangs are the languages whose bare name, as a class of a <pre>,
// names its language: names of two letters or more that are little else.
var bareLangs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"rust": true, "ruby": true, "python": true, "golang": true, "javascript": true, "typescript": true,
		"java": true, "cpp": true, "csharp": true, "php": true, "perl": true, "bash": true, "shell": true,
		"console": true, "sql": true, "json": true, "yaml": true, "toml": true, "xml": true, "kotlin": true,
		"swift": true, "scala": true, "haskell": true, "lua": true, "makefile": true, "dockerfile": true,
	}
})

// noLang are the names that a class gives where it names no language:
// Sphinx's "default" (its configured language, unnamed) and "none".
var noLang = sync.OnceValue(func() map[string]bool { return map[string]bool{"default": true, "none": true} })

// maxLang is the longest language name a code block is given: the
// class of a wrapper is given to every block in it.
const maxLang = 24

func safeLang(s string) bool {
	if len(s) > maxLang {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '#' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// preText is the text of a preformatted element as written, with <br> as
// a line end.
func preText(n *html.Node, skip func(*html.Node) bool) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && skip(n) {
			return
		}
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
		case n.Type == html.ElementNode && n.DataAtom == atom.Br:
			b.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Div || n.DataAtom == atom.P) && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n') // line-per-div code viewers
		}
	}
	walk(n)
	return b.String()
}

// sectionList reports whether a list's items are sections: each opens
// with a heading, and there is one at least.
func (r *renderer) sectionList(n *html.Node) bool {
	if n.DataAtom != atom.Ul {
		return false // an ordered list's numbers are its content (a ranking)
	}
	items := 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) != "":
			return false
		case c.Type != html.ElementNode || r.skip(c):
		case c.DataAtom != atom.Li || leadingHeading(c) == 0:
			return false
		default:
			items++
		}
	}
	return items > 0
}

// list renders a ul or ol with nested lists indented under their items.
func (r *renderer) list(n *html.Node) string {
	ordered := n.DataAtom == atom.Ol
	start := 1
	if v, err := strconv.Atoi(attr(n, "start")); err == nil && ordered && v >= 0 && v < 1e9 {
		start = v
	}
	var bodies, markers []string
	cost := 0 // the bytes the markers and indentation add
	i := start
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || r.skip(c) {
			continue
		}
		var body string
		if c.DataAtom == atom.Li {
			s := &block{r: r}
			s.children(c)
			s.flush()
			body = tightItem(s.blocks)
		} else if (c.DataAtom == atom.Ul || c.DataAtom == atom.Ol) && r.enter() {
			body = r.list(c) // a list directly inside a list
			r.leave()
		} else {
			s := &block{r: r}
			s.node(c)
			body = s.finish()
		}
		if strings.TrimSpace(body) == "" {
			continue
		}
		marker := "- "
		if ordered {
			// CommonMark reads a marker of nine digits at most: past
			// 999999999, an item numbered more would be no item.
			marker = strconv.Itoa(min(i, 999_999_999)) + ". "
			i++
		}
		lines, blank := countLines(body)
		cost += len(marker) * (lines - blank)
		bodies, markers = append(bodies, body), append(markers, marker)
	}
	if !r.spend(cost) {
		return strings.Join(bodies, "\n\n") // past the budget: flat
	}
	for i, body := range bodies {
		bodies[i] = markers[i] + indent(body, len(markers[i]))
	}
	return strings.Join(bodies, "\n")
}

// countLines counts the lines of s and those of them that are empty.
func countLines(s string) (lines, blank int) {
	for {
		i := strings.IndexByte(s, '\n')
		if i == 0 || s == "" {
			blank++
		}
		lines++
		if i < 0 {
			return lines, blank
		}
		s = s[i+1:]
	}
}

// tightItem joins the blocks of a list item, keeping a nested list right
// under the text it belongs to.
func tightItem(blocks []string) string {
	var b strings.Builder
	for i, blk := range blocks {
		if i > 0 {
			if isList(blk) {
				b.WriteString("\n")
			} else {
				b.WriteString("\n\n")
			}
		}
		b.WriteString(blk)
	}
	return b.String()
}

func isList(s string) bool {
	if strings.HasPrefix(s, "- ") {
		return true
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && strings.HasPrefix(s[i:], ". ")
}

// indent indents every line of s but the first by n spaces, and tightens
// blank lines between a list item's paragraphs.
func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	lines := strings.Split(s, "\n")
	for i := 1; i < len(lines); i++ {
		if lines[i] != "" {
			lines[i] = pad + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

func prefixLines(s, prefix, blank string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l == "" {
			lines[i] = blank
		} else {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

// table renders a table as a GFM table. A table of one row or one column,
// or one that holds a table or a row that is a heading (Doxygen's member
// tables), is layout, not data: its cells are rendered as blocks.
func (r *renderer) table(n *html.Node) string {
	var rows [][]*html.Node
	header := -1
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode || r.skip(c) {
				continue
			}
			switch c.DataAtom {
			case atom.Thead, atom.Tbody, atom.Tfoot:
				walk(c)
			case atom.Tr:
				var cells []*html.Node
				allTH := true
				for d := c.FirstChild; d != nil; d = d.NextSibling {
					if d.DataAtom == atom.Td || d.DataAtom == atom.Th {
						cells = append(cells, d)
						allTH = allTH && d.DataAtom == atom.Th
					}
				}
				if len(cells) == 0 {
					continue
				}
				if header < 0 && len(rows) == 0 && (allTH || n.DataAtom == atom.Thead) {
					header = 0
				}
				rows = append(rows, cells)
			}
		}
	}
	walk(n)
	cols := 0
	for _, row := range rows {
		cols = max(cols, len(row))
	}
	caption := ""
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == atom.Caption {
			s := &block{r: r}
			s.children(c)
			caption = oneLine(s.finish())
		}
	}
	if len(rows) <= 1 || cols <= 1 || r.hasTable(n) {
		s := &block{r: r}
		for _, row := range rows {
			for _, cell := range row {
				if r.skip(cell) {
					continue
				}
				s.flush()
				s.children(cell)
				s.flush()
			}
		}
		return s.finish()
	}
	// The header and delimiter rows have every column; a body row has its
	// own cells only, as GFM fills a short row with empty cells (padding
	// every row to the widest would make one wide row and many short ones
	// cost their product).
	var b strings.Builder
	line := func(cells []string, width int) {
		b.WriteString("|")
		for i := range width {
			v := ""
			if i < len(cells) {
				v = cells[i]
			}
			b.WriteString(" " + v + " |")
		}
		b.WriteByte('\n')
	}
	cellText := func(c *html.Node) string {
		if r.skip(c) {
			return "" // a hidden cell keeps its column, empty
		}
		s := &block{r: r}
		s.children(c)
		return strings.ReplaceAll(oneLine(s.finish()), "|", `\|`)
	}
	texts := make([][]string, len(rows))
	for i, row := range rows {
		for _, c := range row {
			texts[i] = append(texts[i], cellText(c))
		}
	}
	body := texts
	if header == 0 {
		line(texts[0], cols)
		body = texts[1:]
	} else {
		line(nil, cols)
	}
	sep := make([]string, cols)
	for i := range sep {
		sep[i] = "---"
	}
	line(sep, cols)
	for _, row := range body {
		line(row, len(row))
	}
	table := strings.TrimRight(b.String(), "\n")
	if caption != "" {
		return caption + "\n\n" + table
	}
	return table
}

// hasTable reports whether a table holds another table or a heading row
// (then it is layout). It remembers its answers, so that nesting costs
// linear time.
func (r *renderer) hasTable(n *html.Node) bool {
	if v, ok := r.tableMemo[n]; ok {
		return v
	}
	v := false
	for c := n.FirstChild; c != nil && !v; c = c.NextSibling {
		v = c.Type == html.ElementNode && (c.DataAtom == atom.Table || c.DataAtom == atom.Tr && headingRow(c) || r.hasTable(c))
	}
	if r.tableMemo == nil {
		r.tableMemo = map[*html.Node]bool{}
	}
	r.tableMemo[n] = v
	return v
}

// headingRow reports whether a table row is a heading between groups of
// rows: one cell, that holds a heading (Doxygen's member tables). A
// heading in a cell among others is a data table's.
func headingRow(tr *html.Node) bool {
	var cell *html.Node
	for c := tr.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == atom.Td || c.DataAtom == atom.Th {
			if cell != nil {
				return false
			}
			cell = c
		}
	}
	if cell == nil {
		return false
	}
	for c := cell.FirstChild; c != nil; c = c.NextSibling {
		if isHeading(c) {
			return true
		}
	}
	return false
}

// oneLine joins Markdown onto one line.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\\\n", " ")
	return strings.Join(strings.Fields(s), " ")
}

func codeSpan(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return ""
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// EscapeText escapes the characters that would make text read as
// Markdown syntax: emphasis, code, links, strikethrough and fences, HTML
// and entities. atLineStart also escapes what is special only at a line
// start (headings, quotes, list markers, thematic breaks). It is how
// every writer of Markdown in heed keeps text text.
func EscapeText(s string, atLineStart bool) string { return escapeText(s, atLineStart) }

// EscapeURL keeps a URL from ending its Markdown link early.
func EscapeURL(s string) string { return escapeURL(s) }

func escapeText(s string, atLineStart bool) string {
	i := 0
	for ; i < len(s); i++ {
		if special[s[i]] {
			break
		}
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '*', '_', '`', '[', ']', '<', '>', '~':
			b.WriteByte('\\')
		case '&':
			// Only what could read as an entity: "&copy;", "&#169;".
			if i+1 < len(s) && (s[i+1] == '#' || 'a' <= s[i+1]|0x20 && s[i+1]|0x20 <= 'z') {
				b.WriteByte('\\')
			}
		case '#', '+', '-', '=':
			if i == 0 && atLineStart {
				b.WriteByte('\\')
			}
		case '.', ')':
			// "1. " at the start of a line would begin a list.
			if atLineStart && allDigits(s[:i]) && (i+1 == len(s) || s[i+1] == ' ') {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// special marks the bytes escapeText may have to escape.
var special = func() (t [256]bool) {
	for _, c := range []byte("\\*_`[]<>~&#+-=.)") {
		t[c] = true
	}
	return t
}()

func allDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// escapeURL keeps a URL from ending its Markdown link early.
func escapeURL(s string) string { return urlEscaper.Replace(s) }

var urlEscaper = strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "<", "%3C", ">", "%3E")

// startSpace and endSpace report whether s starts or ends with white
// space, no-break spaces included (strings.Fields drops those too).
func startSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

func endSpace(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsSpace(r)
}

func startsWithSpace(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.FirstChild {
		if c.Type == html.TextNode {
			return startSpace(c.Data)
		}
	}
	return false
}

func endsWithSpace(n *html.Node) bool {
	for c := n.LastChild; c != nil; c = c.LastChild {
		if c.Type == html.TextNode {
			return endSpace(c.Data)
		}
	}
	return false
}

// blockAtoms are the elements that start a block of their own.
var blockAtoms = sync.OnceValue(func() map[atom.Atom]bool {
	return map[atom.Atom]bool{
		atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Body: true,
		atom.Center: true, atom.Dd: true, atom.Details: true, atom.Dialog: true, atom.Dir: true,
		atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Fieldset: true, atom.Figcaption: true,
		atom.Figure: true, atom.Footer: true, atom.Form: true, atom.H1: true, atom.H2: true,
		atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true, atom.Hgroup: true,
		atom.Hr: true, atom.Html: true, atom.Legend: true, atom.Li: true, atom.Main: true, atom.Menu: true,
		atom.Nav: true, atom.Ol: true, atom.P: true, atom.Pre: true, atom.Section: true, atom.Summary: true,
		atom.Table: true, atom.Tbody: true, atom.Td: true, atom.Tfoot: true, atom.Th: true, atom.Thead: true,
		atom.Tr: true, atom.Ul: true, atom.Caption: true,
	}
})

func isBlock(n *html.Node) bool { return n.Type == html.ElementNode && blockAtoms()[n.DataAtom] }

// hasBlock reports whether an inline element holds block content. It
// remembers its answers, so that nested inline elements cost linear time.
func (r *renderer) hasBlock(n *html.Node) bool {
	if v, ok := r.blockMemo[n]; ok {
		return v
	}
	v := false
	for c := n.FirstChild; c != nil && !v; c = c.NextSibling {
		v = isBlock(c) || c.Type == html.ElementNode && r.hasBlock(c)
	}
	if r.blockMemo == nil {
		r.blockMemo = map[*html.Node]bool{}
	}
	r.blockMemo[n] = v
	return v
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// textOf is the text of n, as written.
func textOf(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for d := range descendants(n) {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}
