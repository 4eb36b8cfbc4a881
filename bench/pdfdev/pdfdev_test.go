package pdfdev

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A Texinfo node keeps its text, headings and footnotes, and loses its
// header of links, its list of sections, the table of contents, the
// "Footnotes" heading and the index with its jump bar.
func TestTexinfoTruth(t *testing.T) {
	page := `<!DOCTYPE html><html><body>
<div class="header"><p>Next: <a href="#b">Brief</a>, Up: <a href="#Top">Top</a> [<a href="#SEC_Contents">Contents</a>]</p></div>
<h2 class="chapter">1 Getting started</h2>
<ul class="section-toc"><li><a href="#x">Installing the tool</a></li></ul>
<p>Run the program<a id="DOCF1" href="#FOOT1"><sup>1</sup></a> once.</p>
<div class="Contents_element" id="SEC_Contents"><h2 class="contents-heading">Table of Contents</h2><ul><li><a href="#a">1 Getting started</a></li></ul></div>
<h2 class="appendix">Appendix A Concept index</h2>
<table summary=""><tr><th>Jump to:</th><td><a class="summary-letter" href="#i-A"><b>A</b></a></td></tr></table>
<table class="index-cp"><tr><td><a href="#x">alpha entry</a></td><td><a href="#a">Getting started</a></td></tr></table>
<div class="footnote"><h4 class="footnotes-heading">Footnotes</h4><h5><a id="FOOT1" href="#DOCF1">(1)</a></h5><p>Twice on Sundays.</p></div>
</body></html>`
	got, ok, err := PageTruth(Rules["texinfo"], "manual.html", []byte(page))
	if err != nil || !ok {
		t.Fatalf("PageTruth: ok %v, %v", ok, err)
	}
	for _, w := range []string{"Getting started", "Run the program", "once.", "Twice on Sundays", "Appendix A Concept index"} {
		if !strings.Contains(got.Text, w) {
			t.Errorf("truth lacks %q:\n%s", w, got.Text)
		}
	}
	for _, w := range []string{"Next", "Brief", "Installing the tool", "Table of Contents", "Jump to", "alpha entry", "Footnotes"} {
		if strings.Contains(got.Text, w) {
			t.Errorf("truth keeps navigation %q:\n%s", w, got.Text)
		}
	}
	want := []string{"1 Getting started", "Appendix A Concept index", "(1)"}
	if !slices.Equal(got.Headings, want) {
		t.Errorf("headings %q, want %q", got.Headings, want)
	}
}

// Texinfo's page for an anchor, which only refreshes to its node, is no
// page of the manual.
func TestTexinfoRedirectSkipped(t *testing.T) {
	page := `<html><head><meta http-equiv="Refresh" content="0; url=graph3.html#GaussianSurface"></head>
<body><p>The node you are looking for is at <a href="graph3.html#GaussianSurface">GaussianSurface</a>.</p></body></html>`
	if _, ok, err := PageTruth(Rules["texinfo"], "GaussianSurface.html", []byte(page)); ok || err != nil {
		t.Errorf("PageTruth: ok %v, %v; want the page skipped", ok, err)
	}
}

// Sphinx on one page ("singlehtml") holds the manual's sections inside the
// toctree, which stays; a toctree that is only a list goes.
func TestSphinxToctree(t *testing.T) {
	page := `<html><body><div class="body" role="main"><section><h1>Guide<a class="headerlink" href="#g">¶</a></h1>
<div class="toctree-wrapper compound"><ul><li class="toctree-l1"><a href="a.html">Listed chapter</a></li></ul></div>
<div class="toctree-wrapper compound"><section id="ch"><h2>1. Inlined chapter</h2><p>Body text.</p></section></div>
</section></div></body></html>`
	got, _, err := PageTruth(Rules["sphinx"], "index.html", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got.Text, "Listed chapter") || strings.Contains(got.Text, "¶") {
		t.Errorf("truth keeps the toctree's list or a permalink:\n%s", got.Text)
	}
	if !strings.Contains(got.Text, "Body text.") || !slices.Equal(got.Headings, []string{"Guide", "1. Inlined chapter"}) {
		t.Errorf("truth lost the inlined chapter: %q %q", got.Text, got.Headings)
	}
}

