package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/responses"

	"github.com/heedhq/heed/extract"
)

// The limits on what one document may cost. A document over one is
// refused with an error wrapping ErrLimit that names it.
const (
	// MaxInputBytes is the largest PDF read.
	MaxInputBytes = 64 << 20
	// MaxPages is the most pages a document may have.
	MaxPages = 5000
	// MaxChars is the most characters read from all pages together, and
	// maxPageChars from one page.
	MaxChars     = 20_000_000
	maxPageChars = 400_000
	// MaxSpans is the most runs of text (characters of one font, side by
	// side on a line) read from all pages together. The layout keeps a
	// few hundred bytes for each run: a document whose every character
	// is a run of its own (its font changes at each, or a gap parts
	// them) would take gigabytes at MaxChars. Manuals have about a
	// hundred runs a page, so that 5,000 pages of them are a quarter of
	// it.
	MaxSpans = 2_000_000
	// MaxTime is the longest a document may take to read. It is checked
	// between calls into the engine, each of which reads a page or less.
	MaxTime = 2 * time.Minute
	// maxBookmarks and maxBookmarkDepth bound the outline walked (an
	// outline may loop), maxLinks the links read from one page.
	maxBookmarks     = 10_000
	maxBookmarkDepth = 16
	maxLinks         = 1000
)

var (
	// ErrNotPDF is wrapped by the error for input that is no PDF.
	ErrNotPDF = errors.New("not a PDF")
	// ErrEncrypted is wrapped by the error for a document that needs a
	// password to be read.
	ErrEncrypted = errors.New("the PDF is encrypted: it needs a password to be read")
	// ErrLimit is wrapped by the error for a document over a limit.
	ErrLimit = errors.New("the PDF is over a limit")
)

// Sniff reports whether raw opens as a PDF: "%PDF-" within its first
// kilobyte, where readers look for it.
func Sniff(raw []byte) bool {
	return bytes.Contains(raw[:min(len(raw), 1024)], []byte("%PDF-"))
}

// Read reads a PDF held in raw into one document: its text as Markdown,
// with headings, paragraphs, lists, code and links, a page marker
// before each page's text ("<!-- page 3 -->"), and its title, author
// and dates from its document information.
func Read(raw []byte, opts extract.Options) (*extract.Document, error) {
	return ReadContext(context.Background(), raw, opts)
}

// errTooLong is the cause of a read's context that ran past MaxTime.
var errTooLong = errors.New("the PDF took too long to read")

// ReadContext is Read, ended early when ctx is: within MaxTime still.
func ReadContext(ctx context.Context, raw []byte, opts extract.Options) (*extract.Document, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, MaxTime, errTooLong)
	defer cancel()
	if !Sniff(raw) {
		return nil, fmt.Errorf("pdf: %w: no %%PDF- header", ErrNotPDF)
	}
	if len(raw) > MaxInputBytes {
		return nil, fmt.Errorf("pdf: %w: over %d bytes", ErrLimit, MaxInputBytes)
	}
	in, err := borrow(ctx)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	r := &reader{ctx: ctx, in: in}
	if err := r.read(raw); err != nil {
		return nil, err
	}
	return r.document(opts)
}

// reader reads one document with one engine.
type reader struct {
	ctx   context.Context
	in    pdfium.Pdfium
	doc   references.FPDF_DOCUMENT
	chars int
	spans int // the runs of text of the pages read
	info  info
	pages []page
	marks []bookmark
}

// info is what a document's information dictionary says.
type info struct {
	title, author, subject string
	created, modified      time.Time
}

// read opens raw and reads its information, outline and pages.
func (r *reader) read(raw []byte) error {
	opened, err := r.in.OpenDocument(&requests.OpenDocument{File: &raw})
	if err != nil {
		return openError(err)
	}
	r.doc = opened.Document
	defer r.in.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: r.doc})
	count, err := r.in.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: r.doc})
	if err != nil {
		return fmt.Errorf("pdf: counting pages: %w", err)
	}
	if count.PageCount > MaxPages {
		return fmt.Errorf("pdf: %w: %d pages, at most %d are read", ErrLimit, count.PageCount, MaxPages)
	}
	r.info = r.readInfo()
	r.marks = r.readOutline()
	for i := range count.PageCount {
		if err := r.ctx.Err(); err != nil {
			return r.timeError(err)
		}
		p, err := r.readPage(i)
		if err != nil {
			return err
		}
		if err := r.add(p); err != nil {
			return err
		}
	}
	return nil
}

