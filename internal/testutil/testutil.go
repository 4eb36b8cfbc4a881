package testutil

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Resident is the process's resident memory in bytes, or 0 where
// /proc/self/statm does not say (off Linux).
func Resident() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// Buffer is a buffer that a command or process writes while a test reads
// it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Sections reads a file of named sections, each starting with a line
// "-- name --" (the txtar form), and returns the text of each. Text before
// the first section is a comment and is dropped.
func Sections(tb testing.TB, file string) map[string]string {
	tb.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]string{}
	name := ""
	for l := range strings.Lines(string(data)) {
		if h, ok := strings.CutPrefix(strings.TrimRight(l, "\n"), "-- "); ok && strings.HasSuffix(h, " --") {
			name = strings.TrimSuffix(h, " --")
			out[name] = ""
			continue
		}
		if name != "" {
			out[name] += l
		}
	}
	return out
}

// WriteSections writes sections in the form Sections reads, after a comment.
func WriteSections(tb testing.TB, file, comment string, names []string, sections map[string]string) {
	tb.Helper()
	var b strings.Builder
	b.WriteString(comment)
	for _, n := range names {
		b.WriteString("-- " + n + " --\n")
		v := sections[n]
		b.WriteString(v)
		if v != "" && !strings.HasSuffix(v, "\n") {
			b.WriteByte('\n')
		}
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// Allocated is how many bytes f allocates, counted by the runtime: the
// work a test bounds, whatever the machine's speed or load.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
