package textdiff

// seq is a text cut into tokens: token i is s[off[i]:off[i+1]]. It
// holds no strings of its own, so a long text's tokens cost the
// collector nothing to scan.
type seq struct {
	s   string
	off []int
}

// len is the number of tokens.
func (q seq) len() int { return len(q.off) - 1 }

// at is token i.
func (q seq) at(i int) string { return q.s[q.off[i]:q.off[i+1]] }

// sub is tokens [i, j), numbered from 0.
func (q seq) sub(i, j int) seq { return seq{q.s, q.off[i : j+1]} }
