package epub

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/heedhq/heed/extract"
)

// The caps on what one EPUB may cost. Each is a limit of Read's work and
// memory whatever the input; going over one is an error that wraps
// ErrLimit and names the cap.
const (
	// MaxCompressedBytes is the longest EPUB read, as it came.
	MaxCompressedBytes = 64 << 20
	// MaxInflatedBytes is the most inflated from one EPUB, all entries
	// read together: a zip whose entries share their compressed data
	// cannot multiply it past this.
	MaxInflatedBytes = 256 << 20
	// MaxEntryBytes is the most one entry may inflate to, as much HTML as
	// extract reads of a page.
	MaxEntryBytes = extract.MaxInputBytes
	// MaxEntries is the most entries an archive may hold, and items its
	// manifest may list.
	MaxEntries = 10_000
	// MaxSpineItems is the most items a spine may list.
	MaxSpineItems = 5_000
	// MaxXMLDepth is the deepest elements of the container, package,
	// encryption list and tables of contents may nest.
	MaxXMLDepth = 128
	// MaxMarkdownBytes is the longest Markdown a book may make.
	MaxMarkdownBytes = 64 << 20
)

var (
	// ErrEncrypted is wrapped by the error of a book whose content is
	// encrypted (by DRM, or obfuscated as fonts are): Read cannot read it.
	ErrEncrypted = errors.New("epub: the book is encrypted")
	// ErrLimit is wrapped by the error of a book over one of the caps;
	// the message names the cap and its value.
	ErrLimit = errors.New("epub: over a limit")
	// ErrNotEPUB is wrapped by the error of input that is no readable
	// EPUB: not a zip, no container or package document, no spine, no
	// chapter, an entry that leaves the archive, a corrupt entry.
	ErrNotEPUB = errors.New("epub: not a readable EPUB")
)

// maxDescription is the longest description kept, in bytes.
const maxDescription = 2000

// Read reads an EPUB held in raw into one document.
//
// opts.URL is where the book came from, the document's URL; its chapters
// are read whole, at addresses of their own (see chapterURL), whatever
// opts.Whole says, and opts.ContentType, the book's, is none of theirs.
func Read(raw []byte, opts extract.Options) (*extract.Document, error) {
	zr, err := openZip(raw)
	if err != nil {
		return nil, err
	}
	a := newArchive(zr)
	if a.files[encryptionXML] != nil {
		data, err := a.read(encryptionXML)
		if err != nil {
			return nil, err
		}
		if a.encrypted, err = parseEncryption(data); err != nil {
			return nil, err
		}
	}
	data, err := a.read("META-INF/container.xml")
	if errors.Is(err, errMissing) {
		return nil, fmt.Errorf("%w: no META-INF/container.xml", ErrNotEPUB)
	}
	if err != nil {
		return nil, err
	}
	opfName, err := parseContainer(data)
	if err != nil {
		return nil, err
	}
	if data, err = a.read(opfName); errors.Is(err, errMissing) {
		return nil, fmt.Errorf("%w: the package document %s is not in the archive", ErrNotEPUB, clip(opfName, 200))
	} else if err != nil {
		return nil, err
	}
	p, err := parseOPF(opfName, data)
	if err != nil {
		return nil, err
	}
	data = nil
	b := &book{archive: a, pkg: p, opf: opfName}
	chapters := b.chapters()
	if len(chapters) == 0 {
		return nil, fmt.Errorf("%w: no chapter of the spine of %s is in the archive", ErrNotEPUB, clip(opfName, 200))
	}
	// Refuse what cannot be read before reading any of it. Each size
	// is checked before it is added, so that the sum cannot wrap.
	var declared uint64
	for _, c := range chapters {
		if a.encrypted[c] {
			return nil, fmt.Errorf("%w: the chapter %s is listed in META-INF/encryption.xml", ErrEncrypted, clip(c, 200))
		}
		size := a.files[c].UncompressedSize64
		if size > MaxEntryBytes {
			return nil, fmt.Errorf("%w: %s declares %d bytes, over the %d of MaxEntryBytes", ErrLimit, clip(c, 200), size, MaxEntryBytes)
		}
		declared += size
	}
	if left := uint64(MaxInflatedBytes - a.inflated); declared > left {
		return nil, fmt.Errorf("%w: the chapters declare %d bytes, over the %d of MaxInflatedBytes", ErrLimit, declared, MaxInflatedBytes)
	}
	return b.document(chapters, opts)
}

// book is an EPUB being read.
type book struct {
	*archive
	pkg    *pkg
	opf    string            // the package document's archive name
	titles map[string]string // the table of contents' titles, by archive name, once read
}

