package mcp

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// part cuts the part of text that starts at character start (counted in
// Unicode code points) and holds at most n characters of Markdown, so
// that it reads as Markdown of its own. It ends at the last paragraph
// break of its second half, or else at the last line break, before the
// n characters run out; only a line longer than the part can hold is cut
// within it, at a character's boundary. A part that would end inside a
// fenced code block closes it (Part.FenceClose), and the next part opens
// it again, with the same marks and info string, before its first line
// (Part.FenceReopen): both are counted in the n characters, and neither
// is in the text, so that the text of the parts, without them, is the
// whole, and StartIndex and NextStart count the text's characters only.
//
// It reads the text once up to the part's end, to know which code block
// the part starts in, and the part once more: its time is linear in the
// text's size.
func part(text string, start, n int) (Part, error) {
	total := utf8.RuneCountInString(text)
	if start > 0 && start >= total {
		return Part{}, fmt.Errorf("start_index %d is past the end of the text, which has %d characters; start_index 0 reads it from the start", start, total)
	}
	n = max(n, 1)
	// The code block open where the part starts, if any, as the text
	// reads from its beginning.
	var whole fenceReader
	from := whole.readTo(text, start)
	reopen := ""
	if start > 0 && whole.open {
		if line := whole.fence.opening(n / 4); line != "" {
			reopen = line + "\n"
			if text[from-1] != '\n' {
				// Within a line of the block: the rest of it goes on where
				// its block quotes and list items put it.
				reopen += whole.fence.prefix()
			}
		} // else a fence too long to open again: the part reads as it comes
	}
	p := Part{StartIndex: start, TotalChars: total}
	room := n - utf8.RuneCountInString(reopen)
	for try := 0; ; try++ {
		w, _ := window(text, start, max(room, 1))
		to, inLine := cutPoint(text, from, from+len(w))
		body := text[from:to]
		// The part as a document of its own: whatever code block it
		// leaves open, it closes.
		var local fenceReader
		local.read(reopen + body)
		closing := ""
		if local.open {
			closing = local.fence.closing()
			if !strings.HasSuffix(body, "\n") {
				closing = "\n" + closing
			}
		}
		size := utf8.RuneCountInString(reopen) + utf8.RuneCountInString(body) + utf8.RuneCountInString(closing)
		if size > n && try < 4 && room > 1 {
			// Cut before the line the fence lines took the room of.
			room = utf8.RuneCountInString(body) - (size - n)
			continue
		}
		if size > n {
			// A fence whose marks are longer than the part can repeat:
			// the part is cut as it comes, and says so.
			reopen, closing, p.fenceLeftOpen = "", "", local.open
			w, _ := window(text, start, n)
			to, inLine = cutPoint(text, from, from+len(w))
			body = text[from:to]
		}
		p.Markdown = reopen + body + closing
		p.FenceReopen, p.FenceClose, p.inLine = reopen, closing, inLine
		p.Chars = utf8.RuneCountInString(body)
		break
	}
	p.Remaining = total - start - p.Chars
	if p.Remaining > 0 {
		p.NextStart = start + p.Chars
	} else {
		p.inLine = false
	}
	return p, nil
}

// cutPoint is where a part of text from byte from ends, at the latest at
// byte to (a character's boundary): the text's end if to is there; else
// after the last paragraph break in the second half of the window, or
// else its last line break there. A line break in its first half only
// ends it there if the line after it could be whole in a part of its
// own; a line longer than that is cut within, at to (inLine), as it
// would be anyway.
func cutPoint(text string, from, to int) (at int, inLine bool) {
	if to >= len(text) {
		return len(text), false
	}
	w := text[from:to]
	if i := strings.LastIndex(w, "\n\n"); i >= 0 && i+2 > len(w)/2 {
		return from + i + 2, false
	}
	i := strings.LastIndexByte(w, '\n')
	if i >= 0 && i+1 > len(w)/2 {
		return from + i + 1, false
	}
	if i >= 0 {
		end := len(text)
		if j := strings.IndexByte(text[to:], '\n'); j >= 0 {
			end = to + j
		}
		if end-(from+i+1) < len(w) {
			return from + i + 1, false
		}
	}
	if to == from {
		// Not one character fits: one goes, that the parts go on.
		_, size := utf8.DecodeRuneInString(text[from:])
		return from + size, true
	}
	return to, true
}

