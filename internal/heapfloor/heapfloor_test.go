package heapfloor

import (
	"fmt"
	"github.com/heedhq/heed/internal/testutil"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
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
	if fromEnvironment {
		t.Skip("GOGC or GOMEMLIMIT is set: the floor is off")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	without := collections()
	undo := Set(128 << 20)
	with := collections()
	floorGoal := goal()
	if got := Reserve(); got != 64<<20 {
		t.Errorf("Reserve() = %d, want %d", got, 64<<20)
	}
	undo()
	runtime.GC()
	after := goal()
	t.Logf("collections: %d without a floor, %d with a 128 MB floor; goal %d MB with it, %d MB after undo", without, with, floorGoal>>20, after>>20)
	// Without a floor the goal is a few megabytes: dozens of collections
	// or more (fewer on a busy machine, whose collections take longer).
	// With it, about half the floor is room for garbage, and 512 MB of it
	// takes some eight collections; a collection starts somewhat before
	// the goal.
	if with > 16 {
		t.Errorf("a 128 MB floor left %d collections, against %d without", with, without)
	}
	if floorGoal < 128<<20 {
		t.Errorf("with a 128 MB floor the heap goal is %d bytes", floorGoal)
	}
	if after >= 32<<20 || Reserve() != 0 {
		t.Errorf("after undo the goal is %d bytes and the reserve %d", after, Reserve())
	}
}

// goal is the collector's heap goal after the last collection.
func goal() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// childEnv makes the test binary a fresh process that sets a floor and
// prints how much larger in memory that made it.
const childEnv = "HEAPFLOOR_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		before := testutil.Resident()
		undo := Set(512 << 20)
		runtime.GC()
		fmt.Println(int64(testutil.Resident())-int64(before), Reserve())
		undo()
		return
	}
	os.Exit(m.Run())
}

func TestReserveIsNotResident(t *testing.T) {
	if fromEnvironment {
		t.Skip("GOGC or GOMEMLIMIT is set: the floor is off")
	}
	if testutil.Resident() == 0 {
		t.Skip("no /proc/self/statm here")
	}
	// In a fresh process, as a heed command sets its floor at its start:
	// memory the heap used before would be cleared, and so written.
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var grew int64
	var reserve uint64
	if _, err := fmt.Sscan(string(out), &grew, &reserve); err != nil {
		t.Fatalf("the child said %q: %v", out, err)
	}
	if reserve != 256<<20 {
		t.Errorf("the child's reserve is %d bytes, want %d", reserve, 256<<20)
	}
	// The reserve is 256 MB of heap, none of it written.
	if grew > 32<<20 {
		t.Errorf("a 256 MB reserve made the process %d MB larger in memory", grew>>20)
	}
}

func TestLaterSetReplacesEarlier(t *testing.T) {
	if fromEnvironment {
		t.Skip("GOGC or GOMEMLIMIT is set: the floor is off")
	}
	undo1 := Set(32 << 20)
	undo2 := Set(16 << 20)
	undo1() // a stale undo leaves the later floor alone
	if got := Reserve(); got != 8<<20 {
		t.Errorf("Reserve() = %d after a stale undo, want %d", got, 8<<20)
	}
	undo2()
	if got := Reserve(); got != 0 {
		t.Errorf("Reserve() = %d after undo, want 0", got)
	}
}
