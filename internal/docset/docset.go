package docset

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/heedhq/heed/internal/extractdev"
	"github.com/heedhq/heed/internal/htmltree"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Generator is one documentation generator of the set: where its pages
// are installed, and how its own markup marks the content and the
// navigation inside it.
type Generator struct {
	Name    string // as the set names it: "docbook", "sphinx", ...
	Package string // the Debian package that installs the pages
	Dir     string // where the package puts them
	// Skip names pages that are no documentation (indexes, search).
	Skip func(rel string) bool
	// Region selects the content: the first element that any of these
	// selectors matches, in document order.
	Region []Sel
	// Drop selects what is not content inside the region: navigation,
	// permalinks, source links.
	Drop []Sel
	// Nav selects the navigation anywhere on the page that must not be
	// kept: its links are the page's Nav.
	Nav []Sel
	// HeldOut marks a generator that no extraction rule was made from:
	// its pages measure how the rules carry to documentation not seen.
	HeldOut bool
}

// Sel matches an element by tag, id, class and role; empty parts match
// any.
type Sel struct {
	Tag, ID, Class, Role string
}

func (s Sel) match(n *html.Node) bool {
	if n.Type != html.ElementNode || s.Tag != "" && n.Data != s.Tag {
		return false
	}
	if s.ID != "" && htmltree.Attr(n, "id") != s.ID || s.Role != "" && htmltree.Attr(n, "role") != s.Role {
		return false
	}
	return s.Class == "" || slices.Contains(strings.Fields(htmltree.Attr(n, "class")), s.Class)
}

func matchAny(sels []Sel, n *html.Node) bool {
	for _, s := range sels {
		if s.match(n) {
			return true
		}
	}
	return false
}

