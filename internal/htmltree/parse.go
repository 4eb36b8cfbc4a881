package htmltree

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// MaxDepth is how deep open elements nest.
const MaxDepth = 512

// MaxNodes is how many nodes a tree holds at most (about 110 MB of them):
// the rest of a page that would make more is left out. Pages people read
// make tens of thousands.
const MaxNodes = 1 << 20

// Parse reads a page, which should be UTF-8, into a document node that
// holds an html element with a head and a body.
func Parse(page string) *html.Node {
	b := &builder{z: tokenizer{s: page}}
	b.doc = b.node()
	b.doc.Type = html.DocumentNode
	b.html = b.element("html", atom.Html)
	b.head = b.element("head", atom.Head)
	appendChild(b.doc, b.html)
	appendChild(b.html, b.head)
	b.pos, b.posOther = map[atom.Atom][]int32{}, map[string][]int32{}
	b.push(b.html)
	for {
		b.z.next()
		if b.made >= MaxNodes {
			b.z.kind = eofToken // the rest of a page of a million nodes is left out
		}
		switch b.z.kind {
		case eofToken:
			if b.body == nil {
				b.startBody(false)
			}
			for n, t := range b.joined {
				n.Data = t.String()
			}
			return b.doc
		case textToken:
			b.text(b.z.text)
			b.afterPre = false
		case startToken:
			b.afterPre = false
			b.start()
		case endToken:
			b.afterPre = false
			b.end()
		}
	}
}

type builder struct {
	z                     tokenizer
	doc, html, head, body *html.Node
	stack                 []*html.Node // open elements, html first
	nodes                 []html.Node  // the block nodes are allocated from
	attrs                 []html.Attribute
	seen                  map[string]bool                // attribute keys of a tag, when it has many
	merged                map[*html.Node]map[string]bool // the keys of html's and body's attributes, once another tag adds to them
	afterPre              bool                           // a newline right after <pre>, <listing> or <textarea> is dropped
	made                  int                            // nodes made

	// frames go with the open elements: for each, where the nearest
	// element that bounds a search for an open element is, at it or below
	// it; pos holds where the open elements of each name are (by atom,
	// and posOther for names that are none). Together they answer whether
	// an element is open and in scope at once, however deep the open
	// elements are.
	frames   []frame
	hot      [len(hotAtoms)][]int32 // pos of the elements most asked about, without a map
	pos      map[atom.Atom][]int32
	posOther map[string][]int32

	// Text nodes that text was added to, and their text, joined at the end.
	joined map[*html.Node]*strings.Builder
}

// node allocates a node from the current block.
func (b *builder) node() *html.Node {
	b.made++
	if len(b.nodes) == cap(b.nodes) {
		b.nodes = make([]html.Node, 0, min(max(2*cap(b.nodes), 64), 1024))
	}
	b.nodes = b.nodes[:len(b.nodes)+1]
	return &b.nodes[len(b.nodes)-1]
}

func (b *builder) element(name string, a atom.Atom) *html.Node {
	n := b.node()
	n.Type = html.ElementNode
	n.DataAtom = a
	if a != 0 {
		n.Data = a.String()
	} else {
		n.Data = name
	}
	return n
}

// tagAttrs are the attributes of the current start tag, values unescaped,
// the first of any key kept.
func (b *builder) tagAttrs() []html.Attribute {
	as := b.z.attrs
	if len(as) == 0 {
		return nil
	}
	if cap(b.attrs)-len(b.attrs) < len(as) {
		b.attrs = make([]html.Attribute, 0, max(len(as), 256))
	}
	start := len(b.attrs)
	if len(as) > 16 {
		b.seen = make(map[string]bool, len(as)) // clearing a map costs its largest size
	}
next:
	for _, a := range as {
		if len(as) > 16 {
			if b.seen[a.key] {
				continue
			}
			b.seen[a.key] = true
		} else {
			for _, p := range b.attrs[start:] {
				if p.Key == a.key {
					continue next
				}
			}
		}
		b.attrs = append(b.attrs, html.Attribute{Key: a.key, Val: unescapeAttr(a.val)})
	}
	return b.attrs[start:len(b.attrs):len(b.attrs)]
}

