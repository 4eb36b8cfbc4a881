package pdf

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/klippa-app/go-pdfium/responses"

	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/internal/document/pdf/pdftest"
)

// TestFontEachLetter reads a page of one line whose letters (x and y,
// which no page marker holds) change font one by one, so that each
// letter is a run of text of its own: a page made to cost a reader that
// compares each run with every letter on its line. Every letter is read,
// in work linear in the letters.
func TestFontEachLetter(t *testing.T) {
	const n = 100_000
	var c strings.Builder
	c.WriteString("BT 0 400 Td ")
	for range n / 2 {
		c.WriteString("/F1 1 Tf (x) Tj /F2 1 Tf (y) Tj ")
	}
	c.WriteString("ET")
	doc, err := Read(pdftest.Pages(c.String()), extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(doc.Markdown, "x") + strings.Count(doc.Markdown, "y"); got != n {
		t.Errorf("%d of %d letters read", got, n)
	}
}

// TestLayoutLongLine lays out a page of one line of 400,000 runs of
// text, the most characters a page may have, each a letter (x or y)
// apart: every run goes on the line, in work linear in the runs (a
// layout that compares each run with the ones before it on its line
// takes minutes for this page, and is past MaxTime's reach).
func TestLayoutLongLine(t *testing.T) {
	const n = maxPageChars
	p := page{width: 612, height: 792, spans: make([]span, n)}
	for i := range p.spans {
		x := float64(i) * 0.5
		p.spans[i] = span{text: "x", x0: x, x1: x + 0.4, top: 400, bottom: 401, size: 1}
		if i%2 == 1 {
			p.spans[i].text, p.spans[i].font = "y", italic
		}
	}
	l := layout{pages: []page{p}}
	md, _, err := l.markdown("")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(md, "x") + strings.Count(md, "y"); got != n {
		t.Errorf("%d of %d letters laid out", got, n)
	}
}

// TestLongRun gathers a page's 400,000 characters of one font on one
// line, as the engine gives them, into one span holding them all, its
// text grown as a builder grows, not copied whole for each character
// (80 GB copied for this page, and seconds between two of MaxTime's
// checks): the allocations are counted, a few for each character at
// most.
func TestLongRun(t *testing.T) {
	const n = maxPageChars
	chars := make([]*responses.GetPageTextStructuredChar, n)
	for i := range chars {
		x := float64(i) * 0.5
		chars[i] = &responses.GetPageTextStructuredChar{Text: "x", PointPosition: responses.CharPosition{Left: x, Right: x + 0.5, Top: 401, Bottom: 400}}
	}
	faceOf := func(int) face { return face{name: "Helvetica", size: 1} }
	var ss []span
	allocs := testing.AllocsPerRun(1, func() { ss = spans(chars, nil, faceOf, 792, nil) })
	if len(ss) != 1 || len(ss[0].text) != n {
		t.Fatalf("%d spans, the first of %d bytes; want one of %d", len(ss), len(ss[0].text), n)
	}
	if allocs > n/100 {
		t.Errorf("%.0f allocations for a span of %d characters", allocs, n)
	}
}

// TestLayoutOutline lays out a page of 20,000 short paragraphs and
// headings under an outline of 10,000 entries (maxBookmarks) leading to
// it, none of which names any of them: each block is looked up among
// the outline's entries for its page, not compared with each (two
// hundred million comparisons, each making two keys, minutes of work
// where no limit is checked).
func TestLayoutOutline(t *testing.T) {
	const blocks = 20_000
	p := page{width: 612, height: 200_000}
	for i := range blocks {
		size := float64(1 + i%2)
		top := 1000 + float64(i)*4
		p.spans = append(p.spans, span{text: fmt.Sprintf("block %d", i), x0: 10, x1: 40, top: top, bottom: top + size, size: size})
	}
	marks := make([]bookmark, maxBookmarks)
	for i := range marks {
		marks[i] = bookmark{title: fmt.Sprintf("entry %d", i), page: 0}
	}
	marks[len(marks)-1].title = "Block 19998"
	l := layout{pages: []page{p}, marks: marks}
	md, _, err := l.markdown("")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(md, "block ") != blocks || !strings.Contains(md, "\n# block 19998\n") {
		t.Errorf("the blocks, and the paragraph the outline names as a heading, not laid out:\n%s", md[max(0, len(md)-300):])
	}
}

// TestHyphenatedBlock joins a block of 100,000 lines, each a word broken
// at its end ("ab-"), into one word, without copying the text so far
// for each line (five billion bytes copied for this block, seconds a
// page in the layout, where no limit is checked): the allocations are
// counted.
func TestHyphenatedBlock(t *testing.T) {
	const n = 100_000
	b := block{lines: make([]line, n)}
	for i := range b.lines {
		b.lines[i] = line{text: "ab-"}
	}
	var text string
	allocs := testing.AllocsPerRun(1, func() { text = b.text() })
	if want := strings.Repeat("ab", n) + "-"; text != want {
		t.Fatalf("%d bytes, want %d: %q...", len(text), len(want), text[:min(20, len(text))])
	}
	if allocs > n/100 {
		t.Errorf("%.0f allocations to join %d lines", allocs, n)
	}
}

// TestBomb reads a page whose content inflates to 2 GiB from 2 MB: the
// engine runs out of its memory (MaxMemoryBytes), and the document is
// refused, saying so, not read as a document without text. It takes the
// engine's memory, and more while it grows: not in -short.
func TestBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("the engine takes all its memory")
	}
	doc, err := Read(pdftest.Bomb(2048), extract.Options{})
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "memory") {
		t.Fatalf("err = %v (doc %+v), want ErrLimit naming memory", err, doc)
	}
}

// TestLinkedLetters lays out a page of 100,000 letters, each a run of
// its own under a link to a 4 KB address: the page's HTML would hold
// the address once a letter, 400 MB of it. The page is refused over a
// limit before its HTML is made, having cost little.
func TestLinkedLetters(t *testing.T) {
	const n = 100_000
	uri := "https://example.com/" + strings.Repeat("a", 4000)
	p := page{width: 612, height: 792, spans: make([]span, n)}
	for i := range p.spans {
		x := float64(i) * 0.5
		p.spans[i] = span{text: "x", x0: x, x1: x + 0.4, top: 400, bottom: 401, size: 1, uri: uri}
		if i%2 == 1 {
			p.spans[i].font = italic
		}
	}
	var err error
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	l := layout{pages: []page{p}}
	_, _, err = l.markdown("")
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "page 1") {
		t.Errorf("err = %v, want ErrLimit naming the page", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 200<<20 {
		t.Errorf("%d MB allocated to lay out %d letters", got>>20, n)
	}
}
