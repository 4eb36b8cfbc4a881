package htmltree

import (
	"strings"

	"golang.org/x/net/html"
)

// Attr is the value of n's attribute key, whatever its namespace; "" when
// n has none.
func Attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// Text is the text of n's descendants, as written.
func Text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return b.String()
}
