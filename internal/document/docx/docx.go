package docx

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"

	"github.com/heedhq/heed/extract"
)

// The caps on what reading one document may cost. Each over-a-cap error
// wraps ErrLimit and names the cap and its value.
const (
	// MaxInputBytes is the longest DOCX file read, compressed.
	MaxInputBytes = 64 << 20
	// MaxPartBytes is the most one part of the package may decompress
	// to, and MaxDecompressedBytes the most all the parts read may
	// decompress to together. Parts are read through a limit, not by the
	// sizes their zip headers state, so that a header that lies costs no
	// more than the cap.
	MaxPartBytes         = 64 << 20
	MaxDecompressedBytes = 256 << 20
	// MaxEntries is the most entries the zip may hold. They are counted
	// by their central directory signatures before the archive is
	// opened, so that a directory that claims fewer entries than it
	// holds costs no more memory than this many.
	MaxEntries = 10000
	// MaxDepth is how deep the XML of a part may nest.
	MaxDepth = 256
	// MaxMarkdownBytes is the longest Markdown written for a document.
	MaxMarkdownBytes = 64 << 20
)

var (
	// ErrEncrypted is wrapped by the error of an encrypted Office file:
	// an OLE compound file holding EncryptionInfo and EncryptedPackage
	// streams (a password-protected DOCX), or a zip whose parts are
	// encrypted.
	ErrEncrypted = errors.New("docx: the document is encrypted (password-protected), and heed does not read encrypted documents")
	// ErrLimit is wrapped by the error of a document over one of the
	// caps (MaxInputBytes and the others), which it names with its value.
	ErrLimit = errors.New("docx: over a limit")
	// ErrNotDOCX is wrapped by the error of input that is not a readable
	// DOCX: not a zip, a truncated or broken one, one with no
	// WordprocessingML document, with unsafe or repeated part names, or
	// with malformed XML.
	ErrNotDOCX = errors.New("docx: not a readable DOCX")
)

// The relationship types that lead from a package to its parts, less
// their namespace, which transitional and strict documents spell apart.
const (
	relOfficeDocument = "/officeDocument"
	relCore           = "/metadata/core-properties"
	relStyles         = "/styles"
	relNumbering      = "/numbering"
	relFootnotes      = "/footnotes"
	relEndnotes       = "/endnotes"
	relHyperlink      = "/hyperlink"
)

// maxSniffPart is the most Sniff decompresses of _rels/.rels or
// [Content_Types].xml, which are a few hundred bytes in any document.
const maxSniffPart = 1 << 20

// Read reads a DOCX held in raw into one document.
//
// The Markdown holds the document's body: headings (by paragraph style,
// through its basedOn chain and outline level), paragraphs, bold and
// italic text, bullet and ordered lists nested by level, GFM tables,
// links to the web, and footnotes and endnotes as Markdown footnotes.
// Text deleted in tracked changes is left out, and inserted text kept.
// The title, description, author, language and dates come from the
// document's core properties (the title from its first heading where
// they state none). opts.URL is the document's address, which relative
// hyperlinks resolve against.
func Read(raw []byte, opts extract.Options) (*extract.Document, error) {
	if len(raw) > MaxInputBytes {
		return nil, fmt.Errorf("%w: the file is over %d bytes (MaxInputBytes)", ErrLimit, MaxInputBytes)
	}
	if isOLE(raw) {
		if encryptedOLE(raw) {
			return nil, ErrEncrypted
		}
		return nil, fmt.Errorf("%w: an OLE compound file (such as a Word 97-2003 .doc), not an Office Open XML document", ErrNotDOCX)
	}
	p, err := openPackage(raw)
	if err != nil {
		return nil, err
	}
	if err := p.checkNames(); err != nil {
		return nil, err
	}
	pageURL := strings.ToValidUTF8(opts.URL, "\uFFFD")
	base, err := url.Parse(pageURL)
	if err != nil || base.Scheme != "http" && base.Scheme != "https" || base.Host == "" {
		base = nil
	}
	return readDocument(p, pageURL, base)
}

// Sniff reports whether raw opens as a DOCX: a zip with
// [Content_Types].xml and word/document.xml, or whose _rels/.rels names
// an officeDocument part of WordprocessingML; or an encrypted Office
// document (which Read refuses with ErrEncrypted), so that a caller can
// say it is encrypted rather than that it is no document. It reads no
// more than the zip's directory and two small parts.
func Sniff(raw []byte) bool {
	if isOLE(raw) {
		return encryptedOLE(raw)
	}
	p, err := openPackage(raw)
	if err != nil {
		return false
	}
	if p.file("[Content_Types].xml") != nil && p.file("word/document.xml") != nil {
		return true
	}
	rels, err := p.sniffPart("_rels/.rels")
	if err != nil {
		return false
	}
	main := ""
	for _, r := range parseRels(rels, "") {
		if strings.HasSuffix(r.typ, relOfficeDocument) && !r.external {
			main = r.target
			break
		}
	}
	if main == "" || p.file(main) == nil {
		return false
	}
	types, err := p.sniffPart("[Content_Types].xml")
	if err != nil {
		return false
	}
	ct := strings.ToLower(contentType(types, main))
	return strings.Contains(ct, "wordprocessingml") || strings.Contains(ct, "ms-word.document") || strings.Contains(ct, "ms-word.template")
}

// pkg is an opened zip package: its entries by lower-case name (part
// names are case-insensitive), and what reading its parts has cost.
type pkg struct {
	zr           *zip.Reader
	byName       map[string]*zip.File
	decompressed int64
}

