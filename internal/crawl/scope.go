package crawl

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/heedhq/heed/internal/polite"
)

// Normalize returns the form of a URL that a crawl compares and fetches:
// scheme and host lower-cased, the default port and the fragment dropped,
// dot segments resolved, an empty path made "/". The query is kept as
// written. Only http and https URLs normalize.
func Normalize(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", err
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL", raw)
	}
	if u.Host = polite.HostKey(u); u.Host == "" || strings.HasPrefix(u.Host, ":") {
		// A host of dots alone ("http://.") is none.
		return "", fmt.Errorf("%q names no host", raw)
	}
	u.User = nil
	u.Fragment, u.RawFragment = "", ""
	// Escapes of unreserved characters are decoded and the others
	// upper-cased, so that "%2e%2e" is the ".." it means, and "%7e" the
	// "~"; then resolving the empty reference removes "." and ".."
	// segments.
	if p := normalEscapes(u.EscapedPath()); p != u.EscapedPath() {
		np, err := url.PathUnescape(p)
		if err != nil {
			return "", err
		}
		u.Path, u.RawPath = np, p
	}
	u = u.ResolveReference(&url.URL{})
	if u.Path == "" {
		u.Path = "/"
	}
	u.RawQuery = escapeQuery(u.RawQuery)
	return u.String(), nil
}

