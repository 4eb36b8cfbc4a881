package crawl

import "hash/maphash"

// seenSet is the set of URLs a crawl has seen, kept as 64-bit hashes
// under a seed of its own, so that its memory does not grow with the
// URLs' length. Two URLs share a hash with odds of about n²/2⁶⁵ among n
// (one in thirty million among a million URLs), and no page can aim for
// it, as the seed is random.
type seenSet struct {
	seed maphash.Seed
	m    map[uint64]struct{}
	max  int
}

// Bounds of a seen set: it holds this many URLs per page of max_pages,
// and never fewer than minSeen or more than maxSeen (about 16 bytes each).
const (
	seenPerPage = 200
	minSeen     = 100_000
	maxSeen     = 10_000_000
)

func newSeenSet(maxPages int) seenSet {
	n := min(max(seenPerPage*min(maxPages, maxSeen), minSeen), maxSeen)
	return seenSet{seed: maphash.MakeSeed(), m: map[uint64]struct{}{}, max: n}
}

func (s *seenSet) key(url string) uint64 { return maphash.String(s.seed, url) }

func (s *seenSet) has(k uint64) bool {
	_, ok := s.m[k]
	return ok
}

// put records a key, even past the set's bound: callers ask room first
// for URLs they may drop, and record the few they may not (a redirect's
// final URL, a canonical URL) without asking.
func (s *seenSet) put(k uint64) { s.m[k] = struct{}{} }

// room reports whether the set holds fewer URLs than its bound.
func (s *seenSet) room() bool { return len(s.m) < s.max }
