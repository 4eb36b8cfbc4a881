package mdtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The index's tokenizer splits words at spaces and punctuation, which
// makes a run of Chinese or Japanese text, written without spaces, one
// long token that no search for a word inside it matches. So the index
// sees such text one character to a token: a zero-width space goes
// between each character of these scripts and its neighbours, in what is
// indexed and in the query, whose words become phrases of characters. A
// search for 東京 is then the phrase "東 京", which matches the two
// characters side by side anywhere: substring search, as a reader of
// these languages expects.

// ZWSP, a zero-width space, separates the characters of unspaced
// scripts in the index. The tokenizer takes it for a separator (it is no
// letter or number), and snippets remove it.
const ZWSP = '\u200b'

// Barrier is indexed where a run of an unspaced script meets punctuation
// or a line break: the tokenizer keeps it (it is a private-use character,
// which it takes for a letter), so it holds a place between the
// characters on either side, and a phrase does not match across it:
// 北京。大学 is not 北京大学. Queries carry it too, at the same places;
// snippets drop it.
const Barrier = '\ue000'

// unspaced reports whether r belongs to a script written without spaces
// between words (Chinese, Japanese), or, as Korean, with words that take
// their endings attached, where a search must find text inside a run.
// (Scripts whose characters take combining marks, such as Thai, are not
// segmented: the tokenizer would drop the marks.)
func unspaced(r rune) bool {
	return r >= 0x2e80 && (unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r == 'ー') // the katakana length mark is Common, but part of words
}

// segment puts a zero-width space on each side of every character of an
// unspaced script, where it meets anything but a space, and a barrier
// where such a character is followed by anything but a letter or number.
// Text without such characters is returned as it is.
func Segment(s string) string {
	i := strings.IndexFunc(s, unspaced)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/2)
	b.WriteString(s[:i])
	prev, _ := utf8.DecodeLastRuneInString(s[:i])
	prevSolid := i > 0 && solid(prev)
	prevUnspaced := false
	for _, r := range s[i:] {
		u := unspaced(r)
		if prevUnspaced && !IsWordRune(r) {
			b.WriteRune(ZWSP)
			b.WriteRune(Barrier)
			prevSolid = true
		}
		if solid(r) && prevSolid && (u || prevUnspaced) {
			b.WriteRune(ZWSP)
		}
		b.WriteRune(r)
		prevSolid, prevUnspaced = solid(r), u
	}
	return b.String()
}

// solid reports whether r is neither a space nor a zero-width space.
func solid(r rune) bool { return r != ZWSP && !unicode.IsSpace(r) }

// IsWordRune reports whether r is part of a word: a letter, a number or
// the katakana length mark.
func IsWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) || r == 'ー' }

// Body is what a full-text index holds of a snapshot's Markdown, and what
// snippets are cut from: what it says (Said), segmented (Segment).
func Body(markdown string) string { return Segment(Said(markdown)) }

// said is what a snapshot's Markdown says, as the index and snippets see
// it: without its links' and images' targets, [text](target) and
// [text](target "title") read as [text]. A target is where the page
// points, not what it says; targets were a fifth of a page's words,
// mostly the same few (https, www, com), which matched nearly every page.
// A document's page markers (PageMarker) go too. Code (fenced blocks and
// inline spans) is kept whole, as is an escaped "\](" of prose. Time is
// linear in the length; Markdown with neither "](" nor a page marker is
// returned as it is.
func Said(md string) string {
	if !strings.Contains(md, "](") && !strings.Contains(md, "<!-- page ") {
		return md
	}
	var b strings.Builder
	b.Grow(len(md))
	var code fences
	for line := range strings.Lines(md) {
		switch {
		case code.in(line):
			b.WriteString(line)
		case pageOf(line) > 0:
			// A document's page marker says where, not what.
		default:
			saidLine(&b, line)
		}
	}
	return b.String()
}

// fences follows a Markdown text's fenced code blocks, a line at a time.
type fences struct {
	open string // the open block's fence, or ""
}

// in reports whether a line, the next of the text, is code: it opens a
// fenced block, closes one, or is in one. A fence may be indented (in a
// list) or quoted (in a block quote).
func (f *fences) in(line string) bool {
	t := strings.TrimLeft(line, " >")
	if f.open != "" {
		if strings.HasPrefix(t, f.open) && strings.TrimSpace(strings.TrimLeft(t, f.open[:1])) == "" {
			f.open = ""
		}
		return true
	}
	f.open = opensFence(t)
	return f.open != ""
}

