package textdiff

// The comparison underneath every diff here: Myers' algorithm ("An O(ND)
// Difference Algorithm and Its Variations", 1986), in its linear-space
// form that splits the problem at a middle snake, on sequences of tokens
// (lines, or words and the spaces between them). Its cost grows with the
// product of the sequences' length and the number of differences, which
// hostile input makes quadratic; so the work it may do is bounded:
//
//   - what the two sequences share at their ends is set aside first, at
//     no more than the cost of reading it;
//   - a token found on one side only can be in no common subsequence, so
//     it is marked changed without entering the search (which makes two
//     texts that share nothing cost no more than reading them);
//   - a search that goes past maxCost differences in one box stops and
//     splits the box where its paths reached furthest, rather than at
//     the middle of a least path;
//   - every step of every search draws on one budget of work, workBase
//     plus workPerToken for each token of the texts, and at most
//     workMax; once it is spent, each box not yet compared is marked
//     changed whole.
//
// Whatever the bounds cut short, the result is still a correct script:
// applying it turns the old sequence into the new one. It is only less
// minimal, a larger replacement than the least one.

// The bounds on the work of one comparison (the package doc gives their
// figures).
var (
	// workBase is the work any comparison may do, however short: some
	// 25 milliseconds of search.
	workBase = 1 << 22
	// workPerToken is the work allowed for each token of the two
	// texts.
	workPerToken = 48
	// workMax is the most work any comparison may do, however long its
	// texts: under half a second of search (BenchmarkCompareSpent).
	workMax = 1 << 26
	// maxCost is the number of differences past which a search in one
	// box gives up the exact middle and splits at its furthest point.
	// The search costs up to its square: kept small, it makes the
	// heuristic's splits cheap enough that the budget is seldom spent,
	// and they are close to the least (TestCompareNearLeast).
	maxCost = 128
)

// An edit replaces the old tokens [a0, a1) with the new tokens [b0,
// b1). A script's edits come in order, with at least one equal token
// between two of them (tokens the two sides hold alike, in the same
// order), and one side of an edit may be empty.
type edit struct{ a0, a1, b0, b1 int }

// budget is the work a comparison may still do. Several comparisons
// (lines first, then the words of the lines that changed) draw on one.
type budget struct{ left int }

func newBudget(tokens int) *budget {
	return &budget{left: min(workBase+workPerToken*tokens, workMax)}
}

// compare returns the edits that turn a into b, within the work bud
// allows.
func compare(a, b seq, bud *budget) []edit {
	// The common ends, compared as strings: the cost of reading them.
	n, m := a.len(), b.len()
	pre := 0
	for pre < n && pre < m && a.at(pre) == b.at(pre) {
		pre++
	}
	suf := 0
	for suf < n-pre && suf < m-pre && a.at(n-1-suf) == b.at(m-1-suf) {
		suf++
	}
	a, b = a.sub(pre, n-suf), b.sub(pre, m-suf)
	n, m = a.len(), b.len()
	if n == 0 && m == 0 {
		return nil
	}
	if n == 0 || m == 0 {
		return []edit{{pre, pre + n, pre, pre + m}}
	}

	// Tokens become numbers; those found on one side only are changed
	// before the search, which sees the others alone. Only the shorter
	// side's tokens are numbered in the map, the other's looked up.
	// (A text would need more than 2^31 tokens, some gigabytes, for the
	// numbers to overflow.)
	short, long := a, b
	if m < n {
		short, long = b, a
	}
	ids := make(map[string]int32, min(short.len(), 1<<16))
	is := make([]int32, short.len())
	for i := range is {
		t := short.at(i)
		id, ok := ids[t]
		if !ok {
			id = int32(len(ids))
			ids[t] = id
		}
		is[i] = id
	}
	il := make([]int32, long.len())
	inLong := make([]bool, len(ids))
	for i := range il {
		id, ok := ids[long.at(i)]
		if !ok {
			id = -1 // on this side only
		} else {
			inLong[id] = true
		}
		il[i] = id
	}
	ia, ib, inA, inB := is, il, []bool(nil), inLong
	if m < n {
		ia, ib, inA, inB = il, is, inLong, nil
	}
	ca := make([]bool, n)
	cb := make([]bool, m)
	ka, xa := keep(ia, inB, ca)
	kb, xb := keep(ib, inA, cb)

	my := myers{a: xa, b: xb, ca: make([]bool, len(xa)), cb: make([]bool, len(xb)), bud: bud}
	my.run()
	for i, c := range my.ca {
		ca[ka[i]] = c
	}
	for i, c := range my.cb {
		cb[kb[i]] = c
	}
	return script(ca, cb, pre)
}

