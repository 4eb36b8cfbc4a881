package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/responses"
	"github.com/klippa-app/go-pdfium/webassembly"

	"github.com/heedhq/heed/bench/pdfdev"
	"github.com/heedhq/heed/internal/extractdev"
)

// pdfDevDir is where bench/pdfdev/build.sh writes the PDF development
// set, relative to the bench module.
const pdfDevDir = "testdata/pdfdev"

// pdfExtractor turns a PDF into text.
type pdfExtractor struct {
	name string
	// markdown says its output is Markdown: its headings are counted and
	// its markup stripped before the words are. A plain-text extractor
	// writes no headings and finds none.
	markdown bool
	run      func(raw []byte, path string) (string, error)
}

// pdfExtractors are measured in this order. heed's reader joins them from
// pdf_heed_test.go.
var pdfExtractors = []pdfExtractor{
	{name: "pdftotext", run: pdftotext},
	{name: "pdfium-text", run: pdfiumText},
}

// pdftotext runs poppler's pdftotext in its default mode (reading order,
// no -layout), writing UTF-8 to its standard output.
func pdftotext(_ []byte, path string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "pdftotext", "-enc", "UTF-8", path, "-").Output()
	return string(out), err
}

// pdfiumInst is one WebAssembly instance of PDFium for the whole run: making
// it compiles the module, which takes about two seconds, and is not
// counted in any extractor's time.
var pdfiumInst = sync.OnceValues(func() (pdfiumInstance, error) {
	pool, err := webassembly.Init(webassembly.Config{MinIdle: 1, MaxIdle: 1, MaxTotal: 1})
	if err != nil {
		return nil, err
	}
	return pool.GetInstance(30 * time.Second)
})

type pdfiumInstance = pdfium.Pdfium

// pdfiumText is PDFium's own plain text: FPDFText's text of each page, the
// pages joined by a blank line.
func pdfiumText(raw []byte, _ string) (string, error) {
	p, err := pdfiumInst()
	if err != nil {
		return "", err
	}
	doc, err := p.OpenDocument(&requests.OpenDocument{File: &raw})
	if err != nil {
		return "", err
	}
	defer p.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	count, err := p.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i := range count.PageCount {
		text, err := pdfiumPageText(p, doc, i)
		if err != nil {
			return "", fmt.Errorf("page %d: %w", i+1, err)
		}
		b.WriteString(text)
		b.WriteString("\n\n")
	}
	return b.String(), nil
}

func pdfiumPageText(p pdfiumInstance, doc *responses.OpenDocument, index int) (string, error) {
	page, err := p.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc.Document, Index: index})
	if err != nil {
		return "", err
	}
	defer p.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: page.Page})
	tp, err := p.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: requests.Page{ByReference: &page.Page}})
	if err != nil {
		return "", err
	}
	defer p.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	chars, err := p.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil || chars.Count <= 0 {
		return "", err
	}
	text, err := p.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp.TextPage, Count: chars.Count})
	if err != nil {
		return "", err
	}
	return text.Text, nil
}

// pdfPageCount is a document's number of pages, as PDFium counts them.
func pdfPageCount(raw []byte) (int, error) {
	p, err := pdfiumInst()
	if err != nil {
		return 0, err
	}
	doc, err := p.OpenDocument(&requests.OpenDocument{File: &raw})
	if err != nil {
		return 0, err
	}
	defer p.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	count, err := p.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		return 0, err
	}
	return count.PageCount, nil
}

// pdfDevDoc is a document of the set with its PDF and truth read.
type pdfDevDoc struct {
	pdfdev.Doc
	path     string
	raw      []byte
	pages    int
	truth    string
	headings []string
}