// opensFence is the fence that a line opens a code block with: three or
// more backticks or tildes, backticks followed by no other backtick on
// the line (else it starts an inline code span, as heed writes code that
// holds backticks). It is "" for a line that opens none.
func opensFence(t string) string {
	if t == "" || t[0] != '`' && t[0] != '~' {
		return ""
	}
	n := run(t, 0, t[0])
	if n < 3 || t[0] == '`' && strings.IndexByte(t[n:], '`') >= 0 {
		return ""
	}
	return t[:n]
}

// saidLine writes a line of Markdown outside code blocks without its
// link targets.
func saidLine(b *strings.Builder, line string) {
	spans := codeSpans(line)
	titleEnd := strings.LastIndex(line, "\")") // no title ends after it
	for i := 0; i < len(line); {
		switch {
		case line[i] == '`':
			// An inline code span is kept whole; backticks that close
			// none are text.
			n := run(line, i, '`')
			end := spans.close(i, n)
			if end < 0 {
				b.WriteString(line[i : i+n])
				i += n
				continue
			}
			b.WriteString(line[i : end+n])
			i = end + n
		case line[i] == ']' && strings.HasPrefix(line[i+1:], "(") && !escaped(line, i):
			end, title, ok := target(line, i+2, titleEnd)
			if ok {
				// The target goes; a title (an image's caption) is text.
				b.WriteByte(']')
				if title != "" {
					b.WriteString(" " + title)
				}
			} else {
				// No target: what was read holds none either (no ")"
				// nor backtick in it), so it is written as it is, once.
				b.WriteString(line[i:end])
			}
			i = end
		default:
			b.WriteByte(line[i])
			i++
		}
	}
}

// target reads a link's target from line[i:], as heed writes one: a URL
// without spaces, parentheses or backticks (they are escaped), then ")"
// or a quoted title and ")". It returns where the target ends (after its
// ")"), its title with its quotes (or ""), and true; or where reading
// stopped and false. titleEnd is where the line's last `")` is.
func target(line string, i, titleEnd int) (end int, title string, ok bool) {
	for j := i; j < len(line); j++ {
		switch line[j] {
		case ')':
			return j + 1, "", true
		case ' ':
			// A title runs from its quote to the first `")` after it
			// whose quote is not escaped.
			if !strings.HasPrefix(line[j+1:], "\"") || j+1 >= titleEnd {
				return j, "", false
			}
			k := j + 2
			for {
				q := k + strings.Index(line[k:], "\")")
				if !escaped(line, q) || q == titleEnd {
					return q + 2, line[j+1 : q+1], true
				}
				k = q + 1
			}
		case '\t', '\n', '\r', '(', '`', '<', '>':
			return j, "", false
		}
	}
	return len(line), "", false
}

// escaped reports whether line[i] follows an odd run of backslashes.
func escaped(line string, i int) bool {
	n := 0
	for i > 0 && line[i-1] == '\\' {
		n++
		i--
	}
	return n%2 == 1
}

// run is the length of the run of c at line[i:].
func run(line string, i int, c byte) int {
	n := 0
	for i+n < len(line) && line[i+n] == c {
		n++
	}
	return n
}

// backtickRuns are where a line's runs of backticks start, by length,
// each list in order, and how far each has been read: finding a span's
// closing run reads each list once in all, so a line of many unclosed
// runs costs linear time.
type backtickRuns struct {
	at   map[int][]int
	next map[int]int
}

func codeSpans(line string) backtickRuns {
	r := backtickRuns{at: map[int][]int{}, next: map[int]int{}}
	for i := 0; i < len(line); {
		j := strings.IndexByte(line[i:], '`')
		if j < 0 {
			break
		}
		i += j
		n := run(line, i, '`')
		r.at[n] = append(r.at[n], i)
		i += n
	}
	return r
}

// close is where the run of n backticks that closes a span opened at i
// starts, or -1.
func (r backtickRuns) close(i, n int) int {
	l := r.at[n]
	k := r.next[n]
	for k < len(l) && l[k] <= i {
		k++
	}
	if k == len(l) {
		r.next[n] = k
		return -1
	}
	r.next[n] = k + 1
	return l[k]
}
