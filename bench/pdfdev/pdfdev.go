// Package pdfdev reads the PDF development set: manuals that a Debian
// package ships both as PDF and as HTML, the PDF to extract and the HTML to
// derive its truth from. The set's manifest (manifest.tsv beside this file)
// names each document's packages, licence, files and half; the PDFs and the
// HTML are the packages' and are not kept in git: bench/pdfdev/build.sh
// downloads the packages and writes the set into bench/testdata/pdfdev.
//
// A document's truth is the text of its HTML pages joined, less what each
// generator's own markup marks as navigation (Rules), with its headings:
// the generator's markup decides, never an extractor's reading of it. The
// text is written as internal/docset writes the HTML sets' truth.
package pdfdev

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/heedhq/heed/internal/docset"
	"github.com/heedhq/heed/internal/htmltree"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// Doc is one document of the set, a line of the manifest.
type Doc struct {
	ID          string
	Kind        string // the family its HTML comes from: texinfo, sphinx, docbook, latex, man
	Generator   string // the HTML generator, which picks the truth's rule
	Split       string // "tune" or "check"
	PDFPackage  string // the Debian package that ships the PDF
	HTMLPackage string // the one that ships the HTML
	Version     string // both packages' version when the set was made
	Licence     string // the manual's licence, from the package's copyright file
	PDF         string // the PDF's path inside its package (".gz" is unpacked)
	HTML        []string
}

// columns are the manifest's, in order; its first line names them.
var columns = []string{"id", "kind", "generator", "split", "pdf_package", "html_package", "version", "licence", "pdf", "html"}

// Load reads the manifest at path: tab-separated, a header line, then a
// document a line; html is a space-separated list of globs inside the HTML
// package.
func Load(path string) ([]Doc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var docs []Doc
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Split(sc.Text(), "\t")
		if line == 1 {
			if !slices.Equal(fields, columns) {
				return nil, fmt.Errorf("%s: header is %q, want %q", path, fields, columns)
			}
			continue
		}
		if len(fields) != len(columns) {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d", path, line, len(fields), len(columns))
		}
		d := Doc{ID: fields[0], Kind: fields[1], Generator: fields[2], Split: fields[3], PDFPackage: fields[4],
			HTMLPackage: fields[5], Version: fields[6], Licence: fields[7], PDF: fields[8], HTML: strings.Fields(fields[9])}
		if _, ok := Rules[d.Generator]; !ok {
			return nil, fmt.Errorf("%s:%d: no truth rule for generator %q", path, line, d.Generator)
		}
		if d.Split != "tune" && d.Split != "check" {
			return nil, fmt.Errorf("%s:%d: split %q is neither tune nor check", path, line, d.Split)
		}
		docs = append(docs, d)
	}
	return docs, sc.Err()
}

// Rule is how one generator's markup marks a page's content: a region,
// the navigation inside it, and the pages that are navigation whole.
type Rule struct {
	// Region is the content: the first element any selector matches.
	Region []docset.Sel
	// Drop selects navigation inside the region.
	Drop []docset.Sel
	// Prune selects navigation that a selector cannot name.
	Prune func(n *html.Node) bool
	// From marks where a page's navigation begins that runs to its end
	// (a man page's index of sections): it and all that follows go.
	From func(n *html.Node) bool
	// SkipPage names pages that are navigation whole, by their file name
	// or their markup: an index, a search page, a table of contents, a
	// page that only sends the reader to another.
	SkipPage func(file string, doc *html.Node) bool
}