// add adds a page read to the document, unless its runs of text take
// the document's past MaxSpans.
func (r *reader) add(p page) error {
	if r.spans += len(p.spans); r.spans > MaxSpans {
		return fmt.Errorf("pdf: %w: over %d runs of text (characters of one font side by side)", ErrLimit, MaxSpans)
	}
	r.pages = append(r.pages, p)
	return nil
}

// timeError says why reading stopped when its context ended: MaxTime
// ran out, or the caller's context ended (err, its error, is then the
// error's cause).
func (r *reader) timeError(err error) error {
	if errors.Is(context.Cause(r.ctx), errTooLong) {
		return fmt.Errorf("pdf: %w: reading took over %s", ErrLimit, MaxTime)
	}
	return fmt.Errorf("pdf: %w", err)
}

// openError says why a document did not open.
func openError(err error) error {
	switch {
	case errors.Is(err, pdfiumerrors.ErrPassword), errors.Is(err, pdfiumerrors.ErrSecurity):
		return fmt.Errorf("pdf: %w", ErrEncrypted)
	case errors.Is(err, pdfiumerrors.ErrFormat), errors.Is(err, pdfiumerrors.ErrFile):
		return fmt.Errorf("pdf: %w: the file is damaged or not a PDF", ErrNotPDF)
	}
	if strings.Contains(err.Error(), "memory") || strings.Contains(err.Error(), "out of bounds") {
		return fmt.Errorf("pdf: %w: it needs over %d bytes of memory", ErrLimit, MaxMemoryBytes)
	}
	return fmt.Errorf("pdf: opening: %w", err)
}

// readInfo reads the document information dictionary. What it lacks, or
// cannot give, is left empty.
func (r *reader) readInfo() info {
	var in info
	md, err := r.in.GetMetaData(&requests.GetMetaData{Document: r.doc})
	if err != nil {
		return in
	}
	for _, t := range md.Tags {
		v := clean(t.Value, 1000)
		switch t.Tag {
		case "Title":
			in.title = v
		case "Author":
			in.author = v
		case "Subject":
			in.subject = v
		case "CreationDate":
			in.created = parseDate(v)
		case "ModDate":
			in.modified = parseDate(v)
		}
	}
	return in
}

// clean is s as one line of valid UTF-8, at most max bytes.
func clean(s string, max int) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "")), " ")
	if len(s) > max {
		s = s[:max]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}

