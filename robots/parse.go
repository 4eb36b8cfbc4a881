package robots

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// Parse reads data as a robots.txt file. It never fails: RFC 9309 makes
// every file readable, so what cannot be read is skipped, and a page of
// HTML parses to a file with no groups, which allows everything.
//
// A leading UTF-8 byte order mark is dropped; CR, LF and CRLF all end a
// line; '#' starts a comment anywhere on a line; field names are
// case-insensitive; only the whole lines within the first MaxBytes bytes
// are read. Like Google's parser, Parse also accepts what a site owner
// obviously meant: the misspellings "useragent", "user agent",
// "dissallow", "dissalow", "disalow", "diasllow", "disallaw" and
// "site-map", and a line of a known field and one word with no colon
// between them ("Disallow /tmp"). Lint lists each such line.
func Parse(data []byte) *Robots {
	var p parser
	p.run(data)
	for i := range p.r.Groups {
		p.r.Groups[i].rank()
	}
	return &p.r
}

// Read reads r to its end, keeping at most MaxBytes of it, and parses what
// it read. It fails only when reading fails.
func Read(r io.Reader) (*Robots, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("robots: read: %w", err)
	}
	return Parse(data), nil
}

// Problem is a line of a robots.txt file that a crawler will ignore, or
// read differently than it is written.
type Problem struct {
	Line    int    `json:"line"`
	Text    string `json:"text"` // the line as written, without its line end
	Message string `json:"message"`
}

func (p Problem) String() string {
	return fmt.Sprintf("line %d: %s: %s", p.Line, p.Message, p.Text)
}

// Lint lists the lines of data that a crawler using Parse will ignore or
// read differently than written: rules outside any group, unknown fields,
// accepted misspellings and missing colons, values that cannot be read,
// patterns that can never match, relative sitemaps, a Crawl-delay given
// twice in one group, and lines past the MaxBytes limit.
func Lint(data []byte) []Problem {
	p := parser{lint: true}
	p.run(data)
	return p.problems
}

// field identifies what a line's field name means.
type field uint8

const (
	fieldUnknown field = iota
	fieldUserAgent
	fieldAllow
	fieldDisallow
	fieldCrawlDelay
	fieldContentSignal
	fieldSitemap
)

// fields maps every accepted field name, lower-cased, to its meaning. The
// misspellings are the ones Google's parser accepts.
var fields = map[string]field{
	"user-agent":     fieldUserAgent,
	"useragent":      fieldUserAgent,
	"user agent":     fieldUserAgent,
	"allow":          fieldAllow,
	"disallow":       fieldDisallow,
	"dissallow":      fieldDisallow,
	"dissalow":       fieldDisallow,
	"disalow":        fieldDisallow,
	"diasllow":       fieldDisallow,
	"disallaw":       fieldDisallow,
	"crawl-delay":    fieldCrawlDelay,
	"content-signal": fieldContentSignal,
	"sitemap":        fieldSitemap,
	"site-map":       fieldSitemap,
}

// canonical is how Format writes each field.
var canonical = [...]string{
	fieldUserAgent:     "User-agent",
	fieldAllow:         "Allow",
	fieldDisallow:      "Disallow",
	fieldCrawlDelay:    "Crawl-delay",
	fieldContentSignal: "Content-Signal",
	fieldSitemap:       "Sitemap",
}

type parser struct {
	r        Robots
	inAgents bool // the last group line was a User-agent line
	lint     bool
	problems []Problem
	// delayLine is the line of the last group's Crawl-delay, 0 for none.
	delayLine int
}

func (p *parser) note(line int, text []byte, format string, args ...any) {
	if p.lint {
		p.problems = append(p.problems, Problem{Line: line, Text: string(text), Message: fmt.Sprintf(format, args...)})
	}
}

func (p *parser) run(data []byte) {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	var rest []byte // what the limit leaves unread
	if len(data) > MaxBytes {
		// Keep only whole lines: a line whose end falls past the limit is
		// not read, but one that ends exactly at it is.
		cut := MaxBytes
		if next := data[MaxBytes]; next != '\n' && next != '\r' {
			cut = bytes.LastIndexAny(data[:MaxBytes], "\r\n") + 1
		}
		data, rest = data[:cut], data[cut:]
	}
	n := 0
	for len(data) > 0 {
		i := bytes.IndexAny(data, "\r\n")
		line := data
		if i >= 0 {
			line = data[:i]
			if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
			data = data[i+1:]
		} else {
			data = nil
		}
		n++
		p.line(n, line)
	}
	if len(bytes.TrimLeft(rest, "\r\n")) > 0 {
		p.note(n+1, nil, "past the %d KiB limit: this line and the rest of the file are ignored", MaxBytes>>10)
	}
}

