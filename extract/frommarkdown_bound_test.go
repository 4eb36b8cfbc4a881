package extract

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/heedhq/heed/internal/testutil"
)

// TestFromMarkdownRepeatedKeys: front matter of repeated keys costs memory
// linear in its length (the YAML decoder alone keeps an error for each
// pair of equal keys: 12 KB of them took most of a gigabyte), and is
// read as text.
func TestFromMarkdownRepeatedKeys(t *testing.T) {
	read := func(front int) *Document {
		doc, err := FromMarkdown([]byte("---\n"+strings.Repeat("k:\n", front/3)+"---\n# Title\n"), Options{URL: "https://docs.example/"})
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	small := testutil.Allocated(func() { read(1 << 10) })
	large := testutil.Allocated(func() { read(4 << 10) })
	t.Logf("1 KB of repeated keys allocates %d bytes, 4 KB %d", small, large)
	if large > 8*small {
		t.Fatalf("four times the keys allocate %.1f times the memory (%d bytes, then %d)", float64(large)/float64(small), small, large)
	}
	var doc *Document
	n := testutil.Allocated(func() { doc = read(maxFrontMatter - 8) })
	t.Logf("%d KB allocates %d bytes", maxFrontMatter>>10, n)
	if n > 32<<20 {
		t.Errorf("%d KB of repeated keys allocates %d bytes", maxFrontMatter>>10, n)
	}
	if doc.Title != "Title" || !strings.Contains(doc.Markdown, "k:") {
		t.Errorf("front matter of repeated keys: title %q, Markdown %.40q", doc.Title, doc.Markdown)
	}
}

// TestFromMarkdownLinkBudget: resolving relative links adds to the
// Markdown and to Links, and reads of the base URL, no more than the
// document's length, as Extract's links do: past that, links are written
// as the document wrote them and left out of Links. Before, 500 KB of
// links at an 8 KB URL took 0.7 GB.
func TestFromMarkdownLinkBudget(t *testing.T) {
	long := "https://docs.example/" + strings.Repeat("d", 8<<10) + "/"
	page := func(n int) []byte {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "[a](x%d) ", i)
		}
		return []byte(b.String())
	}
	var doc *Document
	read := func(p []byte) func() {
		return func() {
			var err error
			if doc, err = FromMarkdown(p, Options{URL: long}); err != nil {
				t.Fatal(err)
			}
		}
	}
	in := page(10000)
	n := testutil.Allocated(read(in))
	t.Logf("%d bytes of links at an 8 KB URL allocate %d bytes", len(in), n)
	if n > uint64(64*len(in)) {
		t.Errorf("%d bytes of links allocate %d bytes, %d times", len(in), n, n/uint64(len(in)))
	}
	if got := linksBytes(doc); got > 2*len(in) {
		t.Errorf("%d bytes of Links from %d bytes", got, len(in))
	}
	if len(doc.Markdown) > 2*len(in) {
		t.Errorf("%d bytes of Markdown from %d bytes", len(doc.Markdown), len(in))
	}
	if len(doc.Links) == 0 || doc.Links[0] != long+"x0" || !strings.Contains(doc.Markdown, "]("+long+"x0)") || !strings.Contains(doc.Markdown, "](x9999)") {
		t.Errorf("want the first links resolved and the rest as written: %d links, %.200q", len(doc.Links), doc.Markdown)
	}
	// Absolute and root-relative links at a long URL read little of it.
	abs := []byte(strings.Repeat("[a](https://other.example/x) [b](/y) ", 4000))
	read(abs)()
	if !slices.Equal(doc.Links, []string{"https://other.example/x", "https://docs.example/y"}) || strings.Count(doc.Markdown, "](https://docs.example/y)") != 4000 {
		t.Errorf("absolute links: %q", doc.Links)
	}
}