// keep returns the positions and numbers of the tokens of ids that the
// other side holds too, and marks the rest changed. A token numbered -1
// is on its side only; other, when not nil, says which numbers the other
// side holds (when nil, it holds them all).
func keep(ids []int32, other, changed []bool) (pos []int, kept []int32) {
	shared := func(id int32) bool { return id >= 0 && (other == nil || other[id]) }
	n := 0
	for _, id := range ids {
		if shared(id) {
			n++
		}
	}
	pos, kept = make([]int, 0, n), make([]int32, 0, n)
	for i, id := range ids {
		if shared(id) {
			pos = append(pos, i)
			kept = append(kept, id)
		} else {
			changed[i] = true
		}
	}
	return pos, kept
}

// script turns the marks of what changed on either side into edits,
// pairing the unchanged tokens in order, with positions offset by off.
func script(ca, cb []bool, off int) []edit {
	n := 0
	for i, c := range ca {
		if c && (i == 0 || !ca[i-1]) {
			n++
		}
	}
	for j, c := range cb {
		if c && (j == 0 || !cb[j-1]) {
			n++
		}
	}
	out := make([]edit, 0, n) // at most one edit to a run of either side
	i, j := 0, 0
	for i < len(ca) || j < len(cb) {
		if i < len(ca) && j < len(cb) && !ca[i] && !cb[j] {
			i++
			j++
			continue
		}
		e := edit{a0: i, b0: j}
		for i < len(ca) && ca[i] {
			i++
		}
		for j < len(cb) && cb[j] {
			j++
		}
		e.a1, e.b1 = i, j
		if e.a0 == e.a1 && e.b0 == e.b1 {
			// Unreachable: the two sides keep as many tokens as each
			// other. Were it reached, the rest is one replacement.
			e.a1, e.b1 = len(ca), len(cb)
			i, j = e.a1, e.b1
		}
		out = append(out, edit{e.a0 + off, e.a1 + off, e.b0 + off, e.b1 + off})
	}
	return out
}

// myers marks the tokens of a and b that are in no common subsequence it
// finds: the least changes, where the work allows.
type myers struct {
	a, b   []int32
	ca, cb []bool
	bud    *budget
	vf, vb []int // the furthest points of the forward and backward paths
}

// box is a part of the comparison: a[x0:x1] against b[y0:y1].
type box struct{ x0, x1, y0, y1 int }

func (m *myers) run() {
	stack := []box{{0, len(m.a), 0, len(m.b)}}
	for len(stack) > 0 {
		bx := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x0, x1, y0, y1 := bx.x0, bx.x1, bx.y0, bx.y1
		n := 0
		for x0 < x1 && y0 < y1 && m.a[x0] == m.b[y0] {
			x0, y0, n = x0+1, y0+1, n+1
		}
		for x0 < x1 && y0 < y1 && m.a[x1-1] == m.b[y1-1] {
			x1, y1, n = x1-1, y1-1, n+1
		}
		m.bud.left -= n
		if x0 == x1 || y0 == y1 || m.bud.left <= 0 {
			m.change(x0, x1, y0, y1)
			continue
		}
		xs, ys, xe, ye, ok := m.split(x0, x1, y0, y1)
		if !ok {
			m.change(x0, x1, y0, y1)
			continue
		}
		stack = append(stack, box{xe, x1, ye, y1}, box{x0, xs, y0, ys})
	}
}

// change marks a box changed whole.
func (m *myers) change(x0, x1, y0, y1 int) {
	for i := x0; i < x1; i++ {
		m.ca[i] = true
	}
	for j := y0; j < y1; j++ {
		m.cb[j] = true
	}
}

