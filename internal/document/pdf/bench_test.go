package pdf

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/internal/document/pdf/pdftest"
)

// BenchmarkRead500 reads a 500-page document, and reports pages a second
// and the most heap in use while it does (the engine's memory is part of
// the Go heap). Run: go test -bench Read500 -benchmem ./internal/document/pdf
func BenchmarkRead500(b *testing.B) {
	raw := pdftest.Generate("", 500)
	if _, err := Read(raw, extract.Options{}); err != nil {
		b.Fatal(err)
	}
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
			}
		}
	}()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Read(raw, extract.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	close(done)
	b.ReportMetric(float64(500*b.N)/b.Elapsed().Seconds(), "pages/s")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
}
