package crawl

import "hash/maphash"

// Item is a URL a crawl may fetch, and what it knows of it.
type Item struct {
	URL     string
	Depth   int    // links followed from the start URL
	LastMod string // what a sitemap said of it
	// Via says how it was found, where not by a link: ViaLLMsTxt.
	Via []string
	// Attempts are the times it failed for a cause that may pass (Retry).
	Attempts int
	// requests are those of it counted against max_pages on its turn,
	// which its crawl's ledger counts once it ends (run.ended) or is
	// queued again.
	requests int
}

// Frontier holds a crawl's URLs: the set of those seen, and those
// waiting, by host, first in first out. The crawler calls it under a
// lock of its own, one call at a time, and keeps its bounds (Room). The
// frontier in this process is NewFrontier's; a crawl shared by many
// machines keeps its frontier in a database.
type Frontier interface {
	// Seen reports whether the URL was marked.
	Seen(url string) bool
	// Mark marks the URL seen, even past the frontier's bound.
	Mark(url string)
	// Room reports whether the frontier remembers fewer URLs than its
	// bound: a URL the crawl may drop is marked only with room.
	Room() bool
	// Push queues an item behind the others of its host.
	Push(host string, it Item)
	// Pop takes the next item of a host; false when none waits.
	Pop(host string) (Item, bool)
}

// memFrontier is the frontier in this process: the seen set as 64-bit
// hashes under a seed of its own, so that its memory does not grow with
// the URLs' length, and a queue per host. Two URLs share a hash with odds
// of about n²/2⁶⁵ among n (one in thirty million among a million URLs),
// and no page can aim for it, as the seed is random.
type memFrontier struct {
	seed   maphash.Seed
	seen   map[uint64]struct{}
	max    int
	queues map[string][]Item
}

// Bounds of a frontier's seen set: it holds this many URLs per page of
// max_pages, and never fewer than minSeen or more than maxSeen (about 16
// bytes each).
const (
	seenPerPage = 200
	minSeen     = 100_000
	maxSeen     = 10_000_000
)

// NewFrontier returns the frontier in this process of a crawl of at
// most maxPages pages.
func NewFrontier(maxPages int) Frontier {
	n := min(max(seenPerPage*min(maxPages, maxSeen), minSeen), maxSeen)
	return &memFrontier{seed: maphash.MakeSeed(), seen: map[uint64]struct{}{}, max: n, queues: map[string][]Item{}}
}

func (f *memFrontier) key(url string) uint64 { return maphash.String(f.seed, url) }

func (f *memFrontier) Seen(url string) bool {
	_, ok := f.seen[f.key(url)]
	return ok
}

func (f *memFrontier) Mark(url string) { f.seen[f.key(url)] = struct{}{} }

func (f *memFrontier) Room() bool { return len(f.seen) < f.max }

func (f *memFrontier) Push(host string, it Item) { f.queues[host] = append(f.queues[host], it) }

func (f *memFrontier) Pop(host string) (Item, bool) {
	q := f.queues[host]
	if len(q) == 0 {
		delete(f.queues, host)
		return Item{}, false
	}
	f.queues[host] = q[1:]
	return q[0], true
}
