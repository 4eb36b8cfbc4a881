package robots

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// ProductToken returns the lower-cased product token of a user agent: its
// leading run of [A-Za-z_-]. "ExampleBot/1.0 (+https://example.com/bot)"
// gives "examplebot". Groups are chosen by comparing product tokens, both
// of the crawler's user agent and of the file's User-agent values.
func ProductToken(agent string) string { return strings.ToLower(productToken(agent)) }

func productToken(agent string) string {
	for i := 0; i < len(agent); i++ {
		c := agent[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-') {
			return agent[:i]
		}
	}
	return agent
}

// isStar reports whether a User-agent value names every crawler: "*"
// alone or followed by whitespace.
func isStar(agent string) bool {
	return agent == "*" || strings.HasPrefix(agent, "*") && strings.ContainsAny(agent[1:2], spaces)
}

// names reports whether the group names the product token (which is not
// empty).
func (g *Group) names(token string) bool {
	for _, a := range g.Agents {
		if strings.EqualFold(productToken(a), token) {
			return true
		}
	}
	return false
}

func (g *Group) star() bool {
	for _, a := range g.Agents {
		if isStar(a) {
			return true
		}
	}
	return false
}

// Reason says why a Decision came out as it did.
type Reason uint8

const (
	// ReasonRule: a rule matched; Decision.Rule is the rule that decided.
	ReasonRule Reason = iota + 1
	// ReasonNoRule: groups apply to the agent but none of their rules
	// matches the URL, so it is allowed.
	ReasonNoRule
	// ReasonNoGroup: no group names the agent and there is no "*" group,
	// so everything is allowed.
	ReasonNoGroup
	// ReasonRobotsTxt: /robots.txt itself is always allowed.
	ReasonRobotsTxt
	// ReasonBadURL: the URL is neither a path nor an absolute URL
	// ("scheme://authority..."), so no rule can be applied to it, and it
	// is disallowed: what cannot be judged is not fetched.
	ReasonBadURL
	// ReasonUnavailable: robots.txt could not be had (4xx, too many
	// redirects), which allows everything (RFC 9309 §2.3.1.3).
	ReasonUnavailable
	// ReasonUnreachable: robots.txt could not be fetched (5xx, 429,
	// network error), which disallows everything (RFC 9309 §2.3.1.4).
	ReasonUnreachable
	// ReasonOff: robots.txt is not consulted.
	ReasonOff
)

var reasonNames = [...]string{
	ReasonRule:        "rule",
	ReasonNoRule:      "no-rule",
	ReasonNoGroup:     "no-group",
	ReasonRobotsTxt:   "robots-txt",
	ReasonBadURL:      "bad-url",
	ReasonUnavailable: "unavailable",
	ReasonUnreachable: "unreachable",
	ReasonOff:         "off",
}