// A fence is a fenced code block open, as CommonMark reads one.
type fence struct {
	in     []container // the block quotes and list items it is in, outermost first
	indent int         // the columns before its marks, from where its containers leave the line
	mark   byte        // '`' or '~'
	run    int         // how many marks opened it
	info   string      // its info string, such as a language
}

// A container is a block quote, or a list item: its marker (such as - or
// 1.), the column the marker starts at and the column its content does.
type container struct {
	quote   bool
	marker  string
	at      int
	content int
	empty   bool // a list item that holds nothing yet: a blank line ends it
}

// opening is a line that opens the block again, in the block quotes and
// list items it is in (an item with its marker, at its columns): its
// marks and info string. A line longer than max loses its info string,
// and if it is still longer than max the block is not opened again ("").
func (f fence) opening(max int) string {
	var b strings.Builder
	col := 0
	for _, c := range f.in {
		if c.quote {
			b.WriteString("> ")
			col += 2
			continue
		}
		pad := max0(c.at - col)
		gap := max0(c.content-c.at-len(c.marker), 1)
		b.WriteString(strings.Repeat(" ", pad) + c.marker + strings.Repeat(" ", gap))
		col += pad + len(c.marker) + gap
	}
	b.WriteString(strings.Repeat(" ", f.indent) + strings.Repeat(string(f.mark), f.run))
	line := b.String()
	if len(line)+len(f.info) <= max {
		return line + f.info
	}
	if len(line) <= max {
		return line
	}
	return ""
}

// closing is the line that closes the block, in its block quotes and list
// items: their markers and indentation, and its marks.
func (f fence) closing() string {
	return f.prefix() + strings.Repeat(" ", f.indent) + strings.Repeat(string(f.mark), f.run)
}

// prefix is what puts a line in the block's block quotes and list items:
// their markers and indentation.
func (f fence) prefix() string {
	var b strings.Builder
	col := 0
	for _, c := range f.in {
		if c.quote {
			b.WriteString("> ")
			col += 2
			continue
		}
		b.WriteString(strings.Repeat(" ", max0(c.content-col)))
		col = max(col, c.content)
	}
	return b.String()
}

// maxNesting bounds the block quotes and list items a fenceReader keeps
// open: no page nests more, and a blank line is matched against each.
const maxNesting = 100

// max0 is the greatest of ns and 0.
func max0(ns ...int) int { return max(0, slices.Max(ns)) }

// fenceReader follows the fenced code blocks of Markdown line by line,
// as CommonMark opens and closes them: at most three columns indented
// from where the block quotes and list items they are in leave the line,
// closed by a line of as many marks or more, or by the end of a block
// quote or list item they are in. It keeps the block quotes and list
// items open, and whether a paragraph is, for what may interrupt one
// (a fence may; an empty list item, or one numbered other than 1, may
// not) and what goes on with it; and it reads each line once.
type fenceReader struct {
	open  bool
	fence fence
	stack []container // the block quotes and list items open, outermost first
	para  bool        // the last line was a paragraph's, which the next may go on
}

// read reads the lines of s; a last line without its line break is read
// as a line.
func (r *fenceReader) read(s string) {
	for l := range strings.Lines(s) {
		r.line(strings.TrimRight(l, "\r\n"))
	}
}

// readTo reads text up to its character start, and returns the byte
// offset of that character. A line cut by start is read up to it, as a
// line: the code block open at start is the one that line leaves open.
func (r *fenceReader) readTo(text string, start int) int {
	at, i := 0, 0
	for i < start && at < len(text) {
		nl := strings.IndexByte(text[at:], '\n')
		end := len(text)
		if nl >= 0 {
			end = at + nl + 1
		}
		runes := utf8.RuneCountInString(text[at:end])
		if i+runes > start {
			cut := at
			for k := 0; k < start-i; k++ {
				_, size := utf8.DecodeRuneInString(text[cut:])
				cut += size
			}
			r.line(strings.TrimRight(text[at:cut], "\r\n"))
			return cut
		}
		r.line(strings.TrimRight(text[at:end], "\r\n"))
		at, i = end, i+runes
	}
	return at
}

