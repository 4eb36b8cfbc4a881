package directives

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/heedhq/heed/robots"
)

// Set is one set of directives, for every crawler (Bot is "") or for the
// crawler Bot names.
type Set struct {
	// Bot is the lower-cased crawler name the set is scoped to, or "".
	Bot string `json:"bot,omitempty"`

	NoIndex      bool `json:"noindex,omitempty"`  // do not index the page ("none" sets it too)
	NoFollow     bool `json:"nofollow,omitempty"` // do not follow its links ("none" sets it too)
	NoArchive    bool `json:"noarchive,omitempty"`
	NoSnippet    bool `json:"nosnippet,omitempty"`
	NoImageIndex bool `json:"noimageindex,omitempty"`
	NoTranslate  bool `json:"notranslate,omitempty"`

	// MaxSnippet is the longest text snippet allowed, in characters: 0
	// means none, -1 no limit, nil not stated.
	MaxSnippet *int `json:"max_snippet,omitempty"`
	// MaxImagePreview is "none", "standard", "large", or "" if not stated.
	MaxImagePreview string `json:"max_image_preview,omitempty"`
	// MaxVideoPreview is the longest video preview allowed, in seconds: 0
	// means a still image only, -1 no limit, nil not stated.
	MaxVideoPreview *int `json:"max_video_preview,omitempty"`
	// UnavailableAfter is when the page stops being available, or the
	// zero time if not stated.
	UnavailableAfter time.Time `json:"unavailable_after,omitzero"`

	// Other holds directives this package does not interpret, lower-cased,
	// such as "noai" or "indexifembedded".
	Other []string `json:"other,omitempty"`
}

// IsZero reports whether the set states nothing.
func (s *Set) IsZero() bool {
	return !s.NoIndex && !s.NoFollow && !s.NoArchive && !s.NoSnippet && !s.NoImageIndex && !s.NoTranslate &&
		s.MaxSnippet == nil && s.MaxImagePreview == "" && s.MaxVideoPreview == nil &&
		s.UnavailableAfter.IsZero() && len(s.Other) == 0
}

// Parse reads one X-Robots-Tag value or robots meta content. Directives
// are separated by commas (or, between plain flags, by spaces). "name:"
// where name is not a value directive scopes what follows to that crawler,
// until the next scope; directives before any scope form an unscoped set.
// Parse returns the sets in order, and none for an empty value.
func Parse(value string) []Set {
	var p parser
	p.parse(value)
	return p.sets
}

// ParseMeta reads the content of a <meta> tag named name. A tag named
// "robots" applies to every crawler; any other name (such as "googlebot"
// or "heed") scopes the content's unscoped directives to that crawler.
func ParseMeta(name, content string) []Set {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "robots" {
		return Parse(content)
	}
	p := parser{scope: name}
	p.parse(content)
	return p.sets
}

// For merges every set that applies to the crawler whose user agent is
// agent: the unscoped sets and those whose Bot has the same product token.
// The most restrictive value wins: a flag set anywhere is set, and the
// smaller snippet and video limits, the smaller image preview and the
// earlier unavailable_after apply. The result is unscoped.
func For(agent string, sets ...Set) Set {
	token := robots.ProductToken(agent)
	var out Set
	for _, s := range sets {
		if s.Bot == "" || token != "" && robots.ProductToken(s.Bot) == token {
			out = Merge(out, s)
		}
	}
	out.Bot = ""
	return out
}

