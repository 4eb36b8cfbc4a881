package feed

import (
	"bytes"
	"container/heap"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/html/charset"
)

// A feed may hold far more items than a sync keeps: a 10 MiB feed of
// empty items holds more than a million. gofeed turns every item it reads
// into a struct and its HTML into a tree, so before gofeed sees a feed it
// is cut to the items that can be kept: the newest by their dates, read
// cheaply, those without a readable date after those with one, in the
// feed's order. The cut reads the document once or twice with a scanner
// that allocates nothing per item, so a feed's memory is bounded by its
// bytes and the items kept, not by how many items it holds.

// candidate is one item of a feed, as the cut ranks it.
type candidate struct {
	idx int       // its place in the feed
	at  time.Time // its date, if one was read
}

// better reports whether a ranks before b: dated before undated, newer
// before older, then in the feed's order.
func better(a, b candidate) bool {
	if a.at.IsZero() != b.at.IsZero() {
		return !a.at.IsZero()
	}
	if !a.at.Equal(b.at) {
		return a.at.After(b.at)
	}
	return a.idx < b.idx
}

// keeper keeps the n best candidates offered: a heap whose top is the
// worst kept.
type keeper struct {
	n int
	h []candidate
}

func (k *keeper) Len() int           { return len(k.h) }
func (k *keeper) Less(i, j int) bool { return better(k.h[j], k.h[i]) }
func (k *keeper) Swap(i, j int)      { k.h[i], k.h[j] = k.h[j], k.h[i] }
func (k *keeper) Push(x any)         { k.h = append(k.h, x.(candidate)) }
func (k *keeper) Pop() any {
	c := k.h[len(k.h)-1]
	k.h = k.h[:len(k.h)-1]
	return c
}

func (k *keeper) offer(c candidate) {
	switch {
	case len(k.h) < k.n:
		heap.Push(k, c)
	case better(c, k.h[0]):
		k.h[0] = c
		heap.Fix(k, 0)
	}
}

// kept is the set of the kept candidates' places.
func (k *keeper) kept() map[int]bool {
	m := make(map[int]bool, len(k.h))
	for _, c := range k.h {
		m[c.idx] = true
	}
	return m
}

// cutXML returns an RSS, RDF or Atom document with only the keep best of
// its items, or an error when the document, cut, would still give gofeed
// more items than keep or more elements than maxElements.
//
// Items are found by reading the document with the tokenizer gofeed
// reads it with (encoding/xml, not strict, control bytes dropped first,
// nothing expanded or fetched), so an item is what gofeed takes for one
// however its markup is spelled: an item or entry element, in any case,
// of the root or of a channel, in the feed's own namespace. What gofeed
// will read is then counted again, its character encoding converted as
// gofeed converts it; the bound is that count, not the cutter's reading.
func cutXML(body []byte, keep int) ([]byte, error) {
	body = dropControl(body)
	k := &keeper{n: keep}
	var spans []int32 // each item's start and end
	unreadable := false
	// A document that breaks off is cut as far as it reads; gofeed stops
	// where it does.
	scanItems(body, false, true, func(idx, start, end int, date []byte) {
		spans = append(spans, int32(start), int32(end))
		at := cheapDate(date)
		if at.IsZero() && len(bytes.TrimSpace(date)) > 0 {
			unreadable = true
		}
		k.offer(candidate{idx: idx, at: at})
	})
	if n := len(spans) / 2; n > keep {
		want := k.kept()
		if unreadable {
			// A date the cut cannot read may be newer than those it can:
			// the feed's order decides rather than the dates read.
			want = make(map[int]bool, keep)
			for i := range keep {
				want[i] = true
			}
		}
		out := make([]byte, 0, len(body)/max(1, n/keep))
		at := 0
		for idx := range n {
			if start, end := int(spans[2*idx]), int(spans[2*idx+1]); !want[idx] {
				out = append(out, body[at:start]...)
				at = end
			}
		}
		body = append(out, body[at:]...)
	}
	spans = nil
	items := 0
	elements := scanItems(body, true, false, func(int, int, int, []byte) { items++ })
	switch {
	case items > keep:
		return nil, fmt.Errorf("the feed holds more than %d items that could not be cut", keep)
	case elements > maxElements:
		return nil, fmt.Errorf("the feed holds more than %d elements besides the items dropped", maxElements)
	}
	return body, nil
}

// maxElements is the most elements a feed may hold once cut to the items
// kept: gofeed turns many elements (categories, extensions) into values
// each, so their number, not only the items', bounds its memory.
const maxElements = 200_000

