package pdf

import (
	"fmt"
	"html"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/internal/mdtext"
)

// span is text of one font on one line, as the engine gives it, placed
// in points from the page's top left corner.
type span struct {
	text                string
	x0, top, x1, bottom float64
	size                float64
	font                font
	uri                 string // the web address a link annotation over it leads to
	angle               int    // the degrees it is turned by, counterclockwise; 0 for most
}

// font is what a span's font says of its text.
type font uint8

const (
	bold font = 1 << iota
	italic
	mono
)

// link is a link annotation leading to a web address, placed as spans are.
type link struct {
	uri                 string
	x0, top, x1, bottom float64
}

// page is what one page holds.
type page struct {
	width, height float64
	spans         []span
	links         []link
}

// fontOf reads a font's kind from its name, weight and descriptor flags
// (PDF 32000-1, 9.8.2: FixedPitch is bit 1, Italic bit 7, ForceBold bit
// 19). The name is read without its subset tag ("ABCDEF+").
func fontOf(name string, weight, flags int) font {
	if i := strings.IndexByte(name, '+'); i == 6 {
		name = name[i+1:]
	}
	n := strings.ToLower(name)
	var f font
	// The name says it where it names a style; the weight and flags are
	// read only where it names none (the engine's weight for the standard
	// fonts is not to be trusted: it gives Times-Roman 695).
	styled := containsAny(n, "regu", "roman", "book", "medium", "light", "thin", "italic", "oblique")
	if containsAny(n, "bold", "black", "heavy", "semibold", "demi") || texBold(n) || !styled && (weight >= 600 || flags&(1<<18) != 0) {
		f |= bold
	}
	if flags&(1<<6) != 0 || containsAny(n, "italic", "oblique") || strings.HasPrefix(n, "cmti") || strings.HasPrefix(n, "cmsl") {
		f |= italic
	}
	if flags&1 != 0 || containsAny(n, "mono", "nimbusmon", "courier", "consol", "typewriter", "menlo", "inconsolata", "code") || strings.HasPrefix(n, "cmtt") || strings.HasPrefix(n, "cmsltt") || strings.HasPrefix(n, "sftt") || strings.HasPrefix(n, "txtt") {
		f |= mono
	}
	return f
}

// texBold reports whether a font name is one of TeX's bold fonts
// (Computer Modern's cmbx and cmb, and their European cousins).
func texBold(n string) bool {
	return strings.HasPrefix(n, "cmbx") || strings.HasPrefix(n, "cmb1") || strings.HasPrefix(n, "sfbx") || strings.HasPrefix(n, "ecbx")
}

func containsAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// line is spans on one line, in the order the page draws them.
type line struct {
	spans               []span
	tallest             int // the first of its tallest spans, while it is cut
	text                string
	x0, top, x1, bottom float64
	base                float64 // its baseline, as near as the boxes say
	size                float64 // the size of most of its text
	font                font    // what all of its text is
}

// lines cuts a page's spans into lines: a span starts a new line when it
// is not beside the one before (it does not share most of its height, or
// it goes back left). The page's own order is kept, which is the order
// most documents are written in, columns included.
func lines(p page) []line {
	var out []line
	for _, s := range p.spans {
		if n := len(out); n > 0 && sameLine(&out[n-1], s) {
			l := &out[n-1]
			if s.bottom-s.top > height(l.spans[l.tallest]) {
				l.tallest = len(l.spans)
			}
			l.spans = append(l.spans, s)
			continue
		}
		out = append(out, line{spans: []span{s}})
	}
	for i := range out {
		out[i].finish()
	}
	return out
}

// sameLine reports whether s goes on l: it does not start left of where
// l ends, and their bands overlap by half of the thinner one. A span's
// band is its box, at least 0.8 of its size high: the engine's boxes are
// the glyphs' own, so that a dash or a comma alone is a sliver. The band
// s is held to is that of l's tallest span (its last, where none is
// taller), kept as l is cut (l.tallest), so that a line of many spans
// costs no more than their number.
func sameLine(l *line, s span) bool {
	last := l.spans[len(l.spans)-1]
	if s.angle != 0 || last.angle != 0 {
		// Text at an angle is a line of its own.
		return false
	}
	if s.x0 < last.x1-0.5*math.Max(last.size, s.size) {
		return false
	}
	ref := last
	if t := l.spans[l.tallest]; height(t) > height(last) {
		ref = t
	}
	return sameBand(ref, s)
}

// height is a span's box's height.
func height(s span) float64 { return s.bottom - s.top }

// sameBand reports whether two spans' bands overlap by half of the
// thinner one.
func sameBand(a, b span) bool {
	a0, a1 := band(a)
	b0, b1 := band(b)
	return math.Min(a1, b1)-math.Max(a0, b0) >= 0.5*math.Min(a1-a0, b1-b0)
}

