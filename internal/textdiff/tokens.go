package textdiff

import "strings"

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