// dropControl returns body without the control bytes XML does not allow,
// as gofeed drops them before it reads: a copy only if there are any.
func dropControl(body []byte) []byte {
	i := bytes.IndexFunc(body, func(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' && r != '\r' })
	if i < 0 {
		return body
	}
	out := make([]byte, i, len(body))
	copy(out, body[:i])
	for _, c := range body[i:] {
		if c >= 0x20 || c == '\t' || c == '\n' || c == '\r' {
			out = append(out, c)
		}
	}
	return out
}

// decoder is an XML tokenizer set as gofeed sets its own. With convert
// unset, a declared encoding other than UTF-8 is not converted: its bytes
// past ASCII are read as letters, so offsets are the document's bytes and
// the markup, ASCII in the encodings feeds use, reads the same.
func decoder(body []byte, convert bool) *xml.Decoder {
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = false
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return asciiReader{r}, nil }
	if convert {
		d.CharsetReader = charset.NewReaderLabel
	}
	return d
}

// asciiReader reads bytes past ASCII as the letter x.
type asciiReader struct{ r io.Reader }

func (a asciiReader) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	for i, c := range p[:n] {
		if c >= 0x80 {
			p[i] = 'x'
		}
	}
	return n, err
}

// native are the namespaces gofeed reads items in, besides none and the
// root's own.
var native = map[string]bool{
	"http://purl.org/rss/1.0/":                    true,
	"http://my.netscape.com/rdf/simple/0.9/":      true,
	"http://channel.netscape.com/rdf/simple/0.9/": true,
	"http://www.w3.org/2005/Atom":                 true,
	"http://purl.org/atom/ns#":                    true,
}

// scanItems calls fn for each item of an XML feed, in order, with its
// byte range and, when dates is set, the text of its date element (a
// published date before a Dublin Core date before an updated one), until
// the document ends or stops reading as XML. It returns how many elements
// it read.
func scanItems(body []byte, convert, dates bool, fn func(idx, start, end int, date []byte)) (elements int) {
	d := decoder(body, convert)
	var (
		depth     int
		root      string // the root's namespace
		channel   bool   // the open depth-1 element is a channel
		itemDepth = -1   // the open item's depth, -1 outside one
		itemStart int
		idx       int
		date      []byte
		rank      int // the rank of date's element
		dateOpen  int // the rank of the open date element, 0 outside one
		text      []byte
	)
	for {
		off := int(d.InputOffset())
		tok, err := d.Token()
		if err != nil {
			return elements
		}
		switch t := tok.(type) {
		case xml.StartElement:
			elements++
			name := strings.ToLower(t.Name.Local)
			space := strings.TrimSpace(t.Name.Space)
			switch {
			case depth == 0:
				root = space
			case depth == 1:
				channel = name == "channel"
			}
			if itemDepth < 0 && (depth == 1 || depth == 2 && channel) && (name == "item" || name == "entry") &&
				(space == "" || space == root || native[space]) {
				itemDepth, itemStart = depth, off
			} else if dates && itemDepth >= 0 && depth == itemDepth+1 {
				dateOpen, text = dateRank[name], text[:0]
			}
			depth++
		case xml.CharData:
			if dateOpen > 0 && len(text) < 128 {
				text = append(text, t[:min(len(t), 128)]...)
			}
		case xml.EndElement:
			depth--
			if dateOpen > 0 && depth == itemDepth+1 {
				if dateOpen >= rank {
					date, rank = append(date[:0], text...), dateOpen
				}
				dateOpen = 0
			}
			if depth == itemDepth {
				fn(idx, itemStart, int(d.InputOffset()), date)
				idx++
				itemDepth, date, rank = -1, date[:0], 0
			}
		}
	}
}

// dateRank ranks an item's date elements as gofeed does: a published
// date over a Dublin Core one over an updated one.
var dateRank = map[string]int{"pubdate": 3, "published": 3, "issued": 3, "date": 2, "updated": 1, "modified": 1}

// dateLayouts are the forms of date the cut reads, once cheapDate has
// dropped a weekday, shortened a month's name and taken the colon out of
// an offset: those of RSS (RFC 822 with or without seconds, RFC 850 and
// their variants) and of Atom and Dublin Core (RFC 3339, ISO 8601 and
// the SQL form generated feeds use).
var dateLayouts = []string{
	"2 Jan 2006 15:04:05 -0700", "2 Jan 2006 15:04:05 MST", "2 Jan 06 15:04:05 -0700", "2 Jan 06 15:04:05 MST",
	"2 Jan 2006 15:04 -0700", "2 Jan 2006 15:04 MST", "2 Jan 06 15:04 -0700", "2 Jan 06 15:04 MST",
	"02-Jan-06 15:04:05 -0700", "02-Jan-06 15:04:05 MST", "02-Jan-2006 15:04:05 -0700", "02-Jan-2006 15:04:05 MST",
	"2 Jan 2006 15:04:05", "2 Jan 2006",
	"2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05", "2006-01-02T15:04Z0700", "2006-01-02T15:04",
	"2006-01-02 15:04:05Z0700", "2006-01-02 15:04:05 -0700", "2006-01-02 15:04:05 MST", "2006-01-02 15:04:05",
	"2006-01-02 15:04", "2006-01-02",
}

var (
	// weekday is a leading day's name, which says nothing a date does not.
	weekday = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?i)[a-z]+\.?,?\s+`) })
	// fraction is a second's fraction, which the cut need not read.
	fraction = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(:\d\d)[.,]\d+`) })
	// colonZone is an offset written with a colon, +00:00.
	colonZone = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([+-]\d\d):(\d\d)$`) })
	// longMonth is a month's name past its first three letters.
	longMonth = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b`)
	})
)

