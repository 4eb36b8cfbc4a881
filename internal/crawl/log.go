package crawl

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"golang.org/x/net/idna"
)

// SourceName names a source after its start URL's host: "docs.example.com"
// for https://www.docs.example.com/guide/, "127.0.0.1_8080" for a port,
// "xn--bcher-kva.example" for bücher.example. The name is always one a
// source may have (letters, digits, '.', '_' and '-', at most 100
// bytes), or "web" when the URL has no host.
func SourceName(start string) string {
	n, err := Normalize(start)
	if err != nil {
		return "web"
	}
	u, err := url.Parse(n)
	if err != nil || u.Hostname() == "" {
		return "web"
	}
	host := strings.TrimPrefix(u.Hostname(), "www.")
	if ascii, err := idna.Lookup.ToASCII(host); err == nil {
		host = ascii
	}
	if p := u.Port(); p != "" {
		host += "_" + p
	}
	name := strings.Map(func(r rune) rune {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, strings.ReplaceAll(host, ":", "_"))
	name = strings.TrimLeft(name, ".")
	if len(name) > 100 {
		name = name[:100]
	}
	if name == "" {
		return "web"
	}
	return name
}

// Text says what a crawl's bounds left alone, or "" for nothing.
func (l Left) Text() string {
	var parts []string
	if l.Sitemaps == 1 {
		parts = append(parts, "1 sitemap not read to its end")
	} else if l.Sitemaps > 1 {
		parts = append(parts, fmt.Sprintf("%d sitemaps not read to their end", l.Sitemaps))
	}
	if l.URLs > 0 {
		parts = append(parts, fmt.Sprintf("%d URLs found and not kept", l.URLs))
	}
	if len(parts) == 0 {
		return ""
	}
	return "left by the crawl's bounds: " + strings.Join(parts, ", ")
}

// Text says what a crawl came to, in two lines, and a third for what its
// bounds left.
func (s *Summary) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d stored (%d new, %d changed), %d unchanged, ", s.Stored, s.New, s.Changed, s.Unchanged)
	if s.Removed > 0 {
		fmt.Fprintf(&b, "%d removed, ", s.Removed)
	}
	fmt.Fprintf(&b, "%d failed", s.Failed)
	skipped := 0
	var reasons []string
	for r, n := range s.Skipped {
		skipped += n
		reasons = append(reasons, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(reasons)
	if skipped > 0 {
		fmt.Fprintf(&b, ", %d skipped (%s)", skipped, strings.Join(reasons, ", "))
	}
	fmt.Fprintf(&b, " in %s\n", s.Elapsed.Round(time.Millisecond))
	if t := s.Left.Text(); t != "" {
		fmt.Fprintf(&b, "%s\n", t)
	}
	fmt.Fprintf(&b, "%s\n", s.Robots)
	return b.String()
}

// MaxLogged is how many skipped and failed URLs a crawl's log entry lists.
const MaxLogged = 500

// Logged reports whether a crawl's log entry lists the event: URLs that
// failed, and URLs skipped for what they or their site say (robots.txt,
// a signal, a directive) or are (a duplicate, not HTML). URLs out of
// scope, and those the crawl's bounds or its end left unvisited (a
// limit, the deadline, an interrupt), are counted in the summary only: a
// crawl at its limit leaves thousands.
func (e Event) Logged() bool {
	if e.Kind == Failed {
		return true
	}
	switch e.Reason {
	case ReasonScope, ReasonLimit, ReasonDeadline, ReasonInterrupted, ReasonStopped, ReasonCancelled:
		return false
	}
	return e.Kind == Skipped
}

// LogEntry is a crawl's entry in the stash's log: when, what, the summary,
// and the URLs it skipped or failed that Event.Logged lists.
func LogEntry(o Options, s *Summary, skips []Event, at time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s: crawl of %s into %s\n\n", at.UTC().Format(time.RFC3339), o.Start, o.Source)
	b.WriteString(s.Text())
	if len(skips) > 0 {
		b.WriteString("\n")
		for _, ev := range skips {
			fmt.Fprintf(&b, "- %s %s: %s: %s\n", ev.Kind, ev.URL, ev.Reason, ev.Detail)
		}
		if len(skips) == MaxLogged {
			fmt.Fprintf(&b, "- (only the first %d are listed)\n", MaxLogged)
		}
	}
	return b.String()
}
