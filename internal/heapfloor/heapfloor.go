package heapfloor

import (
	"os"
	"sync"
)

// Heed is the floor the heed commands that crawl set: 64 MB, some ten
// times what a crawl keeps. The reserve being live, about half of it is
// room for garbage between collections: a collection every dozen pages or
// so rather than every few.
const Heed = 64 << 20

// fromEnvironment reports whether GOGC or GOMEMLIMIT were set when the
// program started: the collector is then the user's to tune.
var fromEnvironment = os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != ""

var (
	mu      sync.Mutex
	reserve []byte
	gen     int // which Set made the reserve
)

// Set keeps the collector's heap goal at floor bytes or more, until the
// function it returns is called. With GOGC or GOMEMLIMIT in the
// environment it does nothing. A later Set replaces an earlier one.
//
// Call it early, once, in a fresh process: the reserve then comes from
// memory the program never used, which needs no clearing and so is never
// written. Made after much of the heap has been used and freed, it may be
// cleared, and then it is resident like any other memory.
func Set(floor uint64) (undo func()) {
	if fromEnvironment || floor == 0 {
		return func() {}
	}
	mu.Lock()
	defer mu.Unlock()
	reserve = make([]byte, floor/2)
	gen++
	g := gen
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if gen == g {
			reserve = nil
		}
	}
}

// Reserve is the size of the reserve in force: heap that holds nothing,
// for those who measure the heap to leave out.
func Reserve() uint64 {
	mu.Lock()
	defer mu.Unlock()
	return uint64(len(reserve))
}
