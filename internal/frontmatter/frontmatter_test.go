package frontmatter

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/heedhq/heed/internal/testutil"
)

// TestSplitRepeatedKeys: front matter that repeats a key is refused, in
// memory linear in its length (the YAML decoder alone keeps an error for
// each pair of equal keys: 12 KB of them took most of a gigabyte).
func TestSplitRepeatedKeys(t *testing.T) {
	decode := func(front string) (err error) {
		var v struct {
			Title string `yaml:"title"`
		}
		_, err = Split([]byte("---\n"+front+"---\n"), &v)
		return err
	}
	repeated := func(n int) string { return strings.Repeat("k:\n", n/3) }
	small := testutil.Allocated(func() { decode(repeated(1 << 10)) })
	large := testutil.Allocated(func() { decode(repeated(4 << 10)) })
	t.Logf("1 KB of repeated keys allocates %d bytes, 4 KB %d", small, large)
	if large > 8*small {
		t.Fatalf("four times the keys allocate %.1f times the memory (%d bytes, then %d)", float64(large)/float64(small), small, large)
	}
	n := testutil.Allocated(func() { decode(repeated(64 << 10)) })
	t.Logf("64 KB allocates %d bytes", n)
	if n > 16<<20 {
		t.Errorf("64 KB of repeated keys allocates %d bytes", n)
	}
	for _, front := range []string{"title: a\ntitle: b\n", "title: a\nx:\n  k: 1\n  k: 2\n", "a: &x {k: 1}\nb: *x\n"} {
		if err := decode(front); err == nil {
			t.Errorf("%q: decoded, want an error", front)
		}
	}
}

// TestDecodeManyKeys: a mapping of up to maxKeys keys is read, and one of
// more refused, in memory linear in its length.
func TestDecodeManyKeys(t *testing.T) {
	keys := func(n int) string {
		var b strings.Builder
		b.WriteString("title: t\n")
		for i := range n - 1 {
			fmt.Fprintf(&b, "k%d: v\n", i)
		}
		return b.String()
	}
	var v struct {
		Title string `yaml:"title"`
	}
	if err := Decode([]byte(keys(maxKeys)), &v); err != nil || v.Title != "t" {
		t.Errorf("%d keys: %q, %v", maxKeys, v.Title, err)
	}
	if err := Decode([]byte(keys(maxKeys+1)), &v); err == nil {
		t.Errorf("%d keys: decoded, want an error", maxKeys+1)
	}
	if n := testutil.Allocated(func() { Decode([]byte(keys(10000)), &v) }); n > 16<<20 {
		t.Errorf("10000 keys allocate %d bytes", n)
	}
}

// TestSplit: a document's front matter, decoded, and its body.
func TestSplit(t *testing.T) {
	var w Writer
	w.Field("title", "a \"b\"\n")
	w.List("tags", []string{"x", "y"})
	w.Flag("rendered", true)
	var h struct {
		Title    string   `yaml:"title"`
		Tags     []string `yaml:"tags"`
		Rendered bool     `yaml:"rendered"`
	}
	body, err := Split([]byte(w.Document("# Body")), &h)
	if err != nil || body != "# Body" || h.Title != "a \"b\"\n" || strings.Join(h.Tags, ",") != "x,y" || !h.Rendered {
		t.Errorf("got %+v, %q, %v", h, body, err)
	}
	if _, err := Split([]byte("---\ntitle: a\ntitle: b\n---\nbody\n"), &h); err == nil {
		t.Error("repeated keys: split, want an error")
	}
}

func TestLinesReadBack(t *testing.T) {
	values := []string{`{"n":1,"etag":"W/\"x\""}`, "it's", "tab\there", "line\nbreak", `back\slash`, "\u2028", ""}
	var w Writer
	w.Lines("history", values)
	var got struct {
		History []string `yaml:"history"`
	}
	if _, err := Split([]byte(w.Document("body")), &got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.History, values) {
		t.Fatalf("read back %q, want %q", got.History, values)
	}
	if !strings.Contains(w.Document(""), `  - '{"n":1,"etag":"W/\"x\""}'`) {
		t.Fatalf("a line of JSON is not written as it is:\n%s", w.Document(""))
	}
}
