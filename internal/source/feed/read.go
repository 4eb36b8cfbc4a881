package feed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mmcdole/gofeed"
	jsonfeed "github.com/mmcdole/gofeed/json"
	"golang.org/x/net/html"

	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/internal/source"
)

// Feed is a feed as heed keeps it: its title and description, and its
// items newest first.
type Feed struct {
	Type        string // "rss", "atom" or "json"
	Title       string
	Description string // Markdown
	Link        string // the site's address, if the feed names it
	Items       []Item
}

// Item is one item of a feed.
type Item struct {
	Title  string
	Link   string // absolute http(s), or ""
	ID     string // the item's guid or id, if it has one
	Author string
	Date   time.Time // published, or else updated; zero if neither
	// Markdown is the item's HTML content (or, lacking it, its summary)
	// converted by heed's extractor.
	Markdown string
}

// ErrNotFeed is wrapped by Read's error for a document that is not RSS,
// Atom, RDF or JSON Feed.
var ErrNotFeed = errors.New("not a feed")

// MaxBytes is the most of a feed heed reads; a longer one is refused
// before it is parsed.
const MaxBytes = 10 << 20

// MaxGrowth bounds a feed's snapshot: the Markdown Document writes of the
// items Read gives (with no older snapshot to merge) is at most MaxGrowth
// times the feed's length in bytes. An item's HTML becomes Markdown at
// most extract.MaxGrowth times as long as the feed's bytes it came from;
// its heading and fields add a few bytes to what they are read from, and
// resolving and encoding items' links add at most the feed's length, all
// together (see Read).
const MaxGrowth = 5

// Sniff reports whether a document's start looks like a feed: an XML
// document whose root is rss, rdf:RDF or feed, or a JSON Feed.
func Sniff(body []byte) bool {
	prefix := body[:min(len(body), 4096)]
	switch gofeed.DetectFeedType(bytes.NewReader(prefix)) {
	case gofeed.FeedTypeRSS, gofeed.FeedTypeAtom:
		return true
	case gofeed.FeedTypeJSON:
		return isJSONFeed(body)
	}
	return false
}

// isJSONFeed reports whether a JSON document is a JSON Feed: one that
// says so (a version of https://jsonfeed.org/version/N, or http://, as
// JSON Feed 1's own examples have it), or one without a version that has
// a feed's shape: a title, a home page or feed URL, and items.
func isJSONFeed(body []byte) bool {
	var v struct {
		Version  string          `json:"version"`
		Title    *string         `json:"title"`
		HomePage *string         `json:"home_page_url"`
		FeedURL  *string         `json:"feed_url"`
		Items    json.RawMessage `json:"items"`
	}
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	version := strings.ToLower(v.Version)
	if strings.HasPrefix(version, "https://jsonfeed.org/version/") || strings.HasPrefix(version, "http://jsonfeed.org/version/") {
		return true
	}
	return v.Version == "" && v.Title != nil && (v.HomePage != nil || v.FeedURL != nil) && bytes.HasPrefix(bytes.TrimSpace(v.Items), []byte("["))
}

// Read parses a feed of any format gofeed reads (RSS 0.9x, 1.0 (RDF) and
// 2.0, Atom 0.3 and 1.0, JSON Feed 1.0 and 1.1) and keeps its newest
// limit items (MaxKept when limit is 0), their HTML converted to
// Markdown with links resolved against base. It reads only what it is
// given: XML entities beyond the five predefined and the character
// references are never expanded, no DTD or external entity is read, and
// nothing is fetched. Input longer than MaxBytes is refused. Before
// gofeed reads a feed, the feed is cut to the items that can be kept,
// chosen by their dates read cheaply (see cutXML), so that neither time
// nor memory grows with the items a feed holds beyond them.
//
// What resolving items' links against the feed's (a long channel link
// before every item's relative link) and percent-encoding them (a
// character of a legacy encoding can be nine bytes of a URL) adds to them
// as the feed wrote them is at most the feed's length in all, and so is
// what resolving them and reading items' HTML reads of the feed's base
// URL: past that, an item's link that would be longer than written is
// left out, and an item without a link has its HTML read without a base
// (see linker).
func Read(body []byte, base string, limit int) (*Feed, error) {
	if len(body) > MaxBytes {
		return nil, fmt.Errorf("feed: over %d bytes", MaxBytes)
	}
	if !Sniff(body) {
		return nil, ErrNotFeed
	}
	f, err := parse(body, limit)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotFeed, err)
	}
	out := &Feed{Type: f.FeedType, Title: text(f.Title), Link: httpURL(base, f.Link)}
	if out.Link != "" {
		base = out.Link
	}
	out.Description = toMarkdown(f.Description, base)
	type dated struct {
		it *gofeed.Item
		at time.Time
	}
	items := make([]dated, 0, len(f.Items))
	for _, it := range f.Items {
		if it == nil {
			continue
		}
		var at time.Time
		switch {
		case it.PublishedParsed != nil:
			at = *it.PublishedParsed
		case it.UpdatedParsed != nil:
			at = *it.UpdatedParsed
		}
		items = append(items, dated{it, at})
	}
	// Newest first; items without a date after those with one, in the
	// feed's order.
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i].at, items[j].at
		if a.IsZero() || b.IsZero() {
			return !a.IsZero() && b.IsZero()
		}
		return a.After(b)
	})
	if limit > 0 && len(items) > limit {
		items = items[:limit]
	}
	out.Items = make([]Item, 0, len(items))
	l := newLinker(base, len(body))
	for _, d := range items {
		it := d.it
		link := l.link(it.Link)
		itemBase := link
		if link == "" {
			itemBase = l.feedBase()
		}
		content := it.Content
		if strings.TrimSpace(content) == "" {
			content = it.Description
		}
		item := Item{Title: text(it.Title), Link: link, ID: source.OneLine(it.GUID), Date: d.at.UTC(),
			Markdown: toMarkdown(content, itemBase)}
		var names []string
		for _, p := range it.Authors {
			if p == nil {
				continue
			}
			if n := source.OneLine(p.Name); n != "" {
				names = append(names, n)
			} else if e := source.OneLine(p.Email); e != "" {
				names = append(names, e)
			}
		}
		if len(names) == 0 && it.Author != nil {
			names = append(names, source.OneLine(it.Author.Name))
		}
		item.Author = strings.Join(names, ", ")
		out.Items = append(out.Items, item)
	}
	return out, nil
}

