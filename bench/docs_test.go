package bench

import (
	"bytes"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/heedhq/heed/bench/htmlextract"
	"github.com/heedhq/heed/internal/docset"
	"github.com/heedhq/heed/internal/extractdev"
)

const docsDir = "../extract/testdata/docs"

// BenchmarkDocsExtractors runs each extractor over the documentation set
// (rebuilt from Debian's documentation packages: go run
// ./internal/docset/cmd/docset extract/testdata/docs, from heed's root)
// and reports by generator the mean word F1 ("F1-docbook", ...) and the
// pages whose navigation it kept ("nav-docbook": two or more of the
// page's navigation links' texts in its text, that the truth has not).
//
//	go test -run '^$' -bench DocsExtractors -benchtime 1x
func BenchmarkDocsExtractors(b *testing.B) {
	pages, err := docset.Load(docsDir)
	if err != nil {
		b.Skipf("no documentation set in %s: %v", docsDir, err)
	}
	type page struct {
		docset.Page
		html  []byte
		truth string
		url   *url.URL
	}
	var ps []page
	for _, p := range pages {
		h, err := p.HTML(docsDir)
		if err != nil {
			b.Fatal(err)
		}
		t, err := p.TruthText(docsDir)
		if err != nil {
			b.Fatal(err)
		}
		u, _ := url.Parse(p.URL)
		ps = append(ps, page{p, h, t, u})
	}
	for _, ex := range htmlextract.All {
		b.Run(ex.Name, func(b *testing.B) {
			f1 := map[string][]float64{}
			nav := map[string]int{}
			for b.Loop() {
				clear(f1)
				clear(nav)
				for _, p := range ps {
					text, err := ex.Run(bytes.Clone(p.html), p.url)
					f := 0.0
					if err == nil {
						_, _, f = extractdev.Score(text, p.truth)
					}
					f1[p.PageType] = append(f1[p.PageType], f)
					kept := 0
					for _, l := range p.Nav {
						if strings.Contains(text, l.Text) && !strings.Contains(p.truth, l.Text) {
							kept++
						}
					}
					if kept >= 2 {
						nav[p.PageType]++
					}
				}
			}
			var gens []string
			for g := range f1 {
				gens = append(gens, g)
			}
			sort.Strings(gens)
			var all []float64
			for _, g := range gens {
				b.ReportMetric(extractdev.Mean(f1[g]), "F1-"+g)
				b.ReportMetric(float64(nav[g]), "nav-"+g)
				all = append(all, f1[g]...)
			}
			b.ReportMetric(extractdev.Mean(all), "F1")
		})
	}
}
