package extract

import (
	"bytes"
	"fmt"
	"go/format"
	"math"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/net/html/atom"

	"github.com/heedhq/heed/internal/docset"
	"github.com/heedhq/heed/internal/extractdev"
	"github.com/heedhq/heed/internal/htmltree"
)

// TestTrainBlockModel learns the block model from the tune half of a
// development set with truth texts (a folder with a manifest.jsonl whose
// pages carry a split) and writes it to blockmodel.go:
//
//	HEED_TRAIN_SET=DIR go test ./extract -run TestTrainBlockModel
//
// Each block of the content heed chooses on a page is labelled by its
// truth: content when most of its word triples (or, under three words,
// its words in a row) are in the page's truth text. The model is
// gradient-boosted trees (fitTrees); blocks weigh by the square root of
// their words, as F1 counts words. It also learns from the documentation
// set in testdata/docs, less its held-out generators, which must be
// there (go run ./internal/docset/cmd/docset extract/testdata/docs).
func TestTrainBlockModel(t *testing.T) {
	dir := os.Getenv("HEED_TRAIN_SET")
	if dir == "" {
		t.Skip("HEED_TRAIN_SET names no set to train on")
	}
	pages, err := extractdev.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var xs [][nFeatures]float64
	var ys, ws []float64
	used := 0
	// learn adds a page's blocks, each labelled by the page's truth.
	learn := func(raw []byte, pageURL, truth string) {
		units, feats := pageBlocks(raw, pageURL)
		if len(units) < 2 {
			return
		}
		used++
		tr := newTruth(truth)
		for i, u := range units {
			words := strings.Fields(u.fullText)
			if len(words) == 0 {
				continue
			}
			xs = append(xs, feats[i])
			ys = append(ys, tr.label(words))
			ws = append(ws, math.Sqrt(float64(len(words))))
		}
	}
	for _, p := range pages {
		if p.Split != "tune" {
			continue
		}
		raw, err := p.HTML()
		if err != nil {
			t.Fatal(err)
		}
		truth, err := p.TruthText()
		if err != nil {
			t.Fatal(err)
		}
		learn(raw, p.URL, truth)
	}
	// The documentation set's pages, less its held-out generators: what
	// the model leaves out must not be a reference page's structure.
	docs, err := docset.Load(docsDir)
	if err != nil || len(docs) == 0 {
		t.Fatalf("no documentation set in %s to train on (%v)", docsDir, err)
	}
	for _, p := range docs {
		if strings.HasPrefix(p.PageType, "held-out") {
			continue
		}
		raw, err := p.HTML(docsDir)
		if err != nil {
			t.Fatal(err)
		}
		truth, err := p.TruthText(docsDir)
		if err != nil {
			t.Fatal(err)
		}
		learn(raw, p.URL, truth)
	}
	t.Logf("%d pages, %d blocks", used, len(xs))
	trees := fitTrees(xs, ys, ws, treeRounds, treeDepth, treeRate)
	roots := treeRoots(trees)
	{
		var pos, tot, right float64
		for k := range xs {
			pred := 0.0
			if sumTrees(trees, roots, &xs[k]) > 0 {
				pred = 1
			}
			pos += ws[k] * ys[k]
			tot += ws[k]
			if pred == ys[k] {
				right += ws[k]
			}
		}
		t.Logf("content share %.3f, accuracy %.3f", pos/tot, right/tot)
	}
	src := writeModel(trees)
	if err := os.WriteFile("blockmodel.go", src, 0o644); err != nil {
		t.Fatal(err)
	}
}

// trainUnit is a block with its whole text, for labelling.
type trainUnit struct {
	unit
	fullText string
}

// pageBlocks returns the blocks of the content heed chooses on a page,
// with their features, as Extract sees them.
func pageBlocks(raw []byte, pageURL string) ([]trainUnit, [][nFeatures]float64) {
	base, _ := url.Parse(pageURL)
	if base == nil {
		base = &url.URL{}
	}
	doc := htmltree.Parse(string(bytes.ToValidUTF8(raw, []byte("\uFFFD"))))
	body := findElement(doc, atom.Body)
	if body == nil {
		return nil, nil
	}
	c := selectContent(body, base, readMeta(doc, base))
	units := c.s.blocks(c.nodes, c.skip(c.article))
	feats := make([][nFeatures]float64, len(units))
	c.s.blockFeatures(units, c.nodes, func(i int, f *[nFeatures]float64) { feats[i] = *f })
	out := make([]trainUnit, len(units))
	for i, u := range units {
		out[i] = trainUnit{u, strings.ToLower(textOf(u.n))}
	}
	return out, feats
}

var truthWord = regexp.MustCompile(`[\p{L}\p{N}_]+`)

// truth is a page's truth text as word triples and a joined string.
type truth struct {
	triples map[[3]string]bool
	joined  string
}

func newTruth(text string) truth {
	words := truthWord.FindAllString(strings.Map(unicode.ToLower, text), -1)
	t := truth{triples: map[[3]string]bool{}, joined: " " + strings.Join(words, " ") + " "}
	for i := 0; i+2 < len(words); i++ {
		t.triples[[3]string{words[i], words[i+1], words[i+2]}] = true
	}
	return t
}

// label is 1 when a block's words are the truth's, else 0.
func (t truth) label(fields []string) float64 {
	words := truthWord.FindAllString(strings.Join(fields, " "), -1)
	if len(words) < 3 {
		if len(words) > 0 && strings.Contains(t.joined, " "+strings.Join(words, " ")+" ") {
			return 1
		}
		return 0
	}
	in := 0
	for i := 0; i+2 < len(words); i++ {
		if t.triples[[3]string{words[i], words[i+1], words[i+2]}] {
			in++
		}
	}
	if 2*in >= len(words)-2 {
		return 1
	}
	return 0
}