// Rules are the set's generators' rules. What goes is navigation by the
// generator's own markup: panels of next, previous and up links, sidebars,
// menus, tables of contents, indexes, search boxes, permalinks, and what
// the HTML alone has (a footnotes heading, paragraph numbers). Tables of
// contents and indexes go whole: the PDF's hold page numbers that have no
// counterpart, and an index's HTML names a section where the PDF has a
// page. Everything else in the region is truth: text, headings, code,
// tables, footnotes.
var Rules = map[string]Rule{
	// GNU Texinfo 6's HTML, one page or one a node: each node's header of
	// links, the table of contents, a chapter's list of its sections,
	// menus, the indexes and their letters' jump bars.
	"texinfo": {
		Region: []docset.Sel{{Tag: "body"}},
		Drop: []docset.Sel{{Class: "header"}, {Class: "Contents_element"}, {Class: "contents"}, {Class: "shortcontents"},
			{Class: "Overview_element"}, {Class: "section-toc"}, {Class: "menu"}, {Class: "footnotes-heading"}, {Class: "contents-heading"}},
		Prune: texinfoIndex,
		// Texinfo makes a page for each anchor that only refreshes to
		// the node that holds it.
		SkipPage: func(_ string, doc *html.Node) bool {
			for n := range doc.Descendants() {
				if n.DataAtom == atom.Meta && strings.EqualFold(htmltree.Attr(n, "http-equiv"), "refresh") {
					return true
				}
			}
			return false
		},
	},
	// texi2html 1.82 as LilyPond's manuals use it, one big page: the same
	// marks as Texinfo's, the navigation tables, the frame of contents,
	// the footer and the search form.
	"texi2html": {
		Region: []docset.Sel{{Tag: "div", ID: "main"}},
		Drop: []docset.Sel{{Class: "nav_table"}, {Class: "menu"}, {Class: "contents"}, {ID: "footer"}, {Tag: "form"},
			{ID: "tocframe"}},
		Prune: func(n *html.Node) bool {
			return texinfoIndex(n) || isHeading(n) && slices.Contains([]string{"Table of Contents", "Footnotes", "About This Document"}, clean(htmltree.Text(n)))
		},
	},
	// Sphinx: the body less its permalinks, its local tables of contents
	// and the toctrees that are lists (on one page, "singlehtml", the
	// toctree holds the manual's sections, which stay); a theme's sidebar
	// inside the body. The general index and the search page are no
	// pages of the manual.
	"sphinx": {
		Region: []docset.Sel{{Class: "body", Role: "main"}, {Class: "body"}},
		Drop:   []docset.Sel{{Tag: "a", Class: "headerlink"}, {Class: "contents"}, {ID: "sidebar"}, {ID: "back_top"}},
		Prune: func(n *html.Node) bool {
			if !slices.Contains(strings.Fields(htmltree.Attr(n, "class")), "toctree-wrapper") {
				return false
			}
			for d := range n.Descendants() {
				if d.DataAtom == atom.Section || d.DataAtom == atom.Div && slices.Contains(strings.Fields(htmltree.Attr(d, "class")), "section") {
					return false
				}
			}
			return true
		},
		SkipPage: func(file string, _ *html.Node) bool {
			base := filepath.Base(file)
			return base == "genindex.html" || base == "search.html" || base == "py-modindex.html"
		},
	},
	// DocBook XSL: the navigation header and footer, the tables of
	// contents and lists of tables, figures and examples, the index.
	"docbook": {
		Region: []docset.Sel{{Tag: "body"}},
		Drop: []docset.Sel{{Class: "navheader"}, {Class: "navfooter"}, {Class: "toc"}, {Class: "list-of-tables"},
			{Class: "list-of-figures"}, {Class: "list-of-examples"}, {Class: "index"}},
	},
	// LaTeX2HTML: the navigation panels, each node's list of its
	// subsections; the index node and the converter's "About this
	// document" node.
	"latex2html": {
		Region: []docset.Sel{{Tag: "body"}},
		Drop:   []docset.Sel{{Class: "navigation"}, {Class: "ChildLinks"}, {ID: "CHILD_LINKS"}},
		SkipPage: func(_ string, doc *html.Node) bool {
			h := firstHeading(doc)
			return h == "Index" || h == "About this document ..."
		},
	},
	// HEVEA (with HACHA's pages): its navigation is pictures without
	// text; the master page's list of the pages, the contents page and
	// the converter's note go.
	"hevea": {
		Region: []docset.Sel{{Tag: "body"}},
		Prune: func(n *html.Node) bool {
			return linkList(n) || n.DataAtom == atom.Blockquote && strings.HasPrefix(clean(htmltree.Text(n)), "This document was translated from")
		},
		SkipPage: func(_ string, doc *html.Node) bool {
			return firstHeading(doc) == "Contents"
		},
	},
	// LyX's XHTML: one page, whose only navigation is a table of
	// contents where there is one.
	"lyx": {
		Region: []docset.Sel{{Tag: "body"}},
		Drop:   []docset.Sel{{Class: "toc"}},
	},
	// man2html: the header's links, and from the anchor of the index of
	// sections to the end (the index and the converter's note).
	"man2html": {
		Region: []docset.Sel{{Tag: "body"}},
		Prune: func(n *html.Node) bool {
			href := htmltree.Attr(n, "href")
			return n.DataAtom == atom.A && (href == "#index" || strings.HasPrefix(href, "/cgi-bin/"))
		},
		From: func(n *html.Node) bool { return n.DataAtom == atom.A && htmltree.Attr(n, "name") == "index" },
	},
}

// texinfoIndex is an index of Texinfo's HTML (a table of class index-cp,
// index-fn, ...) or a jump bar to an index's letters.
func texinfoIndex(n *html.Node) bool {
	if n.DataAtom != atom.Table {
		return false
	}
	for _, c := range strings.Fields(htmltree.Attr(n, "class")) {
		if strings.HasPrefix(c, "index-") {
			return true
		}
	}
	for d := range n.Descendants() {
		if d.DataAtom == atom.A && slices.Contains(strings.Fields(htmltree.Attr(d, "class")), "summary-letter") {
			return true
		}
	}
	return false
}