// band is a span's vertical extent, at least 0.8 of its size high.
func band(s span) (top, bottom float64) {
	h := math.Max(s.bottom-s.top, 0.8*s.size)
	c := (s.top + s.bottom) / 2
	return c - h/2, c + h/2
}

// finish works out a line's text, extent, size and font from its spans.
func (l *line) finish() {
	var b strings.Builder
	sizes := map[float64]int{}
	l.font = bold | italic | mono
	l.x0, l.top, l.x1, l.bottom = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i, s := range l.spans {
		if i > 0 && parted(l.spans[i-1], s) {
			b.WriteByte(' ')
		}
		b.WriteString(s.text)
		if strings.TrimSpace(s.text) != "" {
			l.font &= s.font
			sizes[math.Round(s.size*2)/2] += utf8.RuneCountInString(s.text)
		}
		l.x0, l.x1 = math.Min(l.x0, s.x0), math.Max(l.x1, s.x1)
		l.top, l.bottom = math.Min(l.top, s.top), math.Max(l.bottom, s.bottom)
	}
	l.text = strings.Join(strings.Fields(b.String()), " ")
	// The baseline: the highest bottom of the spans of full height (those
	// with descenders reach below it), or the lowest bottom if none is.
	l.base = math.Inf(1)
	for _, s := range l.spans {
		if s.bottom-s.top >= 0.6*s.size {
			l.base = math.Min(l.base, s.bottom)
		}
	}
	if math.IsInf(l.base, 1) {
		l.base = l.bottom
	}
	best := 0
	for sz, n := range sizes {
		if n > best || n == best && sz > l.size {
			l.size, best = sz, n
		}
	}
}