// loadPDFDev reads the set, skipping the test when it is not built.
func loadPDFDev(tb testing.TB) []pdfDevDoc {
	tb.Helper()
	docs, err := pdfdev.Load("pdfdev/manifest.tsv")
	if err != nil {
		tb.Fatal(err)
	}
	var out []pdfDevDoc
	for _, d := range docs {
		path := filepath.Join(pdfDevDir, "pdf", d.ID+".pdf")
		raw, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			tb.Skipf("the PDF development set is not built (no %s): run bash bench/pdfdev/build.sh from heed's root", path)
		} else if err != nil {
			tb.Fatal(err)
		}
		truth, err := os.ReadFile(filepath.Join(pdfDevDir, "truth", d.ID+".txt"))
		if err != nil {
			tb.Fatalf("%v: rebuild the set with bash bench/pdfdev/build.sh", err)
		}
		heads, err := os.ReadFile(filepath.Join(pdfDevDir, "truth", d.ID+".headings"))
		if err != nil {
			tb.Fatalf("%v: rebuild the set with bash bench/pdfdev/build.sh", err)
		}
		pages, err := pdfPageCount(raw)
		if err != nil {
			tb.Fatalf("%s: %v", d.ID, err)
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, pdfDevDoc{Doc: d, path: abs, raw: raw, pages: pages, truth: string(truth),
			headings: strings.FieldsFunc(string(heads), func(r rune) bool { return r == '\n' })})
	}
	return out
}

// pdfScore is one extractor's measure of one document.
type pdfScore struct {
	p, r, f  float64
	headings float64 // fraction of the truth's headings found as headings
	err      error
}

// TestPDFDev measures each PDF extractor on the PDF development set
// (docs/pdf-dev-set.md): word F1 against the truth from the same manual's
// HTML, for the tune half, the check half and all, with precision, recall,
// the truth's headings found as Markdown headings, and pages a second. It
// prints the table, then each document's F1, and the paired bootstrap
// interval of heed's F1 less pdftotext's when heed's reader is measured.
// It asserts nothing of the figures: it is a measure.
//
//	bash bench/pdfdev/build.sh   # once, from heed's root
//	go -C bench test -run TestPDFDev -v
func TestPDFDev(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext is not installed: apt-get install poppler-utils")
	}
	docs := loadPDFDev(t)
	scores := make([][]pdfScore, len(pdfExtractors))
	elapsed := make([]time.Duration, len(pdfExtractors))
	for i, ex := range pdfExtractors {
		for _, d := range docs {
			start := time.Now()
			out, err := ex.run(d.raw, d.path)
			elapsed[i] += time.Since(start)
			s := pdfScore{err: err}
			if err != nil {
				t.Logf("%s on %s: %v (scores 0)", ex.name, d.ID, err)
			} else {
				text := out
				if ex.markdown {
					text = extractdev.PlainText(out)
					s.headings = headingRecall(d.headings, markdownHeadings(out))
				}
				s.p, s.r, s.f = extractdev.Score(text, d.truth)
			}
			scores[i] = append(scores[i], s)
		}
	}

	pages := 0
	for _, d := range docs {
		pages += d.pages
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nPDF development set: %d documents (%d tune, %d check), %d pages\n\n", len(docs), countSplit(docs, "tune"), countSplit(docs, "check"), pages)
	b.WriteString("| extractor | F1 tune | F1 check | F1 all | precision | recall | headings | pages/s |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for i, ex := range pdfExtractors {
		mean := func(split string, f func(pdfScore) float64) float64 {
			var xs []float64
			for j, d := range docs {
				if split == "" || d.Split == split {
					xs = append(xs, f(scores[i][j]))
				}
			}
			return extractdev.Mean(xs)
		}
		f1 := func(s pdfScore) float64 { return s.f }
		heads := "0 (plain text)"
		if ex.markdown {
			heads = fmt.Sprintf("%.3f", mean("", func(s pdfScore) float64 { return s.headings }))
		}
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %s | %.0f |\n", ex.name,
			mean("tune", f1), mean("check", f1), mean("", f1),
			mean("", func(s pdfScore) float64 { return s.p }), mean("", func(s pdfScore) float64 { return s.r }),
			heads, float64(pages)/elapsed[i].Seconds())
	}

	b.WriteString("\n| document | kind | generator | half | pages | words |")
	for _, ex := range pdfExtractors {
		b.WriteString(" " + ex.name + " |")
	}
	b.WriteString("\n|---|---|---|---|---|---|" + strings.Repeat("---|", len(pdfExtractors)) + "\n")
	for j, d := range docs {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %d |", d.ID, d.Kind, d.Generator, d.Split, d.pages, len(strings.Fields(d.truth)))
		for i := range pdfExtractors {
			fmt.Fprintf(&b, " %.3f |", scores[i][j].f)
		}
		b.WriteString("\n")
	}

	if h := slices.IndexFunc(pdfExtractors, func(e pdfExtractor) bool { return e.name == "heed" }); h >= 0 {
		b.WriteString("\nheed's F1 less pdftotext's, mean over documents, paired bootstrap 95% interval (10,000 resamples):\n\n")
		for _, split := range []string{"check", ""} {
			var heed, base []float64
			for j, d := range docs {
				if split == "" || d.Split == split {
					heed = append(heed, scores[h][j].f)
					base = append(base, scores[0][j].f)
				}
			}
			mean, lo, hi := pairedBootstrap(heed, base, 10000)
			name := split
			if name == "" {
				name = "all"
			}
			fmt.Fprintf(&b, "- %s (%d documents): %+.3f [%+.3f, %+.3f]\n", name, len(heed), mean, lo, hi)
		}
	}
	fmt.Print(b.String())
}

