package textdiff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// checkScript fails t unless edits are a script that turns a into b:
// in order, apart, and with the tokens between them equal.
func checkScript(t *testing.T, a, b []string, edits []edit) {
	t.Helper()
	i, j := 0, 0
	for n, e := range edits {
		if e.a0 > e.a1 || e.b0 > e.b1 || e.a0 == e.a1 && e.b0 == e.b1 {
			t.Fatalf("edit %d is %+v", n, e)
		}
		if n > 0 && e.a0 == i {
			t.Fatalf("edit %d %+v touches the one before", n, e)
		}
		if e.a0-i != e.b0-j {
			t.Fatalf("edit %d %+v: %d equal tokens in a before it, %d in b", n, e, e.a0-i, e.b0-j)
		}
		for ; i < e.a0; i, j = i+1, j+1 {
			if a[i] != b[j] {
				t.Fatalf("before edit %d: a[%d]=%q is not b[%d]=%q", n, i, a[i], j, b[j])
			}
		}
		i, j = e.a1, e.b1
	}
	if len(a)-i != len(b)-j {
		t.Fatalf("after the edits: %d tokens left in a, %d in b", len(a)-i, len(b)-j)
	}
	for ; i < len(a); i, j = i+1, j+1 {
		if a[i] != b[j] {
			t.Fatalf("after the edits: a[%d]=%q is not b[%d]=%q", i, a[i], j, b[j])
		}
	}
}

// seqOf makes a sequence of the tokens ts.
func seqOf(ts []string) seq {
	q := seq{s: strings.Join(ts, ""), off: make([]int, len(ts)+1)}
	for i, t := range ts {
		q.off[i+1] = q.off[i] + len(t)
	}
	return q
}

// changed is how many tokens edits remove and add.
func changed(edits []edit) int {
	n := 0
	for _, e := range edits {
		n += e.a1 - e.a0 + e.b1 - e.b0
	}
	return n
}

// lcs is the length of a longest common subsequence of a and b, the
// slow way.
func lcs(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func randomTokens(r *rand.Rand, n, alphabet int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('a' + r.IntN(alphabet)))
	}
	return out
}

// mutate returns a copy of a with about changes tokens removed,
// replaced or added, at random places.
func mutate(r *rand.Rand, a []string, alphabet, changes int) []string {
	b := make([]string, 0, len(a)+changes)
	letter := func() string { return string(rune('a' + r.IntN(alphabet))) }
	for i := 0; i <= len(a); i++ {
		if r.IntN(len(a)+1) < changes {
			switch r.IntN(3) {
			case 0:
				if i < len(a) {
					continue // removed
				}
			case 1:
				if i < len(a) {
					b = append(b, letter()) // replaced
					continue
				}
			default:
				b = append(b, letter()) // added
			}
		}
		if i < len(a) {
			b = append(b, a[i])
		}
	}
	return b
}

// TestCompareIsLeast: within its bounds, compare finds the least script,
// as long as a longest common subsequence says, on pairs of random
// sequences, alike and unalike.
func TestCompareIsLeast(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 3000 {
		alphabet := 2 + n%5
		a := randomTokens(r, r.IntN(40), alphabet)
		var b []string
		if n%2 == 0 {
			b = mutate(r, a, alphabet, 1+r.IntN(8))
		} else {
			b = randomTokens(r, r.IntN(40), alphabet)
		}
		edits := compare(seqOf(a), seqOf(b), newBudget(len(a)+len(b)))
		checkScript(t, a, b, edits)
		if got, want := changed(edits), len(a)+len(b)-2*lcs(a, b); got != want {
			t.Fatalf("compare(%q, %q) changes %d tokens, the least is %d: %+v", a, b, got, want, edits)
		}
	}
}

// setBounds sets the bounds of the comparison for one test.
func setBounds(t *testing.T, base, perToken, cost int) {
	b, p, c := workBase, workPerToken, maxCost
	workBase, workPerToken, maxCost = base, perToken, cost
	t.Cleanup(func() { workBase, workPerToken, maxCost = b, p, c })
}

