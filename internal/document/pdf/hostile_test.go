package pdf

import (
	"strings"
	"testing"

	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/internal/document/pdf/pdftest"
)

// TestFontEachLetter reads a page of one line whose letters change font
// one by one, so that each letter is a run of text of its own: a page
// made to cost a reader that compares each run with every letter on its
// line. Every letter is read, in work linear in the letters.
func TestFontEachLetter(t *testing.T) {
	const n = 100_000
	var c strings.Builder
	c.WriteString("BT 0 400 Td ")
	for range n / 2 {
		c.WriteString("/F1 1 Tf (a) Tj /F2 1 Tf (b) Tj ")
	}
	c.WriteString("ET")
	doc, err := Read(pdftest.Pages(c.String()), extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(doc.Markdown, "a") + strings.Count(doc.Markdown, "b"); got < n {
		t.Errorf("%d of %d letters read", got, n)
	}
}