// escapeQuery percent-encodes what a query may not carry as it is in a
// request line: controls, a space, the bytes past ASCII, and those WHATWG's
// URL parser escapes in the query of an http(s) URL (" ' < >). A link's
// query with a space in it is sent as %20, as a browser sends it, and
// never prints as words on a line of heed's.
func escapeQuery(q string) string {
	const hex = "0123456789ABCDEF"
	escape := func(c byte) bool {
		return c <= ' ' || c >= 0x7f || c == '"' || c == '\'' || c == '<' || c == '>'
	}
	first := 0
	for first < len(q) && !escape(q[first]) {
		first++
	}
	if first == len(q) {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	b.WriteString(q[:first])
	for i := first; i < len(q); i++ {
		if c := q[i]; escape(c) {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// normalEscapes decodes the percent-escapes of unreserved characters in
// an escaped path and upper-cases the rest.
func normalEscapes(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) && ishex(p[i+1]) && ishex(p[i+2]) {
			v := unhex(p[i+1])<<4 | unhex(p[i+2])
			if 'a' <= v && v <= 'z' || 'A' <= v && v <= 'Z' || '0' <= v && v <= '9' || v == '-' || v == '.' || v == '_' || v == '~' {
				b.WriteByte(v)
			} else {
				b.WriteString(strings.ToUpper(p[i : i+3]))
			}
			i += 2
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// scope decides which URLs a crawl may visit: those under the start
// URL's directory (its path up to and including the last "/"), or its
// whole origin when the crawl is widened (Options.WholeSite), and the
// extra hosts allowed, narrowed by include and exclude path globs.
type scope struct {
	start   string          // the start URL: always in scope
	origin  string          // scheme://host[:port] of the start URL
	dir     string          // the path a URL of the origin must start with
	hosts   map[string]bool // further hosts allowed, host[:port], lower-case
	include []glob
	exclude []glob
	// slashed is the start URL's path with a slash added, when the start
	// URL names a page at the root that reads as a directory (/doc): its
	// crawl is the whole site, and the scope says that /doc/ keeps to
	// /doc/.
	slashed string
}

// Dir is the directory of a start URL's path that a crawl from it stays
// within: the path up to and including its last "/" (/py/library/ of
// /py/library/, /doc/ of /doc/intro.html, / of /doc).
func Dir(path string) string {
	return path[:strings.LastIndex(path, "/")+1]
}

// sentPath is u's path as a server is sent it, normalized as Normalize
// does (escapes of unreserved characters decoded, the others
// upper-cased, dot segments resolved): the directory of a crawl is
// compared on it, not on the decoded path, which takes /a%2Fb/ for
// /a/b/, and /py/library/%2e%2e/x (the /py/x a server serves) for a
// page under /py/library/.
func sentPath(u *url.URL) string {
	p := u.EscapedPath()
	if !strings.Contains(p, "%") && !strings.Contains(p, "/.") {
		return p
	}
	n, err := Normalize((&url.URL{Scheme: "http", Host: "h", Path: u.Path, RawPath: u.RawPath}).String())
	if err != nil {
		return p
	}
	nu, err := url.Parse(n)
	if err != nil {
		return p
	}
	return nu.EscapedPath()
}

// glob is a path glob as the user wrote it, and the expression it is
// matched by.
type glob struct {
	text string
	re   *regexp.Regexp
}

// meets reports whether the glob may match a path under dir: its
// literal start (up to its first wildcard) and dir are one a prefix of
// the other.
func (g glob) meets(dir string) bool {
	lit := strings.TrimSpace(g.text)
	if !strings.HasPrefix(lit, "/") {
		lit = "/" + lit
	}
	if i := strings.IndexAny(lit, "*?"); i >= 0 {
		lit = lit[:i]
	}
	return strings.HasPrefix(lit, dir) || strings.HasPrefix(dir, lit)
}

func newScope(start *url.URL, o Options) (*scope, error) {
	s := &scope{start: start.String(), origin: start.Scheme + "://" + start.Host, dir: "/", hosts: map[string]bool{}}
	if p := sentPath(start); !o.WholeSite && strings.HasPrefix(p, "/") {
		s.dir = Dir(p)
		if name := p[len(s.dir):]; s.dir == "/" && name != "" && !strings.Contains(name, ".") {
			s.slashed = p + "/"
		}
	}
	for _, h := range o.AllowHosts {
		s.hosts[strings.ToLower(strings.TrimSpace(h))] = true
	}
	var err error
	if s.include, err = globs(o.Include); err != nil {
		return nil, err
	}
	if s.exclude, err = globs(o.Exclude); err != nil {
		return nil, err
	}
	return s, nil
}

// String says what the scope holds, in a line.
func (s *scope) String() string {
	var b strings.Builder
	if s.dir == "/" {
		b.WriteString("all of " + s.origin)
		if s.slashed != "" {
			b.WriteString(" (" + s.origin + s.slashed + ", with its slash, keeps to " + s.slashed + ")")
		}
	} else {
		b.WriteString(s.origin + s.dir + " and below")
	}
	if len(s.hosts) > 0 {
		hosts := make([]string, 0, len(s.hosts))
		for h := range s.hosts {
			hosts = append(hosts, h)
		}
		sort.Strings(hosts)
		b.WriteString(", and the hosts " + strings.Join(hosts, ", "))
	}
	var inc, exc []string
	for _, g := range s.include {
		inc = append(inc, g.text)
	}
	for _, g := range s.exclude {
		exc = append(exc, g.text)
	}
	if len(inc) > 0 {
		b.WriteString("; paths " + strings.Join(inc, " "))
		// A glob is matched within the directory, not beside it: one
		// that nothing under it can match is said to.
		var outside []string
		for _, g := range s.include {
			if !g.meets(s.dir) {
				outside = append(outside, g.text)
			}
		}
		if len(outside) > 0 {
			b.WriteString(" (nothing under " + s.dir + " matches " + strings.Join(outside, " ") + ")")
		}
	}
	if len(exc) > 0 {
		b.WriteString("; not " + strings.Join(exc, " "))
	}
	return b.String()
}

// narrow reports whether the scope is narrower than its origin.
func (s *scope) narrow() bool { return s.dir != "/" }

// check says why a URL is out of scope, or "" when it is in.
func (s *scope) check(u *url.URL) string {
	if u.String() == s.start {
		return "" // the start URL is in scope whatever the globs say
	}
	origin := u.Scheme+"://"+u.Host == s.origin
	if !origin && !s.hosts[u.Host] {
		return "another origin (" + u.Scheme + "://" + u.Host + ")"
	}
	if origin && s.dir != "/" && !strings.HasPrefix(sentPath(u), s.dir) {
		return "outside " + s.dir + ", the start URL's directory"
	}
	if len(u.Path) > maxPathLen {
		return fmt.Sprintf("a path longer than %d bytes", maxPathLen)
	}
	for _, g := range s.exclude {
		if g.re.MatchString(u.Path) {
			return "excluded by " + g.text
		}
	}
	if len(s.include) == 0 {
		return ""
	}
	for _, g := range s.include {
		if g.re.MatchString(u.Path) {
			return ""
		}
	}
	return "not included"
}

// Bounds of include and exclude globs.
const (
	MaxGlobs     = 32  // include and exclude globs, each
	maxGlobLen   = 256 // bytes in one glob
	maxWildcards = 8   // *, ** and ? in one glob
	maxPathLen   = 2048
)

// globs compiles path globs: "*" is any run within a segment, "**" any
// run across segments, "?" one character; a glob without wildcards is a
// prefix ("/docs/" covers everything under it).
func globs(patterns []string) ([]glob, error) {
	if len(patterns) > MaxGlobs {
		return nil, fmt.Errorf("%d globs; at most %d may be given", len(patterns), MaxGlobs)
	}
	var out []glob
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		text := p
		if p == "" {
			continue
		}
		// Every URL found is matched against every glob: their number,
		// length and wildcards are bounded, so that matching stays cheap
		// whatever a caller (an agent, say) asks for.
		if len(p) > maxGlobLen {
			return nil, fmt.Errorf("glob %.40q…: longer than %d bytes", p, maxGlobLen)
		}
		if n := strings.Count(strings.ReplaceAll(p, "**", "*"), "*") + strings.Count(p, "?"); n > maxWildcards {
			return nil, fmt.Errorf("glob %q: %d wildcards; at most %d", p, n, maxWildcards)
		}
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		var b strings.Builder
		b.WriteString("^")
		for i := 0; i < len(p); i++ {
			switch c := p[i]; {
			case c == '*' && i+1 < len(p) && p[i+1] == '*':
				b.WriteString(".*")
				i++
			case c == '*':
				b.WriteString("[^/]*")
			case c == '?':
				b.WriteString("[^/]")
			default:
				b.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
		if strings.ContainsAny(p, "*?") {
			b.WriteString("$")
		}
		re, err := regexp.Compile(b.String())
		if err != nil {
			return nil, fmt.Errorf("glob %q: %w", p, err)
		}
		out = append(out, glob{text: text, re: re})
	}
	return out, nil
}
