package stash

import (
	"fmt"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/internal/extractdev"
	"github.com/heedhq/heed/internal/testutil"
)

// devMarkdown is the Markdown of the extraction development set's pages:
// what a crawl stores.
func devMarkdown(tb testing.TB) []*extract.Document {
	tb.Helper()
	pages, err := extractdev.Load("../../extract/testdata/extract-dev")
	if err != nil {
		tb.Fatal(err)
	}
	var docs []*extract.Document
	for _, p := range pages {
		h, err := p.HTML()
		if err != nil {
			tb.Fatal(err)
		}
		d, err := extract.ExtractBytes(h, extract.Options{URL: p.URL})
		if err != nil {
			tb.Fatal(err)
		}
		docs = append(docs, d)
	}
	return docs
}

// BenchmarkPut stores real pages' Markdown as a crawl does, in batches of
// 64: the file, its row and its full-text entry, per page. It reports the
// process's CPU time per page, user and system, which the time per page
// leaves out: most of that is waiting on file syncs.
//
//	go test -run '^$' -bench Put -benchtime 2000x ./internal/stash
func BenchmarkPut(b *testing.B) {
	docs := devMarkdown(b)
	s, err := Open(b.Context(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	s.SetBatch(64)
	i := 0
	cpu := testutil.CPUTime()
	for b.Loop() {
		d := docs[i%len(docs)]
		snap := &heed.Snapshot{Source: "bench", URL: fmt.Sprintf("https://bench.example/p/%d", i), Title: d.Title, Markdown: d.Markdown, FetchedAt: time.Now()}
		if _, err := s.Put(b.Context(), snap); err != nil {
			b.Fatal(err)
		}
		i++
	}
	if err := s.Flush(b.Context()); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cpu().Microseconds())/1000/float64(i), "cpu-ms/page")
}
