package textdiff

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
)

// patch applies a unified diff to old as a strict patch tool does: each
// hunk where its header says, its context and removed lines checked
// against old, its counts against its lines.
func patch(old, diff string) (string, error) {
	if diff == "" {
		return old, nil
	}
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return "", fmt.Errorf("no header: %q", diff)
	}
	src := strings.SplitAfter(old, "\n")
	if src[len(src)-1] == "" {
		src = src[:len(src)-1]
	}
	var out []string
	at := 0
	header := regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n$`)
	lines = lines[2:]
	for len(lines) > 0 && lines[0] != "" {
		m := header.FindStringSubmatch(lines[0])
		if m == nil {
			return "", fmt.Errorf("not a hunk header: %q", lines[0])
		}
		count := func(s string) int {
			if s == "" {
				return 1
			}
			n, _ := strconv.Atoi(s)
			return n
		}
		from, fromN, to, toN := count(m[1]), count(m[2]), count(m[3]), count(m[4])
		start := from - 1
		if fromN == 0 {
			start = from
		}
		if start < at || start > len(src) {
			return "", fmt.Errorf("hunk %q out of order", lines[0])
		}
		out = append(out, src[at:start]...)
		at = start
		if want := to - 1; toN == 0 && len(out) != to || toN > 0 && len(out) != want {
			return "", fmt.Errorf("hunk %q: the new text is at line %d", lines[0], len(out)+1)
		}
		lines = lines[1:]
		gotFrom, gotTo := 0, 0
		for len(lines) > 0 && lines[0] != "" && lines[0][0] != '@' {
			kind, text := lines[0][0], lines[0][1:]
			lines = lines[1:]
			if len(lines) > 0 && strings.HasPrefix(lines[0], `\ No newline at end of file`) {
				text = strings.TrimSuffix(text, "\n")
				lines = lines[1:]
			}
			switch kind {
			case ' ', '-':
				if at >= len(src) || src[at] != text {
					return "", fmt.Errorf("line %d of old is not %q", at+1, text)
				}
				at++
				gotFrom++
				if kind == ' ' {
					out = append(out, text)
					gotTo++
				}
			case '+':
				out = append(out, text)
				gotTo++
			default:
				return "", fmt.Errorf("line %q in a hunk", kind)
			}
		}
		if gotFrom != fromN || gotTo != toN {
			return "", fmt.Errorf("hunk %q holds %d and %d lines", m[0], gotFrom, gotTo)
		}
	}
	return strings.Join(append(out, src[at:]...), ""), nil
}

func TestLinesKnown(t *testing.T) {
	old := "# Title\n\nOne paragraph.\n\nTwo paragraph.\n\nThree.\n\nFour.\n\nFive.\n\nSix.\n\nSeven.\n\nEight.\n"
	new := "# Title\n\nOne paragraph, changed.\n\nTwo paragraph.\n\nThree.\n\nFour.\n\nFive.\n\nSix.\n\nSeven.\n\nEight.\n\nNine."
	// As diff -u --label old --label new writes it.
	want := `--- old
+++ new
@@ -1,6 +1,6 @@
 # Title
 
-One paragraph.
+One paragraph, changed.
 
 Two paragraph.
 
@@ -15,3 +15,5 @@
 Seven.
 
 Eight.
+
+Nine.
\ No newline at end of file
`
	if got := Lines("old", "new", old, new); got != want {
		t.Fatalf("Lines gave\n%s\nwant\n%s", got, want)
	}
	if got := Lines("old", "new", old, old); got != "" {
		t.Fatalf("Lines of equal texts = %q", got)
	}
	// From nothing and to nothing.
	if got, want := Lines("a", "b", "", "x\ny\n"), "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n"; got != want {
		t.Fatalf("Lines from empty = %q, want %q", got, want)
	}
	if got, want := Lines("a", "b", "x\n", ""), "--- a\n+++ b\n@@ -1 +0,0 @@\n-x\n"; got != want {
		t.Fatalf("Lines to empty = %q, want %q", got, want)
	}
}

// TestLinesParagraphThenBlank: a paragraph added between others shows
// as the paragraph and the blank line after it.
func TestLinesParagraphThenBlank(t *testing.T) {
	got := Lines("a", "b", "A\n\nB\n\nC\n", "A\n\nB\n\nNew\n\nC\n")
	if !strings.Contains(got, "+New\n+\n") {
		t.Fatalf("Lines = %q, want the paragraph added before its blank line", got)
	}
}

// randomText is text of words and spaces from a vocabulary that holds
// marks, backslashes, line breaks, Chinese, and bytes that are not
// UTF-8.
func randomText(r *rand.Rand, n int) string {
	vocab := []string{
		"a", "b", "word", "the", "**bold**", "[link](u)", "[-", "-]", "{+", "+}", "\\", "[", "]", "-", "+",
		"{", "}", "[\\-", "-\\\\]", " ", " ", " ", "  ", "\n", "\n", "\n\n", "\t", "\r\n", "\u00a0", "東", "京",
		"ー", "é", "\xff", "\xe6\x9d", "## ", "- ",
	}
	var b strings.Builder
	for range n {
		b.WriteString(vocab[r.IntN(len(vocab))])
	}
	return b.String()
}

// mutateText changes about changes places of s: cuts, copies and new
// text.
func mutateText(r *rand.Rand, s string, changes int) string {
	for range changes {
		i := r.IntN(len(s) + 1)
		j := min(len(s), i+r.IntN(12))
		switch r.IntN(3) {
		case 0:
			s = s[:i] + s[j:]
		case 1:
			s = s[:i] + randomText(r, 1+r.IntN(3)) + s[j:]
		default:
			s = s[:i] + randomText(r, 1+r.IntN(3)) + s[i:]
		}
	}
	return s
}

// TestDiffsReadBack: on random pairs of texts, related and not, the
// unified diff patches old into new, and the edits beneath it apply as
// go-udiff applies edits.
func TestDiffsReadBack(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for n := range 3000 {
		old := randomText(r, r.IntN(60))
		new := randomText(r, r.IntN(60))
		if n%3 != 0 {
			new = mutateText(r, old, 1+r.IntN(6))
		}
		d := Lines("old", "new", old, new)
		if got, err := patch(old, d); err != nil || got != new {
			t.Fatalf("Lines(%q, %q) =\n%s\npatches old into %q, %v", old, new, d, got, err)
		}
		la, lb := cut(old, nextLine), cut(new, nextLine)
		var edits []udiff.Edit
		for _, e := range lineEdits(la, lb) {
			edits = append(edits, udiff.Edit{Start: la.off[e.a0], End: la.off[e.a1], New: lb.text(e.b0, e.b1)})
		}
		if got, err := udiff.Apply(old, edits); err != nil || got != new {
			t.Fatalf("the line edits of %q, %q apply as %q, %v", old, new, got, err)
		}
	}
}
