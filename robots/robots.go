package robots

import (
	"encoding/json"
	"fmt"
	"time"
)

// MaxBytes is how much of a robots.txt file Parse reads: 512 KiB, above
// the 500 KiB that RFC 9309 §2.5 requires a crawler to parse. Only whole
// lines within the limit are read.
const MaxBytes = 512 << 10

// Kind says what a rule does to the paths it matches.
type Kind uint8

const (
	// Disallow keeps a crawler away from the paths a rule matches.
	Disallow Kind = iota + 1
	// Allow lets a crawler fetch the paths a rule matches, overriding a
	// shorter Disallow.
	Allow
)

// String returns "allow" or "disallow".
func (k Kind) String() string {
	switch k {
	case Allow:
		return "allow"
	case Disallow:
		return "disallow"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// MarshalText writes the kind as its String.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Robots is a parsed robots.txt file: its groups, its sitemaps and every
// other record it holds, in file order.
//
// A Robots returned by Parse is safe for concurrent use as long as nobody
// modifies it. A Robots built by hand can be matched and formatted too;
// build its rules with NewRule so that their patterns are compiled once.
type Robots struct {
	Groups   []Group
	Sitemaps []string
	// Records holds every line whose field is none of user-agent, allow,
	// disallow, crawl-delay, content-signal or sitemap (for example
	// "host" or "clean-param"), with the field name lower-cased.
	Records []Record
}

// Group is a run of User-agent lines and the lines that follow them
// (RFC 9309 §2.2.1). Allow and Disallow lines end the run of User-agent
// lines; Crawl-delay and Content-Signal lines, like every record other than
// a rule, do not (§2.2.4), but belong to the group being read.
type Group struct {
	// Agents are the User-agent values as written, for example
	// "Googlebot-News" or "*".
	Agents []string
	// Line is the line number of the first User-agent line.
	Line  int
	Rules []Rule
	// CrawlDelay is the group's Crawl-delay, when HasCrawlDelay is true.
	// The last valid Crawl-delay line of the group wins.
	CrawlDelay    time.Duration
	HasCrawlDelay bool
	// Signals holds the group's Content-Signal values.
	Signals Signals

	// ranked lists the rules' indexes from the one that would decide
	// over every other to the one that would decide over none (longest
	// pattern first, Allow first in a tie, file order after that), so
	// that a match can stop at the first rule that matches. Parse makes
	// it; rankedAs holds what it was made from, each rule's priority
	// and kind, so that a group whose rules were since changed,
	// reordered or replaced by hand is matched in file order instead.
	ranked   []int32
	rankedAs []rankKey
}

// Rule is one Allow or Disallow line.
type Rule struct {
	Kind Kind
	// Pattern is the path pattern as written. An empty pattern matches
	// nothing: "Disallow:" is the idiomatic way to allow everything.
	Pattern string
	// Line is the line number of the rule in its file, or 0 for a rule
	// built by hand.
	Line int

	pat pattern
}

// NewRule returns a rule of the given kind with its pattern compiled.
func NewRule(kind Kind, pattern string) Rule {
	return Rule{Kind: kind, Pattern: pattern, pat: compile(pattern)}
}

// Priority is the rule's weight against other matching rules: the length
// of its pattern as written. The matching rule of highest priority
// decides, and Allow wins a tie.
func (r *Rule) Priority() int { return len(r.Pattern) }

// String writes the rule as a robots.txt line, such as "Disallow: /tmp/".
func (r *Rule) String() string {
	if r.Kind == Allow {
		return "Allow: " + r.Pattern
	}
	return "Disallow: " + r.Pattern
}

// MarshalJSON writes the rule as {"kind", "pattern", "line"}.
func (r *Rule) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Kind    Kind   `json:"kind"`
		Pattern string `json:"pattern"`
		Line    int    `json:"line"`
	}{r.Kind, r.Pattern, r.Line})
}

// Record is one line of a robots.txt file kept as a field and a value.
type Record struct {
	Name  string // lower-cased
	Value string
	Line  int
}

// Signals are Content-Signal values: the name of a use (such as "search",
// "ai-input" or "ai-train") mapped to whether the site consents to it
// ("yes" is true, "no" is false). A use that is not in the map was not
// stated.
type Signals map[string]bool

// Denies reports whether the signals say "no" to the use.
func (s Signals) Denies(use string) bool {
	v, ok := s[use]
	return ok && !v
}

// Names of the uses that the Content-Signal proposal defines.
const (
	SignalSearch  = "search"
	SignalAIInput = "ai-input"
	SignalAITrain = "ai-train"
)