// mergeAttrs adds to n the attributes of the current tag it lacks (a
// second <html> or <body> tag), up to maxAttrs of them in all, so that a
// page of a million body tags costs linear time.
func (b *builder) mergeAttrs(n *html.Node) {
	if len(b.z.attrs) == 0 || len(n.Attr) >= maxAttrs {
		return
	}
	if b.merged == nil {
		b.merged = map[*html.Node]map[string]bool{}
	}
	keys := b.merged[n]
	if keys == nil {
		keys = map[string]bool{}
		for _, a := range n.Attr {
			keys[a.Key] = true
		}
		b.merged[n] = keys
	}
	for _, a := range b.tagAttrs() {
		if !keys[a.Key] && len(n.Attr) < maxAttrs {
			keys[a.Key] = true
			n.Attr = append(n.Attr, a)
		}
	}
}

func (b *builder) top() *html.Node { return b.stack[len(b.stack)-1] }

// startBody opens the body: with the current tag's attributes if it is
// a body tag, and with none if the body is implied by another.
func (b *builder) startBody(tag bool) {
	b.body = b.element("body", atom.Body)
	if tag {
		b.body.Attr = b.tagAttrs()
	}
	appendChild(b.html, b.body)
	b.push(b.body)
}

// text inserts a text token.
func (b *builder) text(t string) {
	if b.afterPre {
		if strings.HasPrefix(t, "\r\n") {
			t = t[2:]
		} else if strings.HasPrefix(t, "\n") || strings.HasPrefix(t, "\r") {
			t = t[1:]
		}
		if t == "" {
			return
		}
	}
	if b.body == nil {
		if allSpace(t) {
			return
		}
		b.startBody(false)
	}
	b.insertText(unescape(t, true))
}

func (b *builder) insertText(t string) {
	if t == "" {
		return
	}
	parent := b.top()
	if tableContext(parent) && !allSpace(t) {
		if tbl := b.lastTable(); tbl >= 0 && b.stack[tbl].Parent != nil {
			table := b.stack[tbl]
			if prev := table.PrevSibling; prev != nil && prev.Type == html.TextNode {
				b.join(prev, t)
				return
			}
			n := b.node()
			n.Type, n.Data = html.TextNode, t
			table.Parent.InsertBefore(n, table)
			return
		}
	}
	if last := parent.LastChild; last != nil && last.Type == html.TextNode {
		b.join(last, t)
		return
	}
	n := b.node()
	n.Type, n.Data = html.TextNode, t
	appendChild(parent, n)
}

// start handles a start tag.
func (b *builder) start() {
	name := b.z.name
	a := atom.Lookup([]byte(name))
	if b.body == nil {
		switch a {
		case atom.Html:
			b.mergeAttrs(b.html)
			return
		case atom.Head:
			return
		case atom.Body:
			b.startBody(true)
			return
		case atom.Template:
			b.skipTemplate() // its content is no part of the page shown
			return
		case atom.Meta, atom.Link, atom.Base, atom.Basefont, atom.Bgsound, atom.Title, atom.Style, atom.Script, atom.Noscript, atom.Noframes:
			el := b.element(name, a)
			el.Attr = b.tagAttrs()
			appendChild(b.head, el)
			b.rawChild(el)
			return
		}
		b.startBody(false)
	}
	if top := b.top(); top.Namespace != "" && !integrationPoint(top) {
		if !breakout(a) && !(a == atom.Font && b.fontBreaks()) {
			el := b.element(name, a)
			el.Namespace = top.Namespace
			el.Attr = b.tagAttrs()
			b.z.raw = "" // SVG's and MathML's style, script and title are markup
			b.insert(el, !b.z.selfClosing)
			return
		}
		for len(b.stack) > 2 && b.top().Namespace != "" {
			b.pop()
		}
	}
	if j := b.openSelect(); j >= 0 {
		switch a {
		case atom.Select:
			b.popTo(j) // a select in a select ends it
			return
		case atom.Input, atom.Keygen, atom.Textarea:
			b.popTo(j)
		}
	}
	switch a {
	case atom.Html:
		b.mergeAttrs(b.html)
		return
	case atom.Body:
		b.mergeAttrs(b.body)
		return
	case atom.Head:
		return
	case atom.Svg, atom.Math:
		el := b.element(name, a)
		el.Namespace = name
		el.Attr = b.tagAttrs()
		b.insert(el, !b.z.selfClosing)
		return
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Center, atom.Details, atom.Dialog, atom.Dir,
		atom.Div, atom.Dl, atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer, atom.Header, atom.Hgroup,
		atom.Main, atom.Menu, atom.Nav, atom.Ol, atom.P, atom.Search, atom.Section, atom.Summary, atom.Ul,
		atom.Form, atom.Plaintext, atom.Hr:
		b.closeP()
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		b.closeP()
		if heading(b.top()) {
			b.pop()
		}
	case atom.Pre, atom.Listing:
		b.closeP()
		b.afterPre = true
	case atom.Li:
		b.closeItem(atom.Li, 0)
		b.closeP()
	case atom.Dd, atom.Dt:
		b.closeItem(atom.Dd, atom.Dt)
		b.closeP()
	case atom.Button, atom.Nobr:
		if i := b.inScope(a, 0); i >= 0 {
			b.popTo(i)
		}
	case atom.A:
		if i := b.inScope(atom.A, 0); i >= 0 {
			b.popTo(i)
		}
	case atom.Option:
		if b.top().DataAtom == atom.Option {
			b.pop()
		}
	case atom.Optgroup:
		if b.top().DataAtom == atom.Option {
			b.pop()
		}
		if b.top().DataAtom == atom.Optgroup {
			b.pop()
		}
	case atom.Image:
		name, a = "img", atom.Img
	case atom.Table:
		b.closeP()
		if tableContext(b.top()) {
			b.popTo(b.lastTable())
		}
	case atom.Td, atom.Th, atom.Tr, atom.Tbody, atom.Thead, atom.Tfoot, atom.Caption, atom.Colgroup, atom.Col:
		b.tablePart(name, a)
		return
	}
	el := b.element(name, a)
	el.Attr = b.tagAttrs()
	b.insert(el, !voidElements(a) && !rawElement(name))
	b.rawChild(el)
}

