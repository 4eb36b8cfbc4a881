package extract

import (
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The block model: once the content is chosen, each of its smallest
// blocks (a paragraph, a list item, a heading, a table, a code listing)
// is kept or left out by gradient-boosted trees over what it looks like
// and where it stands: its text and link density, its tag, the class words
// around it, its neighbours, whether the page repeats its text. The
// model is learned from the tune half of the large development set and
// from the documentation set by TestTrainBlockModel, which writes its
// trees to blockmodel.go; it takes out the boilerplate the rules let
// through (a listing's per-item metadata, a call to action) and leaves
// what the rules chose when it is unsure.

// Dense features of a block, in the order blockFeatures writes them.
const (
	fLetters = iota
	fLinkDensity
	fCommas
	fSentenceEnd
	fWords
	fDigits
	fTagP
	fTagTopHeading
	fTagHeading
	fTagLi
	fTagCell
	fTagPre
	fTagQuote
	fTagDef
	fTagOther
	fIndex
	fOffset
	fInBest
	fAncNegative
	fAncPositive
	fAncBoilerplate
	fOwnBoilerplate
	fParentLinkDensity
	fParentLetters
	fRepeated
	fPrevLetters
	fNextLetters
	fPrevLinkDensity
	fNextLinkDensity
	fArticle
	fForum
	fRootShare
	fInMainOrArticle
	fInHeader
	fWholeLink
	fInListItem
	fBlocks
	fShort
	fUpper
	nDense
)

// Hashed features: the class and id words of a block and its ancestors,
// and the first words of its text, each in buckets of its own.
const (
	classBuckets = 64
	wordBuckets  = 64
	nFeatures    = nDense + classBuckets + wordBuckets
)

// unit is one of the content's smallest blocks.
type unit struct {
	n      *html.Node
	text   string // its words, lower case, space-separated
	letter int
	link   int
}

// blockTag reports whether an element is a block the model decides on
// whole: a paragraph, heading, list item, cell, code listing, quote or
// table, or a wrapper of text that holds none of them.
func blockTag(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Li,
		atom.Pre, atom.Blockquote, atom.Table, atom.Figcaption, atom.Address,
		atom.Div, atom.Section, atom.Article, atom.Header, atom.Ul, atom.Ol, atom.Dl, atom.Form,
		atom.Main, atom.Figure, atom.Details, atom.Summary:
		// Not a term or a definition apart (a term would lose its
		// definition), nor a table's row or cell (its columns).
		return true
	}
	return false
}

// atomicBlock reports whether a block is decided whole, whatever blocks
// it holds: a table, a code listing, a quote.
func atomicBlock(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Table, atom.Pre, atom.Blockquote:
		return true
	}
	return false
}

// blocks lists the smallest blocks under the chosen nodes, in document
// order, as skip leaves them. Elements that hold blocks are walked; text
// beside blocks in the same element is not decided (it stays).
func (s *selector) blocks(nodes []*html.Node, skip func(*html.Node) bool) []unit {
	var out []unit
	add := func(n *html.Node) {
		if st := s.stats[n]; st != nil && st.text > 0 {
			out = append(out, unit{n: n, letter: st.text, link: st.link})
		}
	}
	var walk func(n *html.Node) bool // reports whether n holds a block
	walk = func(n *html.Node) bool {
		holds := false
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type != html.ElementNode || skip(c):
			case atomicBlock(c):
				add(c)
				holds = true
			case walk(c):
				holds = true
			}
		}
		if !blockTag(n) || holds {
			return holds
		}
		if st := s.stats[n]; st == nil || st.text == 0 {
			return false
		}
		add(n)
		return true
	}
	for _, n := range nodes {
		if atomicBlock(n) {
			add(n)
			continue
		}
		walk(n)
	}
	for i := range out {
		out[i].text = blockWords(out[i].n, 64)
	}
	return out
}

// blockWords returns the first max words of n's text, lower case.
func blockWords(n *html.Node, max int) string {
	var w wordsWriter
	for d := range descendants(n) {
		if d.Type == html.TextNode && !w.write(d.Data, max) {
			break
		}
	}
	return w.b.String()
}

// wordsWriter keeps the words of texts, lower case, space-separated.
type wordsWriter struct {
	b     strings.Builder
	words int
}

// write adds the words of text, up to max in all, and reports whether
// there is room for more. A text ends a word.
func (w *wordsWriter) write(text string, max int) bool {
	in := false
	for _, r := range text {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			in = false
			continue
		}
		if !in {
			if w.words >= max {
				return false
			}
			if w.b.Len() > 0 {
				w.b.WriteByte(' ')
			}
			w.words++
			in = true
		}
		w.b.WriteRune(unicode.ToLower(r))
	}
	return w.words < max
}

