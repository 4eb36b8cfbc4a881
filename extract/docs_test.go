package extract

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/heedhq/heed/internal/docset"
	"github.com/heedhq/heed/internal/extractdev"
)

// docsDir holds the documentation development set, rebuilt from Debian's
// documentation packages (see internal/docset) and not kept in git.
const docsDir = "testdata/docs"

func docsPages(tb testing.TB) []docset.Page {
	tb.Helper()
	pages, err := docset.Load(docsDir)
	if err != nil || len(pages) == 0 {
		if os.Getenv("HEED_DOCSET") == "required" {
			tb.Fatalf("documentation set: %v", err)
		}
		tb.Skipf("no documentation set in %s (%v): build it with go run ./internal/docset/cmd/docset %s, from the packages it names", docsDir, err, filepath.Join("extract", docsDir))
	}
	return pages
}

// docScore is how one extraction of a documentation page measures.
type docScore struct {
	f1                   float64
	headings, headingsOK int
	code, codeFenced     int
	langs, langsOK       int
	nav                  bool // the page keeps its navigation
}

var (
	headingLine = regexp.MustCompile(`^#{1,6} +(.*?)\s*#*$`)
	fenceLine   = regexp.MustCompile("^(```+|~~~+) *([^` ]*)")
	spaces      = regexp.MustCompile(`\s+`)
)

func squeeze(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }

// scoreDoc measures heed's Markdown of a page against its truth.
func scoreDoc(p docset.Page, truth, md string) docScore {
	var s docScore
	_, _, s.f1 = extractdev.Score(extractdev.PlainText(md), truth)
	// Headings: each of the truth's is a heading line of the Markdown.
	var heads []string
	type fence struct{ marks, lang, body string }
	var fences []fence
	var cur *fence
	depth := 0 // the quote marks of the open fence's line
	for _, line := range strings.Split(md, "\n") {
		// Inside a quote (a callout), a line is read without its marks:
		// a fence's lines without as many as its opening line had.
		k := 0
		for (cur == nil || k < depth) && strings.HasPrefix(line, ">") {
			line = strings.TrimPrefix(strings.TrimPrefix(line, ">"), " ")
			k++
		}
		if cur == nil {
			depth = k
		}
		if cur != nil {
			// Closed by a line of the opening's marks, as many or more.
			if t := strings.TrimSpace(line); strings.HasPrefix(t, cur.marks) && strings.Trim(t, cur.marks[:1]) == "" {
				fences = append(fences, *cur)
				cur = nil
				continue
			}
			cur.body += line + "\n"
			continue
		}
		if m := fenceLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			cur = &fence{marks: m[1], lang: m[2]}
			continue
		}
		if m := headingLine.FindStringSubmatch(line); m != nil {
			heads = append(heads, squeeze(extractdev.PlainText(m[1])))
		}
	}
	for _, h := range p.Headings {
		s.headings++
		want := squeeze(extractdev.PlainText(h))
		for _, got := range heads {
			if got == want || strings.Contains(got, want) {
				s.headingsOK++
				break
			}
		}
	}
	for _, c := range p.Code {
		s.code++
		want := squeeze(c.Text)
		want = want[:min(len(want), 80)]
		for _, f := range fences {
			if strings.Contains(squeeze(f.body), want) {
				s.codeFenced++
				if c.Lang != "" {
					s.langs++
					if f.lang != "" {
						s.langsOK++
					}
				}
				break
			}
		}
	}
	// Navigation: two or more of the page's navigation links kept as
	// links, their text and target both, whose text the content itself
	// does not have (a page's text may link where its menu does).
	base, _ := url.Parse(p.URL)
	kept := 0
	for _, l := range p.Nav {
		if strings.Contains(truth, l.Text) {
			continue
		}
		u, err := base.Parse(l.Href)
		if err != nil {
			continue
		}
		u.Fragment = ""
		if strings.Contains(md, "["+l.Text+"]("+u.String()) {
			kept++
		}
	}
	s.nav = kept >= 2
	return s
}