// skipTemplate skips a template in the head, up to its end tag: what it
// holds is not shown, and not the head's (a title in it is none).
func (b *builder) skipTemplate() {
	depth := 1
	for {
		b.z.next()
		switch {
		case b.z.kind == eofToken:
			return
		case b.z.kind == startToken && b.z.name == "template" && !b.z.selfClosing:
			depth++
		case b.z.kind == endToken && b.z.name == "template":
			if depth--; depth == 0 {
				return
			}
		}
	}
}

// openSelect is the index of the select the current element is in, or -1.
func (b *builder) openSelect() int {
	j, ok := b.lastHTML(atom.Select)
	if !ok || j < 0 || j < int(b.topFrame().scope) {
		return -1
	}
	return j
}

// integrationPoint reports whether HTML inside n is HTML, although n is
// SVG's or MathML's: foreignObject, desc and title in SVG, the text
// elements of MathML, and its annotations in HTML.
func integrationPoint(n *html.Node) bool {
	switch n.Namespace {
	case "svg":
		return n.Data == "foreignobject" || n.Data == "desc" || n.Data == "title"
	case "math":
		switch n.Data {
		case "mi", "mo", "mn", "ms", "mtext":
			return true
		case "annotation-xml":
			for _, a := range n.Attr {
				if a.Key == "encoding" && (strings.EqualFold(a.Val, "text/html") || strings.EqualFold(a.Val, "application/xhtml+xml")) {
					return true
				}
			}
		}
	}
	return false
}

// rawChild gives a raw text element (script, style, title) its text,
// which the tokenizer reads next; such elements are never left open.
func (b *builder) rawChild(el *html.Node) {
	if b.z.raw == "" {
		return
	}
	name := b.z.raw
	b.z.next()
	if b.z.kind != textToken {
		return // the element is empty: its end tag is this token, ignored
	}
	t := b.z.text
	if name == "textarea" && (strings.HasPrefix(t, "\n") || strings.HasPrefix(t, "\r")) {
		t = strings.TrimPrefix(strings.TrimPrefix(t, "\r"), "\n")
	}
	n := b.node()
	n.Type, n.Data = html.TextNode, unescape(t, rcdata(name))
	appendChild(el, n)
	b.afterPre = false
}

// fontBreaks reports whether a <font> start tag in SVG or MathML ends it:
// one with a color, face or size.
func (b *builder) fontBreaks() bool {
	for _, a := range b.z.attrs {
		if a.key == "color" || a.key == "face" || a.key == "size" {
			return true
		}
	}
	return false
}