// String returns the reason's name, such as "rule" or "unreachable".
func (r Reason) String() string {
	if int(r) < len(reasonNames) && reasonNames[r] != "" {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// MarshalText writes the reason as its String.
func (r Reason) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// Decision is the answer to "may this agent fetch this URL?", with what
// decided it.
type Decision struct {
	Allowed bool
	Reason  Reason
	// Rule is the rule that decided, when Reason is ReasonRule.
	Rule *Rule
	// Group is the group that holds Rule, when Reason is ReasonRule, or
	// the first group that applied, when Reason is ReasonNoRule.
	Group *Group
	// HTTPStatus and Cause describe the robots.txt fetch when Reason is
	// ReasonUnavailable or ReasonUnreachable.
	HTTPStatus int
	Cause      string
}

// String explains the decision in one line, for example
// `disallowed by line 3 "Disallow: /private/" (group "User-agent: *" at line 1)`.
func (d Decision) String() string {
	verdict := "allowed"
	if !d.Allowed {
		verdict = "disallowed"
	}
	switch d.Reason {
	case ReasonRule:
		return fmt.Sprintf("%s by line %d %q (%s)", verdict, d.Rule.Line, d.Rule.String(), d.Group.describe())
	case ReasonNoRule:
		return fmt.Sprintf("%s: no rule matches (%s)", verdict, d.Group.describe())
	case ReasonNoGroup:
		return verdict + ": no group for this agent and no \"User-agent: *\" group"
	case ReasonRobotsTxt:
		return verdict + ": /robots.txt is always allowed"
	case ReasonBadURL:
		return verdict + ": the URL is neither a path nor an absolute URL, so no rule can be applied to it"
	case ReasonUnavailable:
		return fmt.Sprintf("%s: robots.txt unavailable (%s), which allows everything (RFC 9309 §2.3.1.3)", verdict, fetchDetail(d.HTTPStatus, d.Cause))
	case ReasonUnreachable:
		return fmt.Sprintf("%s: robots.txt unreachable (%s), which disallows everything (RFC 9309 §2.3.1.4)", verdict, fetchDetail(d.HTTPStatus, d.Cause))
	case ReasonOff:
		return verdict + ": robots.txt not consulted"
	}
	return verdict
}

func fetchDetail(status int, cause string) string {
	switch {
	case status != 0 && cause != "":
		return fmt.Sprintf("HTTP %d: %s", status, cause)
	case status != 0:
		return fmt.Sprintf("HTTP %d", status)
	case cause != "":
		return cause
	}
	return "no response"
}

func (g *Group) describe() string {
	if g == nil {
		return "no group"
	}
	quoted := make([]string, len(g.Agents))
	for i, a := range g.Agents {
		quoted[i] = "User-agent: " + a
	}
	s := fmt.Sprintf("group %q", strings.Join(quoted, ", "))
	if g.Line > 0 {
		s += fmt.Sprintf(" at line %d", g.Line)
	}
	return s
}

// Allowed decides whether the agent may fetch rawURL, which is an absolute
// URL or a path starting with "/" (with an optional query).
//
// Every group naming the agent's product token applies, merged into one;
// failing that, every "*" group; failing that, everything is allowed. Of
// the rules that match the URL's path and query, the one with the longest
// pattern decides, and Allow wins a tie. "/robots.txt" is always allowed.
// An absolute URL's path is matched whatever its host's spelling; a URL
// that is neither a path nor "scheme://authority..." is disallowed
// (ReasonBadURL).
func (r *Robots) Allowed(agent, rawURL string) Decision {
	target, ok := matchTarget(rawURL)
	if !ok {
		return Decision{Allowed: false, Reason: ReasonBadURL}
	}
	if isRobotsTxt(target) {
		return Decision{Allowed: true, Reason: ReasonRobotsTxt}
	}
	token := productToken(agent)
	named := r.hasNamed(token)
	var (
		best      *Rule
		bestGroup *Group
		first     *Group
		norm      string
		normDone  bool
	)
	for i := range r.Groups {
		g := &r.Groups[i]
		if named && !g.names(token) || !named && !g.star() {
			continue
		}
		if first == nil {
			first = g
		}
		ranked := g.rankHolds()
		for j := range g.Rules {
			rule := &g.Rules[j]
			if ranked {
				rule = &g.Rules[g.ranked[j]]
			}
			if rule.Pattern == "" {
				continue
			}
			if best != nil && !outranks(rule, best) {
				if ranked {
					break // no later rule of the group outranks best either
				}
				continue
			}
			if !normDone {
				norm, normDone = removeDots(normalize(target, true)), true
			}
			p := &rule.pat
			if !p.compiled {
				c := compile(rule.Pattern)
				p = &c
			}
			if p.match(norm) {
				best, bestGroup = rule, g
				if ranked {
					break
				}
			}
		}
	}
	switch {
	case best != nil:
		return Decision{Allowed: best.Kind == Allow, Reason: ReasonRule, Rule: best, Group: bestGroup}
	case first != nil:
		return Decision{Allowed: true, Reason: ReasonNoRule, Group: first}
	}
	return Decision{Allowed: true, Reason: ReasonNoGroup}
}

// rank orders the group's rules for Allowed: by outranks, and in file
// order where neither outranks the other, so that the first rule that
// matches is the one that decides.
func (g *Group) rank() {
	g.ranked = make([]int32, len(g.Rules))
	g.rankedAs = make([]rankKey, len(g.Rules))
	for i := range g.ranked {
		g.ranked[i] = int32(i)
		g.rankedAs[i] = rankKey{len(g.Rules[i].Pattern), g.Rules[i].Kind}
	}
	slices.SortStableFunc(g.ranked, func(a, b int32) int {
		ra, rb := &g.Rules[a], &g.Rules[b]
		switch {
		case outranks(ra, rb):
			return -1
		case outranks(rb, ra):
			return 1
		}
		return 0
	})
}

// rankKey is what a rule's rank is made of besides its place.
type rankKey struct {
	n    int // Priority
	kind Kind
}

// rankHolds reports whether the group's ranking is that of its rules as
// they are now: each in its place with the priority and kind it had.
func (g *Group) rankHolds() bool {
	if len(g.ranked) != len(g.Rules) || len(g.rankedAs) != len(g.Rules) {
		return false
	}
	for i := range g.Rules {
		if k := g.rankedAs[i]; len(g.Rules[i].Pattern) != k.n || g.Rules[i].Kind != k.kind {
			return false
		}
	}
	return true
}

// outranks reports whether rule a would decide over rule b if both matched.
func outranks(a, b *Rule) bool {
	pa, pb := a.Priority(), b.Priority()
	return pa > pb || pa == pb && a.Kind == Allow && b.Kind != Allow
}

// hasNamed reports whether any group names the product token.
func (r *Robots) hasNamed(token string) bool {
	if token == "" {
		return false
	}
	for i := range r.Groups {
		if r.Groups[i].names(token) {
			return true
		}
	}
	return false
}

// groupsFor calls fn for each group that applies to the agent.
func (r *Robots) groupsFor(agent string, fn func(*Group)) {
	token := productToken(agent)
	named := r.hasNamed(token)
	for i := range r.Groups {
		g := &r.Groups[i]
		if named && g.names(token) || !named && g.star() {
			fn(g)
		}
	}
}

// CrawlDelay returns the Crawl-delay of the groups that apply to the
// agent, and whether any of them states one. When several merged groups
// state one, the longest applies.
func (r *Robots) CrawlDelay(agent string) (time.Duration, bool) {
	var d time.Duration
	var ok bool
	r.groupsFor(agent, func(g *Group) {
		if g.HasCrawlDelay && (!ok || g.CrawlDelay > d) {
			d, ok = g.CrawlDelay, true
		}
	})
	return d, ok
}

// ContentSignals returns the Content-Signal values of the groups that
// apply to the agent. When merged groups disagree about a use, "no" wins.
// The result is nil when no group states a signal.
func (r *Robots) ContentSignals(agent string) Signals {
	var out Signals
	r.groupsFor(agent, func(g *Group) {
		for k, v := range g.Signals {
			if out == nil {
				out = make(Signals)
			}
			if old, seen := out[k]; !seen || old {
				out[k] = v
			}
		}
	})
	return out
}

// matchTarget returns the part of rawURL that rules match: its path (at
// least "/") and query exactly as written, without a fragment. rawURL is
// a path starting with "/", or an absolute URL "scheme://authority...".
// The target is not decoded or re-encoded here: normalize does that, the
// same way for paths and patterns.
func matchTarget(rawURL string) (string, bool) {
	// As URL parsers do (WHATWG's, which browsers and most clients
	// follow), tabs and line breaks are dropped wherever they are, and a
	// backslash is a slash.
	if strings.ContainsAny(rawURL, "\t\r\n\\") {
		rawURL = strings.NewReplacer("\t", "", "\r", "", "\n", "", "\\", "/").Replace(rawURL)
	}
	rest := rawURL
	if !strings.HasPrefix(rawURL, "/") {
		scheme, after, ok := strings.Cut(rawURL, ":")
		if !ok || !validScheme(scheme) || !strings.HasPrefix(after, "//") {
			return "", false
		}
		after = after[2:]
		i := authorityEnd(after)
		// The path is taken as written, whatever the authority: rules
		// are about paths, and no spelling of a host (Unicode, punycode,
		// percent-encoded, or one no resolver reads) may skip them.
		rest = after[i:]
	} else if strings.HasPrefix(rawURL, "//") {
		return "", false // a network-path reference, not a path
	}
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest = rest[:i]
	}
	if !strings.HasPrefix(rest, "/") {
		rest = "/" + rest // "https://host?q" has the path "/"
	}
	return rest, true
}

// authorityEnd returns where the authority that starts s ends: at its
// first "/", "?" or "#", or at the end. A loop rather than
// strings.IndexAny, which builds its set of bytes on every call: a check
// of thousands of URLs calls it once each.
func authorityEnd(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '/', '?', '#':
			return i
		}
	}
	return len(s)
}