// split finds where to divide the box a[x0:x1], b[y0:y1], which has no
// common first or last token: a snake a[xs:xe] == b[ys:ye] of a least
// path through it, or, past maxCost differences, the point (xs, ys) =
// (xe, ye) furthest from its corner that a forward or a backward path
// reached. It reports false when the budget ran out first.
//
// Points are kept inside the box: a path takes a step down or right only
// from a point that has room for it, so the furthest points are those of
// real paths, and the box they split is smaller on either side.
func (m *myers) split(x0, x1, y0, y1 int) (xs, ys, xe, ye int, ok bool) {
	n, mm := x1-x0, y1-y0
	a, b := m.a[x0:x1], m.b[y0:y1]
	delta := n - mm
	odd := delta&1 != 0
	limit := min((n+mm+1)/2, maxCost)
	size := 2*limit + 3
	off := limit + 1
	if cap(m.vf) < size {
		m.vf = make([]int, size)
		m.vb = make([]int, size)
	}
	// vf[off+k] is the furthest x a forward path reached on diagonal
	// x-y = k, or -1; vb[off+k-delta] the least x a backward path from
	// (n, mm) reached on diagonal k, or n+1.
	vf, vb := m.vf[:size], m.vb[:size]
	for i := range vf {
		vf[i], vb[i] = -1, n+1
	}
	m.bud.left -= size
	for d := 0; d <= limit; d++ {
		for k := -d; k <= d; k += 2 {
			x := -1
			if d == 0 {
				x = 0
			}
			if k < d {
				if p := vf[off+k+1]; p >= 0 && p-(k+1) < mm {
					x = p // a step down, from diagonal k+1
				}
			}
			if k > -d {
				if p := vf[off+k-1]; p >= 0 && p < n && p+1 > x {
					x = p + 1 // a step right, from diagonal k-1
				}
			}
			if x < 0 {
				vf[off+k] = -1
				continue
			}
			y := x - k
			sx, sy := x, y
			for x < n && y < mm && a[x] == b[y] {
				x, y = x+1, y+1
			}
			vf[off+k] = x
			m.bud.left -= 1 + x - sx
			if m.bud.left <= 0 {
				return 0, 0, 0, 0, false
			}
			if odd {
				if bk := k - delta; bk >= -(d-1) && bk <= d-1 && vb[off+bk] <= x {
					return x0 + sx, y0 + sy, x0 + x, y0 + y, true
				}
			}
		}
		for bk := -d; bk <= d; bk += 2 {
			k := bk + delta
			u := n + 1
			if d == 0 {
				u = n
			}
			if bk > -d {
				if p := vb[off+bk-1]; p <= n && p-(k-1) > 0 {
					u = p // a step up, from diagonal k-1
				}
			}
			if bk < d {
				if p := vb[off+bk+1]; p <= n && p > 0 && p-1 < u {
					u = p - 1 // a step left, from diagonal k+1
				}
			}
			if u > n {
				vb[off+bk] = n + 1
				continue
			}
			v := u - k
			eu, ev := u, v
			for u > 0 && v > 0 && a[u-1] == b[v-1] {
				u, v = u-1, v-1
			}
			vb[off+bk] = u
			m.bud.left -= 1 + eu - u
			if m.bud.left <= 0 {
				return 0, 0, 0, 0, false
			}
			if !odd && k >= -d && k <= d && vf[off+k] >= u {
				return x0 + u, y0 + v, x0 + eu, y0 + ev, true
			}
		}
	}
	// Too costly to find the middle: split at the furthest point either
	// way, which is neither corner, so both parts are smaller.
	best, px, py := 0, 0, 0
	for i, x := range vf {
		if y := x - (i - off); x >= 0 && x+y > best && (x < n || y < mm) {
			best, px, py = x+y, x, y
		}
	}
	for i, u := range vb {
		if v := u - (i - off + delta); u <= n && n+mm-u-v > best && (u > 0 || v > 0) {
			best, px, py = n+mm-u-v, u, v
		}
	}
	if best == 0 {
		return 0, 0, 0, 0, false
	}
	return x0 + px, y0 + py, x0 + px, y0 + py, true
}