func (p *parser) line(n int, raw []byte) {
	line := raw
	if i := bytes.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	line = trimSpace(line)
	if len(line) == 0 {
		return
	}
	key, value, ok := splitLine(line)
	if !ok {
		p.note(n, raw, "not a field: value line, ignored")
		return
	}
	name := strings.ToLower(string(key))
	f, known := fields[name]
	colon := bytes.IndexByte(line, ':') >= 0
	switch {
	case !known && !colon:
		// Only the fields a crawler knows are read without their colon.
		p.note(n, raw, "not a field: value line, ignored")
		return
	case !known:
		p.r.Records = append(p.r.Records, Record{Name: name, Value: string(value), Line: n})
		p.note(n, raw, "unknown field %q, kept as a record but ignored by crawlers", name)
		return
	case name != strings.ToLower(canonical[f]):
		p.note(n, raw, "misspelt field %q read as %q", name, canonical[f])
	}
	if !colon {
		p.note(n, raw, "missing colon, read as %s: %s", canonical[f], value)
	}
	switch f {
	case fieldUserAgent:
		if len(p.r.Groups) == 0 || !p.inAgents {
			p.r.Groups = append(p.r.Groups, Group{Line: n})
			p.delayLine = 0
		}
		g := &p.r.Groups[len(p.r.Groups)-1]
		g.Agents = append(g.Agents, string(value))
		p.inAgents = true
		if !isStar(string(value)) && productToken(string(value)) == "" {
			p.note(n, raw, "user-agent %q has no product token ([A-Za-z_-]+) and matches no crawler", value)
		}
		return
	case fieldSitemap:
		if len(value) == 0 {
			p.note(n, raw, "empty sitemap, ignored")
			return
		}
		p.r.Sitemaps = append(p.r.Sitemaps, string(value))
		if !absoluteURL(string(value)) {
			p.note(n, raw, "sitemap %q is not an absolute URL (RFC 9309 asks for a fully qualified one); crawlers may ignore it", value)
		}
		return
	}
	if len(p.r.Groups) == 0 {
		p.note(n, raw, "%s before any User-agent line, ignored", canonical[f])
		return
	}
	g := &p.r.Groups[len(p.r.Groups)-1]
	switch f {
	case fieldAllow, fieldDisallow:
		// A rule ends the run of User-agent lines; Crawl-delay and
		// Content-Signal are other records and do not (RFC 9309 §2.2.4).
		p.inAgents = false
		kind := Disallow
		if f == fieldAllow {
			kind = Allow
		}
		pat := string(value)
		g.Rules = append(g.Rules, Rule{Kind: kind, Pattern: pat, Line: n, pat: compile(pat)})
		if pat != "" && pat[0] != '/' && pat[0] != '*' {
			p.note(n, raw, "pattern does not start with / or * and matches no URL")
		}
	case fieldCrawlDelay:
		d, ok := parseDelay(string(value))
		if !ok {
			p.note(n, raw, "crawl-delay is not a number of seconds, ignored")
			return
		}
		if p.delayLine > 0 {
			p.note(n, raw, "another crawl-delay in the group of line %d (the first at line %d): heed reads the last, other crawlers may read the first", g.Line, p.delayLine)
		} else {
			p.delayLine = n
		}
		g.CrawlDelay, g.HasCrawlDelay = d, true
	case fieldContentSignal:
		s, bad := parseSignals(string(value))
		if len(s) == 0 {
			p.note(n, raw, "content-signal has no name=yes|no pair, ignored")
			return
		}
		if g.Signals == nil {
			g.Signals = make(Signals, len(s))
		}
		for k, v := range s {
			g.Signals[k] = v
		}
		if len(bad) > 0 {
			// One problem per line, however many bad pairs it holds.
			shown := bad[:min(len(bad), 3)]
			p.note(n, raw, "%d content-signal pairs are not name=yes|no and are ignored, such as %q", len(bad), shown)
		}
	}
}

// absoluteURL reports whether s is a URL with a scheme and an authority,
// such as https://example.com/sitemap.xml.
func absoluteURL(s string) bool {
	scheme, rest, ok := strings.Cut(s, "://")
	return ok && validScheme(scheme) && rest != "" && rest[0] != '/'
}

// splitLine splits a comment-free, trimmed line into its field name and
// value. The separator is the first colon or, failing that, the run of
// whitespace of a line with exactly two words.
func splitLine(line []byte) (key, value []byte, ok bool) {
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		key = trimSpace(line[:i])
		return key, trimSpace(line[i+1:]), len(key) > 0
	}
	i := bytes.IndexAny(line, spaces)
	if i < 0 {
		return nil, nil, false
	}
	key, value = line[:i], trimSpace(line[i:])
	if bytes.ContainsAny(value, spaces) {
		return nil, nil, false
	}
	return key, value, true
}

// spaces are the bytes that Parse reads as whitespace: ASCII only, so that
// a non-breaking space in a path stays part of the path.
const spaces = " \t\v\f"

func trimSpace(b []byte) []byte { return bytes.Trim(b, spaces) }

// maxDelaySeconds keeps a Crawl-delay within time.Duration.
const maxDelaySeconds = math.MaxInt64/int64(time.Second) - 1

// parseDelay reads a Crawl-delay value: a non-negative decimal number of
// seconds, such as "10", "0.5" or ".5". Delays longer than a
// time.Duration can hold are clamped.
func parseDelay(s string) (time.Duration, bool) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" && frac == "" || !digits(whole) || !digits(frac) {
		return 0, false
	}
	var sec int64
	for _, c := range whole {
		sec = sec*10 + int64(c-'0')
		if sec > maxDelaySeconds {
			return time.Duration(maxDelaySeconds) * time.Second, true
		}
	}
	var ns int64
	for i := 0; i < 9; i++ {
		ns *= 10
		if i < len(frac) {
			ns += int64(frac[i] - '0')
		}
	}
	return time.Duration(sec)*time.Second + time.Duration(ns), true
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseSignals reads a Content-Signal value such as
// "search=yes, ai-train=no". It returns the pairs it could read and the
// text of those it could not.
func parseSignals(s string) (Signals, []string) {
	var out Signals
	var bad []string
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.ToLower(strings.TrimSpace(v))
		if !ok || k == "" || strings.ContainsAny(k, " \t") || v != "yes" && v != "no" {
			bad = append(bad, part)
			continue
		}
		if out == nil {
			out = make(Signals)
		}
		out[k] = v == "yes"
	}
	return out, bad
}
