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
	if !z.tagRest(j, true) {
		return
	}
	if rawElement(z.name) {
		z.raw = z.name // "<script />" is a script all the same
	}
}

// tagRest reads a tag's attributes, from j to its '>', keeping them if
// keep, and reports whether the tag ended before the page did.
func (z *tokenizer) tagRest(j int, keep bool) bool {
	s := z.s
	for {
		for j < len(s) && (isSpace(s[j]) || s[j] == '/' && (j+1 >= len(s) || s[j+1] != '>')) {
			j++
		}
		if j >= len(s) {
			z.pos, z.kind = len(s), eofToken // a tag cut off by the end of the page is dropped
			return false
		}
		if s[j] == '>' {
			z.pos = j + 1
			return true
		}
		if s[j] == '/' { // "/>"
			z.selfClosing = true
			z.pos = j + 2
			return true
		}
		// An attribute's name: its first character may be '='.
		k := j + 1
		for k < len(s) && !isSpace(s[k]) && s[k] != '/' && s[k] != '>' && s[k] != '=' {
			k++
		}
		key := s[j:k]
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
					return false
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
		if keep && len(z.attrs) < maxAttrs {
			z.attrs = append(z.attrs, attr{lower(key), val})
		}
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
	name := lower(s[i:j])
	if z.tagRest(j, false) { // an end tag's attributes are read, and dropped
		z.kind, z.name = endToken, name
	}
	z.selfClosing = false
}

// comment skips a comment whose text begins at i ("<!--" before it).
func (z *tokenizer) comment(i int) {
	s := z.s
	z.kind = commentToken
	if z.endsAt(i, ">", "->") { // "<!-->" and "<!--->"
		return
	}
	for j := i; ; {
		e := strings.Index(s[j:], "--")
		if e < 0 {
			z.pos = len(s)
			return
		}
		j += e + 2
		if z.endsAt(j, ">", "!>") {
			return
		}
		j-- // "--->": the next "--" may start one character on
	}
}

// endsAt reports whether one of ends is at i, and if so moves past it.
func (z *tokenizer) endsAt(i int, ends ...string) bool {
	for _, e := range ends {
		if strings.HasPrefix(z.s[i:], e) {
			z.pos = i + len(e)
			return true
		}
	}
	return false
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
	switch name {
	case "plaintext":
	case "script":
		end = scriptEnd(s, start)
	default:
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

// scriptEnd is where a script's text that begins at start ends: at its
// "</script", except inside an escaped "<!-- ... -->", where a
// "<script>" begins text that a "</script>" ends without ending the
// script (document.write('<script src=x></script>') in an old snippet).
func scriptEnd(s string, start int) int {
	const data, escaped, double = 0, 1, 2
	state := data
	for i := start; i < len(s); {
		j := strings.IndexAny(s[i:], "<-")
		if j < 0 {
			break
		}
		i += j
		switch {
		case s[i] == '-':
			if state != data && strings.HasPrefix(s[i:], "-->") {
				state = data
				i += 3
			} else {
				i++
			}
		case tagAt(s, i+2, "script") && s[i+1] == '/':
			if state != double {
				return i
			}
			state = escaped
			i += 8
		case state == data && strings.HasPrefix(s[i:], "<!--"):
			state = escaped
			i += 4
		case state == escaped && tagAt(s, i+1, "script"):
			state = double
			i += 7
		default:
			i++
		}
	}
	return len(s)
}

// tagAt reports whether s holds the tag name at i, in any case, followed
// by what may follow a tag's name.
func tagAt(s string, i int, name string) bool {
	e := i + len(name)
	if e > len(s) || !strings.EqualFold(s[i:e], name) {
		return false
	}
	return e == len(s) || isSpace(s[e]) || s[e] == '/' || s[e] == '>'
}

// unescapeAttr decodes an attribute value's character references as the
// HTML tokenizer does in an attribute: a named one only when the whole
// name is one (with its semicolon, or one of those that may go without)
// and no '=' follows, so that "?q=go&region=eu" keeps its "&region".
func unescapeAttr(s string) string {
	s = unescape(s, false)
	amp := strings.IndexByte(s, '&')
	if amp < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:amp])
	for i := amp; i < len(s); {
		if s[i] != '&' {
			j := strings.IndexByte(s[i:], '&')
			if j < 0 {
				j = len(s) - i
			}
			b.WriteString(s[i : i+j])
			i += j
			continue
		}
		j := i + 1
		numeric := j < len(s) && s[j] == '#'
		if numeric {
			j++
		}
		for j < len(s) && (isLetter(s[j]) || '0' <= s[j] && s[j] <= '9') {
			j++
		}
		semi := j < len(s) && s[j] == ';'
		if semi {
			j++
		}
		ref := s[i:j]
		d := ref
		if numeric || semi || j >= len(s) || s[j] != '=' {
			d = html.UnescapeString(ref)
		}
		if d == ref || !numeric && strings.ContainsFunc(d, func(r rune) bool {
			return r == ';' || r < 128 && (isLetter(byte(r)) || '0' <= r && r <= '9')
		}) {
			d = ref // no reference, or only a part of the name is one
		}
		b.WriteString(d)
		i = j
	}
	return b.String()
}

// maxAttrs bounds the attributes kept of one tag: a tag of a million
// attributes costs no more than one of a thousand.
const maxAttrs = 1000

// rawElement reports whether elements named name hold text that is not
// markup: RAWTEXT, RCDATA and script data, and noscript (as a browser that
// runs scripts reads it). A switch, as it is asked of every start tag.
func rawElement(name string) bool {
	switch name {
	case "script", "style", "xmp", "iframe", "noembed", "noframes", "noscript", "title", "textarea", "plaintext":
		return true
	}
	return false
}

// rcdata reports whether name is a raw element whose text has character
// references.
func rcdata(name string) bool { return name == "title" || name == "textarea" }

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
