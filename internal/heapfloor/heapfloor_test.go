package heapfloor

import (
	"runtime"
	"runtime/debug"
	"testing"
)

var sink []byte

// collections counts the collections while 512 MB of short-lived garbage
// is made, with a small live heap, as a crawl makes it.
func collections() uint32 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 8192 {
		sink = make([]byte, 64<<10)
	}
	runtime.ReadMemStats(&after)
	return after.NumGC - before.NumGC
}

func TestFloorSpacesCollections(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	without := collections()
	undo := Set(128 << 20)
	with := collections()
	undo()
	again := collections()
	t.Logf("collections: %d without a floor, %d with a 128 MB floor, %d after undo", without, with, again)
	// Without a floor the goal is a few megabytes: over a hundred
	// collections. With it, about one every 128 MB.
	if with*10 > without || with < 2 || with > 8 {
		t.Errorf("a 128 MB floor left %d collections, against %d without", with, without)
	}
	if again*2 < without {
		t.Errorf("after undo: %d collections, against %d before the floor", again, without)
	}
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("after undo the collector's percentage is %d, want 100", p)
	}
}

func TestFloorGivesWayToALargeLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	undo := Set(32 << 20)
	defer undo()
	// A live heap past half the floor: the default rule applies.
	keep := make([][]byte, 0, 64)
	for range 64 {
		keep = append(keep, make([]byte, 1<<20))
	}
	runtime.GC()
	runtime.GC() // the cleanup of the first collection has run by the second's end
	adjust()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("with 64 MB live and a 32 MB floor the percentage is %d, want 100", p)
	}
	runtime.KeepAlive(keep)
}

func TestEnvironmentWins(t *testing.T) {
	t.Setenv("GOGC", "100")
	undo := Set(128 << 20)
	defer undo()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("with GOGC set, Set changed the percentage to %d", p)
	}
}
