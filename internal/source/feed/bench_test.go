package feed

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
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

// BenchmarkReadBypasses reads feeds just under MaxBytes whose items are
// spelled to slip past a cutter that matches bytes (see bypasses), and
// reports the most heap in use while it reads: the cut holds whatever the
// spelling, so the heap holds the body and little more.
//
//	go test -run '^$' -bench Bypasses -benchmem ./internal/source/feed
func BenchmarkReadBypasses(b *testing.B) {
	for name := range bypasses(1) {
		b.Run(name, func(b *testing.B) {
			body := bypasses(MaxBytes)[name]
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			runtime.GC()
			peak := sampleHeap()
			for b.Loop() {
				if f, err := Read(body, "https://tiny.example.com/feed", 50); err == nil && len(f.Items) > 50 {
					b.Fatalf("%d items", len(f.Items))
				}
			}
			b.ReportMetric(float64(peak())/(1<<20), "MB-peak-heap")
		})
	}
}

// BenchmarkReadTinyItems reads a feed of empty items just under MaxBytes
// (about 1.5 million of them), keeping 50, and reports the most heap in
// use while it reads, sampled by a goroutine: the items are cut before
// gofeed reads them, so the heap holds the body and little more.
//
//	go test -run '^$' -bench TinyItems -benchmem ./internal/source/feed
func BenchmarkReadTinyItems(b *testing.B) {
	for _, item := range []string{"<item/>", "<entry/>", "{}"} {
		b.Run(map[string]string{"<item/>": "rss", "<entry/>": "atom", "{}": "json"}[item], func(b *testing.B) {
			body := tinyItems(item)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			runtime.GC()
			peak := sampleHeap()
			for b.Loop() {
				f, err := Read(body, "https://tiny.example.com/feed", 50)
				if err != nil || len(f.Items) != 50 {
					b.Fatalf("%v, %d items", err, len(f.Items))
				}
			}
			b.ReportMetric(float64(peak())/(1<<20), "MB-peak-heap")
		})
	}
}

// sampleHeap samples the heap's live and unswept objects every
// millisecond until the function it returns is called, which returns the
// most seen.
func sampleHeap() func() uint64 {
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var most uint64
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			most = max(most, s[0].Value.Uint64())
			select {
			case <-stop:
				done <- most
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(stop); return <-done }
}