// blockFeatures writes the features of each block in turn and gives them
// to each, in a buffer that the next block's overwrite: a page of many
// blocks keeps one block's features at a time.
func (s *selector) blockFeatures(blocks []unit, roots []*html.Node, each func(i int, f *[nFeatures]float64)) {
	var buf [nFeatures]float64
	seen := map[string]int{}
	total := 0
	for _, b := range blocks {
		seen[b.text]++
		total += b.letter
	}
	rootProse := 0
	for _, r := range roots {
		if st := s.stats[r]; st != nil {
			rootProse += prose(st)
		}
	}
	share := 0.0
	if s.bodyProse > 0 {
		share = min(1, float64(rootProse)/float64(s.bodyProse))
	}
	density := func(text, link int) float64 {
		if text == 0 {
			return 0
		}
		return min(1, float64(link)/float64(text))
	}
	// The buckets of an element's class and id words, once per element:
	// a wrapper's words are asked for by every block inside it.
	memo := map[*html.Node][]int{}
	classBucketsOf := func(n *html.Node) []int {
		if ks, ok := memo[n]; ok {
			return ks
		}
		var in [classBuckets]bool
		var ks []int
		for _, t := range s.tokens(n) {
			if strings.ContainsAny(t, "0123456789") {
				continue
			}
			if k := bucket(t, classBuckets); !in[k] {
				in[k] = true
				ks = append(ks, k)
			}
		}
		memo[n] = ks
		return ks
	}
	// What a block's ancestors say (their class words, main, header,
	// list item), once per parent: the blocks of a list share theirs.
	type above struct{ dense, buckets []int }
	aboveMemo := map[*html.Node]above{}
	aboveOf := func(p *html.Node) above {
		if ab, ok := aboveMemo[p]; ok {
			return ab
		}
		var ab above
		var seenDense [nDense]bool
		var seenBucket [classBuckets]bool
		set := func(k int) {
			if !seenDense[k] {
				seenDense[k] = true
				ab.dense = append(ab.dense, k)
			}
		}
		up := 0
		for a := p; a != nil && a.Type == html.ElementNode && up < maxBlockAncestors; a = a.Parent {
			k := s.nodeKinds(a)
			if k&negativeWord != 0 {
				set(fAncNegative)
			}
			if k&positiveWord != 0 {
				set(fAncPositive)
			}
			if k&boilerplateWord != 0 {
				set(fAncBoilerplate)
			}
			switch a.DataAtom {
			case atom.Main, atom.Article:
				set(fInMainOrArticle)
			case atom.Header:
				set(fInHeader)
			case atom.Li:
				set(fInListItem)
			}
			if up < 4 {
				for _, k := range classBucketsOf(a) {
					if !seenBucket[k] {
						seenBucket[k] = true
						ab.buckets = append(ab.buckets, k)
					}
				}
			}
			up++
			if a.DataAtom == atom.Body {
				break
			}
		}
		aboveMemo[p] = ab
		return ab
	}
	offset := 0
	for i, b := range blocks {
		f := &buf
		clear(f[:])
		f[fLetters] = math.Log1p(float64(b.letter))
		f[fLinkDensity] = density(b.letter, b.link)
		st := s.stats[b.n]
		f[fCommas] = min(5, 100*float64(st.comma)/float64(max(1, b.letter)))
		raw := strings.TrimSpace(textOf(b.n))
		if strings.HasSuffix(raw, ".") || strings.HasSuffix(raw, "!") || strings.HasSuffix(raw, "?") || strings.HasSuffix(raw, "…") || strings.HasSuffix(raw, ":") {
			f[fSentenceEnd] = 1
		}
		words := strings.Count(b.text, " ") + 1
		f[fWords] = math.Log1p(float64(words))
		digits, upper := 0, 0
		for _, r := range raw {
			switch {
			case unicode.IsDigit(r):
				digits++
			case unicode.IsUpper(r):
				upper++
			}
		}
		f[fDigits] = float64(digits) / float64(max(1, b.letter))
		f[fUpper] = float64(upper) / float64(max(1, b.letter))
		switch b.n.DataAtom {
		case atom.P:
			f[fTagP] = 1
		case atom.H1, atom.H2:
			f[fTagTopHeading] = 1
		case atom.H3, atom.H4, atom.H5, atom.H6:
			f[fTagHeading] = 1
		case atom.Li:
			f[fTagLi] = 1
		case atom.Td, atom.Th, atom.Table, atom.Tr:
			f[fTagCell] = 1
		case atom.Pre:
			f[fTagPre] = 1
		case atom.Blockquote:
			f[fTagQuote] = 1
		case atom.Dt, atom.Dd:
			f[fTagDef] = 1
		default:
			f[fTagOther] = 1
		}
		f[fIndex] = float64(i) / float64(len(blocks))
		f[fOffset] = float64(offset) / float64(max(1, total))
		offset += b.letter
		if s.best != nil && (b.n == s.best || contains(s.best, b.n)) {
			f[fInBest] = 1
		}
		if k := s.nodeKinds(b.n); k&(boilerplateWord|negativeWord) != 0 {
			f[fOwnBoilerplate] = 1
		}
		if p := b.n.Parent; p != nil {
			above := aboveOf(p)
			for _, k := range above.dense {
				f[k] = 1
			}
			for _, k := range above.buckets {
				f[nDense+k] = 1
			}
		}
		for _, k := range classBucketsOf(b.n) {
			f[nDense+k] = 1
		}
		for k, w := range strings.Fields(b.text) {
			if k >= 6 {
				break
			}
			f[nDense+classBuckets+bucket(w, wordBuckets)] = 1
		}
		if p := b.n.Parent; p != nil {
			if ps := s.stats[p]; ps != nil {
				f[fParentLinkDensity] = density(ps.text, ps.link)
				f[fParentLetters] = math.Log1p(float64(ps.text))
			}
		}
		f[fRepeated] = math.Log(float64(seen[b.text]))
		if i > 0 {
			f[fPrevLetters] = math.Log1p(float64(blocks[i-1].letter))
			f[fPrevLinkDensity] = density(blocks[i-1].letter, blocks[i-1].link)
		}
		if i+1 < len(blocks) {
			f[fNextLetters] = math.Log1p(float64(blocks[i+1].letter))
			f[fNextLinkDensity] = density(blocks[i+1].letter, blocks[i+1].link)
		}
		if s.article {
			f[fArticle] = 1
		}
		if s.forum {
			f[fForum] = 1
		}
		f[fRootShare] = share
		if b.link > 0 && b.link >= b.letter {
			f[fWholeLink] = 1
		}
		f[fBlocks] = math.Log1p(float64(len(blocks)))
		if words <= 3 {
			f[fShort] = 1
		}
		each(i, f)
	}
}

