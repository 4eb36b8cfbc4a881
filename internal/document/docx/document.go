package docx

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/heedhq/heed/extract"
)

// reader holds what reading one document needs across its parts, and
// the Markdown it writes.
type reader struct {
	styles *styles
	num    *numbering
	base   *url.URL // what relative hyperlinks resolve against, or nil
	page   string   // base as written

	// spare is what link destinations written into the Markdown, and the
	// base URL that resolving relative hyperlinks reads, may still cost:
	// as many bytes as document.xml holds, so that a long URL linked
	// from many places costs no more than the document's size.
	spare int

	out      strings.Builder
	prevItem bool // the last block written is a list item's
	// prevContinued says it is a list item's later paragraph.
	prevContinued bool
	list          []openLevel // the list levels open, outermost first
	counters      map[string]*counters
	title         string // the first heading's text

	links []string
	seen  map[string]bool

	notes  map[string]*note // by "f" or "e" and id: "f2"
	labels map[string]int   // the footnote labels given, from 1
	queue  []string         // the notes labelled, in their labels' order
}

// openLevel is a list level open in the Markdown.
type openLevel struct {
	ordered bool
	numID   string
	delim   byte // of an ordered list: '.' or ')'
	width   int  // of its marker and the space after it
}

type counters struct {
	n       [maxLevels]int
	started [maxLevels]bool
}

// note is a footnote's or endnote's paragraphs.
type note struct {
	paras []*para
	empty bool
}

// maxColumns bounds a table's columns: cells past it are written into
// the last, and a cell spans at most this many.
const maxColumns = 64

// maxMeta bounds each field of the core properties.
const maxMeta = 4096

func readDocument(p *pkg, pageURL string, base *url.URL) (*extract.Document, error) {
	rootRels, err := p.part("_rels/.rels")
	if err != nil {
		return nil, err
	}
	main, core := "", ""
	for _, r := range parseRels(rootRels, "") {
		switch {
		case strings.HasSuffix(r.typ, relOfficeDocument) && !r.external && main == "":
			main = r.target
		case strings.HasSuffix(r.typ, relCore) && !r.external && core == "":
			core = r.target
		}
	}
	if main == "" || p.file(main) == nil {
		main = "word/document.xml"
	}
	if p.file(main) == nil {
		return nil, fmt.Errorf("%w: the package holds no WordprocessingML document (word/document.xml)", ErrNotDOCX)
	}
	if core == "" {
		core = "docProps/core.xml"
	}
	dir := path.Dir(main)
	docRelsData, err := p.part(relsName(main))
	if err != nil {
		return nil, err
	}
	docRels := parseRels(docRelsData, dir)
	partOf := func(suffix, fallback string) string {
		for _, r := range docRels {
			if strings.HasSuffix(r.typ, suffix) && !r.external {
				return r.target
			}
		}
		return path.Join(dir, fallback)
	}
	// Every part is read before any is parsed, so that a package over
	// MaxDecompressedBytes costs no parsing.
	names := []string{main, partOf(relStyles, "styles.xml"), partOf(relNumbering, "numbering.xml"),
		partOf(relFootnotes, "footnotes.xml"), partOf(relEndnotes, "endnotes.xml"), core}
	names = append(names, relsName(names[3]), relsName(names[4]))
	data := make([][]byte, len(names))
	for i, n := range names {
		if data[i], err = p.part(n); err != nil {
			return nil, err
		}
	}
	body, stylesData, numData, footData, endData, coreData := data[0], data[1], data[2], data[3], data[4], data[5]

	r := &reader{base: base, page: pageURL, spare: len(body), counters: map[string]*counters{},
		seen: map[string]bool{}, links: []string{}, notes: map[string]*note{}, labels: map[string]int{}}
	if r.styles, err = parseStyles(names[1], stylesData); err != nil {
		return nil, err
	}
	if r.num, err = parseNumbering(names[2], numData); err != nil {
		return nil, err
	}
	for _, n := range []struct {
		kind string
		name string
		data []byte
		rels []byte
	}{{"f", names[3], footData, data[6]}, {"e", names[4], endData, data[7]}} {
		if n.data == nil {
			continue
		}
		if err := r.readNotes(n.kind, n.name, n.data, parseRels(n.rels, path.Dir(n.name))); err != nil {
			return nil, err
		}
	}
	if err := r.readBody(main, body, docRels); err != nil {
		return nil, err
	}
	if err := r.writeNotes(); err != nil {
		return nil, err
	}
	doc := &extract.Document{URL: pageURL, Markdown: r.out.String(), Links: r.links}
	if coreData != nil {
		if err := readCore(coreData, doc); err != nil {
			return nil, err
		}
	}
	if doc.Title == "" {
		doc.Title = r.title
	}
	if doc.Lang == "" {
		doc.Lang = clean(r.styles.lang, 64)
	}
	return doc, nil
}