// insert appends el to the current element, or before the table when the
// current element is a table's and el no part of one, and opens it if
// push and the open elements are not at MaxDepth.
func (b *builder) insert(el *html.Node, push bool) {
	parent := b.top()
	if tableContext(parent) && !inTable(el.DataAtom) {
		if tbl := b.lastTable(); tbl >= 0 && b.stack[tbl].Parent != nil {
			table := b.stack[tbl]
			table.Parent.InsertBefore(el, table)
		} else {
			appendChild(parent, el)
		}
	} else {
		appendChild(parent, el)
	}
	if push && len(b.stack) < MaxDepth {
		b.push(el)
	}
}

// join adds text to a text node, in a builder, so that a run of text
// broken by a million ignored tags costs linear time.
func (b *builder) join(n *html.Node, t string) {
	sb := b.joined[n]
	if sb == nil {
		if b.joined == nil {
			b.joined = map[*html.Node]*strings.Builder{}
		}
		sb = &strings.Builder{}
		sb.WriteString(n.Data)
		b.joined[n] = sb
	}
	sb.WriteString(t)
}

// frame is where, at an open element or below it, the nearest elements
// are that stop a search for an open element: the boundaries of an
// element's scope, of a paragraph's (button too), of a list item's (ol
// and ul too) and of a table part's (table, template); the nearest
// special element (an end tag that does not match it does not close it);
// and the nearest special one other than address, div and p (which stop
// a search for an open list item or definition).
type frame struct {
	scope, button, list, table, special, item int32
}

func (b *builder) push(el *html.Node) {
	i := int32(len(b.stack))
	f := frame{-1, -1, -1, -1, -1, -1}
	if i > 0 {
		f = b.frames[i-1]
	}
	if scopeBoundary(el, 0) {
		f.scope = i
	}
	if scopeBoundary(el, atom.Button) {
		f.button = i
	}
	if scopeBoundary(el, atom.Ul) {
		f.list = i
	}
	if el.Namespace == "" {
		switch el.DataAtom {
		case atom.Table, atom.Template, atom.Html:
			f.table = i
		}
		if special(el.DataAtom) {
			f.special = i
			if el.DataAtom != atom.Address && el.DataAtom != atom.Div && el.DataAtom != atom.P {
				f.item = i
			}
		}
	}
	b.stack = append(b.stack, el)
	b.frames = append(b.frames, f)
	b.setPositions(el.Data, el.DataAtom, append(b.positions(el.Data, el.DataAtom), i))
}

// positions is where the open elements named name are; a is the name's
// atom, or 0. A map keyed by atom is much quicker than one by name.
func (b *builder) positions(name string, a atom.Atom) []int32 {
	if a != 0 && a.String() == name {
		return b.atomPositions(a)
	}
	return b.posOther[name]
}

func (b *builder) setPositions(name string, a atom.Atom, l []int32) {
	if a != 0 && a.String() == name {
		if i := hotSlot(a); i >= 0 {
			b.hot[i] = l
			return
		}
		b.pos[a] = l
		return
	}
	b.posOther[name] = l
}

// atomPositions is positions for an element whose name is a's.
func (b *builder) atomPositions(a atom.Atom) []int32 {
	if i := hotSlot(a); i >= 0 {
		return b.hot[i]
	}
	return b.pos[a]
}

// hotAtoms are the elements whose open ones are looked for most: on
// most start and end tags.
var hotAtoms = [...]atom.Atom{atom.P, atom.Li, atom.A, atom.Div, atom.Span, atom.Button, atom.Table, atom.Template, atom.Select, atom.Form, atom.Ul, atom.Td, atom.Tr}

// hotSlot is a's place in hotAtoms, or -1.
func hotSlot(a atom.Atom) int {
	switch a {
	case atom.P:
		return 0
	case atom.Li:
		return 1
	case atom.A:
		return 2
	case atom.Div:
		return 3
	case atom.Span:
		return 4
	case atom.Button:
		return 5
	case atom.Table:
		return 6
	case atom.Template:
		return 7
	case atom.Select:
		return 8
	case atom.Form:
		return 9
	case atom.Ul:
		return 10
	case atom.Td:
		return 11
	case atom.Tr:
		return 12
	}
	return -1
}

// last is the index of the innermost open element named name, whose
// atom is a (or 0), or -1.
func (b *builder) last(name string, a atom.Atom) int {
	if l := b.positions(name, a); len(l) > 0 {
		return int(l[len(l)-1])
	}
	return -1
}

