package extract

import (
	"math"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/heedhq/heed/internal/htmltree"
)

// TestTrees: a forest of trees in one list is walked tree by tree, each
// tree's root after the last node of the one before.
func TestTrees(t *testing.T) {
	forest := []treeNode{
		{leaf: true, value: 0.5}, // a tree of one leaf: the prior
		{feature: 0, threshold: 1, left: 2, right: 3},
		{leaf: true, value: -1},
		{feature: 1, threshold: 0, left: 4, right: 5},
		{leaf: true, value: 2},
		{leaf: true, value: 3},
		{feature: 1, threshold: 5, left: 7, right: 8},
		{leaf: true, value: 10},
		{leaf: true, value: 20},
	}
	if got, want := treeRoots(forest), []int{0, 1, 6}; !slices.Equal(got, want) {
		t.Fatalf("roots %v, want %v", got, want)
	}
	for _, c := range []struct {
		x0, x1 float64
		want   float64
	}{
		{0, 0, 0.5 - 1 + 10},
		{2, 0, 0.5 + 2 + 10},
		{2, 1, 0.5 + 3 + 10},
		{2, 6, 0.5 + 3 + 20},
	} {
		var x [nFeatures]float64
		x[0], x[1] = c.x0, c.x1
		if got := sumTrees(forest, treeRoots(forest), &x); got != c.want {
			t.Errorf("x = (%v, %v): %v, want %v", c.x0, c.x1, got, c.want)
		}
	}
	if len(blockTrees) == 0 || len(blockRoots()) < 2 {
		t.Fatal("the block model has no trees")
	}
}

// TestBlocksKeepStructure: headings, code listings and blocks that are
// mostly code are never left out, whatever the model says.
func TestBlocksKeepStructure(t *testing.T) {
	doc := htmltree.Parse(`<body><h2>Options</h2><pre>go run .</pre><p><code>Open(name string) (*File, error)</code></p><p>Opens the named file, <code>name</code>, for reading.</p><div class="sig"><span>add_role</span><code>(name)</code></div></body>`)
	var got []bool
	for n := range descendants(findElement(doc, atom.Body)) {
		if n.Type == html.ElementNode && (n.DataAtom == atom.H2 || n.DataAtom == atom.Pre || n.DataAtom == atom.P) {
			got = append(got, keepsStructure(n))
		}
	}
	if want := []bool{true, true, true, false}; !slices.Equal(got, want) {
		t.Errorf("kept %v, want %v", got, want)
	}
}

// TestBlocksListed: the blocks the model decides are the smallest ones,
// each once, in order: a list's items, not the list; a table whole, not
// its cells; and nothing the content's rule leaves out.
func TestBlocksListed(t *testing.T) {
	doc := htmltree.Parse(`<body><main><h1>Title</h1><p>One.</p><ul><li>First item</li><li>Second <b>item</b></li></ul>
<table><tr><td>a</td><td>b</td></tr></table><nav><p>Menu</p></nav><div>Loose text<p>Inner.</p></div></main></body>`)
	body := findElement(doc, atom.Body)
	c := selectContent(body, nil, meta{})
	var got []string
	for _, u := range c.s.blocks(c.nodes, c.skip(false)) {
		got = append(got, u.n.Data+":"+strings.Join(strings.Fields(textOf(u.n)), " "))
	}
	want := []string{"h1:Title", "p:One.", "li:First item", "li:Second item", "table:ab", "p:Inner."}
	if !slices.Equal(got, want) {
		t.Errorf("blocks %q, want %q", got, want)
	}
}

// TestTruthLabels: a block is content when most of its word triples are
// in the truth, or, under three words, when its words are there in a
// row.
func TestTruthLabels(t *testing.T) {
	tr := newTruth("The bridge opened today. Crews worked for nine years on its towers.\n\nSee also")
	for _, c := range []struct {
		block string
		want  float64
	}{
		{"Crews worked for nine years on its towers.", 1},
		{"crews worked for nine years on its cables and its deck", 1},
		{"Share this story on your favourite network", 0},
		{"See also", 1},
		{"also see", 0},
		{"Advertisement", 0},
	} {
		if got := tr.label(strings.Fields(strings.ToLower(c.block))); got != c.want {
			t.Errorf("%q: %v, want %v", c.block, got, c.want)
		}
	}
}

// TestDropBlocksGuard: when the model would leave out most of the
// content it leaves out nothing; when it leaves out little, that goes;
// and headings and code listings stay whatever it says.
func TestDropBlocksGuard(t *testing.T) {
	page := `<body><main><h2>Install</h2><p>` + strings.Repeat("Download the archive and unpack it where you keep your tools. ", 4) + `</p>
<pre>tar xf tool.tar.gz</pre><p>` + strings.Repeat("Then add its folder to your path and open a new shell. ", 4) + `</p><div>Share this page</div></main></body>`
	doc := htmltree.Parse(page)
	body := findElement(doc, atom.Body)
	for _, c := range []struct {
		name  string
		score func(f *[nFeatures]float64) float64
		want  []string // the text of the blocks left out
	}{
		{"all low", func(*[nFeatures]float64) float64 { return 0 }, nil},
		{"all high", func(*[nFeatures]float64) float64 { return 1 }, nil},
		{"short ones low", func(f *[nFeatures]float64) float64 {
			if f[fLetters] < math.Log1p(20) {
				return 0
			}
			return 1
		}, []string{"Share this page"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := selectContent(body, nil, meta{})
			s.s.score = c.score
			var got []string
			for n := range s.s.dropBlocks(s.nodes, s.skip(false)) {
				got = append(got, strings.TrimSpace(textOf(n)))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("left out %q, want %q", got, c.want)
			}
		})
	}
}

// TestDropBlocksBounded: on a page of more blocks than the model decides
// on, the rules alone decide.
func TestDropBlocksBounded(t *testing.T) {
	page := `<body><main><p>` + strings.Repeat("A paragraph of the page, long enough to stay. ", 600) + `</p>` + strings.Repeat(`<div>x</div>`, maxModelBlocks) + `</main></body>`
	doc := htmltree.Parse(page)
	c := selectContent(findElement(doc, atom.Body), nil, meta{})
	c.s.score = func(f *[nFeatures]float64) float64 {
		if f[fLetters] < math.Log1p(20) {
			return 0
		}
		return 1
	}
	if drop := c.s.dropBlocks(c.nodes, c.skip(false)); len(drop) != 0 {
		t.Errorf("%d blocks left out of a page of %d", len(drop), maxModelBlocks+1)
	}
}
