// Package heapfloor keeps the garbage collector from running while the
// heap is still small. A crawl makes a few megabytes of short-lived
// garbage for every page (the parsed HTML above all) while what it keeps
// is a few megabytes more; with the collector's default rule (collect when
// the heap has doubled since the last collection) it would collect every
// few pages, and spend much of the crawl's CPU doing so. Go's compiler
// starts the same way, for the same reason.
package heapfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Heed is the floor the heed command sets: 64 MB, some ten times what a
// crawl keeps, so that collections come every few dozen pages rather than
// every few.
const Heed = 64 << 20

// percent is the collector's rule once the live heap is past the floor:
// Go's default.
const percent = 100

var (
	mu    sync.Mutex
	floor uint64 // 0: off
	gen   int    // which Set armed the sentinel that is live
)

// Set keeps the heap goal at least bytes: while the live heap is under
// half of it, a collection waits until the heap reaches bytes; past that,
// the default rule applies. It is adjusted after every collection. A GOGC
// or GOMEMLIMIT in the environment is the user's choice, and Set then does
// nothing. The function it returns puts the default rule back.
func Set(bytes uint64) (undo func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" || bytes == 0 {
		return func() {}
	}
	mu.Lock()
	floor = bytes
	gen++
	g := gen
	mu.Unlock()
	adjust()
	arm(g)
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if gen == g {
			floor = 0
			gen++
			debug.SetGCPercent(percent)
		}
	}
}

// sentinel is garbage as soon as it is made: its cleanup runs after the
// next collection. It is larger than the allocator's tiny objects, whose
// cleanups may wait for their neighbours.
type sentinel struct{ _ [64]byte }

// arm has adjust run after the next collection, and again after each one,
// for as long as the floor set by Set number g is the one in force.
func arm(g int) {
	runtime.AddCleanup(new(sentinel), func(g int) {
		mu.Lock()
		live := gen == g
		mu.Unlock()
		if live {
			adjust()
			arm(g)
		}
	}, g)
}

// heapMinimum is the runtime's least goal at a percentage of 100; at
// other percentages it is scaled alike.
const heapMinimum = 4 << 20

// adjust sets the collector's percentage so that the next goal is the
// floor, or what the default rule gives if that is more. The runtime's
// goal is the live heap and the percentage of the live heap, stacks and
// globals together, and at least heapMinimum scaled by the percentage.
func adjust() {
	sample := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/scan/stack:bytes"},
		{Name: "/gc/scan/globals:bytes"},
	}
	metrics.Read(sample)
	var v [3]uint64
	for i, s := range sample {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	live, scanned := v[0], max(v[0]+v[1]+v[2], 1)
	mu.Lock()
	defer mu.Unlock()
	if floor == 0 {
		return
	}
	p := uint64(percent)
	if live+scanned*percent/100 < floor {
		p = min((floor-live)*100/scanned, floor*100/heapMinimum)
	}
	debug.SetGCPercent(int(max(p, percent)))
}