// hyperlinks are the web addresses of a part's hyperlink relationships,
// by id, resolved.
func (r *reader) hyperlinks(rels []rel) map[string]string {
	m := map[string]string{}
	for _, rl := range rels {
		if _, dup := m[rl.id]; dup || !strings.HasSuffix(rl.typ, relHyperlink) || !rl.external {
			continue
		}
		m[rl.id] = r.resolve(rl.target)
	}
	return m
}

// resolve is the absolute http(s) URL a hyperlink's target names, or "".
// A relative one resolves against the document's address, while the
// budget lasts.
func (r *reader) resolve(target string) string {
	u, err := url.Parse(strings.TrimSpace(target))
	if err != nil {
		return ""
	}
	if u.Scheme == "" {
		if r.base == nil || r.spare < len(r.page) {
			return ""
		}
		r.spare -= len(r.page)
		u = r.base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return ""
	}
	u.Host = strings.ToLower(u.Host)
	return u.String()
}

// addLink adds a link to the document's links, without its fragment,
// once.
func (r *reader) addLink(u string) {
	u, _, _ = strings.Cut(u, "#")
	if !r.seen[u] {
		r.seen[u] = true
		r.links = append(r.links, u)
	}
}

// noteLabel is the label of a note referenced, given at its first
// reference; 0 for a note that is not there or holds no text.
func (r *reader) noteLabel(key string) int {
	if l, ok := r.labels[key]; ok {
		return l
	}
	n := r.notes[key]
	if n == nil || n.empty {
		return 0
	}
	r.queue = append(r.queue, key)
	r.labels[key] = len(r.queue)
	return len(r.queue)
}

// block writes a block of Markdown: after a blank line, or after a line
// break where it is a list item that follows another in a tight list.
func (r *reader) block(text string, item, tight bool) error {
	if r.out.Len() > 0 {
		if item && r.prevItem && tight {
			r.out.WriteString("\n")
		} else {
			r.out.WriteString("\n\n")
		}
	}
	if r.out.Len()+len(text) > MaxMarkdownBytes {
		return fmt.Errorf("%w: the Markdown would be over %d bytes (MaxMarkdownBytes)", ErrLimit, MaxMarkdownBytes)
	}
	r.out.WriteString(text)
	r.prevItem, r.prevContinued = item, false
	if !item {
		r.list = r.list[:0]
	}
	return nil
}

// paragraph writes a paragraph of the body: a heading, a list item or
// a paragraph of text.
func (r *reader) paragraph(p *para) error {
	heading := r.styles.headingLevel(p.styleID)
	switch {
	case p.outline == 9:
		heading = 0
	case p.outline >= 0:
		heading = p.outline + 1
	}
	if heading > 0 {
		text := escapeHeadingEnd(r.inline(p, inlineOpts{oneLine: true, plain: true}))
		if text == "" {
			return nil
		}
		if r.title == "" {
			r.title = clean(p.plain(), maxMeta)
		}
		return r.block(strings.Repeat("#", heading)+" "+text, false, false)
	}
	// The paragraph's own numbering, where it states its list or level,
	// over its style's.
	numID, ilvl, ok := r.styles.numbering(p.styleID)
	if p.hasNum {
		ok = true
		numID, ilvl = cmp.Or(p.numID, numID), cmp.Or(p.ilvl, ilvl)
	}
	if ok && numID != "" && numID != "0" {
		return r.item(p, numID, max(level(ilvl, 1<<30), 0))
	}
	text := r.inline(p, inlineOpts{})
	if text == "" {
		return nil
	}
	return r.block(text, false, false)
}

