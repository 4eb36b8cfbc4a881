package feed

import (
	"bytes"
	"container/heap"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"
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
// its items (item or entry elements of the root, or of its channel); the
// document itself when it holds no more.
func cutXML(body []byte, keep int) []byte {
	k := &keeper{n: keep}
	n := 0
	// A document that breaks off is cut as far as it reads, the rest left
	// to gofeed, which may read some of it.
	scanItems(body, true, func(idx, _, _ int, date []byte) {
		n++
		k.offer(candidate{idx: idx, at: cheapDate(date)})
	})
	if n <= keep {
		return body
	}
	want := k.kept()
	out := make([]byte, 0, len(body)/max(1, n/keep))
	at := 0
	scanItems(body, false, func(idx, start, end int, _ []byte) {
		if !want[idx] {
			out = append(out, body[at:start]...)
			at = end
		}
	})
	return append(out, body[at:]...)
}

var errUnclosed = errors.New("the XML ends inside markup")

// scanItems calls fn for each item of an XML feed with its byte range
// and, when dates is set, the text of its date element. It reads markup
// only as far as it must: comments, CDATA, processing instructions and
// the DOCTYPE are skipped whole, tags read up to their end, attribute
// values quoted or not. Nothing is expanded or fetched; the document is
// parsed for real by gofeed afterwards.
func scanItems(body []byte, dates bool, fn func(idx, start, end int, date []byte)) error {
	var (
		depth     int
		names     [3][]byte // the local names of the open elements at depths 0 to 2
		itemDepth = -1      // the open item's depth, -1 outside one
		itemStart int
		idx       int
		date      []byte // the item's date so far
		published bool   // date is a published date, which outranks an updated one
		dateOpen  = -1   // where the open date element's text starts, -1 outside one
		dateRank  bool   // the open date element is a published one
	)
	i := 0
	for {
		j := bytes.IndexByte(body[i:], '<')
		if j < 0 {
			if itemDepth >= 0 {
				return errUnclosed
			}
			return nil
		}
		lt := i + j
		rest := body[lt:]
		switch {
		case bytes.HasPrefix(rest, []byte("<!--")):
			e := bytes.Index(rest[4:], []byte("-->"))
			if e < 0 {
				return errUnclosed
			}
			i = lt + 4 + e + 3
		case bytes.HasPrefix(rest, []byte("<![CDATA[")):
			e := bytes.Index(rest[9:], []byte("]]>"))
			if e < 0 {
				return errUnclosed
			}
			i = lt + 9 + e + 3
		case bytes.HasPrefix(rest, []byte("<?")):
			e := bytes.Index(rest[2:], []byte("?>"))
			if e < 0 {
				return errUnclosed
			}
			i = lt + 2 + e + 2
		case bytes.HasPrefix(rest, []byte("<!")):
			e := declEnd(rest)
			if e < 0 {
				return errUnclosed
			}
			i = lt + e
		case bytes.HasPrefix(rest, []byte("</")):
			e := bytes.IndexByte(rest, '>')
			if e < 0 {
				return errUnclosed
			}
			i = lt + e + 1
			depth--
			if depth < 0 {
				return errors.New("the XML closes more elements than it opens")
			}
			if dateOpen >= 0 && depth == itemDepth+1 {
				if !published || dateRank {
					date, published = body[dateOpen:lt], dateRank
				}
				dateOpen = -1
			}
			if depth == itemDepth {
				fn(idx, itemStart, i, date)
				idx++
				itemDepth, date, published = -1, nil, false
			}
		default:
			e := tagEnd(rest)
			if e < 0 {
				return errUnclosed
			}
			i = lt + e
			self := rest[e-2] == '/'
			name := rest[1:]
			if s := bytes.IndexAny(name, " \t\r\n/>"); s >= 0 {
				name = name[:s]
			}
			if c := bytes.LastIndexByte(name, ':'); c >= 0 {
				name = name[c+1:]
			}
			if depth < len(names) {
				names[depth] = name
			}
			isItem := itemDepth < 0 && (depth == 1 || depth == 2 && string(names[1]) == "channel") &&
				(string(name) == "item" || string(name) == "entry")
			switch {
			case isItem && self:
				fn(idx, lt, i, nil)
				idx++
				continue
			case isItem:
				itemDepth, itemStart = depth, lt
			case dates && itemDepth >= 0 && depth == itemDepth+1 && !self:
				switch string(name) {
				case "pubDate", "published", "date", "issued":
					dateOpen, dateRank = i, true
				case "updated", "modified":
					dateOpen, dateRank = i, false
				}
			}
			if !self {
				depth++
			}
		}
	}
}

// declEnd is the length of a <!...> declaration at the start of b (a
// DOCTYPE's internal subset in brackets, quoted strings and comments
// inside it included), or -1.
func declEnd(b []byte) int {
	brackets := 0
	for i := 2; i < len(b); i++ {
		switch b[i] {
		case '"', '\'':
			e := bytes.IndexByte(b[i+1:], b[i])
			if e < 0 {
				return -1
			}
			i += e + 1
		case '<':
			if bytes.HasPrefix(b[i:], []byte("<!--")) {
				e := bytes.Index(b[i+4:], []byte("-->"))
				if e < 0 {
					return -1
				}
				i += 4 + e + 2
			}
		case '[':
			brackets++
		case ']':
			brackets--
		case '>':
			if brackets <= 0 {
				return i + 1
			}
		}
	}
	return -1
}

// tagEnd is the length of the start tag at the start of b, quoted
// attribute values skipped, or -1.
func tagEnd(b []byte) int {
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '"', '\'':
			e := bytes.IndexByte(b[i+1:], b[i])
			if e < 0 {
				return -1
			}
			i += e + 1
		case '>':
			return i + 1
		}
	}
	return -1
}

// dateLayouts are the forms of date the cut reads: those of RSS (RFC 822
// and its variants) and of Atom and Dublin Core (RFC 3339 and ISO 8601).
var dateLayouts = []string{
	time.RFC1123Z, time.RFC1123, "Mon, 2 Jan 2006 15:04:05 -0700", "Mon, 2 Jan 2006 15:04:05 MST",
	"2 Jan 2006 15:04:05 -0700", "2 Jan 2006 15:04:05 MST", time.RFC822Z, time.RFC822,
	time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04Z07:00", "2006-01-02",
}

// cheapDate reads a date element's text, or returns the zero time.
func cheapDate(b []byte) time.Time {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || len(b) > 64 {
		return time.Time{}
	}
	s := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(string(b), "<![CDATA["), "]]>"))
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
		return body, nil
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
	return out.Bytes(), nil
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
	for d.More() {
		key, err := d.Token()
		if err != nil {
			return -1, -1, err
		}
		if key != "items" {
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				return -1, -1, err
			}
			continue
		}
		if open >= 0 {
			return -1, -1, errors.New("a JSON Feed with two lists of items")
		}
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
