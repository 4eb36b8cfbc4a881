package docx

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// para is a paragraph as read: its properties, and its text as runs of
// one format (segs) over one buffer.
type para struct {
	styleID     string
	numID, ilvl string
	hasNum      bool
	outline     int // the paragraph's own w:outlineLvl, or -1
	buf         []byte
	segs        []seg
}

type segKind uint8

const (
	segText segKind = iota
	segBreak
	segNote
)

// seg is a run of text of one format and link, a line break, or a
// reference to a note.
type seg struct {
	kind         segKind
	start, end   int // of the text in the paragraph's buffer
	bold, italic bool
	link         string // the absolute URL the text links to, or ""
	note         string // the note referenced: "f2", "e1"
}

func (p *para) reset() {
	*p = para{outline: -1, buf: p.buf[:0], segs: p.segs[:0]}
}

// addText adds text, joining it to the run before where they share a
// format and a link.
func (p *para) addText(s string, bold, italic bool, link string) {
	if s == "" {
		return
	}
	start := len(p.buf)
	p.buf = append(p.buf, s...)
	if n := len(p.segs); n > 0 {
		if l := &p.segs[n-1]; l.kind == segText && l.end == start && l.bold == bold && l.italic == italic && l.link == link {
			l.end = len(p.buf)
			return
		}
	}
	p.segs = append(p.segs, seg{kind: segText, start: start, end: len(p.buf), bold: bold, italic: italic, link: link})
}

