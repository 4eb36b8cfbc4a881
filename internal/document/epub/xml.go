package epub

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"

	"golang.org/x/net/html/charset"
)

// xmlReader reads the tokens of one of a book's XML files (its container,
// package, encryption list, NCX or navigation document), nested at most
// MaxXMLDepth deep. It is lenient as reading systems are: entities of
// HTML are known, and a misnested end tag closes what is open. Entities
// the document declares are never expanded, so no document grows as it
// is read.
type xmlReader struct {
	d     *xml.Decoder
	name  string
	depth int
	stack []string // the open elements' local names, in lower case
}

func newXMLReader(name string, data []byte, html bool) *xmlReader {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	d.Entity = xml.HTMLEntity
	if html {
		d.AutoClose = xml.HTMLAutoClose
	}
	d.CharsetReader = charset.NewReaderLabel
	return &xmlReader{d: d, name: name}
}

// next is the next token, io.EOF after the last, or an error wrapping
// ErrNotEPUB for XML it cannot read and ErrLimit for elements nested
// deeper than MaxXMLDepth.
func (x *xmlReader) next() (xml.Token, error) {
	t, err := x.d.Token()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNotEPUB, clip(x.name, 200), err)
	}
	switch t := t.(type) {
	case xml.StartElement:
		if x.depth++; x.depth > MaxXMLDepth {
			return nil, fmt.Errorf("%w: %s nests elements deeper than the %d of MaxXMLDepth", ErrLimit, clip(x.name, 200), MaxXMLDepth)
		}
		x.stack = append(x.stack, strings.ToLower(t.Name.Local))
	case xml.EndElement:
		if x.depth > 0 {
			x.depth--
			x.stack = x.stack[:len(x.stack)-1]
		}
	}
	return t, nil
}

// parent is the local name of the open element's parent, or "".
func (x *xmlReader) parent() string {
	if len(x.stack) < 2 {
		return ""
	}
	return x.stack[len(x.stack)-2]
}

// inMetadata reports whether the open element is inside a package's
// metadata (<package><metadata>), in constant time however deep it is.
func (x *xmlReader) inMetadata() bool {
	return len(x.stack) > 2 && x.stack[1] == "metadata"
}

// attr is the value of an element's attribute of a local name, in any
// namespace and any case ("opf:role", "Role").
func attr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if strings.EqualFold(a.Name.Local, local) {
			return a.Value
		}
	}
	return ""
}

// text gathers an element's text, at most maxText bytes of it.
type text struct {
	depth int // the element's depth; 0 when gathering nothing
	b     []byte
}

// maxText is the most text kept of one element of metadata or navigation:
// what is past it is read and dropped.
const maxText = 16 << 10

func (t *text) start(depth int) { t.depth, t.b = depth, t.b[:0] }

func (t *text) add(c xml.CharData) {
	if t.depth > 0 {
		t.b = append(t.b, c[:min(len(c), maxText-len(t.b))]...)
	}
}

// end reports whether an end tag at depth (the depth after it) ends the
// gathered element, and its text, its white space collapsed.
func (t *text) end(depth int) (string, bool) {
	if t.depth == 0 || depth != t.depth-1 {
		return "", false
	}
	t.depth = 0
	return strings.Join(strings.Fields(strings.ToValidUTF8(string(t.b), "\uFFFD")), " "), true
}

// resolve is the archive name an href in the file from names, without its
// fragment, or "" when it names no file of the archive: a URL with a
// scheme or host, or a path that leaves the archive. An empty path names
// from itself. Hrefs are URLs, percent-encoded; one that does not parse
// as a URL is taken as a plain path.
func resolve(from, href string) string {
	href = strings.TrimSpace(href)
	p := href
	if u, err := url.Parse(href); err == nil {
		if u.Scheme != "" || u.Host != "" || u.Opaque != "" {
			return ""
		}
		p = u.Path
	} else if i := strings.IndexByte(p, '#'); i >= 0 {
		p = p[:i]
	}
	switch {
	case p == "":
		return from
	case strings.HasPrefix(p, "/"):
		p = path.Clean(p[1:])
	default:
		p = path.Join(path.Dir(from), p)
	}
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return ""
	}
	return p
}