// match matches a line to containers, outermost first: a block quote's
// marker, a list item's indentation (or a blank line). It returns how
// many it matched, and the column and byte where they leave the line.
func match(l string, in []container) (n, col, pos int) {
	for _, c := range in {
		ind, j := indentAt(l, pos, col)
		switch {
		case c.quote && ind-col <= 3 && j < len(l) && l[j] == '>':
			col, pos = quoteMarker(l, j, ind)
		case !c.quote && j == len(l):
			if c.empty {
				return n, col, pos // a blank line ends a list item that holds nothing
			}
			col, pos = ind, j // and goes on in one that holds something
		case !c.quote && ind >= c.content:
			col, pos = skipTo(l, pos, col, c.content)
		default:
			return n, col, pos
		}
		n++
	}
	return n, col, pos
}

// line reads one line, without its line break.
func (r *fenceReader) line(l string) {
	if r.open {
		f := &r.fence
		n, col, pos := match(l, f.in)
		if n == len(f.in) {
			ind, j := indentAt(l, pos, col)
			if j < len(l) && ind-col <= 3 && closes(l[j:], f.mark, f.run) {
				r.open = false
			}
			return
		}
		// A block quote or list item the block is in has ended, and the
		// block with it: the line is read as any other.
		r.open, r.para, r.stack = false, false, slices.Clone(f.in[:n])
	}
	n, col, pos := match(l, r.stack)
	if n < len(r.stack) {
		if ind, j := indentAt(l, pos, col); r.para && j < len(l) && (ind-col > 3 || !startsBlock(l[j:])) {
			return // a paragraph's lazy continuation: its containers go on
		}
		r.stack, r.para = r.stack[:n], false
	}
	// The block quotes and list items the line opens, as deep as
	// maxNesting: deeper, markers are read as text, so that a line is
	// matched in time bounded by its length or maxNesting.
	opened := false
	for len(r.stack) < maxNesting {
		ind, j := indentAt(l, pos, col)
		if j == len(l) {
			r.para = false // a blank line ends a paragraph
			return
		}
		if ind-col > 3 {
			// Indented code, or a paragraph going on.
			r.para = r.para && !opened
			r.filled()
			return
		}
		if l[j] == '>' {
			r.filled() // a block quote, even empty, is something a list item holds
			r.stack = append(r.stack, container{quote: true})
			col, pos = quoteMarker(l, j, ind)
			opened, r.para = true, false
			continue
		}
		w, ok := listMarker(l[j:])
		if !ok || r.para && !opened && !interrupts(l[j:], w) {
			break
		}
		after, k := indentAt(l, j+w, ind+w)
		content := after
		if k == len(l) || after-(ind+w) > 4 {
			content = ind + w + 1 // an empty item, or one that starts with indented code
		}
		r.stack = append(r.stack, container{marker: l[j : j+w], at: ind, content: content, empty: true})
		opened, r.para = true, false
		if k == len(l) {
			return // an empty item
		}
		if content != after {
			r.filled() // an item that starts with indented code
			return
		}
		col, pos = after, k
	}
	ind, j := indentAt(l, pos, col)
	if j == len(l) || ind-col > 3 {
		r.para = r.para && j < len(l)
		return // as deep as maxNesting: a blank line, or indented code
	}
	rest := l[j:]
	r.filled()
	if mark, run, info, ok := fenceOpen(rest); ok {
		r.open, r.para = true, false
		r.fence = fence{in: slices.Clone(r.stack), indent: ind - col, mark: mark, run: run, info: info}
		return
	}
	switch {
	case thematicBreak(rest) || atxHeading(rest):
		r.para = false
	case r.para && !opened && setextUnderline(rest):
		r.para = false
	default:
		r.para = true
	}
}

// filled notes that the line read holds something: the list items it is
// in are not empty.
func (r *fenceReader) filled() {
	for i := range r.stack {
		r.stack[i].empty = false
	}
}

// fenceOpen reads a line (after its indentation) that opens a fenced code
// block: its marks, how many, and its info string.
func fenceOpen(s string) (mark byte, run int, info string, ok bool) {
	if s == "" || s[0] != '`' && s[0] != '~' {
		return 0, 0, "", false
	}
	mark = s[0]
	for run < len(s) && s[run] == mark {
		run++
	}
	info = strings.TrimSpace(s[run:])
	if run < 3 || mark == '`' && strings.IndexByte(info, '`') >= 0 {
		return 0, 0, "", false // a code span, not a fence
	}
	return mark, run, info, true
}