// item writes a list item. Its level is at most one deeper than the
// list it is in; its number is counted per list and level, as Word
// counts, deeper levels starting again after it.
func (r *reader) item(p *para, numID string, ilvl int) error {
	ilvl = min(ilvl, maxLevels-1)
	lv := r.num.level(numID, ilvl)
	if lv.blank {
		return r.continued(p, ilvl)
	}
	ordered := lv.ordered
	c := r.counters[numID]
	if c == nil {
		c = &counters{}
		r.counters[numID] = c
	}
	if c.started[ilvl] {
		c.n[ilvl]++
	} else {
		c.n[ilvl], c.started[ilvl] = lv.start, true
	}
	for l := ilvl + 1; l < maxLevels; l++ {
		c.started[l] = false
	}
	if !r.prevItem {
		r.list = r.list[:0]
	}
	l := min(ilvl, len(r.list))
	indent := 0
	for _, o := range r.list[:l] {
		indent += o.width
	}
	marker := "-"
	var delim byte = '.'
	newList := l == len(r.list) || r.list[l].ordered != ordered || ordered && r.list[l].numID != numID
	if ordered {
		switch {
		case !newList:
			delim = r.list[l].delim
		case l < len(r.list) && r.list[l].ordered && r.list[l].delim == '.':
			// Another list at the same level: CommonMark starts a new
			// list where the delimiter changes.
			delim = ')'
		}
		marker = strconv.Itoa(c.n[ilvl]) + string(delim)
	}
	text := r.inline(p, inlineOpts{indent: strings.Repeat(" ", indent+len(marker)+1)})
	if text == "" {
		return nil
	}
	// A new list of the outermost level is set apart by a blank line;
	// so is an ordered list that does not start at 1, which cannot
	// interrupt a paragraph (the text of the item before).
	// After an item's later paragraph, too.
	tight := !(newList && (l == 0 || ordered && c.n[ilvl] != 1)) && !r.prevContinued
	r.list = append(r.list[:l], openLevel{ordered: ordered, numID: numID, delim: delim, width: len(marker) + 1})
	return r.block(strings.Repeat(" ", indent)+marker+" "+text, true, tight)
}

// continued writes a paragraph of a list level with no marker: a later
// paragraph of the item open at that level (or the deepest open), set
// apart by a blank line and indented as the item's text; with no item
// open, a paragraph.
func (r *reader) continued(p *para, ilvl int) error {
	if !r.prevItem || len(r.list) == 0 {
		text := r.inline(p, inlineOpts{})
		if text == "" {
			return nil
		}
		return r.block(text, false, false)
	}
	l := min(ilvl, len(r.list)-1)
	indent := 0
	for _, o := range r.list[:l+1] {
		indent += o.width
	}
	pad := strings.Repeat(" ", indent)
	text := r.inline(p, inlineOpts{indent: pad})
	if text == "" {
		return nil
	}
	r.list = r.list[:l+1]
	err := r.block(pad+text, true, false)
	r.prevContinued = true
	return err
}

// table writes a table as a GFM table: its first row is the header.
// A merged cell's text stands in its first cell, the others it covers
// are empty.
func (r *reader) table(rows [][]string) error {
	cols := 0
	for _, row := range rows {
		cols = max(cols, len(row))
	}
	if cols == 0 {
		return nil
	}
	var b strings.Builder
	line := func(cells []string, n int) {
		b.WriteString("|")
		for i := range n {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			b.WriteString(" " + c + " |")
		}
	}
	line(rows[0], cols)
	b.WriteString("\n|")
	for range cols {
		b.WriteString(" --- |")
	}
	for _, row := range rows[1:] {
		if len(row) == 0 {
			continue
		}
		b.WriteString("\n")
		line(row, len(row))
	}
	return r.block(b.String(), false, false)
}

// writeNotes writes the notes referenced, as Markdown footnotes after
// the body, in the order of their labels; notes referenced from notes
// join the queue.
func (r *reader) writeNotes() error {
	for i := 0; i < len(r.queue); i++ {
		n := r.notes[r.queue[i]]
		var b strings.Builder
		b.WriteString("[^" + strconv.Itoa(i+1) + "]: ")
		first := true
		for _, p := range n.paras {
			text := r.inline(p, inlineOpts{indent: "    "})
			if text == "" {
				continue
			}
			if first {
				b.WriteString(guardDefinition(text))
				first = false
			} else {
				b.WriteString("\n\n    " + text)
			}
		}
		if err := r.block(b.String(), false, false); err != nil {
			return err
		}
	}
	return nil
}

// readCore reads the core properties (docProps/core.xml) into doc.
func readCore(data []byte, doc *extract.Document) error {
	x := newXMLReader("docProps/core.xml", data)
	var desc, subject string
	err := x.root(func(se xml.StartElement) error {
		return x.children(func(se xml.StartElement) error {
			text, err := x.text(maxMeta * 4)
			if err != nil {
				return err
			}
			switch se.Name.Local {
			case "title":
				doc.Title = clean(text, maxMeta)
			case "creator":
				doc.Author = clean(text, maxMeta)
			case "description":
				desc = clean(text, maxMeta)
			case "subject":
				subject = clean(text, maxMeta)
			case "language":
				doc.Lang = clean(text, 64)
			case "created":
				doc.Published = parseDate(text)
			case "modified":
				doc.Modified = parseDate(text)
			}
			return nil
		})
	})
	doc.Description = desc
	if desc == "" {
		doc.Description = subject
	}
	return err
}

// clean is s with its white space made single spaces, cut to at most
// max bytes (at a character's start).
func clean(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "")
}