const (
	treeRounds = 200
	treeDepth  = 3
	treeRate   = 0.1
	treeBins   = 32
	treeLambda = 1.0
	treeMinH   = 5.0 // the least weight of a leaf's blocks, in p(1-p) units
)

// fitTrees fits gradient-boosted regression trees to the log odds of the
// labels (logistic loss), each split chosen among up to treeBins
// quantiles of a feature.
func fitTrees(xs [][nFeatures]float64, ys, ws []float64, rounds, depth int, rate float64) []treeNode {
	n := len(xs)
	// Each feature's candidate thresholds, and each block's bin.
	var cuts [nFeatures][]float64
	bins := make([][nFeatures]uint8, n)
	vals := make([]float64, n)
	for f := range nFeatures {
		for k := range xs {
			vals[k] = xs[k][f]
		}
		sorted := slices.Clone(vals)
		slices.Sort(sorted)
		var c []float64
		for q := 1; q < treeBins; q++ {
			v := sorted[q*(n-1)/treeBins]
			if len(c) == 0 || v > c[len(c)-1] {
				c = append(c, v)
			}
		}
		if len(c) > 0 && c[len(c)-1] >= sorted[n-1] {
			c = c[:len(c)-1]
		}
		cuts[f] = c
		for k := range xs {
			b, _ := slices.BinarySearch(c, vals[k])
			// x <= c[b] goes left at a split on b.
			bins[k][f] = uint8(b)
		}
	}
	prior := 0.0
	{
		var pos, tot float64
		for k := range ys {
			pos += ws[k] * ys[k]
			tot += ws[k]
		}
		prior = math.Log(pos / (tot - pos))
	}
	nodes := []treeNode{{leaf: true, value: prior}} // tree 0: the prior
	score := make([]float64, n)
	for k := range score {
		score[k] = prior
	}
	g := make([]float64, n)
	h := make([]float64, n)
	for range rounds {
		for k := range xs {
			p := 1 / (1 + math.Exp(-score[k]))
			g[k] = ws[k] * (p - ys[k])
			h[k] = ws[k] * p * (1 - p)
		}
		root := len(nodes)
		nodes = append(nodes, treeNode{})
		type job struct {
			node  int
			depth int
			rows  []int
		}
		all := make([]int, n)
		for k := range all {
			all[k] = k
		}
		queue := []job{{root, 0, all}}
		for len(queue) > 0 {
			j := queue[0]
			queue = queue[1:]
			var G, H float64
			for _, k := range j.rows {
				G += g[k]
				H += h[k]
			}
			leaf := func() {
				nodes[j.node] = treeNode{leaf: true, value: -rate * G / (H + treeLambda)}
			}
			if j.depth == depth || H < 2*treeMinH {
				leaf()
				continue
			}
			bestGain, bestF, bestB := 0.0, -1, 0
			var hg [treeBins]float64
			var hh [treeBins]float64
			for f := range nFeatures {
				if len(cuts[f]) == 0 {
					continue
				}
				clear(hg[:])
				clear(hh[:])
				for _, k := range j.rows {
					b := bins[k][f]
					hg[b] += g[k]
					hh[b] += h[k]
				}
				var gl, hl float64
				for b := range cuts[f] {
					gl += hg[b]
					hl += hh[b]
					gr, hr := G-gl, H-hl
					if hl < treeMinH || hr < treeMinH {
						continue
					}
					gain := gl*gl/(hl+treeLambda) + gr*gr/(hr+treeLambda) - G*G/(H+treeLambda)
					if gain > bestGain {
						bestGain, bestF, bestB = gain, f, b
					}
				}
			}
			if bestF < 0 {
				leaf()
				continue
			}
			var left, right []int
			for _, k := range j.rows {
				if int(bins[k][bestF]) <= bestB {
					left = append(left, k)
				} else {
					right = append(right, k)
				}
			}
			l := len(nodes)
			nodes = append(nodes, treeNode{}, treeNode{})
			nodes[j.node] = treeNode{feature: bestF, threshold: cuts[bestF][bestB], left: l, right: l + 1}
			queue = append(queue, job{l, j.depth + 1, left}, job{l + 1, j.depth + 1, right})
		}
		for k := range xs {
			score[k] += walkTree(nodes, root, &xs[k])
		}
	}
	return nodes
}

// exact writes a float64 in as few digits as read back the same.
func exact(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// writeModel returns blockmodel.go's source for fitted trees.
func writeModel(nodes []treeNode) []byte {
	var b strings.Builder
	b.WriteString("// Code generated by TestTrainBlockModel; DO NOT EDIT.\n//\n//\tHEED_TRAIN_SET=DIR go test ./extract -run TestTrainBlockModel\n//\n// DIR is the large development set; extract/testdata/docs must hold the\n// documentation set.\n\npackage extract\n\n")
	b.WriteString("// blockTrees are the block model's trees, each node's children after it;\n// see treeNode.\nvar blockTrees = []treeNode{\n")
	for _, n := range nodes {
		if n.leaf {
			fmt.Fprintf(&b, "\t{leaf: true, value: %s},\n", exact(n.value))
		} else {
			// A threshold is a value blocks take: written exactly, so
			// that the blocks at it go the way they went in training.
			fmt.Fprintf(&b, "\t{feature: %d, threshold: %s, left: %d, right: %d},\n", n.feature, exact(n.threshold), n.left, n.right)
		}
	}
	b.WriteString("}\n")
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		panic(err)
	}
	return src
}
