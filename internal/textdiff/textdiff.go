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
