package textdiff

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

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

// unescape undoes escape: a mark's two characters with backslashes
// between them lose one.
func unescape(s string) string {
	var b strings.Builder
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
		if j < len(s) && s[j] == c && j > i+1 {
			b.WriteString(s[start : i+1])
			start = i + 2
			i = j - 1
		}
	}
	b.WriteString(s[start:])
	return b.String()
}

// sides reads a word diff back: the old text (without the {+…+} parts)
// and the new (without the [-…-] parts), each part unescaped.
func sides(d string) (old, new string, err error) {
	var o, n strings.Builder
	for d != "" {
		i, j := strings.Index(d, delOpen), strings.Index(d, insOpen)
		if i < 0 || j >= 0 && j < i {
			i = j
		}
		if i < 0 {
			i = len(d)
		}
		same := unescape(d[:i])
		o.WriteString(same)
		n.WriteString(same)
		if d = d[i:]; d == "" {
			break
		}
		to, end := &o, delClose
		if strings.HasPrefix(d, insOpen) {
			to, end = &n, insClose
		}
		k := strings.Index(d[2:], end)
		if k <= 0 {
			return "", "", fmt.Errorf("a change is not closed or is empty: %q", d)
		}
		to.WriteString(unescape(d[2 : 2+k]))
		d = d[2+k+2:]
	}
	return o.String(), n.String(), nil
}

// wordsAdded and wordsRemoved count the words in a word diff's parts.
func wordsIn(d, open, close string) int {
	n := 0
	for {
		i := strings.Index(d, open)
		if i < 0 {
			return n
		}
		k := strings.Index(d[i+2:], close)
		part := unescape(d[i+2 : i+2+k])
		ts := cut(part, nextWord)
		n += ts.words(0, ts.len())
		d = d[i+2+k+2:]
	}
}