// blockThreshold is the probability under which a block is left out,
// chosen on the tune half and the documentation set: at 0.5 the tune half
// scores 0.003 more, but the documentation set loses 0.0008 (rdoc's
// method signatures); at 0.2 both score less.
const blockThreshold = 0.3

// maxModelBlocks is the most blocks the model decides on: a page of
// more (a log, a table of ten thousand rows in divs) is no page a
// person reads for a part of it, and scoring each block costs about
// two microseconds. The rules alone decide there.
const maxModelBlocks = 10_000

// maxBlockAncestors bounds how far up a block's features look, so that
// a deep page costs no more than a shallow one per block.
const maxBlockAncestors = 16

// bucket hashes a word into one of n buckets.
func bucket(w string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(w))
	return int(h.Sum32() % uint32(n))
}

// treeNode is a node of the block model's trees: a leaf with its value,
// or a split that sends a block whose feature is at most threshold to
// left, else to right. Trees follow each other in one list; a tree's
// root is the node after the last node of the tree before.
type treeNode struct {
	leaf        bool
	value       float64
	feature     int
	threshold   float64
	left, right int
}

// walkTree is the value the tree rooted at root gives a block.
func walkTree(nodes []treeNode, root int, x *[nFeatures]float64) float64 {
	i := root
	for !nodes[i].leaf {
		if x[nodes[i].feature] <= nodes[i].threshold {
			i = nodes[i].left
		} else {
			i = nodes[i].right
		}
	}
	return nodes[i].value
}

// sumTrees is the log odds the trees whose roots are roots give a block.
func sumTrees(nodes []treeNode, roots []int, x *[nFeatures]float64) float64 {
	z := 0.0
	for _, root := range roots {
		z += walkTree(nodes, root, x)
	}
	return z
}

// treeRoots returns the roots of the trees in nodes: each tree's root is
// the node after the last node of the tree before, its nodes being its
// root and the nodes its splits name.
func treeRoots(nodes []treeNode) []int {
	var roots []int
	for root := 0; root < len(nodes); {
		roots = append(roots, root)
		end := root + 1
		for i := root; i < end; i++ {
			if !nodes[i].leaf {
				end = max(end, nodes[i].left+1, nodes[i].right+1)
			}
		}
		root = end
	}
	return roots
}

// blockRoots are the roots of blockTrees, found once.
var blockRoots = sync.OnceValue(func() []int { return treeRoots(blockTrees) })

// blockScore is the model's probability that a block is the page's
// content.
func blockScore(f *[nFeatures]float64) float64 {
	return 1 / (1 + math.Exp(-sumTrees(blockTrees, blockRoots(), f)))
}

