package htmltree

import (
	"strings"

	"golang.org/x/net/html"
)

// tokenKind is what a token is.
type tokenKind uint8

const (
	textToken tokenKind = iota
	startToken
	endToken
	commentToken // comments, doctypes and bogus comments: no node is made
	eofToken
)

// attr is an attribute as written: its key lower-cased, its value not yet
// unescaped.
type attr struct {
	key, val string
}

// tokenizer splits a page into tokens without copying it: names, values
// and text are substrings of the page.
type tokenizer struct {
	s   string
	pos int

	kind        tokenKind
	name        string // a tag's name, lower-cased
	text        string // a text token's text, raw
	attrs       []attr // a start tag's attributes (reused)
	selfClosing bool
	raw         string // the element whose raw text comes next, if any
}

// next reads the next token.
func (z *tokenizer) next() {
	z.attrs = z.attrs[:0]
	z.selfClosing = false
	if z.raw != "" {
		z.rawText()
		return
	}
	s := z.s
	start := z.pos
	i := start
	for {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			z.pos = len(s)
			if start == len(s) {
				z.kind = eofToken
			} else {
				z.kind, z.text = textToken, s[start:]
			}
			return
		}
		i += j
		if i+1 < len(s) {
			c := s[i+1]
			if isLetter(c) || c == '!' || c == '?' || c == '/' {
				break
			}
		}
		i++ // a '<' that starts no tag is text
	}
	if i > start {
		z.kind, z.text, z.pos = textToken, s[start:i], i
		return
	}
	// s[i] == '<' and a tag, comment or end tag follows.
	switch c := s[i+1]; {
	case isLetter(c):
		z.startTag(i + 1)
	case c == '/':
		switch {
		case i+2 >= len(s):
			z.kind, z.text, z.pos = textToken, s[i:], len(s) // "</" at the end is text
		case isLetter(s[i+2]):
			z.endTag(i + 2)
		case s[i+2] == '>':
			z.kind, z.pos = commentToken, i+3 // "</>" is nothing
		default:
			z.bogusComment(i + 2)
		}
	case c == '!':
		if strings.HasPrefix(s[i+2:], "--") {
			z.comment(i + 4)
		} else {
			z.bogusComment(i + 2)
		}
	default: // '?'
		z.bogusComment(i + 1)
	}
}

// startTag reads a start tag whose name begins at i.
func (z *tokenizer) startTag(i int) {
	s := z.s
	j := i
	for j < len(s) && !isSpace(s[j]) && s[j] != '/' && s[j] != '>' {
		j++
	}
	z.kind, z.name = startToken, lower(s[i:j])
	for {
		for j < len(s) && (isSpace(s[j]) || s[j] == '/' && (j+1 >= len(s) || s[j+1] != '>')) {
			j++
		}
		if j >= len(s) {
			z.pos = len(s) // a tag cut off by the end of the page is dropped
			z.kind = eofToken
			return
		}
		if s[j] == '>' {
			z.pos = j + 1
			break
		}
		if s[j] == '/' { // "/>"
			z.selfClosing = true
			z.pos = j + 2
			break
		}
		// An attribute's name: its first character may be '='.
		k := j + 1
		for k < len(s) && !isSpace(s[k]) && s[k] != '/' && s[k] != '>' && s[k] != '=' {
			k++
		}
		key := lower(s[j:k])
		j = k
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		val := ""
		if j < len(s) && s[j] == '=' {
			j++
			for j < len(s) && isSpace(s[j]) {
				j++
			}
			if j < len(s) && (s[j] == '"' || s[j] == '\'') {
				q := s[j]
				e := strings.IndexByte(s[j+1:], q)
				if e < 0 {
					z.pos, z.kind = len(s), eofToken
					return
				}
				val = s[j+1 : j+1+e]
				j += e + 2
			} else {
				k := j
				for k < len(s) && !isSpace(s[k]) && s[k] != '>' {
					k++
				}
				val = s[j:k]
				j = k
			}
		}
		if len(z.attrs) < maxAttrs {
			z.attrs = append(z.attrs, attr{key, val})
		}
	}
	if rawElements[z.name] && !z.selfClosing {
		z.raw = z.name
	}
}

// endTag reads an end tag whose name begins at i; what follows its name,
// up to '>', is ignored.
func (z *tokenizer) endTag(i int) {
	s := z.s
	j := i
	for j < len(s) && !isSpace(s[j]) && s[j] != '/' && s[j] != '>' {
		j++
	}
	e := strings.IndexByte(s[j:], '>')
	if e < 0 {
		z.pos, z.kind = len(s), eofToken
		return
	}
	z.kind, z.name, z.pos = endToken, lower(s[i:j]), j+e+1
}

// comment skips a comment whose text begins at i ("<!--" before it).
func (z *tokenizer) comment(i int) {
	s := z.s
	z.kind = commentToken
	// "<!-->" and "<!--->" end at once.
	if strings.HasPrefix(s[i:], ">") {
		z.pos = i + 1
		return
	}
	if strings.HasPrefix(s[i:], "->") {
		z.pos = i + 2
		return
	}
	for j := i; ; {
		e := strings.Index(s[j:], "--")
		if e < 0 {
			z.pos = len(s)
			return
		}
		j += e + 2
		if strings.HasPrefix(s[j:], ">") {
			z.pos = j + 1
			return
		}
		if strings.HasPrefix(s[j:], "!>") {
			z.pos = j + 2
			return
		}
		j-- // "--->": the next "--" may start one character on
	}
}

// bogusComment skips everything up to the next '>' (a doctype, "<?xml",
// "</ x>").
func (z *tokenizer) bogusComment(i int) {
	z.kind = commentToken
	if e := strings.IndexByte(z.s[i:], '>'); e >= 0 {
		z.pos = i + e + 1
	} else {
		z.pos = len(z.s)
	}
}

// rawText reads the text of a script, style, title, textarea and the like,
// up to its end tag; plaintext runs to the end of the page.
func (z *tokenizer) rawText() {
	name := z.raw
	z.raw = ""
	s := z.s
	start := z.pos
	end := len(s)
	if name != "plaintext" {
		for i := start; ; {
			j := strings.Index(s[i:], "</")
			if j < 0 {
				break
			}
			i += j + 2
			if len(s)-i >= len(name) && strings.EqualFold(s[i:i+len(name)], name) &&
				(i+len(name) == len(s) || isSpace(s[i+len(name)]) || s[i+len(name)] == '/' || s[i+len(name)] == '>') {
				end = i - 2
				break
			}
		}
	}
	z.pos = end
	if end == start {
		z.next()
		return
	}
	z.kind, z.text = textToken, s[start:end]
}

// maxAttrs bounds the attributes kept of one tag: a tag of a million
// attributes costs no more than one of a thousand.
const maxAttrs = 1000

// rawElements hold text that is not markup: RAWTEXT, RCDATA and script
// data, and noscript (as a browser that runs scripts reads it).
var rawElements = map[string]bool{
	"script": true, "style": true, "xmp": true, "iframe": true, "noembed": true, "noframes": true,
	"noscript": true, "title": true, "textarea": true, "plaintext": true,
}

// rcdata are the raw elements whose text has character references.
var rcdata = map[string]bool{"title": true, "textarea": true}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// lower is s in lower case, without a copy when it is already.
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// unescape decodes character references, when there are any, and makes
// line ends "\n" and drops NUL characters, as the HTML tokenizer does.
func unescape(s string, refs bool) string {
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	if refs && strings.IndexByte(s, '&') >= 0 {
		s = html.UnescapeString(s)
	}
	return s
}