// Generators are the set's generators, from Debian's documentation
// packages.
var Generators = []Generator{
	{Name: "docbook", Package: "docbook-xsl-doc-html", Dir: "/usr/share/doc/docbook-xsl-doc-html/doc",
		Region: []Sel{{Tag: "body"}}, Drop: []Sel{{Class: "navheader"}, {Class: "navfooter"}},
		Nav: []Sel{{Class: "navheader"}, {Class: "navfooter"}}},
	{Name: "postgresql", Package: "postgresql-doc-15", Dir: "/usr/share/doc/postgresql-doc-15/html",
		Region: []Sel{{Tag: "body"}}, Drop: []Sel{{Class: "navheader"}, {Class: "navfooter"}},
		Nav: []Sel{{Class: "navheader"}, {Class: "navfooter"}}},
	{Name: "sphinx", Package: "sphinx-doc", Dir: "/usr/share/doc/sphinx-doc/html",
		Region: []Sel{{Class: "body", Role: "main"}, {Class: "body"}}, Drop: []Sel{{Tag: "a", Class: "headerlink"}},
		Nav: []Sel{{Class: "related"}}},
	{Name: "sphinx-flask", Package: "python-flask-doc", Dir: "/usr/share/doc/python-flask-doc/html",
		Region: []Sel{{Class: "body", Role: "main"}, {Class: "body"}}, Drop: []Sel{{Tag: "a", Class: "headerlink"}},
		Nav: []Sel{{Class: "related"}}},
	{Name: "mkdocs", Package: "mkdocs-doc", Dir: "/usr/share/doc/mkdocs/html",
		Region: []Sel{{Role: "main"}}, Drop: []Sel{{Tag: "a", Class: "headerlink"}},
		Nav: []Sel{{Class: "navbar"}}},
	{Name: "mdbook", Package: "rust-doc", Dir: "/usr/share/doc/rust-doc/html/book",
		Skip: func(rel string) bool {
			return strings.Contains(rel, "/") || rel == "print.html" || rel == "SUMMARY.html" || rel == "title-page.html" || rel == "foreword.html"
		},
		Region: []Sel{{Tag: "main"}},
		Nav:    []Sel{{Tag: "nav", Class: "nav-wrapper"}, {Tag: "nav", Class: "nav-wide-wrapper"}, {Tag: "nav", ID: "sidebar"}}},
	{Name: "rustdoc", Package: "cargo-doc", Dir: "/usr/share/doc/cargo/doc",
		Skip:   func(rel string) bool { return strings.HasPrefix(rel, "src/") || strings.HasSuffix(rel, "/all.html") },
		Region: []Sel{{Tag: "section", ID: "main-content"}},
		Drop:   []Sel{{Tag: "a", Class: "src"}, {Tag: "a", Class: "srclink"}, {Tag: "a", Class: "anchor"}, {Tag: "rustdoc-toolbar"}, {Tag: "button"}, {Tag: "a", Class: "tooltip"}},
		Nav:    []Sel{{Tag: "nav", Class: "sidebar"}}},
	{Name: "rdoc", Package: "asciidoctor-doc", Dir: "/usr/share/doc/asciidoctor-doc/html",
		Region: []Sel{{Tag: "main", Role: "main"}},
		// "click to toggle source" is a button's label.
		Drop: []Sel{{Class: "method-click-advice"}},
		Nav:  []Sel{{Tag: "nav", Role: "navigation"}}},
	{Name: "asciidoc", Package: "git-doc", Dir: "/usr/share/doc/git-doc",
		Skip:   func(rel string) bool { return strings.Contains(rel, "/") },
		Region: []Sel{{Tag: "body"}}, Drop: []Sel{{ID: "footer"}}},
	{Name: "doxygen", Package: "doxygen-doc", Dir: "/usr/share/doc/doxygen/html",
		Skip: func(rel string) bool {
			return strings.HasSuffix(rel, "_source.html") || strings.HasSuffix(rel, "-members.html") || strings.Contains(rel, "graph_legend") || strings.Contains(rel, "/functions")
		},
		Region: []Sel{{Tag: "body"}},
		Drop: []Sel{{ID: "top"}, {ID: "side-nav"}, {ID: "nav-path"}, {Class: "navpath"}, {Class: "tabs"}, {Tag: "address", Class: "footer"},
			{ID: "MSearchSelectWindow"}, {ID: "MSearchResultsWindow"}, {Class: "summary"},
			// A member's "◆" permalink, the page's table of contents and the
			// tooltips a hover shows.
			{Class: "permalink"}, {Class: "toc"}, {Class: "ttc"}},
		Nav: []Sel{{ID: "nav-path"}, {Class: "tabs"}, {Class: "navpath"}}},
	{Name: "gtk-doc", Package: "libgtk-3-doc", Dir: "/usr/share/doc/libgtk-3-doc/gtk3",
		Region: []Sel{{Tag: "body"}}, Drop: []Sel{{Tag: "table", Class: "navigation"}, {Class: "footer"}},
		Nav: []Sel{{Tag: "table", Class: "navigation"}}},
	{Name: "javadoc", Package: "libcommons-lang3-java-doc", Dir: "/usr/share/doc/libcommons-lang3-java/api",
		Skip: func(rel string) bool {
			return !strings.HasPrefix(rel, "org/") || strings.HasSuffix(rel, "-use.html") || strings.Contains(rel, "/class-use/")
		},
		Region: []Sel{{Tag: "main", Role: "main"}, {Tag: "main"}},
		Drop:   []Sel{{Tag: "nav"}},
		Nav:    []Sel{{Tag: "header", Class: "flex-header"}}},

	// Held out: measured, never looked at while making rules.
	{Name: "held-out-sphinx-python", Package: "python3-doc", Dir: "/usr/share/doc/python3/html", HeldOut: true,
		Skip: func(rel string) bool {
			return strings.HasPrefix(rel, "_") || strings.HasPrefix(rel, "whatsnew/changelog")
		},
		Region: []Sel{{Class: "body", Role: "main"}, {Class: "body"}}, Drop: []Sel{{Tag: "a", Class: "headerlink"}},
		Nav: []Sel{{Class: "related"}}},
	{Name: "held-out-sphinx-requests", Package: "python-requests-doc", Dir: "/usr/share/doc/python-requests-doc/html", HeldOut: true,
		Skip:   func(rel string) bool { return strings.HasPrefix(rel, "_") },
		Region: []Sel{{Class: "body", Role: "main"}, {Class: "body"}}, Drop: []Sel{{Tag: "a", Class: "headerlink"}},
		Nav: []Sel{{Class: "related"}}},
	{Name: "held-out-javadoc-jdk", Package: "openjdk-17-doc", Dir: "/usr/share/doc/openjdk-17-jre-headless/api", HeldOut: true,
		Skip: func(rel string) bool {
			return !strings.HasPrefix(rel, "java.base/java/") || strings.Contains(rel, "/class-use/") || strings.Contains(rel, "package-")
		},
		Region: []Sel{{Tag: "main", Role: "main"}, {Tag: "main"}}, Drop: []Sel{{Tag: "nav"}},
		Nav: []Sel{{Tag: "header", Class: "flex-header"}}},
	{Name: "held-out-docutils", Package: "docutils-doc", Dir: "/usr/share/doc/docutils-doc", HeldOut: true,
		Region: []Sel{{Class: "document"}}},
}

