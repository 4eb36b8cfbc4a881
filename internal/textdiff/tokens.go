package textdiff

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// seq is a text cut into tokens: token i is s[off[i]:off[i+1]]. It
// holds no strings of its own, so a long text's tokens cost the
// collector nothing to scan.
type seq struct {
	s   string
	off []int
}

// len is the number of tokens.
func (q seq) len() int { return len(q.off) - 1 }

// at is token i.
func (q seq) at(i int) string { return q.s[q.off[i]:q.off[i+1]] }

// text is the text of tokens [i, j).
func (q seq) text(i, j int) string { return q.s[q.off[i]:q.off[j]] }

// sub is tokens [i, j), numbered from 0.
func (q seq) sub(i, j int) seq { return seq{q.s, q.off[i : j+1]} }

// cut makes the tokens of s from the ends of its tokens: next(s, i)
// returns where the token that begins at i ends. It counts them first,
// so that a text of many short tokens leaves no garbage of a growing
// array, which would take several times the array's size.
func cut(s string, next func(string, int) int) seq {
	n := 0
	for i := 0; i < len(s); i = next(s, i) {
		n++
	}
	q := seq{s: s, off: make([]int, 1, n+1)}
	for i := 0; i < len(s); {
		i = next(s, i)
		q.off = append(q.off, i)
	}
	return q
}

// nextLine ends a line after its line break, or at the end of the text.
func nextLine(s string, i int) int {
	if n := strings.IndexByte(s[i:], '\n'); n >= 0 {
		return i + n + 1
	}
	return len(s)
}

// The tokens of a word diff, and the words that Count counts:
//
//   - a word is a run of characters that are not white space, as
//     unicode.IsSpace has it, and so keeps its punctuation and its
//     Markdown marks ("**bold**", "[text](url)" are one word each): a
//     change to a link's target, or to emphasis, changes the word;
//   - a character of Chinese or Japanese script (Han, Hiragana,
//     Katakana) is a word by itself, as those scripts put no space
//     between words: one changed character is one word, not the whole
//     sentence around it (Korean, written with spaces, is not cut);
//   - between words, each line break is a token, and each run of other
//     white space is one, so a diff keeps lines and spacing exactly but
//     counts neither.
//
// Bytes that are not UTF-8 are read one to a character, as parts of
// words; no token ends inside a character.

// The kinds of character a word diff's tokens are made of.
const (
	inWord    uint8 = iota // part of a word
	space                  // white space, but a line break
	lineBreak              // a token by itself
	alone                  // a character of an unspaced script: a word by itself
)

// asciiKind is the kind of each ASCII character.
var asciiKind = func() (k [utf8.RuneSelf]uint8) {
	for _, c := range "\t\v\f\r " {
		k[c] = space
	}
	k['\n'] = lineBreak
	return k
}()

// kind returns the kind of the character at s[i] and its length.
func kind(s string, i int) (uint8, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiKind[c], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	switch {
	case unicode.IsSpace(r):
		return space, n
	case unspaced(r):
		return alone, n
	}
	return inWord, n
}

// nextWord ends the token that begins at i.
func nextWord(s string, i int) int {
	k, n := kind(s, i)
	if k == lineBreak || k == alone {
		return i + n
	}
	for i += n; i < len(s); i += n {
		if c := s[i]; c < utf8.RuneSelf { // the common case, inline
			if asciiKind[c] != k {
				break
			}
			n = 1
			continue
		}
		var next uint8
		if next, n = kind(s, i); next != k {
			break
		}
	}
	return i
}

// unspaced reports whether r is of a script written without spaces
// between words, whose characters are words by themselves here.
func unspaced(r rune) bool {
	return r >= 0x2e80 && (unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー')
}

// isWord reports whether token t is a word, not white space.
func isWord(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	return !unicode.IsSpace(r)
}

// words counts the words among tokens [i, j).
func (q seq) words(i, j int) int {
	n := 0
	for k := i; k < j; k++ {
		if isWord(q.at(k)) {
			n++
		}
	}
	return n
}