// parseContainer reads META-INF/container.xml: the archive name of the
// book's package document, the first rootfile of the package's media type
// (or the first rootfile, if none says).
func parseContainer(data []byte) (string, error) {
	const name = "META-INF/container.xml"
	x := newXMLReader(name, data, false)
	first, pkg := "", ""
	for {
		t, err := x.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		e, ok := t.(xml.StartElement)
		if !ok || !strings.EqualFold(e.Name.Local, "rootfile") {
			continue
		}
		p := resolve("", attr(e, "full-path"))
		if p == "" {
			continue
		}
		if first == "" {
			first = p
		}
		if pkg == "" && strings.EqualFold(strings.TrimSpace(attr(e, "media-type")), "application/oebps-package+xml") {
			pkg = p
		}
	}
	if pkg == "" {
		pkg = first
	}
	if pkg == "" {
		return "", fmt.Errorf("%w: %s names no package document", ErrNotEPUB, name)
	}
	return pkg, nil
}

// parseEncryption reads META-INF/encryption.xml: the archive names of the
// files it lists as encrypted, in any way (obfuscated fonts too).
func parseEncryption(data []byte) (map[string]bool, error) {
	x := newXMLReader(encryptionXML, data, false)
	out := map[string]bool{}
	for {
		t, err := x.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if e, ok := t.(xml.StartElement); ok && strings.EqualFold(e.Name.Local, "cipherreference") {
			if p := resolve("", attr(e, "uri")); p != "" {
				if len(out) >= MaxEntries {
					return nil, fmt.Errorf("%w: %s lists more than the %d files of MaxEntries", ErrLimit, encryptionXML, MaxEntries)
				}
				out[p] = true
			}
		}
	}
}

const encryptionXML = "META-INF/encryption.xml"

// item is an entry of a package's manifest.
type item struct {
	path, mediaType, fallback string
	nav                       bool // the EPUB 3 navigation document
}

// itemref is an entry of a package's spine.
type itemref struct {
	idref  string
	linear bool
}

// pkg is what Read takes of a package document.
type pkg struct {
	items  map[string]*item // by id
	spine  []itemref
	toc    string // the id of the NCX, as the spine names it
	hasSpi bool   // the package has a spine element
	meta   []dcElement
	refine map[string]map[string]string // id -> property -> value, of <meta refines>
	// modified is the EPUB 3 <meta property="dcterms:modified">.
	modified string
}

// dcElement is a Dublin Core element of the metadata, or an EPUB 2
// <meta name content>.
type dcElement struct {
	local, id, role, event, text string
}

// maxMetadata is the most elements of metadata read; a package that has
// more is read without the rest.
const maxMetadata = 1000

// parseOPF reads a package document: its manifest, spine and metadata.
func parseOPF(name string, data []byte) (*pkg, error) {
	x := newXMLReader(name, data, false)
	p := &pkg{items: map[string]*item{}, refine: map[string]map[string]string{}}
	var (
		txt     text
		cur     dcElement // the element whose text txt gathers
		refines string    // its refines attribute, for a <meta>
		prop    string    // its property attribute, for a <meta>
		root    bool
	)
	for {
		t, err := x.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := t.(type) {
		case xml.StartElement:
			local := x.stack[len(x.stack)-1]
			if !root {
				if local != "package" {
					return nil, fmt.Errorf("%w: %s is no package document (its root is <%s>)", ErrNotEPUB, clip(name, 200), clip(t.Name.Local, 40))
				}
				root = true
				continue
			}
			switch {
			case local == "item" && x.parent() == "manifest":
				id := attr(t, "id")
				if _, dup := p.items[id]; dup {
					continue
				}
				if len(p.items) >= MaxEntries {
					return nil, fmt.Errorf("%w: %s lists more than the %d items of MaxEntries", ErrLimit, clip(name, 200), MaxEntries)
				}
				p.items[id] = &item{
					path:      resolve(name, attr(t, "href")),
					mediaType: strings.ToLower(strings.TrimSpace(attr(t, "media-type"))),
					fallback:  attr(t, "fallback"),
					nav:       hasWord(attr(t, "properties"), "nav"),
				}
			case local == "spine" && x.parent() == "package":
				p.hasSpi, p.toc = true, attr(t, "toc")
			case local == "itemref" && x.parent() == "spine":
				if len(p.spine) >= MaxSpineItems {
					return nil, fmt.Errorf("%w: %s has a spine of more than the %d items of MaxSpineItems", ErrLimit, clip(name, 200), MaxSpineItems)
				}
				p.spine = append(p.spine, itemref{idref: attr(t, "idref"), linear: !strings.EqualFold(strings.TrimSpace(attr(t, "linear")), "no")})
			case txt.depth == 0 && x.inMetadata() && len(p.meta) < maxMetadata:
				switch local {
				case "title", "creator", "language", "date", "description":
					cur = dcElement{local: local, id: attr(t, "id"), role: attr(t, "role"), event: attr(t, "event")}
					txt.start(x.depth)
				case "meta":
					if n := attr(t, "name"); n != "" {
						// EPUB 2: <meta name="..." content="...">.
						p.meta = append(p.meta, dcElement{local: "meta", id: strings.ToLower(n), text: clip(attr(t, "content"), maxText)})
						continue
					}
					cur = dcElement{local: "meta"}
					refines, prop = strings.TrimPrefix(strings.TrimSpace(attr(t, "refines")), "#"), strings.ToLower(strings.TrimSpace(attr(t, "property")))
					txt.start(x.depth)
				}
			}
		case xml.CharData:
			txt.add(t)
		case xml.EndElement:
			s, ok := txt.end(x.depth)
			if !ok {
				continue
			}
			if cur.local != "meta" {
				cur.text = s
				p.meta = append(p.meta, cur)
				continue
			}
			switch {
			case refines != "" && prop != "":
				if p.refine[refines] == nil {
					if len(p.refine) >= maxMetadata {
						continue
					}
					p.refine[refines] = map[string]string{}
				}
				if _, ok := p.refine[refines][prop]; !ok && len(p.refine[refines]) < 16 {
					p.refine[refines][prop] = s
				}
			case prop == "dcterms:modified" && p.modified == "":
				p.modified = s
			}
		}
	}
	if !root {
		return nil, fmt.Errorf("%w: %s is no package document", ErrNotEPUB, clip(name, 200))
	}
	if !p.hasSpi || len(p.spine) == 0 {
		return nil, fmt.Errorf("%w: %s has no spine", ErrNotEPUB, clip(name, 200))
	}
	return p, nil
}