// parseDate reads a PDF date ("D:20230102150405+01'00'"), as much of it
// as is there, its offset in hours and minutes or in hours alone ("-08'",
// as older writers have it); the zero time if it is none.
func parseDate(s string) time.Time {
	s = strings.TrimPrefix(s, "D:")
	s = strings.ReplaceAll(s, "'", "")
	for _, layout := range []string{"20060102150405-0700", "20060102150405-07", "20060102150405Z0700", "20060102150405Z", "20060102150405", "200601021504", "2006010215", "20060102", "200601", "2006"} {
		if len(s) < len(layout)-len("Z0700") && strings.Contains(layout, "Z0700") {
			continue
		}
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	if len(s) >= 14 {
		if t, err := time.Parse("20060102150405", s[:14]); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// bookmark is an entry of the outline: its title, depth (0 at the top)
// and the page it leads to (-1 when it says none).
type bookmark struct {
	title string
	depth int
	page  int
}

// readOutline walks the outline depth first, at most maxBookmarks
// entries and maxBookmarkDepth deep: an outline whose entries loop ends
// there.
func (r *reader) readOutline() []bookmark {
	var out []bookmark
	var walk func(parent *references.FPDF_BOOKMARK, depth int)
	walk = func(parent *references.FPDF_BOOKMARK, depth int) {
		if depth >= maxBookmarkDepth {
			return
		}
		first, err := r.in.FPDFBookmark_GetFirstChild(&requests.FPDFBookmark_GetFirstChild{Document: r.doc, Bookmark: parent})
		if err != nil || first.Bookmark == nil {
			return
		}
		for b := first.Bookmark; b != nil && len(out) < maxBookmarks && r.ctx.Err() == nil; {
			mark := bookmark{depth: depth, page: -1}
			if t, err := r.in.FPDFBookmark_GetTitle(&requests.FPDFBookmark_GetTitle{Bookmark: *b}); err == nil {
				mark.title = clean(t.Title, 500)
			}
			mark.page = r.bookmarkPage(*b)
			out = append(out, mark)
			walk(b, depth+1)
			next, err := r.in.FPDFBookmark_GetNextSibling(&requests.FPDFBookmark_GetNextSibling{Document: r.doc, Bookmark: *b})
			if err != nil {
				return
			}
			b = next.Bookmark
		}
	}
	walk(nil, 0)
	return out
}

// bookmarkPage is the page a bookmark leads to, by its destination or its
// go-to action; -1 when it says none.
func (r *reader) bookmarkPage(b references.FPDF_BOOKMARK) int {
	dest, err := r.in.FPDFBookmark_GetDest(&requests.FPDFBookmark_GetDest{Document: r.doc, Bookmark: b})
	if err != nil || dest.Dest == nil {
		act, err := r.in.FPDFBookmark_GetAction(&requests.FPDFBookmark_GetAction{Bookmark: b})
		if err != nil || act.Action == nil {
			return -1
		}
		d, err := r.in.FPDFAction_GetDest(&requests.FPDFAction_GetDest{Document: r.doc, Action: *act.Action})
		if err != nil || d.Dest == nil {
			return -1
		}
		dest.Dest = d.Dest
	}
	idx, err := r.in.FPDFDest_GetDestPageIndex(&requests.FPDFDest_GetDestPageIndex{Document: r.doc, Dest: *dest.Dest})
	if err != nil {
		return -1
	}
	return idx.Index
}

// readPage reads page i's text, as spans of one font on one line, and
// its links.
func (r *reader) readPage(i int) (page, error) {
	at := requests.Page{ByIndex: &requests.PageByIndex{Document: r.doc, Index: i}}
	var p page
	size, err := r.in.FPDF_GetPageSizeByIndex(&requests.FPDF_GetPageSizeByIndex{Document: r.doc, Index: i})
	if err != nil {
		return p, fmt.Errorf("pdf: page %d: %w", i+1, err)
	}
	p.width, p.height = size.Width, size.Height
	tp, err := r.in.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: at})
	if err != nil && trapped(err) {
		return p, trapError(i)
	}
	if err != nil {
		// A page whose text cannot be read is a page without text.
		return p, nil
	}
	defer r.in.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	n, err := r.in.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil || n.Count <= 0 {
		return p, nil
	}
	if n.Count > maxPageChars {
		return p, fmt.Errorf("pdf: %w: page %d has %d characters, at most %d are read", ErrLimit, i+1, n.Count, maxPageChars)
	}
	if r.chars += n.Count; r.chars > MaxChars {
		return p, fmt.Errorf("pdf: %w: over %d characters", ErrLimit, MaxChars)
	}
	// The characters and the engine's rectangles (runs of one font on a
	// line), without fonts: asking each character's font costs six calls
	// into the engine, most of the time a page takes. A rectangle's font
	// is asked once, of its first character.
	text, err := r.in.GetPageTextStructured(&requests.GetPageTextStructured{Page: at, Mode: requests.GetPageTextStructuredModeChars})
	if err != nil && trapped(err) {
		return p, trapError(i)
	}
	if err != nil {
		return p, nil
	}
	rects := r.readRects(tp.TextPage, n.Count)
	faces := map[int]face{}
	faceOf := func(char int) face {
		if f, ok := faces[char]; ok {
			return f
		}
		var f face
		if sz, err := r.in.FPDFText_GetFontSize(&requests.FPDFText_GetFontSize{TextPage: tp.TextPage, Index: char}); err == nil {
			f.size = sz.FontSize
		}
		if w, err := r.in.FPDFText_GetFontWeight(&requests.FPDFText_GetFontWeight{TextPage: tp.TextPage, Index: char}); err == nil {
			f.weight = w.FontWeight
		}
		if fi, err := r.in.FPDFText_GetFontInfo(&requests.FPDFText_GetFontInfo{TextPage: tp.TextPage, Index: char}); err == nil {
			f.name, f.flags = fi.FontName, fi.Flags
		}
		faces[char] = f
		return f
	}
	p.links = r.readLinks(at, p.height)
	p.spans = spans(text.Chars, rects, faceOf, p.height, p.links)
	return p, nil
}

// readRects reads a text page's rectangles, each run of one font on a
// line, with the engine's own calls: one a rectangle. They are not asked
// of GetPageTextStructured, which finds each rectangle's text (unused
// here) by scanning the characters of its line, so that a line of runs
// costs their number squared. There are no more rectangles than
// characters (chars).
func (r *reader) readRects(tp references.FPDF_TEXTPAGE, chars int) []*responses.GetPageTextStructuredRect {
	n, err := r.in.FPDFText_CountRects(&requests.FPDFText_CountRects{TextPage: tp, StartIndex: 0, Count: -1})
	if err != nil || n.Count <= 0 {
		return nil
	}
	out := make([]*responses.GetPageTextStructuredRect, 0, min(n.Count, chars))
	for i := range min(n.Count, chars) {
		b, err := r.in.FPDFText_GetRect(&requests.FPDFText_GetRect{TextPage: tp, Index: i})
		if err != nil {
			break
		}
		out = append(out, &responses.GetPageTextStructuredRect{PointPosition: responses.CharPosition{Left: b.Left, Top: b.Top, Right: b.Right, Bottom: b.Bottom}})
	}
	return out
}

// trapped reports whether err is the engine stopping on a trap: PDFium
// aborted, most often out of its memory (MaxMemoryBytes, as a page whose
// content inflates past it does), after which nothing it holds is to be
// trusted. It is not a page without text.
func trapped(err error) bool {
	return strings.Contains(err.Error(), "wasm error")
}

// trapError is the error of a document whose page i stopped the engine.
func trapError(i int) error {
	return fmt.Errorf("pdf: %w: page %d stopped the PDF engine: it needs more than the engine's %d bytes of memory, or is damaged past repair", ErrLimit, i+1, MaxMemoryBytes)
}

// face is a font as the engine names it, at a size.
type face struct {
	name          string
	size          float64
	weight, flags int
}

// spans gathers a page's characters, in the order the page draws them,
// into spans of one font on one line. Each character's font is that of
// the first of the engine's rectangles its middle is in, asked of the
// rectangle's first character (faceOf). The rectangles' own text is not
// used: where letters are kerned their boxes overlap, and the same
// letters are read into two of them.
func spans(chars []*responses.GetPageTextStructuredChar, rects []*responses.GetPageTextStructuredRect, faceOf func(char int) face, height float64, links []link) []span {
	var out []span
	// The span being gathered (while open), its text in a builder: a
	// span copied whole for each character it takes costs its length
	// squared.
	var cur span
	var open bool
	var text strings.Builder
	var curFace face
	var lastX0 float64 // where the span's last character starts
	kinds := map[face]font{}
	first := make([]int, len(rects)) // each rectangle's first character, +1
	rect := 0
	end := func() {
		if open && strings.TrimSpace(text.String()) != "" {
			cur.text = spanText(text.String())
			out = append(out, cur)
		}
		open = false
		text.Reset()
	}
	for i, c := range chars {
		if c == nil {
			continue
		}
		if c.Text == "\r" || c.Text == "\n" || c.Text == "" {
			end()
			continue
		}
		box := c.PointPosition
		empty := box.Right <= box.Left && box.Top <= box.Bottom
		if c.Text == " " || empty {
			if open {
				text.WriteString(c.Text)
			}
			continue
		}
		var fc face
		if at := rectOf(rects, rect, (box.Left+box.Right)/2, (box.Top+box.Bottom)/2); at >= 0 {
			rect = at
			if first[rect] == 0 {
				first[rect] = i + 1
			}
			fc = faceOf(first[rect] - 1)
		} else {
			// In no rectangle near: its own font, asked of it.
			fc = faceOf(i)
		}
		s := span{x0: box.Left, x1: box.Right, top: height - box.Top, bottom: height - box.Bottom, size: fc.size}
		k, ok := kinds[fc]
		if !ok {
			k = fontOf(fc.name, fc.weight, fc.flags)
			kinds[fc] = k
		}
		s.font = k
		if s.size <= 0 {
			s.size = s.bottom - s.top
		}
		s.uri = linkAt(links, (s.x0+s.x1)/2, (s.top+s.bottom)/2)
		var follows bool
		if s.angle = angleOf(c.Angle); s.angle != 0 {
			// Text set at an angle (a margin's stamp, a table turned
			// sideways) is read along it: a character goes on the span
			// of the one before it in the page's order, at that angle.
			follows = open && fc == curFace && cur.angle == s.angle
		} else {
			// A character goes on the span when it follows on: not left
			// of the end of the one before, or (the second letter of a
			// ligature, given the ligature's box) not left of its start.
			follows = open && cur.angle == 0 && fc == curFace && s.uri == cur.uri && (s.x0 >= cur.x1-0.5*s.size || s.x0 >= lastX0-0.1) && s.x0 <= cur.x1+cellGap*s.size && sameBand(cur, s)
		}
		if !follows {
			end()
			cur, open, curFace = s, true, fc
		} else {
			if s.angle != 0 {
				// A level span grows rightwards only; one at an angle,
				// whichever way its text runs.
				cur.x0 = math.Min(cur.x0, s.x0)
			}
			cur.x1 = math.Max(cur.x1, s.x1)
			cur.top, cur.bottom = math.Min(cur.top, s.top), math.Max(cur.bottom, s.bottom)
		}
		text.WriteString(c.Text)
		lastX0 = s.x0
	}
	end()
	return out
}

// angleOf is a character's angle (the engine's, in radians, turning
// counterclockwise), to the nearest degree, 0 for text set level.
func angleOf(rad float64) int {
	deg := int(math.Round(rad*180/math.Pi)) % 360
	if deg < 0 {
		deg += 360
	}
	if deg <= 1 || deg >= 359 {
		return 0
	}
	return deg
}

// rectOf is the index of the rectangle a point is in, looked for from
// the one the character before was in (characters and rectangles come in
// the same order), a few ahead; -1 when it is in none of them.
func rectOf(rects []*responses.GetPageTextStructuredRect, from int, x, y float64) int {
	for i := max(from, 0); i < len(rects) && i < max(from, 0)+8; i++ {
		if r := rects[i]; r != nil && x >= r.PointPosition.Left-0.5 && x <= r.PointPosition.Right+0.5 && y <= r.PointPosition.Top+0.5 && y >= r.PointPosition.Bottom-0.5 {
			return i
		}
	}
	return -1
}

// spanText is text as the engine gives it, made plain: its mark for a
// hyphen that breaks a word at a line's end (U+0002) becomes a soft
// hyphen, which the layout joins; other control characters go, and the
// typographic ligatures (ﬁ, ﬂ, ...) are spelled out.
func spanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		switch {
		case r == 2:
			return '\u00AD'
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case r < ' ' || r == 0x7F || r == 0xFFFE || r == 0xFFFF:
			return -1
		}
		return r
	}, ligatures().Replace(s))
}