func countSplit(docs []pdfDevDoc, split string) int {
	n := 0
	for _, d := range docs {
		if d.Split == split {
			n++
		}
	}
	return n
}

// markdownHeadings are the ATX headings of Markdown ("## Title"), outside
// fenced code.
func markdownHeadings(md string) []string {
	var out []string
	fence := ""
	for line := range strings.Lines(md) {
		t := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
			continue
		}
		// At most three spaces of indent, then one to six "#" and a space.
		if len(line)-len(strings.TrimLeft(line, " ")) > 3 {
			continue
		}
		level := len(t) - len(strings.TrimLeft(t, "#"))
		if level < 1 || level > 6 || len(t) > level && t[level] != ' ' && t[level] != '\t' {
			continue
		}
		out = append(out, strings.TrimRight(strings.TrimSpace(t[level:]), "# "))
	}
	return out
}

// headingRecall is the fraction of the truth's headings that the
// extraction has as headings, each matched once, after normalizing both
// (normHeading).
func headingRecall(truth, found []string) float64 {
	have := map[string]int{}
	for _, h := range found {
		have[normHeading(h)]++
	}
	n, hit := 0, 0
	for _, h := range truth {
		k := normHeading(h)
		if k == "" {
			continue
		}
		n++
		if have[k] > 0 {
			have[k]--
			hit++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(hit) / float64(n)
}

// normHeading is a heading's words, lower case, without Markdown, without
// punctuation, and without its numbering ("Chapter 3", "2.1.4", "A.2",
// "Appendix B"): a PDF and its HTML number sections alike or not at all.
func normHeading(h string) string {
	h = strings.ToLower(extractdev.PlainText(h))
	words := strings.FieldsFunc(h, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	i := 0
	named := false
	if len(words) > 1 && slices.Contains([]string{"chapter", "appendix", "part", "section"}, words[0]) {
		i, named = 1, true
	}
	start := i
	for i < len(words) && isDigits(words[i]) {
		i++
	}
	if i == start && i < len(words) && len([]rune(words[i])) == 1 && (named || i+1 < len(words) && isDigits(words[i+1])) {
		i++
		for i < len(words) && isDigits(words[i]) {
			i++
		}
	}
	if i == len(words) {
		i = 0 // a heading that is only a number is its number
	}
	return strings.Join(words[i:], " ")
}

func isDigits(s string) bool {
	return s != "" && strings.TrimFunc(s, unicode.IsDigit) == ""
}

// pairedBootstrap is the mean of a[i]-b[i] and its 95% interval from n
// resamples of the documents with replacement; the seed is fixed so that a
// run repeats.
func pairedBootstrap(a, b []float64, n int) (mean, lo, hi float64) {
	diff := make([]float64, len(a))
	for i := range a {
		diff[i] = a[i] - b[i]
	}
	mean = extractdev.Mean(diff)
	if len(diff) == 0 {
		return 0, 0, 0
	}
	rng := rand.New(rand.NewPCG(1, 2))
	means := make([]float64, n)
	for k := range means {
		s := 0.0
		for range diff {
			s += diff[rng.IntN(len(diff))]
		}
		means[k] = s / float64(len(diff))
	}
	slices.Sort(means)
	return mean, means[n*25/1000], means[n*975/1000-1]
}