// chapters are the archive names of the XHTML documents of the spine, in
// the order they are read: the spine's linear items in its order, then
// its non-linear ones (notes, answers, asides that a reading system shows
// when a link leads there) in its order. Each document is read once,
// however often the spine lists it. An item of another media type is
// read through its manifest fallbacks, as reading systems do, if one of
// the first maxFallbacks is XHTML, so that a chain that loops ends. The
// navigation document and the NCX are never chapters, nor is the package
// document itself; items missing from the manifest or the archive are
// passed over.
func (b *book) chapters() []string {
	var linear, aside []string
	seen := map[string]bool{b.opf: true}
	for _, ref := range b.pkg.spine {
		it := b.pkg.items[ref.idref]
		for hops := 0; it != nil && !isXHTML(it) && hops < maxFallbacks; hops++ {
			it = b.pkg.items[it.fallback]
		}
		if it == nil || !isXHTML(it) || it.nav || it.path == "" || seen[it.path] || b.files[it.path] == nil {
			continue
		}
		seen[it.path] = true
		if ref.linear {
			linear = append(linear, it.path)
		} else {
			aside = append(aside, it.path)
		}
	}
	return append(linear, aside...)
}

// maxFallbacks is the most manifest fallbacks followed from a spine item
// (books have one or two): past it, the item is passed over.
const maxFallbacks = 16

// isXHTML reports whether a manifest item is a content document: XHTML
// or HTML by its media type, or by its name when it has none.
func isXHTML(it *item) bool {
	switch it.mediaType {
	case "application/xhtml+xml", "text/html", "text/x-oeb1-document":
		return true
	case "":
		lower := strings.ToLower(it.path)
		return strings.HasSuffix(lower, ".xhtml") || strings.HasSuffix(lower, ".html") || strings.HasSuffix(lower, ".htm")
	}
	return false
}

// document reads the chapters into one document.
func (b *book) document(chapters []string, opts extract.Options) (*extract.Document, error) {
	doc := &extract.Document{URL: strings.ToValidUTF8(opts.URL, "\uFFFD"), Links: []string{}}
	b.metadata(doc)
	var md strings.Builder
	seen := map[string]bool{}
	for _, name := range chapters {
		data, err := b.read(name)
		if err != nil {
			return nil, err
		}
		ch, err := extract.ExtractBytes(data, extract.Options{URL: chapterURL(name), ContentType: xmlContentType(data), Whole: true})
		if err != nil {
			return nil, fmt.Errorf("%w: chapter %s: %w", ErrNotEPUB, clip(name, 200), err)
		}
		text := strings.TrimSpace(ch.Markdown)
		if text != "" && !hasHeading(text) {
			title, err := b.title(name, chapters)
			if err != nil {
				return nil, err
			}
			if h := heading(title); h != "" {
				text = h + "\n\n" + text
			}
		}
		if err := appendChapter(&md, text, MaxMarkdownBytes, name); err != nil {
			return nil, err
		}
		for _, l := range ch.Links {
			if !seen[l] {
				seen[l] = true
				doc.Links = append(doc.Links, l)
			}
		}
		if doc.Lang == "" {
			doc.Lang = clip(ch.Lang, 64)
		}
	}
	doc.Markdown = md.String()
	return doc, nil
}

// appendChapter appends the Markdown of the chapter name to the book's,
// after a blank line, unless the book's would grow past limit bytes
// (MaxMarkdownBytes).
func appendChapter(md *strings.Builder, text string, limit int, name string) error {
	if text == "" {
		return nil
	}
	n := len(text)
	if md.Len() > 0 {
		n += len("\n\n")
	}
	if md.Len()+n > limit {
		return fmt.Errorf("%w: the Markdown grows past the %d bytes of MaxMarkdownBytes (at %s)", ErrLimit, limit, clip(name, 200))
	}
	if md.Len() > 0 {
		md.WriteString("\n\n")
	}
	md.WriteString(text)
	return nil
}

// chapterURL is the URL a chapter is read at: its archive name under a
// scheme of no web's, so that its relative links, which lead to other
// parts of the book, resolve to no web address and are dropped (their
// text kept), while its http(s) links stay as they are. A book's own
// parts have no address a reader of its Markdown could follow.
func chapterURL(name string) string {
	return (&url.URL{Scheme: "epub", Path: "/" + name}).String()
}