// checkWords fails t unless the word diff of old and new reads back as
// them, and its counts agree with Count.
func checkWords(t testing.TB, old, new string) string {
	t.Helper()
	d := Words(old, new)
	o, n, err := sides(d)
	if err != nil || o != old || n != new {
		t.Fatalf("Words(%q, %q) = %q reads back as %q, %q, %v", old, new, d, o, n, err)
	}
	added, removed := Count(old, new)
	if a, r := wordsIn(d, insOpen, insClose), wordsIn(d, delOpen, delClose); a != added || r != removed {
		t.Fatalf("Words(%q, %q) = %q adds %d words and removes %d; Count says %d and %d", old, new, d, a, r, added, removed)
	}
	if old == new && (added != 0 || removed != 0) {
		t.Fatalf("Count(%q, itself) = %d, %d", old, added, removed)
	}
	return d
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

// TestDiffsReadBack: on random pairs of texts, related and not, the word
// diff reads back as both, its parts count as Count does, the unified
// diff patches old into new, and the edits beneath it apply as go-udiff
// applies edits.
func TestDiffsReadBack(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for n := range 3000 {
		old := randomText(r, r.IntN(60))
		new := randomText(r, r.IntN(60))
		if n%3 != 0 {
			new = mutateText(r, old, 1+r.IntN(6))
		}
		checkWords(t, old, new)
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

func TestWordsKnown(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{"the cat sat", "the cat sat", "the cat sat"},
		{"the cat sat", "the dog sat", "the [-cat-]{+dog+} sat"},
		{"the cat sat on the mat", "the big dog sat on a mat", "the [-cat-]{+big dog+} sat on [-the-]{+a+} mat"},
		// Changes with only spaces between them on a line are one.
		{"x old words here y", "x new text there y", "x [-old words here-]{+new text there+} y"},
		// A word removed takes the space after it, not the one before.
		{"x a y", "x y", "x [-a -]y"},
		{"x y", "x a y", "x {+a +}y"},
		// Each line's changes are marked on it.
		{"one two\nthree four\n", "one 2\nthree 4\n", "one [-two-]{+2+}\nthree [-four-]{+4+}\n"},
		// A line removed leaves the next line clean.
		{"a\nb\nc\n", "a\nc\n", "a[-\nb-]\nc\n"},
		{"a\nc\n", "a\nb\nc\n", "a{+\nb+}\nc\n"},
		// Spacing is kept exactly.
		{"a b", "a  b", "a[- -]{+  +}b"},
		{"", "new", "{+new+}"},
		{"old", "", "[-old-]"},
		// Markdown marks are part of their word.
		{"a **bold** move", "a bold move", "a [-**bold**-]{+bold+} move"},
		// A character of Chinese is a word: one changes, not the line.
		{"東京に行く", "東京で行く", "東京[-に-]{+で+}行く"},
		// Marks in the text are escaped.
		{"[-x-] {+y+}", "[-x-] {+z+}", "[\\-x-\\] [-{\\+y+\\}-]{+{\\+z+\\}+}"},
	} {
		if got := checkWords(t, c.old, c.new); got != c.want {
			t.Errorf("Words(%q, %q) = %q, want %q", c.old, c.new, got, c.want)
		}
	}
}

func TestCountKnown(t *testing.T) {
	for _, c := range []struct {
		old, new       string
		added, removed int
	}{
		{"same words", "same words", 0, 0},
		{"", "three new words", 3, 0},
		{"three old words", "", 0, 3},
		{"the cat sat", "the dog sat", 1, 1},
		{"the cat sat", "the big black cat sat down", 3, 0},
		{"one two three four", "one four", 0, 2},
		// Spacing and line breaks are no words.
		{"a b\nc", "a  b\n\nc\n", 0, 0},
		// Markdown marks change their word; punctuation is part of one.
		{"see [the docs](a) now.", "see [the docs](b) now!", 2, 2},
		{"東京に行く", "東京で行く", 1, 1},
		{"東京に行く", "東京に来る", 2, 2},
		{"東京", "大阪の東京", 3, 0},
	} {
		added, removed := Count(c.old, c.new)
		if added != c.added || removed != c.removed {
			t.Errorf("Count(%q, %q) = %d, %d; want %d, %d", c.old, c.new, added, removed, c.added, c.removed)
		}
	}
}

// TestWordsKeepUTF8: a diff of UTF-8 texts is UTF-8, however their
// characters fall, and bytes that are not UTF-8 pass through whole.
func TestWordsKeepUTF8(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	chars := []string{"é", "東", "京", "ー", "😀", " ", "\n", "a", "[", "-", "]", "\u00a0", "\u3000"}
	for range 2000 {
		var a, b strings.Builder
		for range r.IntN(30) {
			a.WriteString(chars[r.IntN(len(chars))])
		}
		for range r.IntN(30) {
			b.WriteString(chars[r.IntN(len(chars))])
		}
		d := checkWords(t, a.String(), b.String())
		if !utf8.ValidString(d) {
			t.Fatalf("Words(%q, %q) = %q is not UTF-8", a.String(), b.String(), d)
		}
	}
	checkWords(t, "\xe6\x9d\xb1\xe4", "\xe6\x9d\xb1\xe4\xba")
	checkWords(t, "a \xff b", "a \xfe b")
}

// TestWordsLocal: a word is never matched across lines that did not
// change: the change stays on its line.
func TestWordsLocal(t *testing.T) {
	old := "the first line\nkept as it is\nthe last line\n"
	new := "first line\nkept as it is\nthe the last line\n"
	if got, want := Words(old, new), "[-the -]first line\nkept as it is\nthe {+the +}last line\n"; got != want {
		t.Fatalf("Words = %q, want %q", got, want)
	}
}

// TestWordsBounded: past the budget, the word diff still reads back.
func TestWordsBounded(t *testing.T) {
	setBounds(t, 100, 0, 4)
	r := rand.New(rand.NewPCG(13, 14))
	for range 500 {
		old := randomText(r, r.IntN(200))
		checkWords(t, old, mutateText(r, old, 10))
	}
}