// TestCompareBoundedIsExact: past maxCost, and with the budget spent,
// compare still gives a script that turns a into b, only a larger one.
func TestCompareBoundedIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ base, perToken, cost int }{
		{1 << 20, 0, 2}, {1 << 20, 0, 1}, {0, 0, 1024}, {50, 0, 1024}, {200, 1, 3},
	} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			setBounds(t, c.base, c.perToken, c.cost)
			larger := 0
			for n := range 2000 {
				alphabet := 2 + n%5
				a := randomTokens(r, r.IntN(60), alphabet)
				b := mutate(r, a, alphabet, r.IntN(30))
				edits := compare(seqOf(a), seqOf(b), newBudget(len(a)+len(b)))
				checkScript(t, a, b, edits)
				if changed(edits) > len(a)+len(b)-2*lcs(a, b) {
					larger++
				}
			}
			if larger == 0 {
				t.Fatal("no script was larger than the least: the bound was never reached")
			}
		})
	}
}

// TestCompareWorkIsBounded: on hostile pairs the work done stays within
// the budget, overrun by at most one snake and the set-up of one search;
// on a long pair with one token in ten changed, the budget suffices for
// a script no larger than the changes made; and texts that share nothing
// cost no search at all.
func TestCompareWorkIsBounded(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ab := func(n int) []string { return randomTokens(r, n, 2) }
	long := randomTokens(r, 200000, 26)
	for _, c := range []struct {
		name string
		a, b []string
		most int // the most tokens the script may change
	}{
		{"random a and b", ab(200000), ab(200000), 400000},
		{"shifted", strings.Split(strings.Repeat("ab", 100000), ""), strings.Split("b"+strings.Repeat("ab", 100000), ""), 1},
		{"one in ten changed", long, mutate(r, long, 26, 20000), 2 * 20000},
		{"all of one, one", strings.Split(strings.Repeat("a", 200000), ""), strings.Split(strings.Repeat("a", 100000)+"b"+strings.Repeat("a", 99999), ""), 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			bud := newBudget(len(c.a) + len(c.b))
			total := bud.left
			edits := compare(seqOf(c.a), seqOf(c.b), bud)
			checkScript(t, c.a, c.b, edits)
			spent := total - bud.left
			if over := spent - total; over > min(len(c.a), len(c.b))+2*maxCost+3 {
				t.Fatalf("spent %d, %d past the budget", spent, over)
			}
			if changed(edits) > c.most {
				t.Fatalf("%d tokens changed, want at most %d", changed(edits), c.most)
			}
			t.Logf("%d tokens: spent %d of %d, %d edits, %d tokens changed", len(c.a)+len(c.b), spent, total, len(edits), changed(edits))
		})
	}
	t.Run("nothing shared", func(t *testing.T) {
		a := make([]string, 100000)
		b := make([]string, 100000)
		for i := range a {
			a[i], b[i] = fmt.Sprint("a", i), fmt.Sprint("b", i)
		}
		bud := newBudget(len(a) + len(b))
		total := bud.left
		edits := compare(seqOf(a), seqOf(b), bud)
		if len(edits) != 1 || edits[0] != (edit{0, len(a), 0, len(b)}) {
			t.Fatalf("edits %+v, want one replacement of all", edits)
		}
		if spent := total - bud.left; spent > 0 {
			t.Fatalf("spent %d on a search, want none", spent)
		}
	})
}

// TestCompareNearLeast: past maxCost differences, the splits at the
// furthest points still give a script close to the least: within 1% on
// sequences with one token in ten, and three in ten, changed.
func TestCompareNearLeast(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, rate := range []int{10, 30} {
		a := randomTokens(r, 5000, 26)
		b := mutate(r, a, 26, len(a)*rate/100)
		edits := compare(seqOf(a), seqOf(b), newBudget(len(a)+len(b)))
		checkScript(t, a, b, edits)
		got, least := changed(edits), len(a)+len(b)-2*lcs(a, b)
		if got*100 > least*101 {
			t.Errorf("%d%% changed: %d tokens changed, the least is %d", rate, got, least)
		}
		if least <= 2*maxCost {
			t.Errorf("%d%% changed: the least is %d, within maxCost: the heuristic is not tried", rate, least)
		}
		t.Logf("%d%% changed: %d tokens changed, the least is %d", rate, got, least)
	}
}

// BenchmarkCompareSpent compares two sequences of 2 million tokens, a or
// b at random, which spend the whole budget, workMax: what it costs at
// most, on top of reading the texts.
//
//	go test -run '^$' -bench CompareSpent ./internal/textdiff
func BenchmarkCompareSpent(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	x, y := seqOf(randomTokens(r, 2_000_000, 2)), seqOf(randomTokens(r, 2_000_000, 2))
	for b.Loop() {
		bud := newBudget(x.len() + y.len())
		compare(x, y, bud)
		if bud.left > 0 {
			b.Fatalf("%d of the budget left", bud.left)
		}
	}
}
