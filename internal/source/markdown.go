package source

import (
	"net/url"
	"strings"
	"time"
)

// Escape keeps text from reading as Markdown structure when written as
// a paragraph: link brackets and "<" are escaped, and so is a line that
// would start a heading, a quote or a code fence. Invalid UTF-8 becomes
// U+FFFD.
func Escape(s string) string {
	s = EscapeText(strings.ToValidUTF8(s, "\uFFFD"))
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if t := strings.TrimLeft(l, " "); strings.HasPrefix(t, "#") || strings.HasPrefix(t, ">") || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			lines[i] = "\\" + t
		}
	}
	return strings.Join(lines, "\n")
}

// EscapeText escapes the characters that would open or close a link.
func EscapeText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, "<", `\<`).Replace(s)
}

// LinkDest writes a URL as a Markdown link's destination.
func LinkDest(u string) string {
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E").Replace(u)
}

// HTTPURL returns s if it is an absolute http(s) URL, else "".
func HTTPURL(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

// ISODate writes the first of dates that parses as RFC 3339 as ISO 8601
// in UTC, or "".
func ISODate(dates ...string) string {
	for _, d := range dates {
		if t, err := time.Parse(time.RFC3339Nano, d); err == nil {
			return t.UTC().Format(time.RFC3339)
		}
	}
	return ""
}

// Truncate cuts s to n bytes at most, on a character boundary, marking
// the cut with an ellipsis.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
