package feed

import (
	"runtime"
	"testing"
)

// BenchmarkRead10k reads a feed of 10,000 items (about 2 MB) keeping the
// newest 50, and reports the heap it allocates per read and the most in
// use at the end of one (the limit holds: the items past it are dropped
// before their HTML is converted).
//
//	go test -run '^$' -bench Read10k -benchmem ./internal/source/feed
func BenchmarkRead10k(b *testing.B) {
	body := bigFeed(10000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		f, err := Read(body, "https://big.example.com/feed.xml", 50)
		if err != nil || len(f.Items) != 50 {
			b.Fatalf("%v, %d items", err, len(f.Items))
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapInuse)
	}
	b.ReportMetric(float64(peak)/(1<<20), "MB-heap-inuse")
}
