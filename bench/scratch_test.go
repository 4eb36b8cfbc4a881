package bench

import (
	"fmt"
	"sort"
	"testing"

	"github.com/heedhq/heed/internal/extractdev"
)

func TestScratchCompare(t *testing.T) {
	pages := loadDev(t)
	type row struct {
		id, typ                string
		hp, hr, hf, tp, tr, tf float64
	}
	var rows []row
	for _, p := range pages {
		h, _ := extractors[0].run(p.html, p.url)
		tt, _ := extractors[1].run(p.html, p.url)
		hp, hr, hf := extractdev.Score(h, p.truth)
		tp, tr, tf := extractdev.Score(tt, p.truth)
		rows = append(rows, row{p.ID, p.PageType, hp, hr, hf, tp, tr, tf})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].hf-rows[i].tf < rows[j].hf-rows[j].tf })
	for _, r := range rows {
		if r.hf < r.tf-0.01 {
			fmt.Printf("%-28s %-11s heed P%.2f R%.2f F%.2f | traf P%.2f R%.2f F%.2f\n", r.id, r.typ, r.hp, r.hr, r.hf, r.tp, r.tr, r.tf)
		}
	}
}
