package docx

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// maxStyleChain is how many styles a basedOn chain is followed through:
// Word's own chains are a few styles long, and a chain that loops ends
// here.
const maxStyleChain = 16

// maxLevels is how many list levels WordprocessingML numbers (w:ilvl 0
// to 8); deeper levels are read as the ninth.
const maxLevels = 9

// style is what heed reads of a style in styles.xml.
type style struct {
	name, basedOn string
	paragraph     bool
	outline       int // w:outlineLvl, or -1
	numID, ilvl   string
	hasNum        bool
	bold, italic  int8 // -1 unset, 0 off, 1 on
}

// styles are a document's styles by id, and what is read of them.
type styles struct {
	byID         map[string]*style
	defaultPara  string         // the paragraph style of paragraphs that name none
	lang         string         // the language of the document's default run properties
	headingCache map[string]int // heading levels already resolved
}

func parseStyles(name string, data []byte) (*styles, error) {
	s := &styles{byID: map[string]*style{}, headingCache: map[string]int{}}
	if data == nil {
		return s, nil
	}
	x := newXMLReader(name, data)
	err := x.root(func(se xml.StartElement) error {
		return x.children(func(se xml.StartElement) error {
			switch se.Name.Local {
			case "style":
				return s.readStyle(x, se)
			case "docDefaults":
				return s.readDefaults(x)
			}
			return x.skip()
		})
	})
	return s, err
}

func (s *styles) readDefaults(x *xmlReader) error {
	return x.children(func(se xml.StartElement) error {
		if se.Name.Local != "rPrDefault" {
			return x.skip()
		}
		return x.children(func(se xml.StartElement) error {
			if se.Name.Local != "rPr" {
				return x.skip()
			}
			return x.children(func(se xml.StartElement) error {
				if se.Name.Local == "lang" {
					s.lang = val(se)
				}
				return x.skip()
			})
		})
	})
}

func (s *styles) readStyle(x *xmlReader, se xml.StartElement) error {
	st := &style{outline: -1, bold: -1, italic: -1, paragraph: attr(se, "type") == "paragraph" || attr(se, "type") == ""}
	id := attr(se, "styleId")
	if st.paragraph && on(se) && attr(se, "default") != "" && s.defaultPara == "" {
		s.defaultPara = id
	}
	err := x.children(func(c xml.StartElement) error {
		switch c.Name.Local {
		case "name":
			st.name = val(c)
		case "basedOn":
			st.basedOn = val(c)
		case "pPr":
			return x.children(func(p xml.StartElement) error {
				switch p.Name.Local {
				case "outlineLvl":
					st.outline = level(val(p), 10)
				case "numPr":
					st.hasNum = true
					return readNumPr(x, &st.numID, &st.ilvl)
				}
				return x.skip()
			})
		case "rPr":
			return x.children(func(r xml.StartElement) error {
				switch r.Name.Local {
				case "b":
					st.bold = toggle(on(r))
				case "i":
					st.italic = toggle(on(r))
				}
				return x.skip()
			})
		}
		return x.skip()
	})
	if _, dup := s.byID[id]; !dup && id != "" {
		s.byID[id] = st
	}
	return err
}

func readNumPr(x *xmlReader, numID, ilvl *string) error {
	return x.children(func(n xml.StartElement) error {
		switch n.Name.Local {
		case "numId":
			*numID = val(n)
		case "ilvl":
			*ilvl = val(n)
		}
		return x.skip()
	})
}

func toggle(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

// level reads a small number below limit, or -1.
func level(s string, limit int) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n >= limit {
		return -1
	}
	return n
}

// chain calls f for the style of id and those it is based on, nearest
// first, until f returns true; at most maxStyleChain of them, so that a
// chain that loops ends.
func (s *styles) chain(id string, f func(st *style) bool) {
	for range maxStyleChain {
		st := s.byID[id]
		if st == nil || f(st) {
			return
		}
		id = st.basedOn
	}
}

// headingLevel is the heading level (1 to 9) of a paragraph style, or 0:
// the first outline level along its basedOn chain (a localized document
// names its heading styles in its own language, "Überschrift 1", but
// gives them outline levels), else a name or id of a built-in heading
// style ("heading 1", "Heading1") or of the Title style.
func (s *styles) headingLevel(id string) int {
	if id == "" {
		id = s.defaultPara
	}
	if l, ok := s.headingCache[id]; ok {
		return l
	}
	l := -1
	s.chain(id, func(st *style) bool {
		switch {
		case st.outline == 9:
			l = 0 // body text
		case st.outline >= 0:
			l = st.outline + 1
		}
		return l >= 0
	})
	if l < 0 {
		l = 0
		if s.byID[id] == nil {
			l = nameLevel(id)
		}
		s.chain(id, func(st *style) bool {
			l = max(nameLevel(st.name), l)
			return l > 0
		})
	}
	s.headingCache[id] = l
	return l
}

