package docx

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/heedhq/heed/extract"
)

// escapeText escapes text as extract's Markdown does (extract.EscapeText),
// and table pipes too, since text may stand in a table's cell.
func escapeText(s string, atLineStart bool) string {
	s = extract.EscapeText(s, atLineStart)
	if strings.IndexByte(s, '|') < 0 {
		return s
	}
	return strings.ReplaceAll(s, "|", "\\|")
}

// escapeURL keeps a URL from ending its Markdown link, or a table's
// cell, early: as extract's links do (extract.EscapeURL), and pipes and
// backslashes too.
func escapeURL(s string) string {
	s = extract.EscapeURL(s)
	if !strings.ContainsAny(s, "|\\") {
		return s
	}
	return strings.NewReplacer("|", "%7C", "\\", "%5C").Replace(s)
}

// inlineOpts say how a paragraph's text is written.
type inlineOpts struct {
	oneLine bool   // line breaks become spaces (headings, cells)
	plain   bool   // no bold or italic (headings)
	indent  string // what a line after a break starts with
}

// inline writes a paragraph's text as Markdown: its text escaped, bold
// and italic marks around runs (white space kept outside them, where
// CommonMark reads them), links to the web, footnote references and
// hard line breaks. Runs of white space become one space, and a line
// neither starts nor ends with one.
func (r *reader) inline(p *para, o inlineOpts) string {
	w := inlineWriter{r: r, p: p, o: o, atStart: true}
	segs := p.segs
	for i := 0; i < len(segs); {
		s := segs[i]
		switch {
		case s.kind == segBreak:
			if o.oneLine {
				w.space = true
			} else if !w.atStart {
				w.brk = true
			}
			i++
		case s.kind == segNote:
			if label := r.noteLabel(s.note); label > 0 {
				w.flush()
				w.bracket()
				w.b = append(w.b, "[^"...)
				w.b = strconv.AppendInt(w.b, int64(label), 10)
				w.b = append(w.b, ']')
				w.atStart = false
			}
			i++
		case s.link == "":
			w.text(s)
			i++
		default:
			j := i + 1
			for j < len(segs) && segs[j].kind == segText && segs[j].link == s.link {
				j++
			}
			w.link(segs[i:j])
			i = j
		}
	}
	return string(w.b)
}

// inlineWriter is the state of writing one paragraph's text.
type inlineWriter struct {
	r       *reader
	p       *para
	o       inlineOpts
	b       []byte
	atStart bool // nothing written on this line yet
	space   bool // white space is due before the next text
	brk     bool // a line break is due before the next text
	inLink  bool // writing a link's text
}

// flush writes the space or line break due before text.
func (w *inlineWriter) flush() {
	switch {
	case w.brk:
		// After an escaped backslash a backslash break is misread by some
		// readers: two spaces break the line instead.
		if len(w.b) > 0 && w.b[len(w.b)-1] == '\\' {
			w.b = append(w.b, "  \n"...)
		} else {
			w.b = append(w.b, "\\\n"...)
		}
		w.b = append(w.b, w.o.indent...)
		w.atStart = true
	case w.space && !w.atStart:
		w.b = append(w.b, ' ')
	}
	w.brk, w.space = false, false
}

// bracket is called before writing a "[": a "!" just before it would
// make the link an image, and is escaped.
func (w *inlineWriter) bracket() {
	if n := len(w.b); n > 0 && w.b[n-1] == '!' {
		w.b = append(w.b[:n-1], "\\!"...)
	}
}

// text writes one run of text with its marks.
func (w *inlineWriter) text(s seg) {
	t := collapse(string(w.p.buf[s.start:s.end]))
	core := strings.TrimFunc(t, unicode.IsSpace)
	if core == "" {
		if t != "" {
			w.space = true
		}
		return
	}
	if r, _ := utf8.DecodeRuneInString(t); unicode.IsSpace(r) {
		w.space = true
	}
	w.flush()
	marks := ""
	if !w.o.plain {
		switch {
		case s.bold && s.italic:
			marks = "***"
		case s.bold:
			marks = "**"
		case s.italic:
			marks = "*"
		}
	}
	w.b = append(w.b, marks...)
	w.b = append(w.b, escapeText(core, w.atStart && marks == "" && !w.inLink)...)
	w.b = append(w.b, marks...)
	w.atStart = false
	if r, _ := utf8.DecodeLastRuneInString(t); unicode.IsSpace(r) {
		w.space = true
	}
}

// link writes runs of one link: as a Markdown link while the budget for
// link destinations lasts, else as their text.
func (w *inlineWriter) link(segs []seg) {
	url := segs[0].link
	w.r.addLink(url)
	inner := inlineWriter{r: w.r, p: w.p, o: w.o, atStart: true, inLink: true}
	for _, s := range segs {
		inner.text(s)
	}
	text := inner.b
	if len(text) == 0 {
		w.space = w.space || inner.space
		return
	}
	if r, _ := utf8.DecodeRuneInString(string(w.p.buf[segs[0].start:segs[0].end])); unicode.IsSpace(r) {
		w.space = true
	}
	w.flush()
	dest := escapeURL(url)
	if cost := len(dest) + 4; cost <= w.r.spare {
		w.r.spare -= cost
		w.bracket()
		w.b = append(w.b, '[')
		w.b = append(w.b, text...)
		w.b = append(w.b, "]("...)
		w.b = append(w.b, dest...)
		w.b = append(w.b, ')')
	} else {
		w.b = append(w.b, text...)
	}
	w.atStart = false
	w.space = inner.space
}

// collapse makes each run of ASCII white space one space.
func collapse(s string) string {
	if !strings.ContainsAny(s, "\t\n\r") && !strings.Contains(s, "  ") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	prev := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			if !prev {
				b.WriteByte(' ')
			}
			prev = true
			continue
		}
		prev = false
		b.WriteByte(c)
	}
	return b.String()
}

// escapeHeadingEnd escapes a "#" that ends a heading's text, which
// CommonMark would read as the heading's closing sequence.
func escapeHeadingEnd(s string) string {
	if !strings.HasSuffix(s, "#") {
		return s
	}
	n := 0
	for i := len(s) - 2; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	if n%2 == 1 {
		return s
	}
	return s[:len(s)-1] + "\\#"
}

// guardDefinition keeps a footnote definition's first line from reading
// as a link reference definition, to a reader without footnotes: one
// whose first word has a scheme other than http(s), alone on the line or
// followed by what could be a link title, is preceded by a word joiner
// (U+2060), which no one sees and which leaves the word no scheme.
func guardDefinition(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	word, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	if rest != "" && !strings.ContainsRune(`"'(`, rune(rest[0])) {
		return text
	}
	// Escapes are read in a link destination: "\\" is one backslash.
	word = strings.ReplaceAll(word, "\\", "")
	colon := strings.IndexByte(word, ':')
	if colon <= 0 {
		return text
	}
	scheme := strings.ToLower(word[:colon])
	if scheme == "http" || scheme == "https" {
		return text
	}
	return "\u2060" + text
}