// Merge returns the most restrictive combination of a and b, scoped as a.
func Merge(a, b Set) Set {
	a.NoIndex = a.NoIndex || b.NoIndex
	a.NoFollow = a.NoFollow || b.NoFollow
	a.NoArchive = a.NoArchive || b.NoArchive
	a.NoSnippet = a.NoSnippet || b.NoSnippet
	a.NoImageIndex = a.NoImageIndex || b.NoImageIndex
	a.NoTranslate = a.NoTranslate || b.NoTranslate
	a.MaxSnippet = minLimit(a.MaxSnippet, b.MaxSnippet)
	a.MaxVideoPreview = minLimit(a.MaxVideoPreview, b.MaxVideoPreview)
	if b.MaxImagePreview != "" && (a.MaxImagePreview == "" || previewRank(b.MaxImagePreview) < previewRank(a.MaxImagePreview)) {
		a.MaxImagePreview = b.MaxImagePreview
	}
	if !b.UnavailableAfter.IsZero() && (a.UnavailableAfter.IsZero() || b.UnavailableAfter.Before(a.UnavailableAfter)) {
		a.UnavailableAfter = b.UnavailableAfter
	}
	a.Other = union(a.Other, b.Other)
	return a
}

// union returns a new slice of the strings of a, then those of b that are
// not in a, in linear time.
func union(a, b []string) []string {
	if len(b) == 0 {
		return slices.Clone(a)
	}
	seen := make(map[string]bool, len(a)+len(b))
	out := make([]string, 0, len(a)+len(b))
	for _, list := range [][]string{a, b} {
		for _, s := range list {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// minLimit returns the more restrictive of two limits where -1 means none.
func minLimit(a, b *int) *int {
	switch {
	case b == nil:
		return a
	case a == nil, *a == -1, *b != -1 && *b < *a:
		v := *b
		return &v
	}
	return a
}

func previewRank(v string) int {
	switch v {
	case "none":
		return 0
	case "standard":
		return 1
	}
	return 2
}

// String writes the set as an X-Robots-Tag value, prefixed with "bot: "
// when it is scoped; Parse reads it back as the same set.
func (s Set) String() string { return s.format(false) }

// Explicit writes the set like String, but spells out "index" and "follow"
// where the set does not say noindex or nofollow: a set with only NoIndex
// is "noindex, follow".
func (s Set) Explicit() string { return s.format(true) }

func (s Set) format(explicit bool) string {
	var parts []string
	flag := func(on bool, yes, no string) {
		switch {
		case on:
			parts = append(parts, yes)
		case explicit && no != "":
			parts = append(parts, no)
		}
	}
	flag(s.NoIndex, "noindex", "index")
	flag(s.NoFollow, "nofollow", "follow")
	flag(s.NoArchive, "noarchive", "")
	flag(s.NoSnippet, "nosnippet", "")
	flag(s.NoImageIndex, "noimageindex", "")
	flag(s.NoTranslate, "notranslate", "")
	if s.MaxSnippet != nil {
		parts = append(parts, "max-snippet:"+strconv.Itoa(*s.MaxSnippet))
	}
	if s.MaxImagePreview != "" {
		parts = append(parts, "max-image-preview:"+s.MaxImagePreview)
	}
	if s.MaxVideoPreview != nil {
		parts = append(parts, "max-video-preview:"+strconv.Itoa(*s.MaxVideoPreview))
	}
	if !s.UnavailableAfter.IsZero() {
		parts = append(parts, "unavailable_after: "+s.UnavailableAfter.UTC().Format(time.RFC3339Nano))
	}
	parts = append(parts, s.Other...)
	out := strings.Join(parts, ", ")
	if s.Bot != "" {
		out = strings.TrimSpace(s.Bot + ": " + out)
	}
	return out
}

type parser struct {
	scope string // the bot of the next new set
	sets  []Set
	cur   *Set
	seen  map[string]bool // the Other entries of cur
}

// set returns the set that directives go into, starting one if needed.
func (p *parser) set() *Set {
	if p.cur == nil {
		p.sets = append(p.sets, Set{Bot: p.scope})
		p.cur = &p.sets[len(p.sets)-1]
		p.seen = nil
	}
	return p.cur
}

func (p *parser) parse(value string) {
	pieces := strings.Split(value, ",")
	for i := 0; i < len(pieces); i++ {
		piece := strings.TrimSpace(pieces[i])
		if piece == "" {
			continue
		}
		name, rest, colon := strings.Cut(piece, ":")
		name = strings.ToLower(strings.TrimSpace(name))
		rest = strings.TrimSpace(rest)
		switch {
		case !colon:
			for _, word := range strings.Fields(piece) {
				p.flag(strings.ToLower(word))
			}
		case name == "unavailable_after" || name == "unavailable-after":
			// Dates such as "Friday, 25-Jun-10 15:00:00 GMT" hold commas:
			// take in the next pieces until the date reads.
			t, ok := parseDate(rest)
			for j := 1; !ok && j <= 2 && i+j < len(pieces); j++ {
				if t, ok = parseDate(rest + "," + strings.Join(pieces[i+1:i+j+1], ",")); ok {
					i += j
				}
			}
			switch {
			case ok:
				s := p.set()
				if s.UnavailableAfter.IsZero() || t.Before(s.UnavailableAfter) {
					s.UnavailableAfter = t
				}
			case isWeekday(rest) && i+1 < len(pieces):
				// An unreadable date that starts with a weekday: its
				// comma is part of it, not the start of a directive.
				p.other(strings.ToLower("unavailable_after: " + rest + "," + strings.TrimRight(pieces[i+1], " ")))
				i++
			default:
				p.other("unavailable_after: " + strings.ToLower(rest))
			}
		case isValueDirective(name):
			p.value(name, strings.ToLower(rest))
		case isBotName(name):
			// A crawler's name scopes what follows.
			p.scope, p.cur = name, nil
			if rest != "" {
				pieces[i] = rest
				i--
			} else {
				p.set()
			}
		default:
			p.other(strings.ToLower(piece))
		}
	}
}

// isBotName reports whether name can be a crawler's name that scopes the
// directives after it: a token of letters, digits, '_', '-' and '.', which
// does not look like a value directive of its own ("max-...").
func isBotName(name string) bool {
	if name == "" || strings.HasPrefix(name, "max-") || !('a' <= name[0] && name[0] <= 'z') {
		return false
	}
	for _, c := range []byte(name) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func isWeekday(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "mon", "tue", "wed", "thu", "fri", "sat", "sun",
		"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday":
		return true
	}
	return false
}

func isValueDirective(name string) bool {
	switch name {
	case "max-snippet", "max-image-preview", "max-video-preview", "unavailable_after":
		return true
	}
	return false
}

func (p *parser) flag(word string) {
	s := p.set()
	switch word {
	case "all", "index", "follow":
		// The defaults; they say nothing.
	case "none":
		s.NoIndex, s.NoFollow = true, true
	case "noindex":
		s.NoIndex = true
	case "nofollow":
		s.NoFollow = true
	case "noarchive", "nocache":
		s.NoArchive = true
	case "nosnippet":
		s.NoSnippet = true
	case "noimageindex":
		s.NoImageIndex = true
	case "notranslate":
		s.NoTranslate = true
	default:
		p.other(word)
	}
}

func (p *parser) value(name, v string) {
	s := p.set()
	switch name {
	case "max-snippet", "max-video-preview":
		n, err := strconv.Atoi(v)
		if err != nil || n < -1 {
			p.other(name + ":" + v)
			return
		}
		if name == "max-snippet" {
			s.MaxSnippet = minLimit(s.MaxSnippet, &n)
		} else {
			s.MaxVideoPreview = minLimit(s.MaxVideoPreview, &n)
		}
	case "max-image-preview":
		if v != "none" && v != "standard" && v != "large" {
			p.other(name + ":" + v)
			return
		}
		if s.MaxImagePreview == "" || previewRank(v) < previewRank(s.MaxImagePreview) {
			s.MaxImagePreview = v
		}
	}
}

func (p *parser) other(text string) {
	s := p.set()
	if text == "" || p.seen[text] {
		return
	}
	if p.seen == nil {
		p.seen = make(map[string]bool)
	}
	p.seen[text] = true
	s.Other = append(s.Other, text)
}