// lastHTML is last for an HTML element: -1 if the innermost element of
// the name is SVG or MathML's (which a search for the HTML one passes).
func (b *builder) lastHTML(a atom.Atom) (i int, ok bool) {
	i = -1
	if l := b.atomPositions(a); len(l) > 0 {
		i = int(l[len(l)-1])
	}
	return i, i < 0 || b.stack[i].Namespace == ""
}

// topFrame is the current element's frame.
func (b *builder) topFrame() frame { return b.frames[len(b.frames)-1] }

// tablePart handles the start tag of a part of a table: outside a table
// it is ignored; inside one it closes the parts it cannot be inside and
// opens the parts implied around it (a body around a row, a row around a
// cell).
func (b *builder) tablePart(name string, a atom.Atom) {
	if b.inTableScope(atom.Table) < 0 {
		return
	}
	switch a {
	case atom.Td, atom.Th:
		b.popUntil(atom.Tr, atom.Tbody, atom.Thead, atom.Tfoot, atom.Table)
		if t := b.top().DataAtom; t == atom.Table {
			b.insert(b.element("tbody", atom.Tbody), true)
		}
		if t := b.top().DataAtom; t != atom.Tr {
			b.insert(b.element("tr", atom.Tr), true)
		}
	case atom.Tr:
		b.popUntil(atom.Tbody, atom.Thead, atom.Tfoot, atom.Table)
		if b.top().DataAtom == atom.Table {
			b.insert(b.element("tbody", atom.Tbody), true)
		}
	default: // tbody, thead, tfoot, caption, colgroup, col
		b.popUntil(atom.Table)
	}
	el := b.element(name, a)
	el.Attr = b.tagAttrs()
	b.insert(el, a != atom.Col)
}

// popUntil closes elements until the current one is one of as, within
// the current table.
func (b *builder) popUntil(as ...atom.Atom) {
	for len(b.stack) > 2 {
		n := b.top()
		if n.Namespace == "" {
			for _, a := range as {
				if n.DataAtom == a {
					return
				}
			}
			if n.DataAtom == atom.Table || n.DataAtom == atom.Template {
				return
			}
		}
		b.pop()
	}
}

// end handles an end tag.
func (b *builder) end() {
	if b.body == nil {
		return
	}
	name := b.z.name
	a := atom.Lookup([]byte(name))
	if (a == atom.P || a == atom.Br) && b.top().Namespace != "" {
		for len(b.stack) > 2 && b.top().Namespace != "" {
			b.pop() // </p> and </br> end SVG and MathML
		}
	}
	if j := b.openSelect(); j >= 0 && a != atom.Option && a != atom.Optgroup {
		if a == atom.Select {
			b.popTo(j)
		}
		return // in a select, other end tags are ignored
	}
	switch a {
	case atom.Body, atom.Html, atom.Head:
		return // what follows is the body's still
	case atom.Template:
		if j, ok := b.lastHTML(atom.Template); ok && j >= 0 {
			b.popTo(j)
		}
		return
	case atom.Br:
		b.insert(b.element("br", atom.Br), false)
		return
	case atom.P:
		if i := b.inScope(atom.P, atom.Button); i >= 0 {
			b.popTo(i)
		}
		return
	case atom.Li:
		if i := b.inScope(atom.Li, atom.Ul); i >= 0 {
			b.popTo(i)
		}
		return
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		j := -1
		for _, h := range []atom.Atom{atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6} {
			j = max(j, b.last(h.String(), h))
		}
		if j < 0 {
			return
		}
		if b.stack[j].Namespace == "" {
			if j >= int(b.topFrame().scope) {
				b.popTo(j)
			}
			return
		}
		for i := len(b.stack) - 1; i > 0; i-- {
			n := b.stack[i]
			if heading(n) {
				b.popTo(i)
				return
			}
			if scopeBoundary(n, 0) {
				return
			}
		}
		return
	case atom.Table, atom.Tbody, atom.Thead, atom.Tfoot, atom.Tr, atom.Td, atom.Th, atom.Caption, atom.Colgroup:
		if i := b.inTableScope(a); i >= 0 {
			b.popTo(i)
		}
		return
	}
	if formatting(a) || blocks(a) {
		if i := b.inScope(a, 0); i >= 0 {
			b.popTo(i)
		}
		return
	}
	if j := b.last(name, a); j >= 0 && j >= int(b.topFrame().special) {
		b.popTo(j)
	}
}

func (b *builder) pop() {
	if len(b.stack) > 2 {
		b.popTo(len(b.stack) - 1)
	}
}