// startsBlock reports whether a line (after its indentation, of three
// columns at most) that its containers do not all go on with starts a
// block, and so is no paragraph's lazy continuation: a block quote, a
// list item (of any number, even empty: it interrupts no paragraph, but
// goes on in a container the paragraph is not in), a fence, a thematic
// break or a heading.
func startsBlock(s string) bool {
	if s[0] == '>' || thematicBreak(s) || atxHeading(s) {
		return true
	}
	if _, _, _, ok := fenceOpen(s); ok {
		return true
	}
	_, ok := listMarker(s)
	return ok
}

// interrupts reports whether a list item, of a marker w bytes wide, may
// interrupt a paragraph: it is not empty, and if ordered it starts at 1.
func interrupts(s string, w int) bool {
	if strings.TrimSpace(s[w:]) == "" {
		return false
	}
	if s[0] >= '0' && s[0] <= '9' {
		return strings.TrimLeft(s[:w-1], "0") == "1"
	}
	return true
}

// atxHeading reports whether a line (after its indentation) is an ATX
// heading: one to six # and a space, a tab or its end.
func atxHeading(s string) bool {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(s) || s[n] == ' ' || s[n] == '\t')
}

// setextUnderline reports whether a line (after its indentation) is a
// setext heading's underline: = or - only, and trailing spaces.
func setextUnderline(s string) bool {
	t := strings.TrimRight(s, " \t")
	return t != "" && (strings.Trim(t, "=") == "" || strings.Trim(t, "-") == "")
}

// indentAt is the column after the spaces and tabs of l from byte pos, at
// column col (a tab goes on to the next multiple of four), and the byte
// there.
func indentAt(l string, pos, col int) (int, int) {
	for ; pos < len(l); pos++ {
		switch l[pos] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return col, pos
		}
	}
	return col, pos
}

// skipTo goes on from byte pos, at column col, over the spaces and tabs
// of l to column to, and returns the column and the byte it reached. A
// tab that goes past to is left where it is, and the column is to: what
// of it is past to is indentation still, as indentAt reads it from
// there (tab stops are every four columns, from the line's start).
func skipTo(l string, pos, col, to int) (int, int) {
	for pos < len(l) && col < to && (l[pos] == ' ' || l[pos] == '\t') {
		if l[pos] == '\t' {
			if next := col + 4 - col%4; next > to {
				return to, pos
			} else {
				col = next
			}
		} else {
			col++
		}
		pos++
	}
	return col, pos
}

// quoteMarker takes the block quote marker at byte j, column ind, of l,
// and the one space after it, if any, and returns the column and the
// byte after them. A tab after the marker gives one column as that space,
// the rest of it being indentation still (see skipTo).
func quoteMarker(l string, j, ind int) (int, int) {
	col, pos := ind+1, j+1
	switch {
	case pos < len(l) && l[pos] == ' ':
		return col + 1, pos + 1
	case pos < len(l) && l[pos] == '\t':
		return col + 1, pos
	}
	return col, pos
}

// listMarker is the width of the list item marker s starts with (a
// bullet, or up to nine digits and a period or parenthesis) when it is
// followed by a space, a tab or the line's end; a thematic break such as
// "- - -" is none.
func listMarker(s string) (int, bool) {
	w := 0
	switch {
	case s == "":
		return 0, false
	case s[0] == '-' || s[0] == '+' || s[0] == '*':
		if thematicBreak(s) {
			return 0, false
		}
		w = 1
	default:
		for w < len(s) && w < 10 && s[w] >= '0' && s[w] <= '9' {
			w++
		}
		if w == 0 || w > 9 || w == len(s) || s[w] != '.' && s[w] != ')' {
			return 0, false
		}
		w++
	}
	if w < len(s) && s[w] != ' ' && s[w] != '\t' {
		return 0, false
	}
	return w, true
}

// thematicBreak reports whether a line (without its indentation) is a
// thematic break: three or more of one of - * _, and spaces or tabs.
func thematicBreak(s string) bool {
	if s == "" || s[0] != '-' && s[0] != '*' && s[0] != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case s[0]:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// closes reports whether s (a line after its indentation) closes a block
// opened by run marks: as many marks or more, then only spaces or tabs.
func closes(s string, mark byte, run int) bool {
	n := 0
	for n < len(s) && s[n] == mark {
		n++
	}
	return n >= run && strings.Trim(s[n:], " \t") == ""
}
