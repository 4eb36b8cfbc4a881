package extract

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// The development set in testdata/extract-dev pairs 181 pages with the text
// of their main content (see its README for sources and licences). The
// score is its word-level F1, as its README defines it.

type page struct {
	ID       string   `json:"id"`
	Set      string   `json:"set"`
	URL      string   `json:"url"`
	PageType string   `json:"page_type"`
	HTML     string   `json:"html"`
	Truth    string   `json:"truth"`
	With     []string `json:"with"`
	Without  []string `json:"without"`
}

const devDir = "testdata/extract-dev"

func devPages(tb testing.TB) []page {
	tb.Helper()
	f, err := os.Open(filepath.Join(devDir, "manifest.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var pages []page
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p page
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			tb.Fatal(err)
		}
		pages = append(pages, p)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return pages
}

func (p page) extract(tb testing.TB) *Document {
	tb.Helper()
	f, err := os.Open(filepath.Join(devDir, p.HTML))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	doc, err := Extract(zr, Options{URL: p.URL, ContentType: "text/html; charset=utf-8"})
	if err != nil {
		tb.Fatalf("%s: %v", p.ID, err)
	}
	return doc
}

func (p page) truth(tb testing.TB) string {
	b, err := os.ReadFile(filepath.Join(devDir, p.Truth))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

var (
	mdLink   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	wordsRE  = regexp.MustCompile(`[\p{L}\p{N}_]+`)
	mdMarkup = strings.NewReplacer("\\", "", "*", "", "`", "", "#", "", ">", "", "|", "", "~~", "")
)

// plainText strips Markdown down to its words: link targets, image syntax
// and markup characters go.
func plainText(md string) string {
	return mdMarkup.Replace(mdLink.ReplaceAllString(md, "$1"))
}

func words(s string) map[string]int {
	out := map[string]int{}
	for _, w := range wordsRE.FindAllString(strings.Map(unicode.ToLower, s), -1) {
		out[w]++
	}
	return out
}

// prf is the dev set's score: word-level precision, recall and F1.
func prf(pred, truth string) (p, r, f float64) {
	pw, tw := words(pred), words(truth)
	overlap, np, nt := 0, 0, 0
	for w, c := range pw {
		overlap += min(c, tw[w])
		np += c
	}
	for _, c := range tw {
		nt += c
	}
	if overlap == 0 {
		return 0, 0, 0
	}
	p, r = float64(overlap)/float64(np), float64(overlap)/float64(nt)
	return p, r, 2 * p * r / (p + r)
}

// TestQuality holds main-content extraction to its measured quality on the
// development set: the mean F1 must not fall below the floor. Run with -v
// to see the scores by set and page type, and the worst pages.
func TestQuality(t *testing.T) {
	const floor = 0.80
	pages := devPages(t)
	type score struct {
		id      string
		p, r, f float64
	}
	var all []score
	groups := map[string][]float64{}
	for _, pg := range pages {
		doc := pg.extract(t)
		p, r, f := prf(plainText(doc.Markdown), pg.truth(t))
		all = append(all, score{pg.ID, p, r, f})
		groups["set "+pg.Set] = append(groups["set "+pg.Set], f)
		groups["type "+pg.PageType] = append(groups["type "+pg.PageType], f)
	}
	mean := func(fs []float64) float64 {
		s := 0.0
		for _, f := range fs {
			s += f
		}
		return s / float64(len(fs))
	}
	var fs, ps, rs []float64
	for _, s := range all {
		fs, ps, rs = append(fs, s.f), append(ps, s.p), append(rs, s.r)
	}
	t.Logf("all %d pages: P %.3f R %.3f F1 %.3f", len(all), mean(ps), mean(rs), mean(fs))
	var names []string
	for k := range groups {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		t.Logf("%-20s %3d pages F1 %.3f", k, len(groups[k]), mean(groups[k]))
	}
	sort.Slice(all, func(i, j int) bool { return all[i].f < all[j].f })
	for _, s := range all[:min(15, len(all))] {
		t.Logf("worst: %-24s P %.2f R %.2f F1 %.2f", s.id, s.p, s.r, s.f)
	}
	if got := mean(fs); got < floor {
		t.Errorf("mean F1 %.3f, below the floor of %.2f", got, floor)
	}
}

// TestBoilerplateSnippets checks the dev set's must-contain and
// must-not-contain snippets, as counts: more of them are kept and dropped
// as the extractor improves.
func TestBoilerplateSnippets(t *testing.T) {
	var with, withKept, without, withoutDropped int
	for _, pg := range devPages(t) {
		if len(pg.With)+len(pg.Without) == 0 {
			continue
		}
		text := strings.Join(strings.Fields(plainText(pg.extract(t).Markdown)), " ")
		for _, s := range pg.With {
			with++
			if strings.Contains(text, strings.Join(strings.Fields(s), " ")) {
				withKept++
			}
		}
		for _, s := range pg.Without {
			without++
			if !strings.Contains(text, strings.Join(strings.Fields(s), " ")) {
				withoutDropped++
			}
		}
	}
	t.Logf("content snippets kept %d/%d, boilerplate snippets dropped %d/%d", withKept, with, withoutDropped, without)
	if with == 0 || float64(withKept)/float64(with) < 0.70 || float64(withoutDropped)/float64(without) < 0.80 {
		t.Errorf("snippets: kept %d/%d, dropped %d/%d", withKept, with, withoutDropped, without)
	}
}