// plain is the paragraph's text, without marks.
func (p *para) plain() string {
	var b strings.Builder
	for _, s := range p.segs {
		switch s.kind {
		case segText:
			b.Write(p.buf[s.start:s.end])
		case segBreak:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// hasText reports whether the paragraph holds any text but white space,
// or a reference.
func (p *para) hasText() bool {
	for _, s := range p.segs {
		if s.kind == segNote || s.kind == segText && strings.TrimFunc(string(p.buf[s.start:s.end]), unicode.IsSpace) != "" {
			return true
		}
	}
	return false
}

// maxFields bounds the fields open at once that are followed; fields
// nested deeper are read as text, their instructions left out.
const maxFields = 32

// maxInstr bounds the instruction of a field that is kept, to read a
// HYPERLINK field's address.
const maxInstr = 2048

// field is a complex field open (w:fldChar begin), whose instruction
// is read until its result starts (separate).
type field struct {
	instr  strings.Builder
	result bool
	link   string
}

// walker reads the paragraphs and tables of one part.
type walker struct {
	r     *reader
	x     *xmlReader
	links map[string]string // the part's hyperlinks by relationship id
	link  string            // the link of the w:hyperlink being read

	fields   []*field
	overflow int // fields begun past maxFields, not yet ended

	p    *para       // the paragraph being read
	cur  para        // a paragraph reused by the body
	flat *para       // where paragraphs go while flattened (a cell)
	keep func(*para) // what is done with a paragraph read

	// flatTables reads tables as one paragraph of their text (in notes).
	flatTables bool
	// err is the first error of writing what was read (a cap reached),
	// which ends the reading.
	err error
}

func (r *reader) readBody(name string, data []byte, rels []rel) error {
	w := &walker{r: r, x: newXMLReader(name, data), links: r.hyperlinks(rels)}
	w.keep = func(p *para) {
		if w.err == nil {
			w.err = r.paragraph(p)
		}
	}
	return w.x.root(func(se xml.StartElement) error {
		if se.Name.Local != "document" {
			return fmt.Errorf("%w: its main part %s holds a %s, not a WordprocessingML document", ErrNotDOCX, quote(name), quote(se.Name.Local))
		}
		return w.x.children(func(se xml.StartElement) error {
			if se.Name.Local != "body" {
				return w.x.skip()
			}
			return w.blocks()
		})
	})
}

// readNotes reads the footnotes or endnotes part: each note's
// paragraphs, kept for the end of the Markdown.
func (r *reader) readNotes(kind, name string, data []byte, rels []rel) error {
	w := &walker{r: r, x: newXMLReader(name, data), links: r.hyperlinks(rels), flatTables: true}
	var n *note
	w.keep = func(p *para) { n.paras = append(n.paras, p) }
	return w.x.root(func(se xml.StartElement) error {
		return w.x.children(func(se xml.StartElement) error {
			if se.Name.Local != "footnote" && se.Name.Local != "endnote" {
				return w.x.skip()
			}
			switch attr(se, "type") {
			case "", "normal":
			default:
				// The separators between the text and its notes.
				return w.x.skip()
			}
			n = &note{}
			key := kind + attr(se, "id")
			if _, dup := r.notes[key]; !dup {
				r.notes[key] = n
			}
			err := w.blocks()
			n.empty = true
			for _, p := range n.paras {
				if p.hasText() {
					n.empty = false
				}
			}
			return err
		})
	})
}

// blocks reads the block content of the element just started:
// paragraphs and tables, and the containers that hold them (content
// controls, inserted text). Deleted and moved-away blocks are skipped.
func (w *walker) blocks() error { return w.x.children(w.block) }

// block reads one element of block content.
func (w *walker) block(se xml.StartElement) error {
	if w.err != nil {
		return w.err
	}
	switch se.Name.Local {
	case "p":
		return w.paragraph()
	case "tbl":
		return w.table()
	case "sdt":
		return w.sdt(w.blocks)
	case "customXml", "ins", "moveTo", "smartTag", "tr", "tc":
		// tr and tc stand here only in a table that is flattened.
		return w.blocks()
	}
	return w.x.skip()
}

// sdt reads a content control's content with f.
func (w *walker) sdt(f func() error) error {
	return w.x.children(func(se xml.StartElement) error {
		if se.Name.Local == "sdtContent" {
			return f()
		}
		return w.x.skip()
	})
}

// paragraph reads a w:p: its properties, then its text.
func (w *walker) paragraph() error {
	if w.flat != nil {
		// A paragraph of a cell joins the cell's text, after a space.
		w.p = w.flat
		if len(w.p.segs) > 0 {
			w.p.addText(" ", false, false, "")
		}
		return w.x.children(func(se xml.StartElement) error {
			if se.Name.Local == "pPr" {
				return w.x.skip()
			}
			return w.inline(se)
		})
	}
	var p *para
	if w.flatTables {
		p = &para{outline: -1}
	} else {
		p = &w.cur
		p.reset()
	}
	w.p = p
	err := w.x.children(func(se xml.StartElement) error {
		if se.Name.Local == "pPr" {
			return w.pPr(p)
		}
		return w.inline(se)
	})
	if err != nil {
		return err
	}
	w.keep(p)
	return w.err
}

// pPr reads what a paragraph's properties say of its style, list and
// outline level; a recorded change's old properties are skipped.
func (w *walker) pPr(p *para) error {
	return w.x.children(func(se xml.StartElement) error {
		switch se.Name.Local {
		case "pStyle":
			p.styleID = val(se)
		case "numPr":
			p.hasNum = true
			return readNumPr(w.x, &p.numID, &p.ilvl)
		case "outlineLvl":
			p.outline = level(val(se), 10)
		}
		return w.x.skip()
	})
}

// currentLink is the link of text read now: its w:hyperlink's, or that
// of a HYPERLINK field whose result it is.
func (w *walker) currentLink() string {
	if w.link != "" {
		return w.link
	}
	for i := len(w.fields) - 1; i >= 0; i-- {
		if f := w.fields[i]; f.result && f.link != "" {
			return f.link
		}
	}
	return ""
}

// inline reads an element of a paragraph's content.
func (w *walker) inline(se xml.StartElement) error {
	switch se.Name.Local {
	case "r":
		return w.run()
	case "hyperlink":
		// Its relationship is its r:id: a hyperlink has no other id.
		id := attr(se, "id")
		// An internal anchor (w:anchor) is no web link: its text is kept
		// plain.
		prev := w.link
		w.link = w.links[id]
		err := w.x.children(w.inline)
		w.link = prev
		return err
	case "fldSimple":
		pushed := len(w.fields) < maxFields
		if pushed {
			w.fields = append(w.fields, &field{result: true, link: w.fieldLink(attr(se, "instr"))})
		}
		err := w.x.children(w.inline)
		if pushed {
			w.fields = w.fields[:len(w.fields)-1]
		}
		return err
	case "sdt":
		return w.sdt(func() error { return w.x.children(w.inline) })
	case "del", "moveFrom", "rPr", "sdtPr", "sdtEndPr", "AlternateContent", "drawing", "pict", "object",
		"p", "tbl", "customXmlPr", "smartTagPr", "subDoc", "txbxContent":
		return w.x.skip()
	}
	// Inserted and moved text, smart tags, custom XML, bidirectional
	// embeddings and math hold runs: their text is read.
	return w.x.children(w.inline)
}

// run reads a w:r: its properties, then its text, breaks, tabs and note
// references. Hidden text (w:vanish, w:webHidden) is left out.
func (w *walker) run() error {
	var bold, italic, hidden bool
	return w.x.children(func(se xml.StartElement) error {
		p := w.p
		switch se.Name.Local {
		case "rPr":
			return w.x.children(func(c xml.StartElement) error {
				switch c.Name.Local {
				case "b":
					bold = on(c)
				case "i":
					italic = on(c)
				case "vanish", "webHidden":
					hidden = on(c)
				case "rStyle":
					b, i := w.r.styles.runFormat(val(c))
					bold, italic = bold || b == 1, italic || i == 1
				}
				return w.x.skip()
			})
		case "t":
			text, err := w.x.text(MaxPartBytes)
			if err == nil && !hidden {
				p.addText(text, bold, italic, w.currentLink())
			}
			return err
		case "tab", "ptab":
			if !hidden {
				p.addText("\t", bold, italic, w.currentLink())
			}
		case "br":
			if !hidden {
				if t := attr(se, "type"); t == "page" || t == "column" {
					p.addText(" ", bold, italic, w.currentLink())
				} else {
					p.segs = append(p.segs, seg{kind: segBreak})
				}
			}
		case "cr":
			if !hidden {
				p.segs = append(p.segs, seg{kind: segBreak})
			}
		case "noBreakHyphen":
			if !hidden {
				p.addText("-", bold, italic, w.currentLink())
			}
		case "footnoteReference", "endnoteReference":
			if !hidden {
				p.segs = append(p.segs, seg{kind: segNote, note: se.Name.Local[:1] + attr(se, "id")})
			}
		case "fldChar":
			w.fieldChar(attr(se, "fldCharType"))
		case "instrText":
			text, err := w.x.text(maxInstr)
			if n := len(w.fields); err == nil && n > 0 && w.overflow == 0 && !w.fields[n-1].result {
				if f := w.fields[n-1]; f.instr.Len() < maxInstr {
					f.instr.WriteString(text[:min(len(text), maxInstr-f.instr.Len())])
				}
			}
			return err
		case "ruby":
			// The base text is read; its annotation (w:rt) is not.
			return w.x.children(func(c xml.StartElement) error {
				if c.Name.Local == "rubyBase" {
					return w.x.children(w.inline)
				}
				return w.x.skip()
			})
		}
		// Deleted text, field codes, drawings, symbols and the rest are
		// skipped.
		return w.x.skip()
	})
}

// fieldChar follows complex fields: a field's instruction is read from
// its begin to its separate, and its result after.
func (w *walker) fieldChar(kind string) {
	switch kind {
	case "begin":
		if len(w.fields) < maxFields {
			w.fields = append(w.fields, &field{})
		} else {
			w.overflow++
		}
	case "separate":
		if n := len(w.fields); n > 0 && w.overflow == 0 && !w.fields[n-1].result {
			f := w.fields[n-1]
			f.result, f.link = true, w.fieldLink(f.instr.String())
		}
	case "end":
		switch {
		case w.overflow > 0:
			w.overflow--
		case len(w.fields) > 0:
			w.fields = w.fields[:len(w.fields)-1]
		}
	}
}

// fieldLink is the web address a HYPERLINK field's instruction names,
// or "" (for any other field, or a link to a bookmark: \l).
func (w *walker) fieldLink(instr string) string {
	words := fieldWords(instr)
	if len(words) < 2 || !strings.EqualFold(words[0], "HYPERLINK") {
		return ""
	}
	target := ""
	for i := 1; i < len(words); i++ {
		switch {
		case strings.EqualFold(words[i], `\l`):
			return ""
		case strings.HasPrefix(words[i], `\`):
			i++ // a switch's argument
		case target == "":
			target = words[i]
		}
	}
	if target == "" {
		return ""
	}
	return w.r.resolve(target)
}

// fieldWords splits a field instruction into its words, a quoted one
// being one word.
func fieldWords(s string) []string {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '"' {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				out = append(out, s[1:])
				break
			}
			out = append(out, s[1:1+end])
			s = s[2+end:]
			continue
		}
		end := strings.IndexFunc(s, unicode.IsSpace)
		if end < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// table reads a w:tbl: into rows of cells written as one line each, or,
// in a cell or a note, into the text that holds it.
func (w *walker) table() error {
	if w.flat != nil {
		return w.blocks()
	}
	if w.flatTables {
		w.flat = &para{outline: -1}
		err := w.blocks()
		p := w.flat
		w.flat = nil
		if err == nil {
			w.keep(p)
		}
		return err
	}
	var rows [][]string
	var row func(se xml.StartElement) error
	var rowsIn func() error
	rowsIn = func() error {
		return w.x.children(func(se xml.StartElement) error {
			switch se.Name.Local {
			case "tr":
				return row(se)
			case "sdt":
				return w.sdt(rowsIn)
			case "customXml", "ins", "moveTo":
				return rowsIn()
			}
			return w.x.skip()
		})
	}
	row = func(xml.StartElement) error {
		var cells []string
		var past strings.Builder // the text of cells past maxColumns
		add := func(text string, span int) {
			for i := range span {
				switch {
				case len(cells) < maxColumns && i == 0:
					cells = append(cells, text)
				case len(cells) < maxColumns:
					cells = append(cells, "")
				case i == 0 && text != "":
					past.WriteString(" " + text)
				}
			}
		}
		var cellsIn func() error
		cellsIn = func() error {
			return w.x.children(func(se xml.StartElement) error {
				switch se.Name.Local {
				case "trPr":
					return w.x.children(func(c xml.StartElement) error {
						if c.Name.Local == "gridBefore" {
							add("", columns(val(c), 0))
						}
						return w.x.skip()
					})
				case "tc":
					text, span, err := w.cell()
					add(text, span)
					return err
				case "sdt":
					return w.sdt(cellsIn)
				case "customXml", "ins", "moveTo":
					return cellsIn()
				}
				return w.x.skip()
			})
		}
		err := cellsIn()
		if past.Len() > 0 {
			// Past maxColumns, cells' text joins the last.
			cells[len(cells)-1] = strings.TrimSpace(cells[len(cells)-1] + past.String())
		}
		rows = append(rows, cells)
		return err
	}
	if err := rowsIn(); err != nil {
		return err
	}
	if w.err != nil {
		return w.err
	}
	w.err = w.r.table(rows)
	return w.err
}

// cell reads a w:tc into one line of Markdown, and how many grid
// columns it spans. A cell that continues a vertical merge is empty.
func (w *walker) cell() (text string, span int, err error) {
	span = 1
	merged := false
	p := &para{outline: -1}
	w.flat = p
	defer func() { w.flat = nil }()
	err = w.x.children(func(se xml.StartElement) error {
		if se.Name.Local != "tcPr" {
			return w.block(se)
		}
		return w.x.children(func(c xml.StartElement) error {
			switch c.Name.Local {
			case "gridSpan":
				span = columns(val(c), 1)
			case "vMerge":
				merged = val(c) != "restart"
			}
			return w.x.skip()
		})
	})
	if err != nil || merged {
		return "", span, err
	}
	return w.r.inline(p, inlineOpts{oneLine: true}), span, nil
}

// columns reads a count of grid columns, at least least and at most
// maxColumns.
func columns(s string, least int) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return least
	}
	return min(max(n, least), maxColumns)
}

// W3CDTF dates, as core properties state them.
var dateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02T15:04:05", "2006-01-02", "2006-01", "2006"}

func parseDate(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
