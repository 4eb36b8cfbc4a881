package extract

import (
	"runtime"
	"strings"
	"testing"
)

// allocatedBy is the memory f allocates, in bytes.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

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
	small := allocatedBy(func() { read(1 << 10) })
	large := allocatedBy(func() { read(4 << 10) })
	t.Logf("1 KB of repeated keys allocates %d bytes, 4 KB %d", small, large)
	if large > 8*small {
		t.Fatalf("four times the keys allocate %.1f times the memory (%d bytes, then %d)", float64(large)/float64(small), small, large)
	}
	var doc *Document
	n := allocatedBy(func() { doc = read(maxFrontMatter - 8) })
	t.Logf("%d KB allocates %d bytes", maxFrontMatter>>10, n)
	if n > 32<<20 {
		t.Errorf("%d KB of repeated keys allocates %d bytes", maxFrontMatter>>10, n)
	}
	if doc.Title != "Title" || !strings.Contains(doc.Markdown, "k:") {
		t.Errorf("front matter of repeated keys: title %q, Markdown %.40q", doc.Title, doc.Markdown)
	}
}
