// Command extractscore measures heed's main-content extraction against
// go-trafilatura and go-readability on a set of pages with their truth
// text (a folder with a manifest.jsonl, as extract/testdata/extract-dev
// and the large development set keep them).
//
// For each half of the set (a page's "split": tune or check), for all
// pages, and for the newest pages apart (WCXB ids 4000 and up), it
// prints each extractor's mean word F1, overall and per page type, and
// heed's paired difference against go-trafilatura with a 95% bootstrap
// interval. It counts the empty results where the truth is not empty.
//
//	go -C bench run ./cmd/extractscore -set DIR
//
// The other extractors' texts do not change between runs of heed's: with
// -cache FILE they are kept there and read back. -pages FILE writes each
// page's scores as tab-separated lines for a closer look.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/heedhq/heed/bench/htmlextract"
	"github.com/heedhq/heed/internal/extractdev"
)

type row struct{ extractdev.Page }

// newest says whether a page is among the set's newest: WCXB ids 4000
// and up.
func (r row) newest() bool {
	n, err := strconv.Atoi(strings.TrimPrefix(r.ID, "wcxb-"))
	return r.Set == "wcxb" && err == nil && n >= 4000
}

// result is one page's F1 and whether its text was empty, per extractor.
type result struct {
	f1    map[string]float64
	p, r  map[string]float64 // precision and recall
	empty map[string]bool
	ms    map[string]float64
	words map[string]int // words of each extractor's text
}

func main() {
	dir := flag.String("set", "", "the set's folder (with manifest.jsonl)")
	cache := flag.String("cache", "", "a file keeping the other extractors' texts between runs")
	pagesOut := flag.String("pages", "", "write each page's scores here")
	only := flag.String("split", "", "measure only this split (tune or check)")
	without := flag.String("without", "", "a set whose pages the check half is reported without too (one tuned on before)")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "extractscore: -set DIR is required")
		os.Exit(2)
	}
	rows, err := load(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "extractscore:", err)
		os.Exit(1)
	}
	if *only != "" {
		rows = slices.DeleteFunc(rows, func(r row) bool { return r.Split != *only })
	}
	kept := map[string]string{} // extractor/id → text
	if *cache != "" {
		if b, err := os.ReadFile(*cache); err == nil {
			if err := json.Unmarshal(b, &kept); err != nil {
				fmt.Fprintln(os.Stderr, "extractscore: cache:", err)
				os.Exit(1)
			}
		}
	}
	var mu sync.Mutex
	results := make([]result, len(rows))
	work := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range work {
				results[i] = measure(rows[i], kept, &mu)
			}
		})
	}
	for i := range rows {
		work <- i
	}
	close(work)
	wg.Wait()
	if *cache != "" {
		b, _ := json.Marshal(kept)
		if err := os.WriteFile(*cache, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "extractscore: cache:", err)
		}
	}
	if *pagesOut != "" {
		writePages(*pagesOut, rows, results)
	}
	groups := []struct {
		name string
		in   func(row) bool
	}{
		{"tune", func(r row) bool { return r.Split == "tune" }},
		{"check", func(r row) bool { return r.Split == "check" }},
		{"all", func(row) bool { return true }},
		{"newest (tune)", func(r row) bool { return r.newest() && r.Split == "tune" }},
		{"newest (check)", func(r row) bool { return r.newest() && r.Split == "check" }},
	}
	if *without != "" {
		seen, err := extractdev.Load(*without)
		if err != nil {
			fmt.Fprintln(os.Stderr, "extractscore:", err)
			os.Exit(1)
		}
		tuned := map[string]bool{}
		for _, p := range seen {
			tuned[p.ID] = true
		}
		groups = append(groups, struct {
			name string
			in   func(row) bool
		}{"check, without " + *without, func(r row) bool { return r.Split == "check" && !tuned[r.ID] }})
	}
	for _, g := range groups {
		report(g.name, rows, results, g.in)
	}
}

func load(dir string) ([]row, error) {
	pages, err := extractdev.Load(dir)
	if err != nil {
		return nil, err
	}
	rows := make([]row, len(pages))
	for i, p := range pages {
		rows[i] = row{p}
	}
	return rows, nil
}