// docFloors are heed's figures on the documentation set, by generator,
// less a margin for the packages' next versions (0.01 of F1, 0.02 of the
// rest): mean word F1, and the fractions of headings kept as headings
// and of code blocks kept as fenced blocks. A change may not fall below
// them, and no page may keep its navigation.
var docFloors = map[string]struct{ f1, headings, code float64 }{
	"asciidoc":                 {0.99, 0.94, 0.98},
	"docbook":                  {0.99, 0.97, 0.98},
	"doxygen":                  {0.96, 0.98, 0.98},
	"gtk-doc":                  {0.99, 0.97, 0.97},
	"held-out-docutils":        {0.97, 0.96, 0.96},
	"held-out-javadoc-jdk":     {0.98, 0.98, 0.98},
	"held-out-sphinx-python":   {0.99, 0.98, 0.98},
	"held-out-sphinx-requests": {0.99, 0.98, 0.98},
	"javadoc":                  {0.98, 0.98, 0.98},
	"mdbook":                   {0.99, 0.98, 0.98},
	"mkdocs":                   {0.99, 0.97, 0.98},
	"postgresql":               {0.99, 0.97, 0.98},
	"rdoc":                     {0.98, 0.98, 0.97},
	"rustdoc":                  {0.99, 0.97, 0.98},
	"sphinx":                   {0.99, 0.98, 0.98},
	"sphinx-flask":             {0.99, 0.98, 0.98},
}

// TestDocsQuality scores heed on the documentation set by generator (run
// with -v for the table) and holds it to docFloors.
func TestDocsQuality(t *testing.T) {
	pages := docsPages(t)
	type agg struct {
		n                           int
		f1                          float64
		h, hOK, c, cOK, l, lOK, nav int
	}
	by := map[string]*agg{}
	for _, p := range pages {
		raw, err := p.HTML(docsDir)
		if err != nil {
			t.Fatal(err)
		}
		truth, err := p.TruthText(docsDir)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Extract(bytes.NewReader(raw), Options{URL: p.URL, ContentType: "text/html"})
		if err != nil {
			t.Errorf("%s: %v", p.ID, err)
			continue
		}
		s := scoreDoc(p, truth, doc.Markdown)
		a := by[p.PageType]
		if a == nil {
			a = &agg{}
			by[p.PageType] = a
		}
		a.n++
		a.f1 += s.f1
		a.h, a.hOK, a.c, a.cOK, a.l, a.lOK = a.h+s.headings, a.hOK+s.headingsOK, a.c+s.code, a.cOK+s.codeFenced, a.l+s.langs, a.lOK+s.langsOK
		if s.nav {
			a.nav++
		}
		if testing.Verbose() && s.f1 < 0.8 {
			t.Logf("%-48s F1 %.3f headings %d/%d code %d/%d nav %v", p.ID, s.f1, s.headingsOK, s.headings, s.codeFenced, s.code, s.nav)
		}
	}
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	sort.Strings(names)
	ratio := func(a, b int) float64 {
		if b == 0 {
			return 1
		}
		return float64(a) / float64(b)
	}
	var lines []string
	for _, n := range names {
		a := by[n]
		f1 := a.f1 / float64(a.n)
		line := fmt.Sprintf("%-13s %3d pages  F1 %.3f  headings %4d/%-4d (%.3f)  code fenced %4d/%-4d (%.3f)  with language %3d/%-3d  navigation on %d",
			n, a.n, f1, a.hOK, a.h, ratio(a.hOK, a.h), a.cOK, a.c, ratio(a.cOK, a.c), a.lOK, a.l, a.nav)
		lines = append(lines, line)
		if a.nav > 0 {
			t.Errorf("%d pages keep their navigation: %s", a.nav, line)
		}
		if fl, ok := docFloors[n]; !ok {
			t.Errorf("no floor for %s: %s", n, line)
		} else {
			if f1 < fl.f1 || ratio(a.hOK, a.h) < fl.headings || ratio(a.cOK, a.c) < fl.code {
				t.Errorf("below its floor (F1 %.3f, headings %.3f, code %.3f): %s", fl.f1, fl.headings, fl.code, line)
			}
		}
	}
	t.Log("\n" + strings.Join(lines, "\n"))
}