// skipCommon names pages no generator's set keeps: indexes, searches,
// tables of contents.
func skipCommon(rel string) bool {
	base := filepath.Base(rel)
	for _, p := range []string{"index", "genindex", "search", "py-modindex", "404", "allclasses", "allpackages", "overview-", "package-", "help-doc", "constant-values", "deprecated-list", "serialized-form", "bookindex", "sitemap", "files", "globals", "namespaces", "annotated", "hierarchy", "classes", "todo", "table_of_contents"} {
		if strings.HasPrefix(base, p) {
			return true
		}
	}
	return false
}

// Code is a code block of the truth.
type Code struct {
	Text string `json:"text"`
	Lang string `json:"lang,omitempty"` // as the generator marks it
}

// Link is a navigation link the page must not keep.
type Link struct {
	Text string `json:"text"`
	Href string `json:"href"`
}

// Page is one page of the set, in extractdev's manifest format with what
// the documentation checks need besides.
type Page struct {
	ID       string   `json:"id"`
	Set      string   `json:"set"`
	URL      string   `json:"url"`
	PageType string   `json:"page_type"` // the generator
	HTMLFile string   `json:"html"`
	Truth    string   `json:"truth"`
	With     []string `json:"with"`
	Without  []string `json:"without"`
	Headings []string `json:"headings"`
	Code     []Code   `json:"code"`
	Nav      []Link   `json:"nav"`
}

// Build writes the set to out: up to perGenerator pages of each installed
// generator, evenly spread over its pages in path order, each with its
// truth. A generator whose package is not installed is left out and
// named in the error (with the pages of the others written).
func Build(out string, perGenerator int) error {
	for _, d := range []string{"html", "truth"} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			return err
		}
	}
	var pages []Page
	var missing []string
	for _, g := range Generators {
		files, err := pagesOf(g)
		if err != nil || len(files) == 0 {
			missing = append(missing, g.Package)
			continue
		}
		kept := 0
		for _, rel := range spread(files, perGenerator*2) {
			if kept == perGenerator {
				break
			}
			p, ok, err := build(out, g, rel)
			if err != nil {
				return err
			}
			if ok {
				pages = append(pages, p)
				kept++
			}
		}
	}
	var manifest bytes.Buffer
	for _, p := range pages {
		b, err := json.Marshal(p)
		if err != nil {
			return err
		}
		manifest.Write(append(b, '\n'))
	}
	if err := os.WriteFile(filepath.Join(out, "manifest.jsonl"), manifest.Bytes(), 0o644); err != nil {
		return err
	}
	if len(missing) > 0 {
		return fmt.Errorf("docset: not installed (apt-get install %s); the set has the other generators' %d pages", strings.Join(missing, " "), len(pages))
	}
	return nil
}

// pagesOf lists a generator's pages, relative to its directory, sorted.
func pagesOf(g Generator) ([]string, error) {
	var files []string
	dir, err := filepath.EvalSymlinks(g.Dir)
	if err != nil {
		return nil, err
	}
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".html") && !strings.HasSuffix(path, ".html.gz") {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if skipCommon(rel) || g.Skip != nil && g.Skip(rel) {
			return nil
		}
		files = append(files, rel)
		return nil
	})
	slices.Sort(files)
	return files, err
}