// popTo closes the element at i of the open elements, and those inside
// it; html and body stay open.
func (b *builder) popTo(i int) {
	i = max(i, 2)
	for _, n := range b.stack[i:] {
		l := b.positions(n.Data, n.DataAtom)
		b.setPositions(n.Data, n.DataAtom, l[:len(l)-1])
	}
	b.stack = b.stack[:i]
	b.frames = b.frames[:i]
}

// closeP closes an open paragraph.
func (b *builder) closeP() {
	if i := b.inScope(atom.P, atom.Button); i >= 0 {
		b.popTo(i)
	}
}

// closeItem closes an open list item (li) or definition (dd, dt) before
// another, unless a block other than a div, p or address is between.
func (b *builder) closeItem(a1, a2 atom.Atom) {
	j, ok := b.lastHTML(a1)
	if a2 != 0 {
		j2, ok2 := b.lastHTML(a2)
		j, ok = max(j, j2), ok && ok2
	}
	if ok {
		if j >= int(b.topFrame().item) {
			b.popTo(j)
		}
		return
	}
	for i := len(b.stack) - 1; i > 1; i-- {
		n := b.stack[i]
		if n.Namespace != "" {
			continue
		}
		if n.DataAtom == a1 || a2 != 0 && n.DataAtom == a2 {
			b.popTo(i)
			return
		}
		if special(n.DataAtom) && n.DataAtom != atom.Address && n.DataAtom != atom.Div && n.DataAtom != atom.P {
			return
		}
	}
}

// inScope returns the index of the innermost open element a, if it is in
// scope: no scope boundary (a table, a cell, and extra, if given: button
// for a paragraph's scope, ul for a list item's) between.
func (b *builder) inScope(a, extra atom.Atom) int {
	j, ok := b.lastHTML(a)
	if ok {
		f := b.topFrame()
		bound := f.scope
		switch extra {
		case atom.Button:
			bound = f.button
		case atom.Ul:
			bound = f.list
		}
		if j >= 0 && j >= int(bound) {
			return j
		}
		return -1
	}
	for i := len(b.stack) - 1; i > 0; i-- {
		n := b.stack[i]
		if n.DataAtom == a && n.Namespace == "" {
			return i
		}
		if scopeBoundary(n, extra) {
			return -1
		}
	}
	return -1
}

// inTableScope is inScope where only tables and templates bound it.
func (b *builder) inTableScope(a atom.Atom) int {
	if j, ok := b.lastHTML(a); ok {
		if j >= 0 && j >= int(b.topFrame().table) {
			return j
		}
		return -1
	}
	for i := len(b.stack) - 1; i > 0; i-- {
		n := b.stack[i]
		if n.Namespace != "" {
			continue
		}
		if n.DataAtom == a {
			return i
		}
		if n.DataAtom == atom.Table || n.DataAtom == atom.Template {
			return -1
		}
	}
	return -1
}

// lastTable is the index of the innermost open table, or -1.
func (b *builder) lastTable() int {
	if j, ok := b.lastHTML(atom.Table); ok {
		return j
	}
	for i := len(b.stack) - 1; i > 0; i-- {
		if b.stack[i].DataAtom == atom.Table && b.stack[i].Namespace == "" {
			return i
		}
	}
	return -1
}

func scopeBoundary(n *html.Node, extra atom.Atom) bool {
	switch n.Namespace {
	case "":
		switch n.DataAtom {
		case atom.Applet, atom.Caption, atom.Html, atom.Table, atom.Td, atom.Th, atom.Marquee, atom.Object, atom.Template:
			return true
		}
		if extra != 0 && n.DataAtom == extra {
			return true
		}
		return extra == atom.Ul && n.DataAtom == atom.Ol
	default: // SVG and MathML: where HTML may be, and any annotation
		return integrationPoint(n) || n.Data == "annotation-xml"
	}
}

// tableContext reports whether n is a table or a part of one that holds
// only other parts: content that is not a part of a table goes before it.
func tableContext(n *html.Node) bool {
	if n.Namespace != "" {
		return false
	}
	switch n.DataAtom {
	case atom.Table, atom.Tbody, atom.Thead, atom.Tfoot, atom.Tr, atom.Colgroup:
		return true
	}
	return false
}

func heading(n *html.Node) bool {
	if n.Namespace != "" {
		return false
	}
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

func allSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isSpace(s[i]) {
			return false
		}
	}
	return true
}

