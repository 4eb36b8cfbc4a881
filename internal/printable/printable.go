package printable

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/heedhq/heed"
)

// Line is s made safe to print as one line: every control character is
// escaped, line breaks and tabs too, as are the bidirectional overrides
// and isolates that reorder what a terminal shows (U+202A–U+202E,
// U+2066–U+2069) and bytes that are not UTF-8.
func Line(s string) string { return escape(s, false) }

// Text is s made safe to print as text of many lines: as Line, but line
// feeds and tabs are kept.
func Text(s string) string { return escape(s, true) }

func escape(s string, lines bool) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafe(r, n, lines) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case unsafe(r, n, lines):
			q := strconv.QuoteRuneToASCII(r) // '\x1b', '\u009b', '\n'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unsafe reports whether the rune r, n bytes long, must be escaped.
func unsafe(r rune, n int, lines bool) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return true // not UTF-8
	case r == '\n' || r == '\t':
		return !lines
	case r < 0x20 || r == 0x7f || 0x80 <= r && r <= 0x9f:
		return true // C0, DEL, C1
	case 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069:
		return true // bidirectional overrides and isolates
	}
	return false
}

// JSON is a line of JSON from encoding/json with the characters it leaves
// as they are and a terminal may act on (DEL, C1, the bidirectional
// overrides and isolates) escaped as \uXXXX: the same JSON value. They
// can only be inside strings, where the escape means the character.
func JSON(b []byte) []byte {
	i := 0
	for i < len(b) {
		if b[i] < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == 0x7f || jsonUnsafe(r) {
			break
		}
		i += n
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if r == 0x7f || jsonUnsafe(r) {
			out = append(out, `\u`...)
			out = append(out, strconv.FormatUint(uint64(r)|0x10000, 16)[1:]...)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

func jsonUnsafe(r rune) bool {
	return 0x80 <= r && r <= 0x9f || 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069
}

// Marked is a line of text from the web, each of its spans (in code
// points) between before and after: the text escaped as Line escapes it,
// the marks the caller's own (a terminal's bold, Markdown's **).
func Marked(text string, spans []heed.Span, before, after string) string {
	var b strings.Builder
	runes := []rune(text)
	at := 0
	for _, sp := range spans {
		if sp.Start < at || sp.End > len(runes) || sp.Start >= sp.End {
			continue
		}
		b.WriteString(Line(string(runes[at:sp.Start])))
		b.WriteString(before + Line(string(runes[sp.Start:sp.End])) + after)
		at = sp.End
	}
	b.WriteString(Line(string(runes[at:])))
	return b.String()
}
