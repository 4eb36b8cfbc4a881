package htmltree

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// FuzzParse: any input gives a tree whose links agree (each child's
// parent, siblings both ways, first and last child), no deeper than
// MaxDepth and a little, holding every character of text outside tags at
// most once.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`<p>a<p>b<ul><li>c<li>d</ul>`, `<table>x<tr><td>a<td>b</table>`, `<svg><path/><p>out`,
		`<script>a</script><title>&amp;</title>`, `<a href=1>a<a href=2>b`, `<!-- c --><!doctype html><?x?>`,
		`<pre>` + "\n" + `x</pre>`, `<b><p>a</b>b</p>`, `<div><table><td><div>a</table>b</div>`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, page string) {
		doc := Parse(page)
		text := 0
		var check func(n *html.Node, depth int)
		check = func(n *html.Node, depth int) {
			if depth > MaxDepth+4 {
				t.Fatalf("nested %d deep", depth)
			}
			if n.Type == html.TextNode {
				text += len(n.Data)
			}
			var prev *html.Node
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Parent != n || c.PrevSibling != prev {
					t.Fatalf("links disagree under %q", n.Data)
				}
				prev = c
				check(c, depth+1)
			}
			if n.LastChild != prev {
				t.Fatalf("last child of %q is wrong", n.Data)
			}
		}
		check(doc, 0)
		// Character references only shorten text; "\r\n" becomes "\n".
		if text > len(page)+strings.Count(page, "&")*4 {
			t.Fatalf("%d bytes of text from a page of %d", text, len(page))
		}
	})
}