func measure(r row, kept map[string]string, mu *sync.Mutex) result {
	res := result{f1: map[string]float64{}, p: map[string]float64{}, r: map[string]float64{}, words: map[string]int{}, empty: map[string]bool{}, ms: map[string]float64{}}
	page, err := r.HTML()
	if err != nil {
		fmt.Fprintln(os.Stderr, "extractscore:", r.ID, err)
		return res
	}
	truth, err := r.TruthText()
	if err != nil {
		fmt.Fprintln(os.Stderr, "extractscore:", r.ID, err)
		return res
	}
	u, _ := url.Parse(r.URL)
	if u == nil {
		u = &url.URL{}
	}
	res.words["truth"] = len(strings.Fields(truth))
	for _, ex := range htmlextract.All {
		key := ex.Name + "/" + r.ID
		mu.Lock()
		text, ok := kept[key]
		mu.Unlock()
		if !ok || ex.Name == "heed" {
			start := time.Now()
			text, err = ex.Run(page, u)
			res.ms[ex.Name] = float64(time.Since(start).Microseconds()) / 1000
			if err != nil {
				text = ""
			}
			if ex.Name != "heed" {
				mu.Lock()
				kept[key] = text
				mu.Unlock()
			}
		}
		res.p[ex.Name], res.r[ex.Name], res.f1[ex.Name] = extractdev.Score(text, truth)
		res.words[ex.Name] = len(strings.Fields(text))
		res.empty[ex.Name] = strings.TrimSpace(text) == "" && strings.TrimSpace(truth) != ""
	}
	return res
}

func writePages(path string, rows []row, results []result) {
	var b strings.Builder
	b.WriteString("id\tsplit\ttype\tnewest\theed\ttrafilatura\treadability\theed_p\theed_r\ttraf_p\ttraf_r\theed_ms\theed_words\ttruth_words\n")
	for i, r := range rows {
		res := results[i]
		fmt.Fprintf(&b, "%s\t%s\t%s\t%v\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.1f\t%d\t%d\n", r.ID, r.Split, r.PageType, r.newest(),
			res.f1["heed"], res.f1["trafilatura"], res.f1["readability"], res.p["heed"], res.r["heed"], res.p["trafilatura"], res.r["trafilatura"], res.ms["heed"], res.words["heed"], res.words["truth"])
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "extractscore:", err)
	}
}

// report prints a group's means per extractor and page type, with heed's
// paired difference against go-trafilatura.
func report(name string, rows []row, results []result, in func(row) bool) {
	byType := map[string][]int{}
	var all []int
	for i, r := range rows {
		if in(r) {
			all = append(all, i)
			byType[r.PageType] = append(byType[r.PageType], i)
		}
	}
	if len(all) == 0 {
		return
	}
	fmt.Printf("\n## %s (%d pages)\n\n", name, len(all))
	fmt.Printf("| type | pages | heed | trafilatura | readability | heed − trafilatura (95%% CI) | heed empty |\n|---|---:|---:|---:|---:|---|---:|\n")
	types := []string{"all"}
	for t := range byType {
		types = append(types, t)
	}
	sort.Strings(types[1:])
	for _, t := range types {
		idx := all
		if t != "all" {
			idx = byType[t]
		}
		mean := func(ex string) float64 {
			s := 0.0
			for _, i := range idx {
				s += results[i].f1[ex]
			}
			return s / float64(len(idx))
		}
		diffs := make([]float64, len(idx))
		sites := make([]string, len(idx))
		empty := 0
		for k, i := range idx {
			diffs[k] = results[i].f1["heed"] - results[i].f1["trafilatura"]
			sites[k] = site(rows[i].URL, rows[i].ID)
			if results[i].empty["heed"] {
				empty++
			}
		}
		lo, hi := bootstrap(diffs, sites)
		fmt.Printf("| %s | %d | %.3f | %.3f | %.3f | %+.3f (%+.3f to %+.3f) | %d |\n", t, len(idx),
			mean("heed"), mean("trafilatura"), mean("readability"), extractdev.Mean(diffs), lo, hi, empty)
	}
}

// bootstrap is the 95% percentile interval of the mean of xs, from 10,000
// resamples of their sites (the pages of one site are alike, so a site is
// drawn whole), with a fixed seed, so that a report is the same each run.
func bootstrap(xs []float64, sites []string) (lo, hi float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	var groups [][]float64
	at := map[string]int{}
	for k, x := range xs {
		g, ok := at[sites[k]]
		if !ok {
			g = len(groups)
			at[sites[k]] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], x)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	means := make([]float64, 10000)
	for k := range means {
		s, n := 0.0, 0
		for range groups {
			for _, x := range groups[rng.IntN(len(groups))] {
				s += x
				n++
			}
		}
		means[k] = s / float64(n)
	}
	sort.Float64s(means)
	return means[250], means[9749]
}

// site is a page's host less "www.", as the set splits its halves; a
// page without a URL is a site of its own.
func site(raw, id string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return "#" + id
	}
	return strings.TrimPrefix(u.Hostname(), "www.")
}