func appendChild(p, c *html.Node) {
	c.Parent = p
	if last := p.LastChild; last != nil {
		last.NextSibling = c
		c.PrevSibling = last
	} else {
		p.FirstChild = c
	}
	p.LastChild = c
}

// voidElements reports whether a is an element that holds nothing.
func voidElements(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Basefont, atom.Bgsound, atom.Br, atom.Col, atom.Embed, atom.Frame, atom.Hr,
		atom.Img, atom.Input, atom.Keygen, atom.Link, atom.Meta, atom.Param, atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}

// inTable reports whether a table holds an element a where it is, not
// before it.
func inTable(a atom.Atom) bool {
	switch a {
	case atom.Caption, atom.Colgroup, atom.Col, atom.Tbody, atom.Thead, atom.Tfoot, atom.Tr, atom.Td, atom.Th,
		atom.Script, atom.Style, atom.Template, atom.Table:
		return true
	}
	return false
}

// blocks reports whether an end tag a closes its element and what is
// open inside it, when it is in scope.
func blocks(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Button, atom.Center, atom.Details,
		atom.Dialog, atom.Dir, atom.Div, atom.Dl, atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer,
		atom.Form, atom.Header, atom.Hgroup, atom.Listing, atom.Main, atom.Menu, atom.Nav, atom.Ol, atom.Pre,
		atom.Search, atom.Section, atom.Summary, atom.Ul, atom.Dd, atom.Dt, atom.Applet, atom.Marquee, atom.Object:
		return true
	}
	return false
}

// formatting reports whether a is an element that formats text.
func formatting(a atom.Atom) bool {
	switch a {
	case atom.A, atom.B, atom.Big, atom.Code, atom.Em, atom.Font, atom.I, atom.Nobr, atom.S, atom.Small,
		atom.Strike, atom.Strong, atom.Tt, atom.U:
		return true
	}
	return false
}

// special reports whether a is an element that an end tag that does not
// match it does not close.
func special(a atom.Atom) bool {
	switch a {
	case atom.Address, atom.Applet, atom.Area, atom.Article, atom.Aside, atom.Base, atom.Basefont, atom.Bgsound,
		atom.Blockquote, atom.Body, atom.Br, atom.Button, atom.Caption, atom.Center, atom.Col, atom.Colgroup,
		atom.Dd, atom.Details, atom.Dir, atom.Div, atom.Dl, atom.Dt, atom.Embed, atom.Fieldset, atom.Figcaption,
		atom.Figure, atom.Footer, atom.Form, atom.Frame, atom.Frameset, atom.H1, atom.H2, atom.H3, atom.H4,
		atom.H5, atom.H6, atom.Head, atom.Header, atom.Hgroup, atom.Hr, atom.Html, atom.Iframe, atom.Img,
		atom.Input, atom.Keygen, atom.Li, atom.Link, atom.Listing, atom.Main, atom.Marquee, atom.Menu, atom.Meta,
		atom.Nav, atom.Noembed, atom.Noframes, atom.Noscript, atom.Object, atom.Ol, atom.P, atom.Param,
		atom.Plaintext, atom.Pre, atom.Script, atom.Search, atom.Section, atom.Select, atom.Source, atom.Style,
		atom.Summary, atom.Table, atom.Tbody, atom.Td, atom.Template, atom.Textarea, atom.Tfoot, atom.Th,
		atom.Thead, atom.Title, atom.Tr, atom.Track, atom.Ul, atom.Wbr, atom.Xmp:
		return true
	}
	return false
}

// breakout reports whether a is an HTML element whose start tag ends SVG
// or MathML.
func breakout(a atom.Atom) bool {
	switch a {
	case atom.B, atom.Big, atom.Blockquote, atom.Body, atom.Br, atom.Center, atom.Code, atom.Dd, atom.Div,
		atom.Dl, atom.Dt, atom.Em, atom.Embed, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Head,
		atom.Hr, atom.I, atom.Img, atom.Li, atom.Listing, atom.Menu, atom.Meta, atom.Nobr, atom.Ol, atom.P,
		atom.Pre, atom.Ruby, atom.S, atom.Small, atom.Span, atom.Strong, atom.Strike, atom.Sub, atom.Sup,
		atom.Table, atom.Tt, atom.U, atom.Ul, atom.Var:
		return true
	}
	return false
}