// hasWord reports whether a space-separated list holds a word, in any
// case.
func hasWord(list, word string) bool {
	for w := range strings.FieldsSeq(list) {
		if strings.EqualFold(w, word) {
			return true
		}
	}
	return false
}

// navTitles reads the titles a table of contents gives the files it
// names: an EPUB 3 navigation document's toc nav (ncx false) or an EPUB 2
// NCX's navMap (ncx true), both at archive name name. Only the files of
// want are kept, each with the first title that names it.
func navTitles(name string, data []byte, ncx bool, want map[string]bool) (map[string]string, error) {
	x := newXMLReader(name, data, !ncx)
	out := map[string]string{}
	var txt text
	record := func(href, title string) {
		if p := resolve(name, href); want[p] && title != "" {
			if _, ok := out[p]; !ok {
				out[p] = clip(title, maxTitle)
			}
		}
	}
	// In a navigation document: the depth of the toc nav, and the href of
	// the link whose text txt gathers.
	tocDepth, tocDone, href := 0, false, ""
	// In an NCX: each open navPoint's label and target.
	type point struct{ label, src string }
	var points []point
	for {
		t, err := x.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := t.(type) {
		case xml.StartElement:
			local := x.stack[len(x.stack)-1]
			switch {
			case ncx && local == "navpoint":
				points = append(points, point{})
			case ncx && local == "text" && x.parent() == "navlabel" && len(points) > 0 && points[len(points)-1].label == "":
				txt.start(x.depth)
			case ncx && local == "content" && len(points) > 0:
				points[len(points)-1].src = attr(t, "src")
			case !ncx && local == "nav" && tocDepth == 0 && !tocDone && hasWord(attr(t, "type"), "toc"):
				tocDepth = x.depth
			case !ncx && local == "a" && tocDepth > 0 && txt.depth == 0:
				href = attr(t, "href")
				txt.start(x.depth)
			}
		case xml.CharData:
			txt.add(t)
		case xml.EndElement:
			s, ok := txt.end(x.depth)
			switch {
			case ok && ncx && len(points) > 0:
				points[len(points)-1].label = s
			case ok:
				record(href, s)
			case ncx && strings.EqualFold(t.Name.Local, "navpoint") && len(points) > 0:
				pt := points[len(points)-1]
				points = points[:len(points)-1]
				record(pt.src, pt.label)
			case !ncx && tocDepth > 0 && x.depth < tocDepth:
				tocDepth, tocDone = 0, true
			}
		}
	}
}

// maxTitle is the longest title kept from the table of contents, and of
// the book's title and author.
const maxTitle = 1 << 10