// nameLevel is the heading level a built-in style's name or id states:
// "heading 1" to "heading 9" (or "Heading1"), and 1 for "Title".
func nameLevel(name string) int {
	n := strings.ToLower(strings.ReplaceAll(name, " ", ""))
	if n == "title" {
		return 1
	}
	if rest, ok := strings.CutPrefix(n, "heading"); ok && len(rest) == 1 && '1' <= rest[0] && rest[0] <= '9' {
		return int(rest[0] - '0')
	}
	return 0
}

// numbering is the list numbering a paragraph style gives: the first
// along its chain.
func (s *styles) numbering(id string) (numID, ilvl string, ok bool) {
	if id == "" {
		id = s.defaultPara
	}
	s.chain(id, func(st *style) bool {
		if st.hasNum {
			numID, ilvl, ok = st.numID, st.ilvl, true
		}
		return ok
	})
	return numID, ilvl, ok
}

// runFormat is the bold and italic a character style gives: the first
// set along its chain.
func (s *styles) runFormat(id string) (bold, italic int8) {
	bold, italic = -1, -1
	s.chain(id, func(st *style) bool {
		if bold < 0 {
			bold = st.bold
		}
		if italic < 0 {
			italic = st.italic
		}
		return bold >= 0 && italic >= 0
	})
	return bold, italic
}

// listLevel is what numbering.xml says of one level of a list.
type listLevel struct {
	ordered  bool
	blank    bool // it shows no marker: its paragraphs continue an item
	start    int
	set      bool // the level is defined
	startSet bool // its start is overridden (w:startOverride)
}

// numbering is a document's list definitions: abstract ones by id, and
// the lists (w:num) that use them, with their overrides.
type numbering struct {
	abstract map[string]*[maxLevels]listLevel
	nums     map[string]*num
}

type num struct {
	abstractID string
	override   [maxLevels]listLevel
}

// maxStart bounds a list's start number, so that every number heed
// writes is a list marker (nine digits at most) however many items
// follow.
const maxStart = 1000000

func parseNumbering(name string, data []byte) (*numbering, error) {
	n := &numbering{abstract: map[string]*[maxLevels]listLevel{}, nums: map[string]*num{}}
	if data == nil {
		return n, nil
	}
	x := newXMLReader(name, data)
	err := x.root(func(se xml.StartElement) error {
		return x.children(func(se xml.StartElement) error {
			switch se.Name.Local {
			case "abstractNum":
				levels := &[maxLevels]listLevel{}
				if _, dup := n.abstract[attr(se, "abstractNumId")]; !dup {
					n.abstract[attr(se, "abstractNumId")] = levels
				}
				return x.children(func(se xml.StartElement) error {
					if se.Name.Local != "lvl" {
						return x.skip()
					}
					lv, err := readLevel(x)
					if l := level(attr(se, "ilvl"), maxLevels); l >= 0 {
						levels[l] = lv
					}
					return err
				})
			case "num":
				nm := &num{}
				if _, dup := n.nums[attr(se, "numId")]; !dup {
					n.nums[attr(se, "numId")] = nm
				}
				return x.children(func(se xml.StartElement) error {
					switch se.Name.Local {
					case "abstractNumId":
						nm.abstractID = val(se)
					case "lvlOverride":
						l := level(attr(se, "ilvl"), maxLevels)
						if l < 0 {
							return x.skip()
						}
						return x.children(func(c xml.StartElement) error {
							switch c.Name.Local {
							case "startOverride":
								nm.override[l].start = clampStart(val(c))
								nm.override[l].startSet = true
							case "lvl":
								lv, err := readLevel(x)
								if prev := nm.override[l]; prev.startSet {
									lv.start, lv.startSet = prev.start, true
								}
								nm.override[l] = lv
								return err
							}
							return x.skip()
						})
					}
					return x.skip()
				})
			}
			return x.skip()
		})
	})
	return n, err
}

// readLevel reads a w:lvl.
func readLevel(x *xmlReader) (listLevel, error) {
	lv := listLevel{start: 1, set: true}
	err := x.children(func(c xml.StartElement) error {
		switch c.Name.Local {
		case "numFmt":
			f := val(c)
			lv.ordered = f != "bullet" && f != "none" && f != ""
			lv.blank = lv.blank || f == "none"
		case "lvlText":
			// A level whose text is white space, as pandoc writes for a
			// list item's later paragraphs, shows no marker.
			lv.blank = lv.blank || strings.TrimSpace(val(c)) == "" && hasAttr(c, "val")
		case "start":
			lv.start = clampStart(val(c))
		}
		return x.skip()
	})
	return lv, err
}

func clampStart(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 1
	}
	return min(max(n, 0), maxStart)
}

// level is how a list's level is numbered: ordered or not, with a
// marker or none, from which number. A list numbering.xml does not
// define is a bullet list.
func (n *numbering) level(numID string, ilvl int) listLevel {
	nm := n.nums[numID]
	if nm == nil {
		return listLevel{start: 1}
	}
	o := nm.override[ilvl]
	if o.set {
		return o
	}
	lv := listLevel{start: 1}
	if a := n.abstract[nm.abstractID]; a != nil && a[ilvl].set {
		lv = a[ilvl]
	}
	if o.startSet {
		lv.start = o.start
	}
	return lv
}