// xmlContentType is the Content-Type an XHTML document's XML declaration
// states (<?xml version="1.0" encoding="ISO-8859-1"?>), for extract to
// decode it by, or "" when it states none: XML's default is UTF-8, which
// extract takes valid UTF-8 for. A declaration of UTF-16 read as ASCII
// is wrong, and passed over.
func xmlContentType(data []byte) string {
	decl, ok := bytes.CutPrefix(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")), []byte("<?xml"))
	if !ok {
		return ""
	}
	if end := bytes.Index(decl[:min(len(decl), 256)], []byte("?>")); end >= 0 {
		decl = decl[:end]
	} else {
		return ""
	}
	_, v, ok := bytes.Cut(decl, []byte("encoding"))
	if !ok {
		return ""
	}
	v = bytes.TrimLeft(v, " \t\r\n=")
	if len(v) < 2 || v[0] != '"' && v[0] != '\'' {
		return ""
	}
	enc, _, ok := bytes.Cut(v[1:], v[:1])
	label := strings.ToLower(strings.TrimSpace(string(enc)))
	if !ok || label == "" || len(label) > 40 || strings.HasPrefix(label, "utf-16") || strings.Trim(label, "abcdefghijklmnopqrstuvwxyz0123456789._:-") != "" {
		return ""
	}
	return "application/xhtml+xml; charset=" + label
}

// hasHeading reports whether Markdown has an ATX heading outside fenced
// code.
func hasHeading(md string) bool {
	fence := ""
	for line := range strings.SplitSeq(md, "\n") {
		if fence != "" {
			if strings.HasPrefix(line, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			fence = line[:3]
			continue
		}
		if rest := strings.TrimLeft(line, "#"); len(rest) < len(line) && len(line)-len(rest) <= 6 && (rest == "" || rest[0] == ' ') {
			return true
		}
	}
	return false
}

// heading is a level-one heading of a title, written as heed writes a
// page's <h1>.
func heading(title string) string {
	if title == "" {
		return ""
	}
	h, err := extract.ExtractBytes([]byte("<h1>"+html.EscapeString(title)+"</h1>"), extract.Options{Whole: true})
	if err != nil {
		return ""
	}
	return h.Markdown
}

// title is the title the book's table of contents gives a chapter, or "".
// The table is read once, when a chapter without a heading first asks:
// the EPUB 3 navigation document's, or failing it the NCX's. A table that
// cannot be read gives no titles; one over a cap is an error.
func (b *book) title(name string, chapters []string) (string, error) {
	if b.titles == nil {
		want := make(map[string]bool, len(chapters))
		for _, c := range chapters {
			want[c] = true
		}
		b.titles = map[string]string{}
		for _, ncx := range []bool{false, true} {
			toc := b.tocName(ncx)
			if toc == "" || b.files[toc] == nil {
				continue
			}
			data, err := b.read(toc)
			if err != nil {
				if errors.Is(err, ErrLimit) {
					return "", err
				}
				continue
			}
			t, err := navTitles(toc, data, ncx, want)
			if errors.Is(err, ErrLimit) {
				return "", err
			}
			if len(t) > 0 {
				b.titles = t
				break
			}
		}
	}
	return b.titles[name], nil
}

// tocName is the archive name of the book's navigation document, or of its
// NCX: the one the spine names, or else the first of its media type.
func (b *book) tocName(ncx bool) string {
	if ncx {
		if it := b.pkg.items[b.pkg.toc]; b.pkg.toc != "" && it != nil {
			return it.path
		}
	}
	// The manifest is a map: the least name wins, so that the choice is
	// the same every time.
	best := ""
	for _, it := range b.pkg.items {
		if (ncx && it.mediaType == "application/x-dtbncx+xml" || !ncx && it.nav) && it.path != "" && (best == "" || it.path < best) {
			best = it.path
		}
	}
	return best
}

// metadata fills a document's title, author, language, description and
// dates from the package's Dublin Core metadata.
func (b *book) metadata(doc *extract.Document) {
	var (
		titles, authors            []string
		mainTitle                  string
		published, created, edited string
	)
	for _, e := range b.pkg.meta {
		if e.text == "" {
			continue
		}
		refined := b.pkg.refine[e.id]
		if e.id == "" {
			refined = nil
		}
		switch e.local {
		case "title":
			titles = append(titles, e.text)
			if mainTitle == "" && strings.EqualFold(refined["title-type"], "main") {
				mainTitle = e.text
			}
		case "creator":
			role := strings.ToLower(strings.TrimSpace(firstNonEmpty(e.role, refined["role"])))
			if role == "" || role == "aut" {
				authors = append(authors, e.text)
			}
		case "language":
			if doc.Lang == "" {
				doc.Lang = clip(e.text, 64)
			}
		case "description":
			if doc.Description == "" {
				doc.Description = plainText(e.text, maxDescription)
			}
		case "date":
			switch strings.ToLower(strings.TrimSpace(e.event)) {
			case "", "publication", "issued":
				published = firstNonEmpty(published, e.text)
			case "creation", "original-publication":
				created = firstNonEmpty(created, e.text)
			case "modification":
				edited = firstNonEmpty(edited, e.text)
			}
		case "meta":
			if e.id == "dcterms:modified" {
				edited = firstNonEmpty(edited, e.text)
			}
		}
	}
	doc.Title = clip(firstNonEmpty(mainTitle, first(titles)), maxTitle)
	doc.Author = names(authors)
	doc.Published = parseDate(firstNonEmpty(published, created))
	doc.Modified = parseDate(firstNonEmpty(b.pkg.modified, edited))
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// names joins names by commas, each once, as far as maxTitle bytes go.
func names(s []string) string {
	var out []string
	seen := map[string]bool{}
	n := 0
	for _, v := range s {
		if n > maxTitle {
			break
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
			n += len(v) + len(", ")
		}
	}
	return clip(strings.Join(out, ", "), maxTitle)
}

// plainText is a description as plain text: publishers often write HTML
// into it, whose tags are dropped and entities decoded. White space is
// collapsed, and text past n bytes cut at a word, marked by an ellipsis.
func plainText(s string, n int) string {
	if strings.ContainsAny(s, "<&") {
		var b strings.Builder
		for {
			i := strings.IndexByte(s, '<')
			if i < 0 || i+1 >= len(s) {
				b.WriteString(s)
				break
			}
			b.WriteString(s[:i])
			if c := s[i+1]; c == '/' || c == '!' || c == '?' || 'a' <= c|0x20 && c|0x20 <= 'z' {
				end := strings.IndexByte(s[i:], '>')
				if end < 0 {
					break
				}
				b.WriteByte(' ')
				s = s[i+end+1:]
				continue
			}
			b.WriteByte('<')
			s = s[i+1:]
		}
		s = html.UnescapeString(b.String())
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	s = clip(s, n-len("…"))
	if i := strings.LastIndexByte(s, ' '); i > n/2 {
		s = s[:i]
	}
	return s + "…"
}

// dateLayouts are the forms of a date in EPUB metadata: W3C dates, from a
// year alone to a time with fractions of a second.
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02",
	"2006-01",
	"2006",
}

// parseDate reads a date of the metadata, in UTC, or gives the zero time.
func parseDate(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// Sniff reports whether raw opens as an EPUB (a zip whose first entry is
// "mimetype" holding application/epub+zip, or whose META-INF/container.xml
// names an OPF package).
func Sniff(raw []byte) bool {
	// A book laid out as the standard lays it out says what it is in its
	// first bytes, as file types' magic numbers do, however long, broken
	// or hostile the rest is: Read's error then says what is wrong.
	if mimetypeFirst(raw) {
		return true
	}
	zr, err := openZip(raw)
	if err != nil {
		return false
	}
	if len(zr.File) > 0 && zr.File[0].Name == "mimetype" {
		if rc, err := zr.File[0].Open(); err == nil {
			m, _ := io.ReadAll(io.LimitReader(rc, 64))
			rc.Close()
			if string(bytes.TrimSpace(m)) == "application/epub+zip" {
				return true
			}
		}
	}
	a := newArchive(zr)
	f := a.files["META-INF/container.xml"]
	if f == nil || f.UncompressedSize64 > maxSniffedContainer {
		return false
	}
	rc, err := f.Open()
	if err != nil {
		return false
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxSniffedContainer))
	if err != nil {
		return false
	}
	_, err = parseContainer(data)
	return err == nil
}

// maxSniffedContainer is the longest container.xml Sniff reads.
const maxSniffedContainer = 64 << 10

// mimetypeFirst reports whether raw starts with a stored zip entry named
// "mimetype" that holds application/epub+zip, as the EPUB standard lays a
// book out.
func mimetypeFirst(raw []byte) bool {
	const want = "application/epub+zip"
	if len(raw) < 30 || string(raw[:4]) != "PK\x03\x04" || raw[8] != 0 || raw[9] != 0 {
		return false
	}
	nameLen, extraLen := int(raw[26])|int(raw[27])<<8, int(raw[28])|int(raw[29])<<8
	start := 30 + nameLen + extraLen
	return nameLen == len("mimetype") && len(raw) >= start+len(want) &&
		string(raw[30:38]) == "mimetype" && string(raw[start:start+len(want)]) == want
}
