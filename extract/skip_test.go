package extract

import (
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/heedhq/heed/internal/htmltree"
)

// extractMarkdown extracts a page at a URL and fails the test on an error.
func extractMarkdown(t *testing.T, page, pageURL string) string {
	t.Helper()
	doc, err := Extract(strings.NewReader(page), Options{URL: pageURL})
	if err != nil {
		t.Fatal(err)
	}
	return doc.Markdown
}

// TestDefinitionListHonoursSkip: what rendering skips, a definition
// list's terms and definitions included, is left out. The block model
// decides each dt and dd, and counts what it drops of them against its
// "most of the text" guard, but the list's rendering writes every term
// and definition whatever skip says (a hidden one too).
func TestDefinitionListHonoursSkip(t *testing.T) {
	doc := htmltree.Parse(`<body><dl><dt>Kept</dt><dd>A definition that stays.</dd><dt>Dropped term</dt><dd>A definition left out.</dd></dl></body>`)
	body := findElement(doc, atom.Body)
	var dropped []*html.Node
	for n := range descendants(body) {
		switch {
		case n.DataAtom == atom.Dt && textOf(n) == "Dropped term", n.DataAtom == atom.Dd && textOf(n) == "A definition left out.":
			dropped = append(dropped, n)
		}
	}
	if len(dropped) != 2 {
		t.Fatalf("found %d of the dropped term and definition", len(dropped))
	}
	base, _ := url.Parse("https://docs.example/")
	skip := func(n *html.Node) bool { return hidden(n) || n == dropped[0] || n == dropped[1] }
	md := newRenderer(base, skip, 1<<20).render(body)
	if !strings.Contains(md, "A definition that stays.") {
		t.Errorf("the kept definition is missing:\n%s", md)
	}
	for _, w := range []string{"Dropped term", "left out"} {
		if strings.Contains(md, w) {
			t.Errorf("skipped %q written:\n%s", w, md)
		}
	}
	// The same through Extract: a hidden definition is not shown.
	page := `<html><body><main><h1>Glossary</h1><p>` + strings.Repeat("Words of the harbour trade, with what each one means. ", 4) + `</p>` +
		`<dl><dt>Quay</dt><dd>A landing place.</dd><dt>Draft</dt><dd hidden>A hidden definition.</dd></dl></main></body></html>`
	if got := extractMarkdown(t, page, "https://docs.example/glossary"); strings.Contains(got, "hidden definition") {
		t.Errorf("a hidden dd shown:\n%s", got)
	}
}