// linkList is a list whose every item is a link and nothing more: a table
// of contents.
func linkList(n *html.Node) bool {
	if n.DataAtom != atom.Ul && n.DataAtom != atom.Ol || n.Parent == nil || n.Parent.DataAtom != atom.Body {
		return false
	}
	var all, linked int
	for d := range n.Descendants() {
		if d.Type != html.TextNode || strings.TrimSpace(d.Data) == "" {
			continue
		}
		all++
		for p := d.Parent; p != n; p = p.Parent {
			if p.DataAtom == atom.A {
				linked++
				break
			}
		}
	}
	return all > 0 && linked == all
}

// Truth is a document's truth: its text and its headings in order.
type Truth struct {
	Text     string
	Headings []string
	Pages    int // HTML pages it was made of
}

// PageTruth derives one HTML page's truth by the rule of its generator;
// ok is false for a page the rule skips whole.
func PageTruth(r Rule, file string, raw []byte) (t Truth, ok bool, err error) {
	// A page saved from a CGI program (man2html's) starts with its
	// header, which no browser shows.
	if bytes.HasPrefix(raw, []byte("Content-type:")) {
		if i := bytes.Index(raw, []byte("\n\n")); i >= 0 {
			raw = raw[i+2:]
		}
	}
	// A page that is not UTF-8 (HEVEA's Latin-1) is decoded by its
	// <meta> declaration. One that is stays UTF-8: texi2html declares
	// its charset past the first 1,024 bytes, where no sniffer looks.
	var in io.Reader = bytes.NewReader(raw)
	if !utf8.Valid(raw) {
		if in, err = charset.NewReader(in, "text/html"); err != nil {
			return Truth{}, false, err
		}
	}
	doc, err := html.Parse(in)
	if err != nil {
		return Truth{}, false, err
	}
	if r.SkipPage != nil && r.SkipPage(file, doc) {
		return Truth{}, false, nil
	}
	if r.From != nil {
		cutFrom(doc, r.From)
	}
	if r.Prune != nil {
		var drop []*html.Node
		for n := range doc.Descendants() {
			if n.Type == html.ElementNode && r.Prune(n) {
				drop = append(drop, n)
			}
		}
		for _, n := range drop {
			if n.Parent != nil {
				n.Parent.RemoveChild(n)
			}
		}
	}
	pt := docset.Truth(docset.Generator{Region: r.Region, Drop: r.Drop}, doc)
	return Truth{Text: pt.Text, Headings: pt.Headings, Pages: 1}, true, nil
}

// cutFrom removes the first node that from matches and every node after it
// in document order.
func cutFrom(doc *html.Node, from func(*html.Node) bool) {
	var mark *html.Node
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && from(n) {
			mark = n
			break
		}
	}
	for n := mark; n != nil && n.Type != html.DocumentNode; n = n.Parent {
		for s := n.NextSibling; s != nil; {
			next := s.NextSibling
			n.Parent.RemoveChild(s)
			s = next
		}
	}
	if mark != nil && mark.Parent != nil {
		mark.Parent.RemoveChild(mark)
	}
}

// DocTruth derives a document's truth from its HTML pages in root, the
// unpacked HTML package: each glob's pages in natural order, joined by a
// blank line.
func DocTruth(d Doc, root string) (Truth, error) {
	r := Rules[d.Generator]
	var files []string
	for _, g := range d.HTML {
		m, err := filepath.Glob(filepath.Join(root, g))
		if err != nil {
			return Truth{}, err
		}
		if len(m) == 0 {
			return Truth{}, fmt.Errorf("%s: no HTML matches %s in %s", d.ID, g, root)
		}
		slices.SortFunc(m, naturalCompare)
		files = append(files, m...)
	}
	var out Truth
	var texts []string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return Truth{}, err
		}
		t, ok, err := PageTruth(r, f, raw)
		if err != nil {
			return Truth{}, fmt.Errorf("%s: %w", f, err)
		}
		if !ok || t.Text == "" {
			continue
		}
		texts = append(texts, t.Text)
		out.Headings = append(out.Headings, t.Headings...)
		out.Pages++
	}
	out.Text = strings.Join(texts, "\n\n")
	return out, nil
}

// naturalCompare orders node12.html after node2.html.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := leadingDigits(a), leadingDigits(b)
		if da != "" && db != "" {
			x, _ := strconv.Atoi(da)
			y, _ := strconv.Atoi(db)
			if x != y {
				return x - y
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

// firstHeading is the text of a page's first heading.
func firstHeading(doc *html.Node) string {
	for n := range doc.Descendants() {
		if isHeading(n) {
			return clean(htmltree.Text(n))
		}
	}
	return ""
}

func isHeading(n *html.Node) bool {
	switch n.DataAtom {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

func clean(s string) string { return strings.Join(strings.Fields(s), " ") }