// removeDots removes the "." and ".." segments of a normalized target's
// path (RFC 3986 §5.2.4), as a server resolves them: /a/../secret.html is
// /secret.html, and meets its rules. "%2e" was decoded to "." before.
func removeDots(target string) string {
	path, query, hasQuery := strings.Cut(target, "?")
	if !strings.Contains(path, "/.") {
		return target
	}
	var out []string
	segs := strings.Split(path[1:], "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		switch seg {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, seg)
		}
	}
	path = "/" + strings.Join(out, "/")
	if hasQuery {
		return path + "?" + query
	}
	return path
}

// validScheme reports whether s is an RFC 3986 scheme.
func validScheme(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// isRobotsTxt reports whether a match target is /robots.txt, however its
// path is percent-encoded.
func isRobotsTxt(target string) bool {
	path, _, _ := strings.Cut(target, "?")
	return path == "/robots.txt" || len(path) <= 3*len("/robots.txt") && normalize(path, true) == "/robots.txt"
}

// pattern is a compiled Allow or Disallow pattern: the literal segments
// between its '*' wildcards, percent-normalized, and whether a trailing
// '$' anchors its end. It matches by one forward scan, so matching costs
// at most the number of segments times the length of the path, whatever
// the pattern.
type pattern struct {
	segs     []string // at least one; the first is anchored at the start
	end      bool     // the last segment must end the path
	compiled bool
}

func compile(s string) pattern {
	end := strings.HasSuffix(s, "$")
	if end {
		s = s[:len(s)-1]
	}
	s = normalize(s, false)
	parts := strings.Split(s, "*")
	segs := parts[:1]
	for i, p := range parts[1:] {
		// Consecutive wildcards are one wildcard; the last segment is kept
		// even when empty, so that "/a*$" keeps its anchor.
		if p != "" || i == len(parts)-2 {
			segs = append(segs, p)
		}
	}
	return pattern{segs: segs, end: end, compiled: true}
}

func (p *pattern) match(path string) bool {
	first := p.segs[0]
	if !strings.HasPrefix(path, first) {
		return false
	}
	if len(p.segs) == 1 {
		return !p.end || len(path) == len(first)
	}
	pos := len(first)
	last := p.segs[len(p.segs)-1]
	for _, s := range p.segs[1 : len(p.segs)-1] {
		i := strings.Index(path[pos:], s)
		if i < 0 {
			return false
		}
		pos += i + len(s)
	}
	if p.end {
		return len(path)-len(last) >= pos && strings.HasSuffix(path, last)
	}
	return strings.Contains(path[pos:], last)
}

const upperhex = "0123456789ABCDEF"

// normalize percent-encodes a path or pattern the same way on both sides
// of a match (RFC 9309 §2.2.2): escapes are upper-cased, escapes of
// unreserved characters are decoded, a '%' that starts no escape becomes
// "%25", and bytes that cannot appear in a URI (controls, space, non-ASCII
// and "<>\"\\^`{|}") are encoded. In a URL, '*' and '$' are literal, so
// they are encoded as "%2A" and "%24" to match patterns that encode them;
// in a pattern, a '$' that is not the trailing anchor is literal too.
func normalize(s string, isURL bool) string {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; !plain[c] && (c != '%' || escapeChanges(s, i)) && (c != '*' || isURL) {
			break
		}
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case plain[c], c == '*' && !isURL:
			b.WriteByte(c)
		case c == '%' && i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]):
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if unreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(upperhex[v>>4])
				b.WriteByte(upperhex[v&15])
			}
			i += 2
		default:
			b.WriteByte('%')
			b.WriteByte(upperhex[c>>4])
			b.WriteByte(upperhex[c&15])
		}
	}
	return b.String()
}

// plain marks the bytes that normalize copies as they are in both paths
// and patterns: all but '%', '$', '*' and the bytes that must be encoded.
var plain = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c != '%' && c != '$' && c != '*' && !mustEncode(byte(c))
	}
	return t
}()

// escapeChanges reports whether normalize would rewrite the '%' at s[i]:
// it starts no escape, or an escape that is lower-case or of an
// unreserved character.
func escapeChanges(s string, i int) bool {
	if i+2 >= len(s) || !ishex(s[i+1]) || !ishex(s[i+2]) {
		return true
	}
	v := unhex(s[i+1])<<4 | unhex(s[i+2])
	return unreserved(v) || 'a' <= s[i+1] || 'a' <= s[i+2]
}

func mustEncode(c byte) bool {
	if c <= ' ' || c >= 0x7f {
		return true
	}
	switch c {
	case '"', '<', '>', '\\', '^', '`', '{', '|', '}':
		return true
	}
	return false
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
