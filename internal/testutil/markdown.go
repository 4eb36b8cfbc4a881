package testutil

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// readers read Markdown as people and agents' renderers do: CommonMark
// with GitHub's tables, strikethrough and task lists, without and with
// GFM's bare links, GitHub's footnotes and the definition lists of
// kramdown, pandoc and PHP Markdown Extra. A bare link reads on to the
// next space or "<", over what would otherwise open a code span, and a
// definition's indented lines are its text, not code: a document may be
// safe read one way and not the other. (The bare links themselves, to
// http(s), ftp or an e-mail address, are the reader's own reading of
// text, and harmless: that reader lets them be.)
var readers = []struct {
	parser.Parser
	bareLinks bool
}{
	{goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList)).Parser(), false},
	{goldmark.New(goldmark.WithExtensions(extension.GFM, extension.Footnote, extension.DefinitionList)).Parser(), true},
}

// UnsafeMarkdown reads md with a CommonMark parser (readers) and describes the first
// thing in it that heed promises its Markdown never holds: raw HTML
// (inline or a block), or a link, image or autolink to anything but an
// http(s) URL (or mailto, when allowed): the scheme a browser would read
// in the href a renderer writes, a relative one resolving against the
// page's http(s) URL. It returns "" when there is none.
func UnsafeMarkdown(md string, mailto bool) string {
	for _, r := range readers {
		if found := unsafeRead(r.Parser, r.bareLinks, md, mailto); found != "" {
			return found
		}
	}
	return ""
}

// unsafeRead is UnsafeMarkdown as one reader reads md.
func unsafeRead(r parser.Parser, bareLinks bool, md string, mailto bool) string {
	src := []byte(md)
	root := r.Parse(text.NewReader(src))
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
			switch {
			case n.AutoLinkType == ast.AutoLinkEmail && bareLinks:
				href = nil // an e-mail address, linked by the reader
			case n.AutoLinkType == ast.AutoLinkEmail:
				href = append([]byte("mailto:"), href...)
			case bareLinks && hrefScheme(string(href)) == "ftp":
				href = nil // a bare ftp:// link, linked by the reader
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