// dropBlocks returns the blocks of the chosen content the model leaves
// out, and the paragraphs a collapsed panel says a second time. Headings, code listings
// and blocks that are mostly code stay; and when the model would leave
// out most of the content's text, it is unsure of the page and leaves
// out nothing.
func (s *selector) dropBlocks(nodes []*html.Node, skip func(*html.Node) bool) map[*html.Node]bool {
	if len(blockTrees) == 0 {
		return nil
	}
	blocks := s.blocks(nodes, skip)
	if len(blocks) < 2 || len(blocks) > maxModelBlocks {
		return nil
	}
	// Blocks of one kind (the same tag and class, in the same kind of
	// parent and grandparent: each item's price in a listing) are kept or
	// left out together, by their mean score, so that a listing does not
	// read one way for some items and another for the rest.
	scores := make([]float64, len(blocks))
	kinds := map[[3]int][]int{}
	var kn kindNames
	score := s.score
	if score == nil {
		score = blockScore
	}
	s.blockFeatures(blocks, nodes, func(i int, f *[nFeatures]float64) { scores[i] = score(f) })
	for i, b := range blocks {
		k := kn.block(b.n)
		kinds[k] = append(kinds[k], i)
	}
	for _, same := range kinds {
		if len(same) < 3 {
			continue
		}
		mean := 0.0
		for _, i := range same {
			mean += scores[i]
		}
		mean /= float64(len(same))
		for _, i := range same {
			scores[i] = mean
		}
	}
	var drop map[*html.Node]bool
	dropped, total := 0, 0
	said := map[string]bool{} // the paragraphs kept so far
	for i, b := range blocks {
		total += b.letter
		// A paragraph said again in a panel the page opens (an excerpt,
		// then the text its "read more" shows, which begins with it) is
		// kept once.
		again := b.letter >= 80 && said[b.text] && s.inPanel(b.n)
		if !again && (keepsStructure(b.n) || scores[i] >= blockThreshold) {
			if b.letter >= 80 {
				said[b.text] = true
			}
			continue
		}
		if drop == nil {
			drop = map[*html.Node]bool{}
		}
		drop[b.n] = true
		dropped += b.letter
	}
	if 2*dropped > total {
		return nil
	}
	return drop
}

// keepsStructure reports whether a block is the content's structure,
// which the model never leaves out: a heading, a code listing, or a
// block that is mostly code (a signature, a command).
func keepsStructure(n *html.Node) bool {
	if n.DataAtom == atom.Pre || isHeading(n) {
		return true
	}
	code, all := 0, 0
	for d := range descendants(n) {
		if d.Type != html.TextNode {
			continue
		}
		letters, _ := countText(d.Data)
		all += letters
		for a, up := d.Parent, 0; a != nil && a != n && up < 8; a, up = a.Parent, up+1 {
			if a.DataAtom == atom.Code || a.DataAtom == atom.Kbd || a.DataAtom == atom.Samp || a.DataAtom == atom.Tt {
				code += letters
				break
			}
		}
	}
	return all > 0 && 2*code >= all
}

// kindNames names the kinds of elements: one number for each tag and
// class words (less those that hold digits, an item's "post-1042"), each
// element's read once, since a wrapper is asked for by every block in it.
type kindNames struct {
	ids  map[string]int
	memo map[*html.Node]int
}

// of is the number of n's kind; 0 for no element.
func (k *kindNames) of(n *html.Node) int {
	if n == nil || n.Type != html.ElementNode {
		return 0
	}
	if id, ok := k.memo[n]; ok {
		return id
	}
	if k.ids == nil {
		k.ids, k.memo = map[string]int{}, map[*html.Node]int{}
	}
	var b strings.Builder
	b.WriteString(n.Data)
	for c := range strings.FieldsSeq(attr(n, "class")) {
		if !strings.ContainsAny(c, "0123456789") {
			b.WriteByte('.')
			b.WriteString(c)
		}
	}
	id, ok := k.ids[b.String()]
	if !ok {
		id = len(k.ids) + 1
		k.ids[b.String()] = id
	}
	k.memo[n] = id
	return id
}

// block is what kind of block n is: its kind, its parent's and its
// grandparent's.
func (k *kindNames) block(n *html.Node) [3]int {
	var out [3]int
	for i := range out {
		out[i] = k.of(n)
		if n != nil {
			n = n.Parent
		}
	}
	return out
}

// inPanel reports whether n is in a collapsed panel that revealed showed.
func (s *selector) inPanel(n *html.Node) bool {
	for up := 0; n != nil && up < maxBlockAncestors; n, up = n.Parent, up+1 {
		if s.panels[n] {
			return true
		}
	}
	return false
}
