package stash

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

// zwsp separates the characters of unspaced scripts in the index. The
// tokenizer takes it for a separator (it is no letter or number), and
// snippets remove it.
const zwsp = '\u200b'

// barrier is indexed where a run of an unspaced script meets punctuation
// or a line break: the tokenizer keeps it (it is a private-use character,
// which it takes for a letter), so it holds a place between the
// characters on either side, and a phrase does not match across it:
// 北京。大学 is not 北京大学. Queries carry it too, at the same places;
// snippets drop it.
const barrier = '\ue000'

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
func segment(s string) string {
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
		if prevUnspaced && !isWordRune(r) {
			b.WriteRune(zwsp)
			b.WriteRune(barrier)
			prevSolid = true
		}
		if solid(r) && prevSolid && (u || prevUnspaced) {
			b.WriteRune(zwsp)
		}
		b.WriteRune(r)
		prevSolid, prevUnspaced = solid(r), u
	}
	return b.String()
}

// solid reports whether r is neither a space nor a zero-width space.
func solid(r rune) bool { return r != zwsp && !unicode.IsSpace(r) }

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) || r == 'ー' }

// said is what a snapshot's Markdown says, as the index and snippets see
// it: without its links' and images' targets, [text](target) read as
// [text]. A target is where the page points, not what it says; targets
// were a fifth of a page's words, mostly the same few (https, www, com),
// which matched nearly every page. Markdown without a link is returned as
// it is.
func said(md string) string {
	i := strings.Index(md, "](")
	if i < 0 {
		return md
	}
	var b strings.Builder
	b.Grow(len(md))
	rest := md
	for i >= 0 {
		// A target, as heed writes one, runs to a ")" without spaces:
		// the parentheses and spaces in its URL are escaped.
		end := strings.IndexAny(rest[i+2:], ") \t\n")
		if end < 0 || rest[i+2+end] != ')' {
			b.WriteString(rest[:i+2]) // no target: kept as written
			rest = rest[i+2:]
		} else {
			b.WriteString(rest[:i+1])
			rest = rest[i+2+end+1:]
		}
		i = strings.Index(rest, "](")
	}
	b.WriteString(rest)
	return b.String()
}