// cheapDate reads a date element's text, or returns the zero time.
func cheapDate(b []byte) time.Time {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || len(b) > 64 {
		return time.Time{}
	}
	s := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(string(b), "<![CDATA["), "]]>"))
	if s != "" && (s[0] < '0' || s[0] > '9') {
		s = weekday().ReplaceAllString(s, "")
	}
	s = fraction().ReplaceAllString(s, "$1")
	s = colonZone().ReplaceAllString(s, "$1$2")
	s = longMonth().ReplaceAllString(s, "$1")
	s = strings.Join(strings.Fields(s), " ")
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// cutJSON returns a JSON Feed with only the keep best of its items, and
// without the items that are null; the document itself when that changes
// nothing.
func cutJSON(body []byte, keep int) ([]byte, error) {
	k := &keeper{n: keep}
	n, nulls := 0, 0
	open, shut, err := jsonItems(body, true, func(idx, _, _ int, null bool, at time.Time) {
		if null {
			nulls++
			return
		}
		n++
		k.offer(candidate{idx: idx, at: at})
	})
	if err != nil {
		return nil, err
	}
	if open < 0 || n <= keep && nulls == 0 {
		return body, checkJSON(body, keep)
	}
	want := k.kept()
	var out bytes.Buffer
	out.Grow(min(len(body), 1<<20))
	out.Write(body[:open+1])
	first := true
	jsonItems(body, false, func(idx, start, end int, null bool, _ time.Time) {
		if null || !want[idx] {
			return
		}
		if !first {
			out.WriteByte(',')
		}
		first = false
		out.Write(bytes.TrimLeft(body[start:end], " \t\r\n,"))
	})
	out.Write(body[shut:])
	return out.Bytes(), checkJSON(out.Bytes(), keep)
}

// none is a JSON value read and not kept.
type none struct{}

func (*none) UnmarshalJSON([]byte) error { return nil }

// checkJSON counts the items of a JSON Feed as gofeed's parser will read
// them and refuses more than keep: the bound is what gofeed is given, not
// how the cut read it.
func checkJSON(body []byte, keep int) error {
	var v struct {
		Items []none `json:"items"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return nil // gofeed refuses it too
	}
	if len(v.Items) > keep {
		return fmt.Errorf("the feed holds more than %d items that could not be cut", keep)
	}
	return nil
}

// jsonItems calls fn for each element of a JSON Feed's items with its
// byte range, whether it is null, and (when dates is set) its date, read
// cheaply. It returns where the items' "[" and "]" are, -1 when there
// are none.
func jsonItems(body []byte, dates bool, fn func(idx, start, end int, null bool, at time.Time)) (open, shut int, err error) {
	d := json.NewDecoder(bytes.NewReader(body))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return -1, -1, errors.New("a JSON Feed is an object")
	}
	type dated struct {
		Published any `json:"date_published"`
		Modified  any `json:"date_modified"`
	}
	open, shut = -1, -1
	seen := false
	for d.More() {
		key, err := d.Token()
		if err != nil {
			return -1, -1, err
		}
		// encoding/json, which gofeed reads a JSON Feed with, takes any
		// key that folds to "items", the last one read, for the items.
		if k, _ := key.(string); !strings.EqualFold(k, "items") {
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				return -1, -1, err
			}
			continue
		}
		if seen {
			return -1, -1, errors.New("a JSON Feed with two lists of items")
		}
		seen = true
		t, err := d.Token()
		if err != nil {
			return -1, -1, err
		}
		if t == nil { // "items": null
			continue
		}
		if t != json.Delim('[') {
			return -1, -1, errors.New("a JSON Feed's items are not a list")
		}
		open = int(d.InputOffset()) - 1
		for idx := 0; d.More(); idx++ {
			start := int(d.InputOffset())
			var it *dated
			if !dates {
				var raw json.RawMessage
				if err := d.Decode(&raw); err != nil {
					return -1, -1, err
				}
				if string(raw) != "null" {
					it = &dated{}
				}
			} else if err := d.Decode(&it); err != nil {
				var te *json.UnmarshalTypeError
				if !errors.As(err, &te) {
					return -1, -1, err
				}
				it = &dated{}
			}
			end := int(d.InputOffset())
			if it == nil {
				fn(idx, start, end, true, time.Time{})
				continue
			}
			var at time.Time
			for _, v := range []any{it.Published, it.Modified} {
				if s, ok := v.(string); ok {
					if at = cheapDate([]byte(s)); !at.IsZero() {
						break
					}
				}
			}
			fn(idx, start, end, false, at)
		}
		if _, err := d.Token(); err != nil {
			return -1, -1, err
		}
		shut = int(d.InputOffset()) - 1
	}
	if _, err := d.Token(); err != nil {
		return -1, -1, err
	}
	if _, err := d.Token(); err != io.EOF {
		return -1, -1, errors.New("a JSON Feed is one object")
	}
	return open, shut, nil
}
