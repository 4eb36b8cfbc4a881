package testutil

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// commonMark reads Markdown as people and agents' renderers do: CommonMark
// with GitHub's tables, strikethrough and task lists. (GFM's bare-link
// extension is left out: it makes links only of text that starts with
// http(s)://, www. or is an e-mail address.)
var commonMark = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList)).Parser()

// UnsafeMarkdown reads md with a CommonMark parser and describes the first
// thing in it that heed promises its Markdown never holds: raw HTML
// (inline or a block), or a link, image or autolink to anything but an
// http(s) URL (or mailto, when allowed): the scheme a browser would read
// in the href a renderer writes, a relative one resolving against the
// page's http(s) URL. It returns "" when there is none.
func UnsafeMarkdown(md string, mailto bool) string {
	src := []byte(md)
	root := commonMark.Parse(text.NewReader(src))
	var found string
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var href []byte
		switch n := n.(type) {
		case *ast.RawHTML:
			found = fmt.Sprintf("raw HTML %q", n.Segments.Value(src))
		case *ast.HTMLBlock:
			var b bytes.Buffer
			for i := range n.Lines().Len() {
				seg := n.Lines().At(i)
				b.Write(seg.Value(src))
			}
			found = fmt.Sprintf("an HTML block %q", b.String())
		case *ast.Link:
			href = util.URLEscape(n.Destination, true)
		case *ast.Image:
			href = util.URLEscape(n.Destination, true)
		case *ast.AutoLink:
			href = n.URL(src)
			if n.AutoLinkType == ast.AutoLinkEmail {
				href = append([]byte("mailto:"), href...)
			}
		}
		if href != nil {
			if s := hrefScheme(string(href)); s != "" && s != "http" && s != "https" && !(mailto && s == "mailto") {
				found = fmt.Sprintf("a %s to %q", strings.ToLower(strings.TrimPrefix(fmt.Sprintf("%T", n), "*ast.")), href)
			}
		}
		if found != "" {
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return found
}

// hrefScheme is the scheme a browser reads in an href (lower case), or ""
// for a relative one: leading and trailing C0 controls and spaces are
// dropped, tabs and newlines anywhere, and the scheme is a letter then
// letters, digits, "+", "-" or "." up to a ":".
func hrefScheme(href string) string {
	href = strings.TrimFunc(href, func(r rune) bool { return r <= ' ' })
	href = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, href)
	for i := 0; i < len(href); i++ {
		c := href[i] | 0x20
		switch {
		case 'a' <= c && c <= 'z':
		case i > 0 && ('0' <= href[i] && href[i] <= '9' || href[i] == '+' || href[i] == '-' || href[i] == '.'):
		case i > 0 && href[i] == ':':
			return strings.ToLower(href[:i])
		default:
			return ""
		}
	}
	return ""
}
