package bench

import (
	"hash/fnv"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/heedhq/heed/bench/htmlextract"
	"github.com/heedhq/heed/internal/extractdev"
)

type devPage struct {
	extractdev.Page
	html  []byte
	truth string
	url   *url.URL
}

func loadDev(tb testing.TB) []devPage {
	tb.Helper()
	pages, err := extractdev.Load("../extract/testdata/extract-dev")
	if err != nil {
		tb.Fatal(err)
	}
	var out []devPage
	for _, p := range pages {
		h, err := p.HTML()
		if err != nil {
			tb.Fatal(err)
		}
		t, err := p.TruthText()
		if err != nil {
			tb.Fatal(err)
		}
		u, err := url.Parse(p.URL)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, devPage{p, h, t, u})
	}
	return out
}

// BenchmarkExtractors runs each extractor over the 181 pages of the
// development set and reports, beside the time per page, its mean
// word-level F1 overall ("F1") and per page type ("F1-article", ...). A
// page an extractor fails on scores 0.
//
//	go test -run '^$' -bench Extractors -benchtime 1x
func BenchmarkExtractors(b *testing.B) {
	pages := loadDev(b)
	for _, ex := range htmlextract.All {
		b.Run(ex.Name, func(b *testing.B) {
			var all []float64
			byType := map[string][]float64{}
			for b.Loop() {
				all = all[:0]
				clear(byType)
				for _, p := range pages {
					text, err := ex.Run(p.html, p.url)
					f := 0.0
					if err == nil {
						_, _, f = extractdev.Score(text, p.truth)
					}
					all = append(all, f)
					byType[p.PageType] = append(byType[p.PageType], f)
					// The two fixed halves TestQuality reports.
					h := fnv.New32a()
					h.Write([]byte(p.ID))
					byType["half-"+string("AB"[h.Sum32()%2])] = append(byType["half-"+string("AB"[h.Sum32()%2])], f)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(pages))/1e6, "ms/page")
			b.ReportMetric(extractdev.Mean(all), "F1")
			var types []string
			for t := range byType {
				types = append(types, t)
			}
			sort.Strings(types)
			for _, t := range types {
				b.ReportMetric(extractdev.Mean(byType[t]), "F1-"+strings.ReplaceAll(t, " ", "-"))
			}
		})
	}
}