// man2html's page loses its CGI header, its header's links and everything
// from the index of sections on.
func TestMan2HTMLTruth(t *testing.T) {
	page := "Content-type: text/html; charset=UTF-8\n\n<HTML><BODY><H1>BASH</H1>Section: User Commands (1)<BR><A HREF=\"#index\">Index</A>\n" +
		"<A HREF=\"/cgi-bin/man/man2html\">Return to Main Contents</A><HR><H2>NAME</H2>bash - GNU Bourne-Again SHell\n" +
		"<HR><A NAME=\"index\">&nbsp;</A><H2>Index</H2><DL><DT><A HREF=\"#lbAB\">NAME</A></DL>This document was created by man2html.</BODY></HTML>"
	got, _, err := PageTruth(Rules["man2html"], "bash.html", []byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "BASH\nSection: User Commands (1)\n\nNAME\nbash - GNU Bourne-Again SHell" {
		t.Errorf("truth %q", got.Text)
	}
}

// A Latin-1 page (HEVEA's) is decoded by its declaration; a UTF-8 page that
// declares its charset late (texi2html's) stays UTF-8.
func TestCharsets(t *testing.T) {
	latin1 := []byte("<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=ISO-8859-1\"></head><body><p>Universit\xe4t</p></body></html>")
	got, _, err := PageTruth(Rules["hevea"], "main001.html", latin1)
	if err != nil || got.Text != "Universität" {
		t.Errorf("Latin-1 page: %q, %v", got.Text, err)
	}
	utf8Late := []byte("<html><!--" + strings.Repeat("x", 2000) + "--><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\"></head><body><div id=\"main\"><p>Bärenreiter</p></div></body></html>")
	got, _, err = PageTruth(Rules["texi2html"], "essay-big-page.html", utf8Late)
	if err != nil || got.Text != "Bärenreiter" {
		t.Errorf("UTF-8 page: %q, %v", got.Text, err)
	}
}

// DocTruth joins a document's pages in natural order and skips those its
// rule skips.
func TestDocTruth(t *testing.T) {
	dir := t.TempDir()
	pages := map[string]string{
		"node2.html":   `<html><body><div class="navigation"><a href="node3.html">Next</a></div><h1>Second</h1><p>two</p></body></html>`,
		"node10.html":  `<html><body><h1>Tenth</h1><p>ten</p></body></html>`,
		"node11.html":  `<html><body><h2>Index</h2><dl><dt>entry</dt></dl></body></html>`,
		"index.html":   `<html><body><ul class="ChildLinks"><li><a href="node2.html">Second</a></li></ul></body></html>`,
		"figures.html": `<html><body><p>not matched</p></body></html>`,
	}
	for name, text := range pages {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d := Doc{ID: "x", Generator: "latex2html", HTML: []string{"index.html", "node*.html"}}
	got, err := DocTruth(d, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "Second\n\ntwo\n\nTenth\n\nten" || got.Pages != 2 || !slices.Equal(got.Headings, []string{"Second", "Tenth"}) {
		t.Errorf("DocTruth: %q, %d pages, headings %q", got.Text, got.Pages, got.Headings)
	}
}

// The committed manifest reads, names a rule for every generator and
// splits each kind of document into halves that differ by one at most.
func TestManifest(t *testing.T) {
	docs, err := Load("manifest.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 15 {
		t.Fatalf("%d documents", len(docs))
	}
	halves := map[string]int{}
	ids := map[string]bool{}
	for _, d := range docs {
		if ids[d.ID] {
			t.Errorf("%s twice", d.ID)
		}
		ids[d.ID] = true
		if d.Licence == "" || d.Version == "" || len(d.HTML) == 0 {
			t.Errorf("%s: licence, version or HTML missing", d.ID)
		}
		if d.Split == "tune" {
			halves[d.Kind]++
		} else {
			halves[d.Kind]--
		}
	}
	for kind, diff := range halves {
		if diff < -1 || diff > 1 {
			t.Errorf("%s: tune and check differ by %d documents", kind, diff)
		}
	}
}