// ligatures spells out the typographic ligatures; made when first used,
// not when heed starts.
var ligatures = sync.OnceValue(func() *strings.Replacer {
	return strings.NewReplacer("\uFB00", "ff", "\uFB01", "fi", "\uFB02", "fl", "\uFB03", "ffi", "\uFB04", "ffl", "\uFB05", "st", "\uFB06", "st")
})

// readLinks reads a page's link annotations that lead to a web address.
func (r *reader) readLinks(at requests.Page, height float64) []link {
	var out []link
	pos := 0
	for range maxLinks {
		l, err := r.in.FPDFLink_Enumerate(&requests.FPDFLink_Enumerate{Page: at, StartPos: pos})
		if err != nil || l.Link == nil || l.NextStartPos == nil || *l.NextStartPos <= pos {
			break
		}
		pos = *l.NextStartPos
		act, err := r.in.FPDFLink_GetAction(&requests.FPDFLink_GetAction{Link: *l.Link})
		if err != nil || act.Action == nil {
			continue
		}
		kind, err := r.in.FPDFAction_GetType(&requests.FPDFAction_GetType{Action: *act.Action})
		if err != nil || kind.Type != enums.FPDF_ACTION_ACTION_URI {
			continue
		}
		uri, err := r.in.FPDFAction_GetURIPath(&requests.FPDFAction_GetURIPath{Document: r.doc, Action: *act.Action})
		if err != nil || uri.URIPath == nil {
			continue
		}
		rect, err := r.in.FPDFLink_GetAnnotRect(&requests.FPDFLink_GetAnnotRect{Link: *l.Link})
		if err != nil || rect.Rect == nil {
			continue
		}
		u := clean(*uri.URIPath, 4096)
		if !webLink(u) {
			continue
		}
		out = append(out, link{
			uri: u,
			x0:  float64(rect.Rect.Left), x1: float64(rect.Rect.Right),
			top: height - float64(rect.Rect.Top), bottom: height - float64(rect.Rect.Bottom),
		})
	}
	return out
}

// document makes the Markdown document of what was read.
func (r *reader) document(opts extract.Options) (*extract.Document, error) {
	l := layout{pages: r.pages, marks: r.marks}
	md, links, err := l.markdown(opts.URL)
	if err != nil {
		return nil, err
	}
	doc := &extract.Document{
		URL:         strings.ToValidUTF8(opts.URL, "\uFFFD"),
		Title:       r.info.title,
		Author:      r.info.author,
		Description: r.info.subject,
		Published:   r.info.created,
		Modified:    r.info.modified,
		Markdown:    md,
		Links:       links,
	}
	if junkTitle(doc.Title) {
		doc.Title = l.title()
	}
	return doc, nil
}