// openPackage opens raw as a zip, after counting its entries.
func openPackage(raw []byte) (*pkg, error) {
	if n := bytes.Count(raw, []byte("PK\x01\x02")); n > MaxEntries {
		return nil, fmt.Errorf("%w: the zip holds over %d entries (MaxEntries)", ErrLimit, MaxEntries)
	}
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, fmt.Errorf("%w: not a zip archive (%v)", ErrNotDOCX, err)
	}
	if zr == nil {
		return nil, fmt.Errorf("%w: not a zip archive (%v)", ErrNotDOCX, err)
	}
	if len(zr.File) > MaxEntries {
		return nil, fmt.Errorf("%w: the zip holds over %d entries (MaxEntries)", ErrLimit, MaxEntries)
	}
	p := &pkg{zr: zr, byName: make(map[string]*zip.File, len(zr.File))}
	for _, f := range zr.File {
		k := strings.ToLower(f.Name)
		if _, dup := p.byName[k]; !dup {
			p.byName[k] = f
		}
	}
	return p, nil
}

// checkNames refuses a package with an entry whose name could lead out
// of a folder it were unpacked in (absolute, with a ".." element, a
// backslash or a NUL), or with two entries of one name (as part names
// compare, regardless of case): heed never unpacks one, but such a name
// is no part name, and only a hostile file holds it.
func (p *pkg) checkNames() error {
	seen := make(map[string]bool, len(p.zr.File))
	for _, f := range p.zr.File {
		name := f.Name
		bad := ""
		switch {
		case strings.HasPrefix(name, "/"):
			bad = "absolute"
		case strings.ContainsRune(name, '\\'):
			bad = "with a backslash"
		case strings.ContainsRune(name, 0):
			bad = "with a NUL"
		case hasDotDot(name):
			bad = `with a ".." element`
		}
		if bad != "" {
			return fmt.Errorf("%w: the zip holds an entry named %s, %s", ErrNotDOCX, quote(name), bad)
		}
		k := strings.ToLower(name)
		if seen[k] && !strings.HasSuffix(k, "/") {
			return fmt.Errorf("%w: the zip holds two entries named %s", ErrNotDOCX, quote(name))
		}
		seen[k] = true
	}
	return nil
}

func hasDotDot(name string) bool {
	for e := range strings.SplitSeq(name, "/") {
		if e == ".." {
			return true
		}
	}
	return false
}

// quote is a name as an error shows it: quoted, valid UTF-8, and cut.
func quote(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return fmt.Sprintf("%q", strings.ToValidUTF8(s, "\uFFFD"))
}

// file is the entry of a part name (without a leading slash), or nil.
func (p *pkg) file(name string) *zip.File {
	return p.byName[strings.ToLower(strings.TrimPrefix(name, "/"))]
}

// part reads a part, within MaxPartBytes and what is left of
// MaxDecompressedBytes. A part that is not there is nil, with no error.
func (p *pkg) part(name string) ([]byte, error) {
	return p.read(name, MaxPartBytes, true)
}

// sniffPart reads a small part for Sniff, within maxSniffPart.
func (p *pkg) sniffPart(name string) ([]byte, error) {
	return p.read(name, maxSniffPart, false)
}

func (p *pkg) read(name string, limit int64, counted bool) ([]byte, error) {
	f := p.file(name)
	if f == nil || strings.HasSuffix(f.Name, "/") {
		return nil, nil
	}
	if f.Flags&1 != 0 {
		return nil, ErrEncrypted
	}
	left := int64(MaxDecompressedBytes) - p.decompressed
	if counted && left < limit {
		limit = left
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotDOCX, quote(name), err)
	}
	defer rc.Close()
	// What the header states is only a hint for the buffer, within the
	// limit and what deflate can make of the compressed bytes: the bytes
	// are counted as they come.
	hint := min(f.UncompressedSize64, uint64(limit)+1, f.CompressedSize64*1032+4096)
	data, over, err := readLimited(rc, limit, int(hint))
	if counted {
		p.decompressed += int64(len(data))
	}
	if over {
		if counted && limit < MaxPartBytes {
			return nil, fmt.Errorf("%w: the parts decompress to over %d bytes (MaxDecompressedBytes)", ErrLimit, MaxDecompressedBytes)
		}
		return nil, fmt.Errorf("%w: %s decompresses to over %d bytes (MaxPartBytes)", ErrLimit, quote(name), limit)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotDOCX, quote(name), err)
	}
	return data, nil
}

// readLimited reads r to its end, or to limit bytes and one more (then
// over is true). Its buffer starts at hint bytes and doubles, to no more
// than limit+1.
func readLimited(r io.Reader, limit int64, hint int) (data []byte, over bool, err error) {
	buf := make([]byte, 0, max(hint, 512))
	for {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(int64(cap(buf))*2, limit+1))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case int64(len(buf)) > limit:
			return buf, true, nil
		case err == io.EOF:
			return buf, false, nil
		case err != nil:
			return buf, false, err
		}
	}
}

// relsName is the name of the relationships part of a part.
func relsName(part string) string {
	dir, file := path.Split(part)
	return dir + "_rels/" + file + ".rels"
}

// resolvePart is the name of the part a relationship of the part in dir
// targets, or "" if it leads out of the package.
func resolvePart(dir, target string) string {
	if target == "" {
		return ""
	}
	var name string
	if strings.HasPrefix(target, "/") {
		name = path.Clean(target)
	} else {
		name = path.Clean("/" + dir + "/" + target)
	}
	// Cleaning a rooted path drops ".." at the root: a target that
	// climbs out of the package names a part inside it, or none.
	name = strings.TrimPrefix(name, "/")
	if name == "" || name == "." {
		return ""
	}
	return name
}
