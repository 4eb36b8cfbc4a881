package docx

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"unicode/utf16"
)

// xmlReader streams the tokens of one part, refusing nesting deeper than
// MaxDepth. Elements and attributes are known by their local names:
// documents bind WordprocessingML to prefixes of their choosing, and
// strict documents to another namespace. Tokens are read raw, without
// resolving prefixes to namespaces or matching end tags to start tags
// by name (their count is checked): a quarter fewer allocations.
type xmlReader struct {
	d     *xml.Decoder
	part  string
	depth int
}

func newXMLReader(part string, data []byte) *xmlReader {
	d := xml.NewDecoder(bytes.NewReader(toUTF8(data)))
	d.CharsetReader = func(label string, r io.Reader) (io.Reader, error) {
		switch strings.ToLower(label) {
		case "utf-8", "utf8", "us-ascii", "ascii", "utf-16", "utf-16le", "utf-16be":
			// UTF-16 was made UTF-8 already (toUTF8).
			return r, nil
		}
		return nil, fmt.Errorf("unsupported encoding %q", label)
	}
	return &xmlReader{d: d, part: part}
}

// toUTF8 is a part in UTF-8: less a UTF-8 byte order mark, or decoded
// from UTF-16 by its byte order mark.
func toUTF8(data []byte) []byte {
	var big bool
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return data[3:]
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		big = true
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
	default:
		return data
	}
	data = data[2:]
	u := make([]uint16, len(data)/2)
	for i := range u {
		if big {
			u[i] = uint16(data[2*i])<<8 | uint16(data[2*i+1])
		} else {
			u[i] = uint16(data[2*i+1])<<8 | uint16(data[2*i])
		}
	}
	return []byte(string(utf16.Decode(u)))
}

// next is the next token; io.EOF at the end of the part.
func (x *xmlReader) next() (xml.Token, error) {
	tok, err := x.d.RawToken()
	if err != nil {
		if err == io.EOF {
			if x.depth > 0 {
				return nil, fmt.Errorf("%w: %s ends inside an element", ErrNotDOCX, x.part)
			}
			return nil, io.EOF
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrNotDOCX, x.part, err)
	}
	switch tok.(type) {
	case xml.StartElement:
		x.depth++
		if x.depth > MaxDepth {
			return nil, fmt.Errorf("%w: %s nests over %d elements deep (MaxDepth)", ErrLimit, x.part, MaxDepth)
		}
	case xml.EndElement:
		x.depth--
	}
	return tok, nil
}

// skip reads past the end of the element just started.
func (x *xmlReader) skip() error {
	for n := 1; n > 0; {
		tok, err := x.next()
		if err != nil {
			return eofInside(err, x.part)
		}
		switch tok.(type) {
		case xml.StartElement:
			n++
		case xml.EndElement:
			n--
		}
	}
	return nil
}

// children calls f for each child element of the element just started,
// which f reads to its end (or skips), until that element ends.
func (x *xmlReader) children(f func(se xml.StartElement) error) error {
	for {
		tok, err := x.next()
		if err != nil {
			return eofInside(err, x.part)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := f(t); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}

// text is the character data of the element just started, to its end;
// its child elements are skipped. At most max bytes are kept.
func (x *xmlReader) text(max int) (string, error) {
	var b strings.Builder
	for n := 1; n > 0; {
		tok, err := x.next()
		if err != nil {
			return "", eofInside(err, x.part)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n++
		case xml.EndElement:
			n--
		case xml.CharData:
			if n == 1 && b.Len() < max {
				b.Write(t[:min(len(t), max-b.Len())])
			}
		}
	}
	return strings.ToValidUTF8(b.String(), ""), nil
}

// root calls f with the part's root element, which f reads to its end.
func (x *xmlReader) root(f func(se xml.StartElement) error) error {
	for {
		tok, err := x.next()
		if err != nil {
			if err == io.EOF {
				return fmt.Errorf("%w: %s holds no element", ErrNotDOCX, x.part)
			}
			return err
		}
		if se, ok := tok.(xml.StartElement); ok {
			return f(se)
		}
	}
}

func eofInside(err error, part string) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: %s ends inside an element", ErrNotDOCX, part)
	}
	return err
}

// attr is the value of an element's attribute of a local name, in any
// namespace.
func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// hasAttr reports whether an element has an attribute of a local name.
func hasAttr(se xml.StartElement, local string) bool {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return true
		}
	}
	return false
}

// val is an element's w:val.
func val(se xml.StartElement) string { return attr(se, "val") }

// on reads a toggle property such as <w:b/>: on unless its w:val says
// otherwise.
func on(se xml.StartElement) bool {
	switch strings.ToLower(val(se)) {
	case "0", "false", "off", "none":
		return false
	}
	return true
}

// rel is one relationship of a part.
type rel struct {
	id, typ  string
	target   string // the part it targets, or the URL as written when external
	external bool
}

// parseRels reads a relationships part of the part in dir, leniently: a
// broken one is read as far as it goes. Targets of internal
// relationships are made part names.
func parseRels(data []byte, dir string) []rel {
	var out []rel
	x := newXMLReader("rels", data)
	for {
		tok, err := x.next()
		if err != nil {
			return out
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "Relationship" {
			continue
		}
		r := rel{id: attr(se, "Id"), typ: attr(se, "Type"), target: attr(se, "Target"), external: strings.EqualFold(attr(se, "TargetMode"), "External")}
		if !r.external {
			r.target = resolvePart(dir, r.target)
		}
		out = append(out, r)
	}
}

// contentType is the content type [Content_Types].xml gives a part: its
// Override, else the Default of its extension.
func contentType(data []byte, part string) string {
	x := newXMLReader("[Content_Types].xml", data)
	want := "/" + strings.ToLower(strings.TrimPrefix(part, "/"))
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(part), "."))
	byExt := ""
	for {
		tok, err := x.next()
		if err != nil {
			return byExt
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "Override":
			if strings.ToLower(attr(se, "PartName")) == want {
				return attr(se, "ContentType")
			}
		case "Default":
			if strings.EqualFold(attr(se, "Extension"), ext) {
				byExt = attr(se, "ContentType")
			}
		}
	}
}
