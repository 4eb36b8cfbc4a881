package source

import (
	"net/url"
	"strings"
	"time"
)

// Escape keeps text from reading as Markdown structure when written as
// a paragraph: line endings ("\r\n" and a bare "\r", which CommonMark
// reads as one) become "\n"; link brackets, "<" and "\" are escaped;
// each line but the first loses its leading white space (which could make
// it code); and each has a leading block marker escaped: "#", ">", "-", "+", "*", "_", "=",
// "`", "~", "|" and a number before "." or ")", so that no line starts a
// heading, a quote, a list, a fence or a thematic break, or underlines
// the line before it into a heading. Invalid UTF-8 becomes U+FFFD.
func Escape(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(EscapeText(s), "\n")
	for i, l := range lines {
		t := strings.TrimLeft(l, " \t\f\v")
		ws := ""
		if i == 0 {
			ws = l[:len(l)-len(t)] // the text may go on a line begun before it
		}
		switch {
		case t == "":
		case strings.IndexByte("#>-+*_=`~|", t[0]) >= 0:
			t = "\\" + t
		case '0' <= t[0] && t[0] <= '9':
			if n := len(t) - len(strings.TrimLeft(t, "0123456789")); n < len(t) && (t[n] == '.' || t[n] == ')') {
				t = t[:n] + "\\" + t[n:]
			}
		}
		lines[i] = ws + t
	}
	return strings.Join(lines, "\n")
}

// Plain is text as one line of escaped Markdown: white space, line
// endings included, collapsed to one space, then Escape.
func Plain(s string) string { return Escape(OneLine(s)) }

// EscapeText escapes the characters that would open or close a link.
func EscapeText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, "<", `\<`).Replace(s)
}

// LinkDest writes a URL as a Markdown link's destination.
func LinkDest(u string) string {
	return strings.NewReplacer("(", "%28", ")", "%29").Replace(SafeURL(u))
}

// SafeURL is a URL with every byte that is not one a URL is written with
// (letters, digits and -._~:/?#[]@!$&'()*+,;=%) percent-encoded: spaces,
// "<", ">", quotes, backslashes, control bytes and bytes past ASCII. It
// can be written between "<" and ">" as a Markdown autolink, and writing
// it again changes nothing.
func SafeURL(u string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		c := u[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~:/?#[]@!$&'()*+,;=%", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
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