// marginKey is a running header's or footer's text as repeated from page
// to page: lower case, its numbers as "#".
func marginKey(s string) string {
	var b strings.Builder
	digit := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsDigit(r) {
			if !digit {
				b.WriteByte('#')
			}
			digit = true
			continue
		}
		digit = false
		if !unicode.IsSpace(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pageNumber reports whether a line is only a page number ("12", "xii",
// "Page 3", "3 of 20", "- 4 -").
func pageNumber(s string) bool {
	s = strings.ToLower(strings.Trim(s, " -–—|·."))
	s = strings.TrimPrefix(s, "page ")
	if i := strings.Index(s, " of "); i > 0 {
		s = s[:i]
	} else if i := strings.IndexByte(s, '/'); i > 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 8 {
		return false
	}
	if _, err := strconv.Atoi(s); err == nil {
		return true
	}
	return strings.Trim(s, "ivxlc") == ""
}

// inMargin reports whether a line sits in the top or bottom tenth of its
// page, where running headers, footers and page numbers go.
func inMargin(l line, p page) bool {
	if p.height <= 0 {
		return false
	}
	return l.bottom < 0.1*p.height || l.top > 0.9*p.height
}

// linkAt is the web address of the link annotation at a point, or "".
func linkAt(links []link, x, y float64) string {
	for _, l := range links {
		if x >= l.x0 && x <= l.x1 && y >= l.top && y <= l.bottom {
			return l.uri
		}
	}
	return ""
}

// webLink reports whether a link annotation's address is one a reader
// may follow: absolute http or https.
func webLink(u string) bool {
	v, err := url.Parse(u)
	return err == nil && (v.Scheme == "http" || v.Scheme == "https") && v.Host != ""
}

// layout makes Markdown of a document's pages.
type layout struct {
	pages []page
	marks []bookmark
	lines [][]line // each page's lines, running headers and footers left out
	body  float64  // the size of most of the text
}

// strip leaves out running headers and footers, and page numbers: a
// line in a page's margin whose text, its numbers aside, comes back on
// at least two pages and a twentieth of them; a page's first or last
// line, set apart from the rest, at a height where such a line stands on
// at least a third of the pages (a header that names each chapter); and
// a page number in a margin.
func (l *layout) strip() {
	all := make([][]line, len(l.pages))
	seen := map[string]int{}
	var heads, foots []float64
	for i, p := range l.pages {
		all[i] = lines(p)
		keys := map[string]bool{}
		for _, ln := range all[i] {
			if inMargin(ln, p) {
				keys[marginKey(ln.text)] = true
			}
		}
		for k := range keys {
			seen[k]++
		}
		if h, ok := header(all[i], p); ok {
			heads = append(heads, h)
		}
		if f, ok := footer(all[i], p); ok {
			foots = append(foots, f)
		}
	}
	repeats := max(2, len(l.pages)/20)
	bands := max(3, (len(l.pages)+2)/3)
	slices.Sort(heads)
	slices.Sort(foots)
	l.lines = make([][]line, len(l.pages))
	for i, p := range l.pages {
		ls := all[i]
		if h, ok := header(ls, p); ok && near(heads, h) >= bands {
			ls = ls[1:]
		}
		if f, ok := footer(ls, p); ok && near(foots, f) >= bands {
			ls = ls[:len(ls)-1]
		}
		for _, ln := range ls {
			if ln.text == "" || inMargin(ln, p) && (pageNumber(ln.text) || seen[marginKey(ln.text)] >= repeats) {
				continue
			}
			l.lines[i] = append(l.lines[i], ln)
		}
	}
}

// near is how many of the sorted heights hs are within 2.5 points of h:
// the boxes of a line of one text move with its letters.
func near(hs []float64, h float64) int {
	lo, _ := slices.BinarySearch(hs, h-2.5)
	hi, _ := slices.BinarySearch(hs, h+2.5+1e-9)
	return hi - lo
}

// header is the height, in points, of a page's first line where it may be
// a running header: in the top margin, short, and farther from the next
// line than one and a half of its own height.
func header(ls []line, p page) (float64, bool) {
	if len(ls) < 2 {
		return 0, false
	}
	return setApart(ls[0], ls[1].top-ls[0].bottom, p)
}

// footer is header for a page's last line, in the bottom margin.
func footer(ls []line, p page) (float64, bool) {
	n := len(ls)
	if n < 2 {
		return 0, false
	}
	return setApart(ls[n-1], ls[n-1].top-ls[n-2].bottom, p)
}

// setApart is the height of a page's first or last line, gap away from
// the line beside it, where it may run from page to page: in a margin,
// short, and the gap more than one and a half of its height.
func setApart(ln line, gap float64, p page) (float64, bool) {
	if !inMargin(ln, p) || len(ln.text) > 120 || gap < 1.5*(ln.bottom-ln.top) {
		return 0, false
	}
	return ln.base, true
}

// bodySize is the size of most of the document's text, rounded to half
// a point.
func (l *layout) bodySize() float64 {
	n := map[float64]int{}
	for _, ls := range l.lines {
		for _, ln := range ls {
			n[ln.size] += len(ln.text)
		}
	}
	best, size := 0, 10.0
	for sz, c := range n {
		if c > best || c == best && sz < size {
			best, size = c, sz
		}
	}
	return size
}

// kind is what a block is.
type kind uint8

const (
	paragraph kind = iota
	heading
	item
	code
	table
)

// cellGap is the gap, in the font's size, that parts a line into cells:
// wider than justified text stretches a space.
const cellGap = 1.5

// block is lines that read as one: a paragraph, heading, list item or
// code block.
type block struct {
	kind  kind
	level int // a heading's, 1 to 6
	lines []line
	page  int
}

func (b *block) text() string {
	// The text is cut back, not written again, where a line's end joins
	// a broken word: a block of many such lines costs its length.
	var s []byte
	for i, ln := range b.lines {
		if i > 0 {
			// Only the text's last few bytes are looked at.
			if cut := brokenWord(string(s[max(len(s)-8, 0):]), ln.text); cut > 0 {
				s = append(s[:len(s)-cut], ln.text...)
				continue
			}
			s = append(s, ' ')
		}
		s = append(s, ln.text...)
	}
	return string(s)
}

// brokenWord is how many bytes at the end of a line's text (prev) mark a
// word broken there, to be taken off as the next line's text joins it:
// the engine's mark of such a break (a soft hyphen), or a hyphen after a
// letter where the next line goes on in lower case; 0 where the lines
// end and begin words.
func brokenWord(prev, next string) int {
	if strings.HasSuffix(prev, "\u00AD") {
		return len("\u00AD")
	}
	if len(prev) > 1 && prev[len(prev)-1] == '-' && unicode.IsLetter(lastRune(prev[:len(prev)-1])) && startsLower(next) {
		return 1
	}
	return 0
}

// parted reports whether two spans of a line stand a word apart where the
// engine put no space at either's edge: more than 0.4 of the font's size
// between them (kerning is less; a table's cells, cellGap, more).
func parted(prev, s span) bool {
	return s.x0-prev.x1 > 0.4*s.size && !strings.HasSuffix(prev.text, " ") && !strings.HasPrefix(s.text, " ")
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

func startsLower(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}

// listMarker is the length of the marker a list item's text opens with
// ("• ", "- ", "1. ", "(a) "), and whether it is numbered; 0 when none.
func listMarker(s string) (n int, ordered bool) {
	r, size := utf8.DecodeRuneInString(s)
	if strings.ContainsRune("•●○◦▪▫■□–-*·‣⁃", r) && len(s) > size && s[size] == ' ' {
		return size + 1, false
	}
	i := 0
	if strings.HasPrefix(s, "(") {
		i = 1
	}
	j := i
	for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i && j < len(s) && s[j] >= 'a' && s[j] <= 'z' {
		j++
	}
	if j > i && j+1 < len(s) && (s[j] == '.' || s[j] == ')') && s[j+1] == ' ' {
		return j + 2, true
	}
	return 0, false
}

// blocks cuts one page's lines into blocks.
func (l *layout) blocks(pi int) []block {
	ls := l.lines[pi]
	lead := leading(ls)
	right := rightEdge(ls)
	var out []block
	tables := tableRuns(ls)
	for i := 0; i < len(ls); i++ {
		ln := ls[i]
		if end := tables[i]; end > i {
			out = append(out, block{kind: table, lines: ls[i:end], page: pi})
			i = end - 1
			continue
		}
		if n := len(out); n > 0 && out[n-1].kind != table && l.continues(&out[n-1], ln, lead, right) {
			out[n-1].lines = append(out[n-1].lines, ln)
			continue
		}
		b := block{lines: []line{ln}, page: pi}
		if m, _ := listMarker(ln.text); m > 0 && ln.font&mono == 0 {
			b.kind = item
		}
		out = append(out, b)
	}
	for i := range out {
		if out[i].kind != table {
			l.classify(&out[i])
		}
	}
	return out
}

// cells cuts a line at its wide gaps (cellGap): a table's row.
func cells(ln line) [][]span {
	var out [][]span
	for i, s := range ln.spans {
		if i == 0 || s.x0-ln.spans[i-1].x1 > cellGap*s.size {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], s)
	}
	return out
}

// tableRuns finds a page's tables: three lines or more in a row, each of
// two cells or more, not code, of one size, whose cells start at the
// same few places (the columns: two to twelve, each row's cells each in
// its own), most of whose cells are short. For each line that starts a
// table, the end of its run; 0 elsewhere.
func tableRuns(ls []line) []int {
	out := make([]int, len(ls))
	for i := 0; i < len(ls); {
		j := i
		for j < len(ls) && ls[j].font&mono == 0 && len(cells(ls[j])) >= 2 && math.Abs(ls[j].size-ls[i].size) < 0.6 &&
			(j == i || ls[j].base > ls[j-1].base && ls[j].base-ls[j-1].base < 3*ls[j].size) {
			j++
		}
		if j-i >= 3 && isTable(ls[i:j]) {
			out[i] = j
			i = j
			continue
		}
		i = max(j, i+1)
	}
	return out
}

// columns are a table's columns, found from its rows: the spans of x
// that its cells cover, where cells of rows overlap, merged (so that a
// column of numbers set to the right is one column with its heading).
func columns(rows []line) [][2]float64 {
	var xs [][2]float64
	for _, r := range rows {
		for _, c := range cells(r) {
			xs = append(xs, [2]float64{c[0].x0, c[len(c)-1].x1})
		}
	}
	slices.SortFunc(xs, func(a, b [2]float64) int { return cmpFloat(a[0], b[0]) })
	var cols [][2]float64
	for _, x := range xs {
		if n := len(cols); n > 0 && x[0] <= cols[n-1][1] {
			cols[n-1][1] = math.Max(cols[n-1][1], x[1])
			continue
		}
		cols = append(cols, x)
	}
	return cols
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// column is the column a cell starting at x is in.
func column(cols [][2]float64, x float64) int {
	for i, c := range cols {
		if x >= c[0] && x <= c[1] {
			return i
		}
	}
	return 0
}

// isTable reports whether rows line up as a table's do.
func isTable(rows []line) bool {
	cols := columns(rows)
	if len(cols) < 2 || len(cols) > 12 {
		return false
	}
	aligned, short, all := 0, 0, 0
	for _, r := range rows {
		seen := map[int]bool{}
		ok := true
		for _, c := range cells(r) {
			k := column(cols, c[0].x0)
			ok = ok && !seen[k]
			seen[k] = true
			all++
			if n := utf8.RuneCountInString(cellText(c)); n <= 40 {
				short++
			}
		}
		if ok {
			aligned++
		}
	}
	// Columns that many rows share, not a few odd starts each.
	return float64(aligned) >= 0.8*float64(len(rows)) && float64(short) >= 0.7*float64(all) && len(cols) <= 2*all/len(rows)
}

// cellText is a cell's text, its spans joined as a line's are.
func cellText(c []span) string {
	l := line{spans: c}
	l.finish()
	return l.text
}

// tableHTML is a table's rows as an HTML table, each cell in its column.
func tableHTML(b block) string {
	cols := columns(b.lines)
	var h strings.Builder
	h.WriteString("<table>")
	for _, r := range b.lines {
		row := make([]string, len(cols))
		for _, c := range cells(r) {
			k := column(cols, c[0].x0)
			t := html.EscapeString(strings.ReplaceAll(cellText(c), "\u00AD", ""))
			if row[k] != "" {
				t = row[k] + " " + t
			}
			row[k] = t
		}
		// The first row is the table's heading, as most tables' is.
		cell := "td"
		if r.base == b.lines[0].base {
			cell = "th"
		}
		h.WriteString("<tr>")
		for _, t := range row {
			h.WriteString("<" + cell + ">" + t + "</" + cell + ">")
		}
		h.WriteString("</tr>")
	}
	h.WriteString("</table>")
	return h.String()
}

// leading is the usual distance from one line's baseline to the next of
// a page, or 0 when it has too few lines to say.
func leading(ls []line) float64 {
	var d []float64
	for i := 1; i < len(ls); i++ {
		if g := ls[i].base - ls[i-1].base; g > 0 && math.Abs(ls[i].size-ls[i-1].size) < 0.6 {
			d = append(d, g)
		}
	}
	if len(d) < 3 {
		return 0
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// rightEdge is where the page's longer lines end.
func rightEdge(ls []line) float64 {
	var xs []float64
	for _, ln := range ls {
		xs = append(xs, ln.x1)
	}
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)*9/10]
}

// continues reports whether ln goes on block b: the same size and font,
// the next line down at the usual distance, and neither a new list item
// nor a new paragraph's indented first line.
func (l *layout) continues(b *block, ln line, lead, right float64) bool {
	prev := b.lines[len(b.lines)-1]
	if prev.spans[0].angle != 0 || ln.spans[0].angle != 0 {
		// Text at an angle stands apart.
		return false
	}
	if math.Abs(prev.size-ln.size) >= 0.6 || prev.font&(bold|mono) != ln.font&(bold|mono) {
		return false
	}
	step := ln.base - prev.base
	if step <= 0 {
		return false
	}
	limit := 1.6 * ln.size
	if lead > 0 {
		// The page's usual leading is its body text's: larger text has
		// more.
		limit = math.Max(1.3*lead, 1.35*ln.size)
	}
	if ln.font&mono != 0 {
		// Code keeps its blank lines.
		return step <= 2.5*limit
	}
	if step > limit {
		return false
	}
	if m, _ := listMarker(ln.text); m > 0 {
		return false
	}
	if leaders(prev.text) {
		// Entries of a table of contents, each on its line.
		return false
	}
	if b.kind == item {
		// An item's next lines hang under its text, after a line that
		// ran to the margin.
		return ln.x0 > b.lines[0].x0+0.3*ln.size && prev.x1 >= right-4*ln.size
	}
	if ln.size >= l.body+1 || ln.font&bold != 0 {
		// A heading's next line may hang under its text, past its number.
		return len(b.lines) < 3
	}
	if ln.x0 > prev.x0+0.8*ln.size && prev.x1 < right-2*ln.size {
		return false
	}
	if ln.x0 > prev.x0+0.8*ln.size && endsSentence(prev.text) {
		return false
	}
	if prev.x1 < right-4*ln.size && endsSentence(prev.text) {
		// A short line that ends a sentence ends its paragraph.
		return false
	}
	return true
}

// leaders reports whether a line holds dot leaders (". . . ." or "....")
// as an entry of a table of contents or an index does.
func leaders(s string) bool {
	return strings.Contains(s, ". . . .") || strings.Contains(s, "....") || strings.Contains(s, "… …")
}

// dropLeaders shortens dot leaders to an ellipsis.
func dropLeaders(s string) string {
	if !leaders(s) {
		return s
	}
	var b strings.Builder
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '.' || s[i] == ' ' && run > 0 && i+1 < len(s) && s[i+1] == '.' {
			run++
			continue
		}
		if run >= 4 {
			b.WriteString(" … ")
		} else {
			b.WriteString(s[i-run : i])
		}
		run = 0
		b.WriteByte(s[i])
	}
	if run >= 4 {
		b.WriteString(" …")
	} else {
		b.WriteString(s[len(s)-run:])
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func endsSentence(s string) bool {
	return strings.HasSuffix(s, ".") || strings.HasSuffix(s, ":") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!")
}

// classify decides whether a block is a heading or code.
func (l *layout) classify(b *block) {
	first := b.lines[0]
	if first.spans[0].angle != 0 {
		// Text at an angle (a margin's stamp) is no heading.
		return
	}
	if b.lines[0].font&mono != 0 {
		all := true
		for _, ln := range b.lines {
			all = all && ln.font&mono != 0
		}
		if all {
			b.kind = code
			return
		}
	}
	text := b.text()
	if b.kind == item {
		if len(b.lines) == 1 && first.font&bold != 0 && len(text) <= 120 && !strings.HasSuffix(text, ".") {
			// "1. Introduction", set bold on a line of its own, is a
			// numbered heading.
			b.kind = heading
		}
		return
	}
	if leaders(text) {
		// An entry of a table of contents names a heading; it is not one.
		return
	}
	letters := strings.IndexFunc(text, unicode.IsLetter) >= 0
	if !letters || len(b.lines) > 3 || len(text) > 200 {
		return
	}
	big := first.size >= l.body+math.Max(1, 0.12*l.body)
	strong := first.font&bold != 0 && first.size >= l.body-0.5 && len(text) <= 120 && !strings.HasSuffix(text, ".") && !strings.HasSuffix(text, ",") && len(b.lines) <= 2
	if big || strong {
		b.kind = heading
	}
}

// style is what a heading's level is decided by.
type style struct {
	size float64
	bold bool
}

// levels gives headings their levels: by the outline where the document
// has one and a heading is in it, else by size (and boldness at a size),
// larger first.
func (l *layout) levels(bs []block) {
	// Three headings or more of one style in a row, with nothing under
	// them, are not headings: they are the labels of a figure, or a
	// table's cells.
	for i := 0; i < len(bs); {
		j := i
		for j < len(bs) && bs[j].kind == heading && sameStyle(bs[i], bs[j]) {
			j++
		}
		if j-i >= 3 {
			for k := i; k < j; k++ {
				bs[k].kind = paragraph
			}
		}
		i = max(j, i+1)
	}
	var styles []style
	for _, b := range bs {
		if b.kind == heading {
			s := style{b.lines[0].size, b.lines[0].font&bold != 0}
			if !slices.Contains(styles, s) {
				styles = append(styles, s)
			}
		}
	}
	slices.SortFunc(styles, func(a, b style) int {
		if a.size != b.size {
			if a.size > b.size {
				return -1
			}
			return 1
		}
		if a.bold == b.bold {
			return 0
		}
		if a.bold {
			return -1
		}
		return 1
	})
	outline := l.outline()
	last := 0
	for i := range bs {
		b := &bs[i]
		if lv, ok := outline.level(b); ok {
			b.kind, b.level, last = heading, lv, lv
			continue
		}
		if b.kind != heading {
			continue
		}
		b.level = min(6, 1+slices.Index(styles, style{b.lines[0].size, b.lines[0].font&bold != 0}))
		if len(outline.byPage) > 0 && last > 0 {
			// Beneath the outline's headings, what the outline leaves out.
			b.level = min(6, max(b.level, last+1))
		}
	}
}

func sameStyle(a, b block) bool {
	return a.lines[0].size == b.lines[0].size && a.lines[0].font&bold == b.lines[0].font&bold
}

// outlineIndex finds the outline's entries by page, and on a page by
// their titles' keys: a block is looked up, not compared with each of
// the page's entries (an outline of maxBookmarks entries on one page,
// compared with each block of the page, is billions of comparisons).
type outlineIndex struct {
	byPage map[int][]bookmark
	// byKey holds a page's entries by titleKey of their title, byBare by
	// titleKey of their title less its section number: each key's
	// entries in the outline's order, and the first of them that may
	// not be used yet.
	byKey, byBare map[int]map[string]*entries
	used          map[int]map[int]bool
}

// entries are the indexes of a page's outline entries that share a key,
// in order; those before next are all used.
type entries struct {
	at   []int
	next int
}

func (l *layout) outline() outlineIndex {
	o := outlineIndex{byPage: map[int][]bookmark{}, byKey: map[int]map[string]*entries{}, byBare: map[int]map[string]*entries{}, used: map[int]map[int]bool{}}
	add := func(idx map[int]map[string]*entries, pg int, key string, j int) {
		if idx[pg] == nil {
			idx[pg] = map[string]*entries{}
		}
		e := idx[pg][key]
		if e == nil {
			e = &entries{}
			idx[pg][key] = e
		}
		e.at = append(e.at, j)
	}
	for _, m := range l.marks {
		if m.page >= 0 && m.title != "" {
			j := len(o.byPage[m.page])
			o.byPage[m.page] = append(o.byPage[m.page], m)
			add(o.byKey, m.page, titleKey(m.title), j)
			add(o.byBare, m.page, titleKey(dropNumber(m.title)), j)
		}
	}
	return o
}

// level is the outline's level for a block that is the title of an
// entry leading to its page (or the page before, where a heading is at
// the top of the next page), each entry taken once: the first, in the
// outline's order, whose title is the block's, with or without either's
// section number.
func (o outlineIndex) level(b *block) (int, bool) {
	if len(b.lines) > 3 || b.kind == code || b.kind == item || b.kind == table {
		return 0, false
	}
	text := b.text()
	key := titleKey(text)
	if key == "" {
		return 0, false
	}
	bare := titleKey(dropNumber(text))
	for _, pg := range []int{b.page, b.page - 1} {
		j := -1
		for _, e := range []*entries{o.byKey[pg][key], o.byKey[pg][bare], o.byBare[pg][key]} {
			if k := o.firstUnused(pg, e); k >= 0 && (j < 0 || k < j) {
				j = k
			}
		}
		if j < 0 {
			continue
		}
		if o.used[pg] == nil {
			o.used[pg] = map[int]bool{}
		}
		o.used[pg][j] = true
		return min(6, o.byPage[pg][j].depth+1), true
	}
	return 0, false
}

// firstUnused is the first of entries e of page pg not used yet, or -1.
// The used ones at the front are passed once, for good.
func (o outlineIndex) firstUnused(pg int, e *entries) int {
	if e == nil {
		return -1
	}
	for e.next < len(e.at) && o.used[pg][e.at[e.next]] {
		e.next++
	}
	if e.next == len(e.at) {
		return -1
	}
	return e.at[e.next]
}

// titleKey is a title as compared: its letters and digits, lower case.
func titleKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// dropNumber takes a section number off a title ("2.3 Setup", "A.1.
// Notes", "Chapter 4: Use").
func dropNumber(s string) string {
	f := strings.Fields(s)
	if len(f) > 1 && strings.Trim(f[0], "0123456789.ABCDEFGHIJKLMNOPQRSTUVWXYZ:") == "" && strings.ContainsAny(f[0], "0123456789.") {
		return strings.Join(f[1:], " ")
	}
	return s
}

// markdown is the document as Markdown, with a page marker before each
// page's text, and the web links it holds.
func (l *layout) markdown(pageURL string) (string, []string, error) {
	l.strip()
	l.body = l.bodySize()
	var all []block
	for i := range l.pages {
		bs := l.blocks(i)
		if n := len(all); n > 0 && len(bs) > 0 && joins(all[n-1], bs[0]) {
			// A paragraph going on from the page before stays whole, with
			// that page.
			all[n-1].lines = append(all[n-1].lines, bs[0].lines...)
			bs = bs[1:]
		}
		all = append(all, bs...)
	}
	l.levels(all)
	var parts []string
	var links []string
	seen := map[string]bool{}
	for start := 0; start < len(all); {
		end := start
		for end < len(all) && all[end].page == all[start].page {
			end++
		}
		md, ls, err := render(all[start:end], pageURL)
		if err != nil {
			return "", nil, err
		}
		if md != "" {
			parts = append(parts, mdtext.PageMarker(all[start].page+1)+"\n\n"+md)
		}
		for _, u := range ls {
			if !seen[u] {
				seen[u] = true
				links = append(links, u)
			}
		}
		start = end
	}
	// Links that cover no text are the document's links all the same.
	for _, p := range l.pages {
		for _, k := range p.links {
			if !seen[k.uri] {
				seen[k.uri] = true
				links = append(links, k.uri)
			}
		}
	}
	if links == nil {
		links = []string{}
	}
	return strings.Join(parts, "\n\n"), links, nil
}

// joins reports whether a page's first block goes on with the last block
// of the page before: both paragraphs of one size, the first not ended.
func joins(prev, next block) bool {
	if prev.kind != paragraph || next.kind != paragraph {
		return false
	}
	a, b := prev.lines[len(prev.lines)-1], next.lines[0]
	if math.Abs(a.size-b.size) >= 0.6 || a.font&(bold|mono) != b.font&(bold|mono) {
		return false
	}
	return !endsSentence(a.text) && (startsLower(b.text) || strings.HasSuffix(a.text, "-") || strings.HasSuffix(a.text, "\u00AD"))
}

// render makes Markdown of one page's blocks, by way of the HTML they
// are, read by heed's own extraction: one way to Markdown for every
// kind of page, with its escaping and its bounds.
func render(bs []block, pageURL string) (string, []string, error) {
	if n := htmlBound(bs); n > extract.MaxInputBytes {
		// Each run's link is written with it: runs of a letter each under
		// a long link would make gigabytes of HTML, for extract to refuse.
		return "", nil, fmt.Errorf("pdf: %w: page %d's text makes over %d bytes of HTML: %d runs of text, each written with its link's address", ErrLimit, bs[0].page+1, extract.MaxInputBytes, runs(bs))
	}
	var h strings.Builder
	h.WriteString("<!DOCTYPE html><html><body>")
	open := ""
	for i, b := range bs {
		list := ""
		if b.kind == item {
			list = "ul"
			if _, ordered := listMarker(b.lines[0].text); ordered {
				list = "ol"
			}
		}
		if open != "" && open != list {
			h.WriteString("</" + open + ">")
			open = ""
		}
		switch b.kind {
		case heading:
			fmt.Fprintf(&h, "<h%d>%s</h%d>", b.level, inline(b, 0), b.level)
		case table:
			h.WriteString(tableHTML(b))
		case code:
			h.WriteString("<pre><code>")
			h.WriteString(html.EscapeString(codeText(b)))
			h.WriteString("</code></pre>")
		case item:
			if open == "" {
				h.WriteString("<" + list + ">")
				open = list
			}
			m, _ := listMarker(b.lines[0].text)
			h.WriteString("<li>" + inline(b, m) + "</li>")
		default:
			h.WriteString("<p>" + inline(b, 0) + "</p>")
		}
		_ = i
	}
	if open != "" {
		h.WriteString("</" + open + ">")
	}
	doc, err := extract.ExtractBytes([]byte(h.String()), extract.Options{URL: pageURL, ContentType: "text/html; charset=utf-8", Whole: true})
	if err != nil {
		return "", nil, fmt.Errorf("pdf: %w", err)
	}
	return doc.Markdown, doc.Links, nil
}

// htmlBound is the most bytes of HTML render may write for blocks bs:
// each run's text and its link's address escaped (at most six bytes a
// byte), the tags around them, and a code line's indent and breaks.
func htmlBound(bs []block) int {
	n := 0
	for _, b := range bs {
		for _, ln := range b.lines {
			n += 40 + len("\n\n")
			for _, s := range ln.spans {
				n += 6*(len(s.text)+len(s.uri)) + len(`<a href=""><code> </code></a>`)
			}
		}
		n += len("<h6></h6>") + 2*len("<ol></ol>")
	}
	return n
}

// runs is how many runs of text blocks bs hold.
func runs(bs []block) int {
	n := 0
	for _, b := range bs {
		for _, ln := range b.lines {
			n += len(ln.spans)
		}
	}
	return n
}

// inline is a block's text as HTML, its links and code kept, less the
// first skip bytes (a list item's marker) and with words hyphenated at a
// line's end joined.
func inline(b block, skip int) string {
	type piece struct {
		text string
		uri  string
		mono bool
	}
	var ps []piece
	for i, ln := range b.lines {
		for j, s := range ln.spans {
			t := strings.Join(strings.Fields(s.text), " ")
			if t == "" {
				continue
			}
			if len(ps) > 0 {
				last := &ps[len(ps)-1].text
				// A word broken at a line's end is joined (where the engine
				// marked the break, wherever the mark is).
				cut := 0
				if j == 0 && i > 0 || strings.HasSuffix(*last, "\u00AD") {
					cut = brokenWord(*last, t)
				}
				switch {
				case cut > 0:
					*last = (*last)[:len(*last)-cut]
				case j == 0 || parted(ln.spans[j-1], s) || strings.HasSuffix(ln.spans[j-1].text, " ") || strings.HasPrefix(s.text, " "):
					ps = append(ps, piece{text: " "})
				}
			}
			ps = append(ps, piece{text: t, uri: s.uri, mono: s.font&mono != 0 && b.lines[0].font&mono == 0})
		}
	}
	var h strings.Builder
	for _, p := range ps {
		t := dropLeaders(p.text)
		if skip > 0 {
			n := min(skip, len(t))
			t, skip = strings.TrimLeft(t[n:], " "), skip-n
			if t == "" {
				continue
			}
		}
		t = html.EscapeString(strings.ReplaceAll(t, "\u00AD", ""))
		if p.mono && strings.TrimSpace(t) != "" {
			t = "<code>" + t + "</code>"
		}
		if p.uri != "" {
			t = `<a href="` + html.EscapeString(p.uri) + `">` + t + "</a>"
		}
		h.WriteString(t)
	}
	return h.String()
}

// codeText is a code block's text, its lines indented as they are on the
// page and its blank lines kept.
func codeText(b block) string {
	x0 := b.lines[0].x0
	for _, ln := range b.lines {
		x0 = math.Min(x0, ln.x0)
	}
	var s strings.Builder
	for i, ln := range b.lines {
		if i > 0 {
			s.WriteByte('\n')
			prev := b.lines[i-1]
			if step := ln.base - prev.base; step > 1.8*ln.size {
				s.WriteByte('\n')
			}
		}
		width := 0.6 * ln.size
		if n := utf8.RuneCountInString(ln.text); n > 0 && ln.x1 > ln.x0 {
			width = (ln.x1 - ln.x0) / float64(n)
		}
		if width > 0 {
			s.WriteString(strings.Repeat(" ", min(40, int(math.Round((ln.x0-x0)/width)))))
		}
		s.WriteString(codeLine(ln))
	}
	return s.String()
}

// codeLine is a code line's text with the gaps between its spans kept.
func codeLine(ln line) string {
	var s strings.Builder
	for j, sp := range ln.spans {
		if j > 0 && parted(ln.spans[j-1], sp) {
			s.WriteByte(' ')
		}
		s.WriteString(strings.TrimRight(sp.text, "\r\n"))
	}
	return strings.TrimRight(s.String(), " ")
}

// title is the document's title where its information gives none: its
// first heading of the first level, or its first line.
func (l *layout) title() string {
	for _, ls := range l.lines {
		for _, ln := range ls {
			if ln.size >= l.body+math.Max(1, 0.12*l.body) && ln.spans[0].angle == 0 {
				return clean(ln.text, 300)
			}
		}
	}
	for _, ls := range l.lines {
		if len(ls) > 0 {
			return clean(ls[0].text, 300)
		}
	}
	return ""
}

// junkTitle reports whether an information dictionary's title says
// nothing of the document: empty, a file name, or a placeholder.
func junkTitle(t string) bool {
	lt := strings.ToLower(t)
	return t == "" || lt == "untitled" || strings.HasSuffix(lt, ".dvi") || strings.HasSuffix(lt, ".doc") || strings.HasSuffix(lt, ".docx") || strings.HasSuffix(lt, ".pdf") || strings.HasSuffix(lt, ".tex")
}