// spread picks n of files, evenly spaced.
func spread(files []string, n int) []string {
	if len(files) <= n {
		return files
	}
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, files[i*len(files)/n])
	}
	return out
}

// minTruthWords is the least text a page's truth has to be kept: a stub
// is no test of extraction.
const minTruthWords = 40

func build(out string, g Generator, rel string) (Page, bool, error) {
	raw, err := os.ReadFile(filepath.Join(g.Dir, rel))
	if err != nil {
		return Page{}, false, err
	}
	if strings.HasSuffix(rel, ".gz") {
		// Debian compresses the larger pages of some packages.
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return Page{}, false, nil
		}
		if raw, err = io.ReadAll(zr); err != nil {
			return Page{}, false, nil
		}
		rel = strings.TrimSuffix(rel, ".gz")
	}
	doc, err := html.Parse(bytes.NewReader(raw))
	if err != nil {
		return Page{}, false, nil
	}
	t := Truth(g, doc)
	if len(strings.Fields(t.Text)) < minTruthWords {
		return Page{}, false, nil
	}
	id := g.Name + "-" + strings.NewReplacer("/", "_", ".html", "").Replace(rel)
	p := Page{
		ID: id, Set: "docs", URL: "https://docs.example/" + g.Name + "/" + rel, PageType: g.Name,
		HTMLFile: "html/" + id + ".html.gz", Truth: "truth/" + id + ".txt",
		With: []string{}, Without: []string{}, Headings: t.Headings, Code: t.Code, Nav: t.Nav,
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	if err := os.WriteFile(filepath.Join(out, p.HTMLFile), gz.Bytes(), 0o644); err != nil {
		return Page{}, false, err
	}
	if err := os.WriteFile(filepath.Join(out, p.Truth), []byte(t.Text), 0o644); err != nil {
		return Page{}, false, err
	}
	return p, true, nil
}

// PageTruth is what a page's own markup says its content is.
type PageTruth struct {
	Text     string
	Headings []string
	Code     []Code
	Nav      []Link
}

// Truth derives a page's truth from the generator's markup: the text of
// its content region less what Drop selects, its headings and code
// blocks, and the links of its navigation.
func Truth(g Generator, doc *html.Node) PageTruth {
	var t PageTruth
	for n := range doc.Descendants() {
		if matchAny(g.Nav, n) {
			for a := range n.Descendants() {
				if a.DataAtom == atom.A && htmltree.Attr(a, "href") != "" && !strings.HasPrefix(htmltree.Attr(a, "href"), "#") {
					if text := clean(htmltree.Text(a)); text != "" {
						t.Nav = append(t.Nav, Link{Text: text, Href: htmltree.Attr(a, "href")})
					}
				}
			}
		}
	}
	var region *html.Node
	for n := range doc.Descendants() {
		if matchAny(g.Region, n) {
			region = n
			break
		}
	}
	if region == nil {
		return t
	}
	var drop []*html.Node
	for n := range region.Descendants() {
		// Scripts, styles and pictures are no text: an inline SVG
		// diagram's labels are the picture's.
		if matchAny(g.Drop, n) || n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style || n.DataAtom == atom.Noscript || n.DataAtom == atom.Template || n.DataAtom == atom.Svg || n.DataAtom == atom.Math) {
			drop = append(drop, n)
		}
	}
	for _, n := range drop {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
	var b strings.Builder
	writeText(&b, region)
	t.Text = strings.TrimSpace(collapseBlank(b.String()))
	for n := range region.Descendants() {
		switch n.DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			if h := clean(htmltree.Text(n)); h != "" {
				t.Headings = append(t.Headings, h)
			}
		case atom.Pre:
			if c := strings.TrimSpace(preText(n)); c != "" {
				t.Code = append(t.Code, Code{Text: c, Lang: langOf(n)})
			}
		case atom.Div:
			// Doxygen's code: a div.fragment of div.line, no <pre>.
			if slices.Contains(strings.Fields(htmltree.Attr(n, "class")), "fragment") {
				var lines []string
				for l := range n.Descendants() {
					if l.DataAtom == atom.Div && slices.Contains(strings.Fields(htmltree.Attr(l, "class")), "line") {
						lines = append(lines, htmltree.Text(l))
					}
				}
				if c := strings.TrimSpace(strings.Join(lines, "\n")); c != "" {
					t.Code = append(t.Code, Code{Text: c})
				}
			}
		}
	}
	return t
}

