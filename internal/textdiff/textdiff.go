package textdiff

import (
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// Context is the number of unchanged lines Lines shows around a change,
// as diff -u does.
const Context = 3

// Lines returns a unified diff of old and new by line, as diff -u writes
// one, with Context lines of context around each change and the labels
// oldLabel and newLabel in its header; "" when the texts are equal. A
// text that does not end in a line break is marked so ("\ No newline at
// end of file"), and a patch tool applying the diff to old gives new.
func Lines(oldLabel, newLabel, old, new string) string {
	la, lb := cut(old, nextLine), cut(new, nextLine)
	edits := lineEdits(la, lb)
	if len(edits) == 0 {
		return ""
	}
	u := udiff.UnifiedDiff{From: oldLabel, To: newLabel}
	for i := 0; i < len(edits); {
		// A hunk holds the changes less than two contexts apart.
		j := i
		for j+1 < len(edits) && edits[j+1].a0-edits[j].a1 <= 2*Context {
			j++
		}
		first, last := edits[i], edits[j]
		from := max(0, first.a0-Context)
		h := &udiff.Hunk{FromLine: from + 1, ToLine: first.b0 - (first.a0 - from) + 1}
		at := from
		for _, e := range edits[i : j+1] {
			h.Lines = appendLines(h.Lines, udiff.Equal, la, at, e.a0)
			h.Lines = appendLines(h.Lines, udiff.Delete, la, e.a0, e.a1)
			h.Lines = appendLines(h.Lines, udiff.Insert, lb, e.b0, e.b1)
			at = e.a1
		}
		h.Lines = appendLines(h.Lines, udiff.Equal, la, at, min(la.len(), last.a1+Context))
		u.Hunks = append(u.Hunks, h)
		i = j + 1
	}
	return u.String()
}

// appendLines appends lines [i, j) of q to ls as lines of kind.
func appendLines(ls []udiff.Line, kind udiff.OpKind, q seq, i, j int) []udiff.Line {
	for k := i; k < j; k++ {
		ls = append(ls, udiff.Line{Kind: kind, Content: q.at(k)})
	}
	return ls
}

// lineEdits compares two texts cut in lines.
func lineEdits(la, lb seq) []edit {
	edits := compare(la, lb, newBudget(la.len()+lb.len()))
	return slide(edits, la, lb, lineScore)
}

// lineScore prefers a run of lines added or removed, side[s0:s1], that
// begins with a line of text and ends with a blank one: a paragraph and
// the blank line after it, rather than the blank line before it and the
// paragraph.
func lineScore(side seq, s0, s1 int) int {
	score := 0
	if !blank(side.at(s0)) {
		score++
	}
	if blank(side.at(s1 - 1)) {
		score++
	}
	return score
}

func blank(line string) bool { return strings.TrimSpace(line) == "" }

// The marks of a word diff.
const (
	delOpen, delClose = "[-", "-]"
	insOpen, insClose = "{+", "+}"
)

// Words returns a word diff of old and new: their text as it is where
// they agree, and where they differ the words removed as [-removed
// words-] and those added as {+added words+}, the removed first, as git
// diff --word-diff=plain writes them. Line breaks and spacing are kept:
// a change that takes in a line break holds it between its marks, and
// changes on one line with only spaces between them are one change. When
// the texts are equal it is the text itself.
//
// Words are as Count has them. Lines are compared first, then the words
// of the lines that changed, so a word that stayed in an unchanged line
// is never matched with one in a changed paragraph far away.
//
// The diff can be read back exactly: without its [-…-] parts and the
// marks of its {+…+} parts it is new, and without its {+…+} parts and
// the marks of the others it is old. For that, text that would read as
// a mark is escaped: where one of [- -] {+ +} is written in old or new,
// with any number of backslashes between its two characters, one more
// backslash goes between them ("[-" is written "[\-", "+\}" is written
// "+\\}"); nothing else is changed.
func Words(old, new string) string {
	ta, tb, edits := wordEdits(old, new)
	var b strings.Builder
	b.Grow(len(old) + len(new)/4)
	at := 0
	for _, e := range edits {
		escape(&b, ta.text(at, e.a0))
		if e.a0 < e.a1 {
			b.WriteString(delOpen)
			escape(&b, ta.text(e.a0, e.a1))
			b.WriteString(delClose)
		}
		if e.b0 < e.b1 {
			b.WriteString(insOpen)
			escape(&b, tb.text(e.b0, e.b1))
			b.WriteString(insClose)
		}
		at = e.a1
	}
	escape(&b, ta.text(at, ta.len()))
	return b.String()
}

// Count returns how many words were added to old and removed from it to
// make new, as Words finds them. A word is a run of characters that are
// not white space, punctuation and Markdown marks included, or a single
// character of Chinese or Japanese script; a changed word is one removed
// and one added. Past the bound on a comparison's work (see the package
// doc) the counts can be larger than the least.
func Count(old, new string) (added, removed int) {
	ta, tb, edits := wordEdits(old, new)
	for _, e := range edits {
		removed += ta.words(e.a0, e.a1)
		added += tb.words(e.b0, e.b1)
	}
	return added, removed
}

// wordEdits compares two texts by line, then the lines that changed by
// word, and returns the edits of their tokens.
func wordEdits(old, new string) (ta, tb seq, edits []edit) {
	ta, tb = cut(old, nextWord), cut(new, nextWord)
	sa, sb := lineStarts(ta), lineStarts(tb)
	la, lb := seq{old, make([]int, len(sa))}, seq{new, make([]int, len(sb))}
	for i, t := range sa {
		la.off[i] = ta.off[t]
	}
	for i, t := range sb {
		lb.off[i] = tb.off[t]
	}
	bud := newBudget(ta.len() + tb.len())
	for _, l := range compare(la, lb, bud) {
		a0, a1, b0, b1 := sa[l.a0], sa[l.a1], sb[l.b0], sb[l.b1]
		if a0 == a1 || b0 == b1 {
			edits = append(edits, edit{a0, a1, b0, b1})
			continue
		}
		sub := compare(ta.sub(a0, a1), tb.sub(b0, b1), bud)
		for i := range sub {
			sub[i] = edit{sub[i].a0 + a0, sub[i].a1 + a0, sub[i].b0 + b0, sub[i].b1 + b0}
		}
		if edits == nil {
			edits = sub // often the only one: no copy
		} else {
			edits = append(edits, sub...)
		}
	}
	edits = slide(edits, ta, tb, wordScore)
	return ta, tb, joinOnLine(edits, ta)
}

// lineStarts returns the index of the token each line begins with, and
// then the number of tokens.
func lineStarts(q seq) []int {
	starts := make([]int, 1, strings.Count(q.text(0, q.len()), "\n")+2)
	for i := range q.len() {
		if q.off[i+1]-q.off[i] == 1 && q.s[q.off[i]] == '\n' {
			starts = append(starts, i+1)
		}
	}
	if starts[len(starts)-1] != q.len() {
		starts = append(starts, q.len())
	}
	return starts
}

// wordScore prefers a run of tokens added or removed, side[s0:s1], that
// keeps to lines: one that takes whole lines from the line break before
// them, so the line after it begins clean and the marks hang at the ends
// of lines ("a[-\nb-]\nc"); else whole lines from their start
// ("a\n[-b\n-]c"); and then one that begins with a word ("x [-a -]y",
// not "x[- a-] y").
func wordScore(side seq, s0, s1 int) int {
	score := 0
	switch {
	case side.at(s0) == "\n" && (s1 == side.len() || side.at(s1) == "\n"):
		score = 4
	case (s0 == 0 || side.at(s0-1) == "\n") && side.at(s1-1) == "\n":
		score = 2
	}
	if isWord(side.at(s0)) {
		score++
	}
	return score
}

// joinOnLine makes one edit of edits with nothing but spaces between
// them on one line: [-a b-]{+c d+}, not [-a-]{+c+} [-b-]{+d+}.
func joinOnLine(edits []edit, a seq) []edit {
	if len(edits) == 0 {
		return edits
	}
	out := edits[:1]
	for _, e := range edits[1:] {
		last := &out[len(out)-1]
		if spaces(a, last.a1, e.a0) {
			last.a1, last.b1 = e.a1, e.b1
			continue
		}
		out = append(out, e)
	}
	return out
}

// spaces reports whether tokens [i, j) of q are white space without a
// line break.
func spaces(q seq, i, j int) bool {
	for k := i; k < j; k++ {
		if t := q.at(k); isWord(t) || t == "\n" {
			return false
		}
	}
	return true
}

// slide moves each run of tokens only added or only removed along the
// equal tokens around it, where the same tokens make the same change:
// to where it touches the change before or after it, so the two are
// one, or else to the place score likes best, and of equals the last,
// as diff -u has it. A run moves only within the equal tokens on either
// side of it, so the work is linear in the tokens. It reuses edits'
// array.
func slide(edits []edit, a, b seq, score func(side seq, s0, s1 int) int) []edit {
	out := edits[:0] // never ahead of the edit read
	for i, e := range edits {
		if e.a0 == e.a1 || e.b0 == e.b1 {
			// The run's side, where it is, and the equal tokens around
			// it there: [lo, hi).
			side, s0, s1 := a, &e.a0, &e.a1
			if e.a0 == e.a1 {
				side, s0, s1 = b, &e.b0, &e.b1
			}
			lo, hi := 0, side.len()
			if len(out) > 0 {
				lo = out[len(out)-1].a1
				if e.a0 == e.a1 {
					lo = out[len(out)-1].b1
				}
			}
			if i+1 < len(edits) {
				hi = edits[i+1].a0
				if e.a0 == e.a1 {
					hi = edits[i+1].b0
				}
			}
			rank := func() int {
				r := score(side, *s0, *s1)
				if *s0 == lo && len(out) > 0 || *s1 == hi && i+1 < len(edits) {
					r += 1 << 10
				}
				return r
			}
			move := func(by int) { e.a0, e.a1, e.b0, e.b1 = e.a0+by, e.a1+by, e.b0+by, e.b1+by }
			for *s0 > lo && side.at(*s0-1) == side.at(*s1-1) {
				move(-1)
			}
			best, at := rank(), *s0
			for *s1 < hi && side.at(*s0) == side.at(*s1) {
				move(1)
				if r := rank(); r >= best {
					best, at = r, *s0
				}
			}
			move(at - *s0)
		}
		if n := len(out); n > 0 && out[n-1].a1 == e.a0 {
			out[n-1].a1, out[n-1].b1 = e.a1, e.b1
			continue
		}
		out = append(out, e)
	}
	return out
}

// escape writes s to b with a backslash added between the two characters
// of each mark it holds (see Words).
func escape(b *strings.Builder, s string) {
	start := 0
	for i := 0; i < len(s); i++ {
		c := closer(s[i])
		if c == 0 {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] == '\\' {
			j++
		}
		if j < len(s) && s[j] == c {
			b.WriteString(s[start : i+1])
			b.WriteByte('\\')
			start = i + 1
			i = j - 1
		}
	}
	b.WriteString(s[start:])
}

// closer returns the second character of the mark that begins with c, or
// 0.
func closer(c byte) byte {
	switch c {
	case '[':
		return '-'
	case '-':
		return ']'
	case '{':
		return '+'
	case '+':
		return '}'
	}
	return 0
}