// parse reads a feed with gofeed, cut first to the items that can be
// kept (limit, or MaxKept when limit is 0 or more). JSON Feed's null
// entries are dropped before gofeed translates them, and should gofeed
// panic on some other input, the panic is an error.
// xmlBase finds xml:base attributes.
var xmlBase = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)xml:base(\s*=)`) })

// withoutXMLBase renames every xml:base attribute so that gofeed ignores
// it. With one in scope, gofeed resolves an item's links and rewrites its
// HTML itself, before Read's budgets see them: it wrote a long base into
// every relative link (222 times the feed), and, re-serializing the HTML
// through x/net/html, copied a link reopened in each paragraph into all
// of them (989 times), in work that grew with the square of the feed.
// Relative links are then resolved by Read against the item's, the
// channel's or the feed's own URL, within its budgets.
func withoutXMLBase(body []byte) []byte {
	if !xmlBase().Match(body) {
		return body
	}
	return xmlBase().ReplaceAll(body, []byte("xml:heed-ignored-base$1"))
}

func parse(body []byte, limit int) (f *gofeed.Feed, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("the feed parser failed on this document: %v", r)
		}
	}()
	keep := MaxKept
	if limit > 0 && limit < keep {
		keep = limit
	}
	switch gofeed.DetectFeedType(bytes.NewReader(body[:min(len(body), 4096)])) {
	case gofeed.FeedTypeRSS, gofeed.FeedTypeAtom:
		if body, err = cutXML(body, keep); err != nil {
			return nil, err
		}
		return gofeed.NewParser().Parse(bytes.NewReader(withoutXMLBase(body)))
	case gofeed.FeedTypeJSON:
		if body, err = cutJSON(body, keep); err != nil {
			return nil, err
		}
		jf, err := (&jsonfeed.Parser{}).Parse(bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		jf.Authors = nonNil(jf.Authors)
		jf.Items = nonNil(jf.Items)
		for _, it := range jf.Items {
			it.Authors = nonNil(it.Authors)
		}
		return (&gofeed.DefaultJSONTranslator{}).Translate(jf)
	}
	return nil, gofeed.ErrFeedTypeNotDetected
}

// nonNil drops the nil elements of a list, keeping an empty list nil.
func nonNil[T any](list []*T) []*T {
	var out []*T
	for _, v := range list {
		if v != nil {
			out = append(out, v)
		}
	}
	return out
}

// text is a title as one line of plain text: a title may be HTML (Atom's
// type="html", and RSS titles in practice), whose tags are dropped.
func text(s string) string {
	if !strings.Contains(s, "<") {
		return source.OneLine(s)
	}
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return source.OneLine(b.String())
		case html.TextToken:
			b.Write(z.Text())
		}
	}
}

// toMarkdown converts a feed's HTML (or plain text, which reads as HTML
// the same) to Markdown.
func toMarkdown(html, base string) string {
	if strings.TrimSpace(html) == "" {
		return ""
	}
	doc, err := extract.ExtractBytes([]byte(html), extract.Options{URL: base, Whole: true})
	if err != nil {
		return ""
	}
	return strings.TrimSpace(doc.Markdown)
}

// linker resolves items' links against the feed's, and gives the base an
// item's HTML is read against, within two budgets of the feed's length:
// what resolving and encoding the links adds to them as the feed wrote
// them (a long channel link before every item's relative link, a
// character of a legacy encoding nine bytes percent-encoded), and how
// much of the feed's base URL resolving relative links and reading
// items' HTML goes through (each reads all of it). Past either, a link is
// left out, and an item without one of its own has its HTML read without
// a base (its relative links kept as written).
type linker struct {
	base       string
	parsed     *url.URL
	grow, work int
}

func newLinker(base string, budget int) *linker {
	b, err := url.Parse(base)
	if err != nil {
		b = &url.URL{}
	}
	return &linker{base: base, parsed: b, grow: budget, work: budget}
}

// link is an item's link resolved, if it is http(s), written as
// source.SafeURL writes it; or "".
func (l *linker) link(ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	if r.Scheme == "" {
		if len(l.base) > l.work {
			return ""
		}
		l.work -= len(l.base)
	}
	u := l.parsed.ResolveReference(r)
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	s := source.SafeURL(u.String())
	if extra := len(s) - len(ref); extra > 0 {
		if extra > l.grow {
			return ""
		}
		l.grow -= extra
	}
	return s
}

// feedBase is the base of an item without a link of its own: the feed's,
// or "" past the budget.
func (l *linker) feedBase() string {
	if len(l.base) > l.work {
		return ""
	}
	l.work -= len(l.base)
	return l.base
}

// httpURL resolves ref against base and keeps it if it is http(s),
// written as source.SafeURL writes it.
func httpURL(base, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ""
	}
	b, err := url.Parse(base)
	if err != nil {
		b = &url.URL{}
	}
	u, err := b.Parse(ref)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return source.SafeURL(u.String())
}