// langOf is the language a generator marks a code block with: a
// "language-x" class on it or its <code>, a "highlight-x" class on a
// wrapper (Sphinx), or rustdoc's "rust".
func langOf(pre *html.Node) string {
	for n := pre; n != nil && n.Type == html.ElementNode; n = n.Parent {
		for _, c := range strings.Fields(htmltree.Attr(n, "class")) {
			switch {
			case strings.HasPrefix(c, "language-"):
				return strings.TrimPrefix(c, "language-")
			case strings.HasPrefix(c, "highlight-") && c != "highlight-default":
				return strings.TrimPrefix(c, "highlight-")
			case n == pre && (c == "rust" || c == "ruby"):
				return c // rustdoc's and RDoc's mark
			}
		}
		if n != pre && n.DataAtom != atom.Div {
			break
		}
	}
	if c := pre.FirstChild; c != nil && c.DataAtom == atom.Code {
		for _, cl := range strings.Fields(htmltree.Attr(c, "class")) {
			if strings.HasPrefix(cl, "language-") {
				return strings.TrimPrefix(cl, "language-")
			}
		}
	}
	return ""
}

var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true, atom.Header: true, atom.Footer: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Pre: true,
	atom.Ul: true, atom.Ol: true, atom.Li: true, atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Table: true,
	atom.Tr: true, atom.Blockquote: true, atom.Br: true, atom.Hr: true, atom.Details: true, atom.Summary: true,
	atom.Figure: true, atom.Figcaption: true, atom.Nav: true, atom.Aside: true, atom.Caption: true,
	atom.Button: true, // tabs' labels side by side are words apart, not one
}

// writeText writes the text of n, a line break around each block.
func writeText(b *strings.Builder, n *html.Node) {
	switch n.Type {
	case html.TextNode:
		b.WriteString(n.Data)
		return
	case html.ElementNode:
		if n.DataAtom == atom.Pre {
			b.WriteString("\n" + htmltree.Text(n) + "\n")
			return
		}
		if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
			b.WriteString(" ")
		}
	}
	block := n.Type == html.ElementNode && blocks[n.DataAtom]
	if block {
		b.WriteString("\n")
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		writeText(b, c)
	}
	if block {
		b.WriteString("\n")
	}
}

// collapseBlank collapses runs of white space within lines and of blank
// lines.
func collapseBlank(s string) string {
	var out []string
	for line := range strings.Lines(s) {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" && (len(out) == 0 || out[len(out)-1] == "") {
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// preText is a code block's text as shown: a div or p inside it (a
// rustdoc attribute's line) ends a line.
func preText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if (n.DataAtom == atom.Div || n.DataAtom == atom.P) && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
	}
	walk(n)
	return b.String()
}

func clean(s string) string { return strings.Join(strings.Fields(s), " ") }

// HTML returns the page as the package installed it, from the set in dir.
func (p Page) HTML(dir string) ([]byte, error) {
	return extractdev.ReadGzip(filepath.Join(dir, p.HTMLFile))
}

// TruthText returns the page's truth text, from the set in dir.
func (p Page) TruthText(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, p.Truth))
	return string(b), err
}

// Load reads the set's manifest in dir.
func Load(dir string) ([]Page, error) {
	data, err := os.ReadFile(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		return nil, err
	}
	var pages []Page
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var p Page
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("docset: manifest: %w", err)
		}
		pages = append(pages, p)
	}
	return pages, nil
}
