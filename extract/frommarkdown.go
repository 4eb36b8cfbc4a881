package extract

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"mime"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/heedhq/heed/internal/frontmatter"
)

// maxFrontMatter is how much of a Markdown document's head is read as its
// YAML front matter; a longer one is read as text.
const maxFrontMatter = 64 << 10

// maxDest is the longest link destination (and, apart, title) read as
// one: a "](" followed by a longer one is written so that no reader takes
// it for a link.
const maxDest = 4096

// minLinkBudget is what resolving relative links may add to Links, and
// read of the base URL, in a document shorter than it: a short llms.txt
// of links to its site's root, at a URL longer than each, still lists
// them all.
const minLinkBudget = 64 << 10

// maxTitle is the longest link title read as one, likewise.
const maxTitle = 512

// FromMarkdown reads a Markdown document that a site offers in place of
// its HTML (a text/markdown answer, a page's Markdown alternate, an
// llms-full.txt). Its Markdown is kept as the site wrote it, made safe to
// store and to show:
//
//   - No raw HTML: a tag, a comment or a declaration is left out where it
//     stands (the text between two tags is text), and so is a <script>,
//     <style> or <textarea> block or a comment block, with its content; a
//     "<" that starts no tag is escaped.
//   - Links and images go to the web only: a link whose destination,
//     entities and escapes read, is not an http(s) URL or a relative one
//     becomes its text; such an image becomes its alt text; such a link
//     reference definition is left out, and so is an autolink to one
//     (an e-mail address becomes text). Relative destinations are
//     resolved against opts.URL, within the same budget as Extract's
//     (what resolving adds to Links, and reads of the base URL, may be
//     64 KB in a shorter document).
//   - Code (fenced, indented and spans) is kept byte for byte; a code
//     span across lines is read as text, its backticks escaped.
//
// These hold as a CommonMark reader (with GFM's tables, and with or
// without its bare links, footnotes and definition lists) reads what it
// writes, whatever blocks that reader finds where heed sees a paragraph.
//
// Document.Links are the http(s) links, absolute, without fragments, each
// once. The title and description are the document's own YAML front
// matter's (title, description), else the title is its first heading's
// text. The work is linear in the input, whatever it holds.
func FromMarkdown(raw []byte, opts Options) (*Document, error) {
	pageURL, base, err := begin(raw, opts)
	if err != nil {
		return nil, err
	}
	raw = bytes.TrimPrefix(raw, []byte("\xEF\xBB\xBF"))
	if !utf8.Valid(raw) {
		raw = bytes.ToValidUTF8(raw, []byte("\uFFFD"))
	}
	if bytes.IndexByte(raw, '\r') >= 0 {
		raw = bytes.ReplaceAll(bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
	}
	if bytes.IndexByte(raw, 0) >= 0 {
		raw = bytes.ReplaceAll(raw, []byte{0}, []byte("\uFFFD"))
	}
	meta, body := frontMatter(raw)
	n := utf8.RuneCount(body)
	s := &mdSanitizer{resolver: newResolver(base), budget: n, linkBudget: max(n, minLinkBudget), work: max(n, minLinkBudget),
		seen: map[string]bool{}, links: []string{}}
	// Blank lines around it go, but not the indentation of its first
	// line: an indented code block there is code, and kept as code.
	md := strings.TrimRight(s.run(string(body)), " \t\n")
	for md != "" {
		line, rest, _ := strings.Cut(md, "\n")
		if strings.Trim(line, " \t") != "" {
			break
		}
		md = rest
	}
	doc := &Document{URL: pageURL, Title: meta.Title, Description: meta.Description, Markdown: md, Links: s.links}
	if doc.Title == "" {
		doc.Title = firstHeading(md)
	}
	return doc, nil
}

// frontMatter splits a Markdown document into the title and description
// of its YAML front matter, and what follows it. A document that opens
// with no "---" line, or whose front matter is not a YAML mapping that
// frontmatter.Decode reads (one that repeats a key is not), is all body.
func frontMatter(raw []byte) (meta struct{ Title, Description string }, body []byte) {
	rest, ok := bytes.CutPrefix(raw, []byte("---\n"))
	if !ok {
		return meta, raw
	}
	head := rest[:min(len(rest), maxFrontMatter)]
	end := -1
	for i := 0; i < len(head); {
		line, _, _ := bytes.Cut(head[i:], []byte("\n"))
		if t := string(line); t == "---" || t == "..." {
			end = i
			break
		}
		i += len(line) + 1
	}
	if end < 0 {
		return meta, raw
	}
	var fields struct {
		Title       any `yaml:"title"`
		Description any `yaml:"description"`
	}
	if err := frontmatter.Decode(rest[:end], &fields); err != nil {
		return meta, raw
	}
	str := func(v any) string {
		s, _ := v.(string)
		return strings.Join(strings.Fields(s), " ")
	}
	meta.Title, meta.Description = str(fields.Title), str(fields.Description)
	after := rest[end:]
	if i := bytes.IndexByte(after, '\n'); i >= 0 {
		return meta, after[i+1:]
	}
	return meta, nil
}

// mdSanitizer writes a Markdown document made safe (FromMarkdown).
type mdSanitizer struct {
	// gt and commentEnd are the paragraph's next ">" and "-->" (tag),
	// or its length when there is none.
	gt, commentEnd int
	resolver       *resolver
	// What resolving relative links may still add to the Markdown
	// (budget) and to Links (linkBudget), and read of the base URL
	// (work), in bytes: as Extract's.
	budget, linkBudget, work int
	seen                     map[string]bool
	links                    []string
	out                      strings.Builder
}

// htmlDrops are the HTML blocks left out with their content, by how they
// open and what closes them (CommonMark's HTML blocks of kinds 1 to 5;
// a <pre> block is read as text, its tags left out).
var htmlDrops = []struct{ open, close string }{
	{"<script", "</script>"}, {"<style", "</style>"}, {"<textarea", "</textarea>"},
	{"<!--", "-->"}, {"<?", "?>"}, {"<![CDATA[", "]]>"},
}

func (s *mdSanitizer) run(body string) string {
	s.out.Grow(len(body))
	lines := strings.SplitAfter(body, "\n")
	var (
		fence     string // the open fence's marks, while in one
		drop      string // what ends the HTML block being left out
		para      []string
		prevBlank = true
		paraBlank bool // a blank line stands before the paragraph under way
		// Whether the text written last is in a list, as a reader of it
		// sees: a list item starts one, and a line that is neither blank
		// nor indented after a blank line ends it.
		inList bool
		inCode bool // the last line was an indented code block's
		// The open fence's indentation, and whether all that is left is
		// read as text.
		fenceIndent int
		asText      bool
	)
	flush := func() {
		if len(para) > 0 {
			inList = s.inline(strings.Join(para, ""), inList, paraBlank)
			para = para[:0]
		}
	}
	for _, line := range lines {
		text := strings.TrimRight(line, "\n")
		// Blank as CommonMark reads a line: spaces and tabs only (a line
		// of U+00A0 is a paragraph's).
		blank := strings.Trim(text, " \t") == ""
		indent, rest := leadingSpaces(text)
		switch {
		case drop != "":
			if i := strings.Index(strings.ToLower(text), drop); i >= 0 {
				after := text[i+len(drop):]
				drop = ""
				s.out.WriteString("\n") // a blank line where the block was
				if strings.TrimSpace(after) != "" {
					inList = s.inline(after+"\n", inList, true)
				}
			}
			continue
		case fence != "" && (blank || indent >= fenceIndent):
			s.out.WriteString(line)
			if n := len(rest) - len(strings.TrimLeft(rest, fence[:1])); n >= len(fence) && strings.Trim(rest[n:], " \t") == "" {
				// A closing fence may be indented up to three columns
				// past its container's content, which is at most the
				// opening line's indentation: one indented less than
				// four closes it for every reader, one indented from
				// four to three past the opening line only for a reader
				// that takes it for a list item's, and what follows is
				// then read as text, safe as code or as Markdown.
				switch {
				case indent < 4:
					fence = ""
				case indent < fenceIndent+4:
					fence, asText = "", true
				}
			}
			continue
		case fence != "":
			// A line less indented than its fence's opening line ends
			// the fence if that is a list item's, and not otherwise.
			// What follows is then read as text, and no line of it opens
			// or closes a fence (inline escapes one): as code, or as
			// Markdown, it is safe.
			fence, asText = "", true
		}
		if blank {
			flush()
			s.out.WriteString(line)
			prevBlank = true
			continue
		}
		if len(para) == 0 {
			paraBlank = prevBlank
		}
		if asText {
			para = append(para, line)
			continue
		}
		if indent >= 4 && (inCode || prevBlank && !inList) && len(para) == 0 {
			// An indented code block: kept as it is.
			s.out.WriteString(line)
			inCode, prevBlank = true, false
			continue
		}
		inCode = false
		if indent < 4 {
			if f := fenceOpen(rest); f != "" {
				flush()
				s.out.WriteString(line)
				fence, fenceIndent, prevBlank = f, indent, false
				continue
			}
			if d := dropOpen(rest); d != "" {
				flush()
				low := strings.ToLower(rest)
				s.out.WriteString("\n") // a blank line where the block was
				if i := strings.Index(low[1:], d); i >= 0 {
					// Closed on its own line: what follows is text.
					if after := rest[1+i+len(d):]; strings.TrimSpace(after) != "" {
						inList = s.inline(after+"\n", inList, true)
					}
				} else {
					drop = d
				}
				prevBlank = false
				continue
			}
			if def, ok := s.definition(rest); ok && len(para) == 0 {
				// (A definition cannot interrupt a paragraph.)
				if def != "" {
					s.out.WriteString(text[:len(text)-len(rest)] + def + "\n")
				}
				prevBlank = false
				continue
			}
		}
		if listItem(rest) {
			inList = true
		}
		para = append(para, line)
		prevBlank = false
	}
	flush()
	return s.out.String()
}

// leadingSpaces counts a line's indentation in columns (a tab to the next
// multiple of four) and returns the line without it.
func leadingSpaces(line string) (int, string) {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return n, line[i:]
		}
	}
	return n, ""
}

// fenceOpen returns the marks of a code fence opened by the line (three
// or more backticks or tildes), or "".
func fenceOpen(rest string) string {
	if rest == "" || rest[0] != '`' && rest[0] != '~' {
		return ""
	}
	n := 0
	for n < len(rest) && rest[n] == rest[0] {
		n++
	}
	if n < 3 || rest[0] == '`' && strings.IndexByte(rest[n:], '`') >= 0 {
		return ""
	}
	return rest[:n]
}

// dropOpen returns what closes the HTML block the line opens, if it is
// one left out with its content (htmlDrops), or "".
func dropOpen(rest string) string {
	low := strings.ToLower(rest[:min(len(rest), 16)])
	for _, d := range htmlDrops {
		if !strings.HasPrefix(low, d.open) {
			continue
		}
		if d.open[1] != '!' && d.open[1] != '?' {
			// A tag's name ends at a space, ">" or the end of the line.
			if n := len(d.open); len(low) > n && low[n] != ' ' && low[n] != '>' && low[n] != '\t' {
				continue
			}
		}
		return d.close
	}
	if strings.HasPrefix(low, "<!") && len(low) > 2 && 'a' <= low[2] && low[2] <= 'z' {
		return ">"
	}
	return ""
}

// listItem reports whether the line (its indentation removed) opens a
// list item, or a definition list's description (": ", as kramdown,
// pandoc and PHP Markdown Extra read it), whose indented lines are its
// text as a list item's are.
func listItem(rest string) bool {
	spaceOrEnd := func(j int) bool { return j == len(rest) || rest[j] == ' ' || rest[j] == '\t' }
	if len(rest) >= 1 && strings.IndexByte("-*+:", rest[0]) >= 0 && spaceOrEnd(1) {
		return true
	}
	i := 0
	for i < len(rest) && i < 10 && '0' <= rest[i] && rest[i] <= '9' {
		i++
	}
	return i > 0 && i <= 9 && i < len(rest) && (rest[i] == '.' || rest[i] == ')') && spaceOrEnd(i+1)
}

// definition reads a link reference definition, "[label]: destination
// "title"", all on the line. It returns the definition made safe, or ""
// to leave it out when its destination goes anywhere but the web.
func (s *mdSanitizer) definition(rest string) (string, bool) {
	if !strings.HasPrefix(rest, "[") || strings.HasPrefix(rest, "[^") {
		return "", false
	}
	end := strings.Index(rest, "]:")
	// Its label is written as it is: one a reader might not take for a
	// label (too long, blank, or with an escape), or that could hold
	// raw HTML or a code span when the line is read as text, is not
	// read as one here either, and the line is sanitized as text.
	if end < 0 || end > 1000 || strings.ContainsAny(rest[1:end], "[]<`\\") || strings.Trim(rest[1:end], " \t") == "" {
		return "", false
	}
	after := strings.TrimLeft(rest[end+2:], " \t")
	if after == "" {
		// Its destination would be on the next line: a definition heed
		// does not read, written as text.
		return "", false
	}
	dest, title := after, ""
	if strings.HasPrefix(after, "<") {
		i := strings.IndexByte(after, '>')
		if i < 0 {
			return "", false
		}
		dest, title = after[1:i], after[i+1:]
	} else if i := strings.IndexAny(after, " \t"); i >= 0 {
		dest, title = after[:i], after[i:]
	}
	if dest == "" {
		return "", false
	}
	u, ok := s.dest(dest, true)
	if !ok {
		return "", true
	}
	return rest[:end+2] + " " + u + safeTitle(title), true
}

// safeTitle keeps a link title that is one, quoted whole, and no other;
// nor one with a backtick, which a reader that does not take the link
// for one could pair with another.
func safeTitle(t string) string {
	t = strings.TrimSpace(t)
	if len(t) < 2 || len(t) > maxTitle {
		return ""
	}
	open, closing := t[0], t[len(t)-1]
	if open == '"' && closing == '"' || open == '\'' && closing == '\'' || open == '(' && closing == ')' {
		if !strings.ContainsAny(t[1:len(t)-1], string(open)+string(closing)+"<>`\n") {
			return " " + t
		}
	}
	return ""
}

// dest judges a link's destination: it returns it as written, resolved
// when relative, and true when it goes to the web; false when it goes
// anywhere else. A link (not an image) to the web is one of Links. What
// it returns is written so that a reader that does not take it for a
// destination reads no HTML or code span in it either: "<", ">", "`"
// and white space percent-encoded, and between "<" and ">" (an autolink
// to a reader that takes none there) when it is an absolute one that
// holds a parenthesis, a relative one's parentheses percent-encoded.
func (s *mdSanitizer) dest(d string, link bool) (string, bool) {
	u, ok := s.judge(d, link)
	if !ok {
		return "", false
	}
	u = destEscaper.Replace(u)
	if strings.ContainsAny(u, "()") {
		if !bareWeb(u) {
			// Between "<" and ">", a relative one would be a tag to a
			// reader that takes no link here.
			return strings.NewReplacer("(", "%28", ")", "%29").Replace(u), true
		}
		return "<" + u + ">", true
	}
	return u, true
}

var destEscaper = strings.NewReplacer("<", "%3C", ">", "%3E", "`", "%60", " ", "%20", "\t", "%09", "\n", "%0A")

// judge is dest's judgement, the destination neither encoded nor
// bracketed.
func (s *mdSanitizer) judge(d string, link bool) (string, bool) {
	read := html.UnescapeString(unescapeMarkdown(d))
	clean := strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return -1
		}
		return r
	}, read)
	i := strings.IndexAny(clean, ":/?#")
	if i >= 0 && clean[i] == ':' {
		if scheme := strings.ToLower(clean[:i]); scheme != "http" && scheme != "https" {
			return "", false
		}
	}
	ref, err := url.Parse(strings.TrimSpace(read))
	if err != nil {
		if i >= 0 && clean[i] == ':' {
			return "", false
		}
		return d, true // a relative destination that no URL reads: text, in effect
	}
	c := s.resolver.cost(ref)
	if c > s.work {
		// Past the budget of resolving: as written, and not one of
		// Links (as Extract does).
		return d, true
	}
	s.work -= c
	u := s.resolver.resolve(ref)
	abs := u.String()
	if (u.Scheme == "http" || u.Scheme == "https") && u.Host == "" {
		return "", false // "http:" alone goes nowhere
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		// Relative to a base that is no web URL: kept as written.
		return d, true
	}
	if link {
		v := *u
		v.Fragment, v.RawFragment = "", ""
		if k := v.String(); !s.seen[k] && len(k)-len(d) <= s.linkBudget {
			s.linkBudget -= max(len(k)-len(d), 0)
			s.seen[k] = true
			s.links = append(s.links, k)
		}
	}
	if i >= 0 && clean[i] == ':' {
		return d, true // absolute already: as written
	}
	if add := len(abs) - len(d); add > s.budget {
		return d, true
	} else if add > 0 {
		s.budget -= add
	}
	return abs, true
}

// unescapeMarkdown drops the backslash before escaped punctuation.
func unescapeMarkdown(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && isPunct(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isPunct(c byte) bool {
	return '!' <= c && c <= '/' || ':' <= c && c <= '@' || '[' <= c && c <= '`' || '{' <= c && c <= '~'
}

// inline writes a paragraph's text made safe: code spans as they are,
// tags escaped, links and images judged. What it leaves out of a link it
// rejects (the opener, the destination) becomes a space, never nothing:
// taking bytes out could join what stood on either side into a link, a
// definition or a code span that the input did not have.
//
// What it writes is read as the same blocks, for what heed keeps as it
// is: a line that opens a fence is escaped, and it returns whether what
// it wrote leaves a list open (inList, whether one was, after a blank
// line when afterBlank), as a reader sees its lines: an indented line
// after a blank line in a list is no code.
// Where a line of what it writes could be a table's delimiter row, spans
// that a table's cells would split are not taken (codeSpans).
func (s *mdSanitizer) inline(p string, inList, afterBlank bool) bool {
	out := s.inlineOnce(p, mayHoldTable(p))
	if !mayHoldTable(p) && mayHoldTable(string(out)) {
		// Taking tags out made a delimiter row.
		out = s.inlineOnce(p, true)
	}
	blank := afterBlank
	for line := range strings.Lines(string(out)) {
		indent, rest := leadingSpaces(line)
		if indent < 4 && fenceOpen(rest) != "" {
			// Made of what was left around a tag taken out: escaped.
			s.out.WriteString(line[:len(line)-len(rest)])
			s.out.WriteByte('\\')
			s.out.WriteString(rest)
		} else {
			s.out.WriteString(line)
		}
		switch rest = strings.TrimRight(rest, "\n"); {
		case rest == "":
			blank = true
			continue
		case listItem(rest):
			inList = true
		case indent == 0 && blank:
			inList = false
		}
		blank = false
	}
	return inList
}

// inlineOnce is inline's text, its code spans found as in a table or not.
func (s *mdSanitizer) inlineOnce(p string, table bool) []byte {
	closes := codeSpans(p, table)
	s.gt, s.commentEnd = -1, -1
	// Each "[" or "![" written: where it is in out, whether an image's.
	type opener struct {
		at    int
		image bool
	}
	var opens []opener
	var holes []int // offsets in out of link openers left out
	var bare bareLinkTail
	out := make([]byte, 0, len(p)+len(p)/8)
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			if p[i+1] == '\n' && len(out) > 0 && out[len(out)-1] == '\\' {
				// A backslash break after an escaped backslash is misread
				// by some CommonMark parsers (goldmark), which then take
				// the next line's first escape for none: two spaces
				// break the line instead.
				out = append(out, ' ', ' ', '\n')
			} else {
				out = append(out, p[i:i+2]...)
			}
			i += 2
			continue
		case c == '`':
			j := i
			for j < len(p) && p[j] == '`' {
				j++
			}
			if end, ok := closes[i]; ok {
				if openIn(&bare, out) {
					// A bare link before it would take in its backticks.
					out = append(out, ' ')
				}
				out = append(out, p[i:end]...)
				i = end
			} else {
				// A run that opens no span on its line: escaped, so that
				// no reader takes it for one that opens or closes a span
				// across lines.
				for ; i < j; i++ {
					out = append(out, '\\', '`')
				}
			}
			continue
		case c == '<':
			if n, web := s.autolink(p[i:]); n > 0 {
				if web {
					out = append(out, p[i:i+n]...)
				} else {
					out = append(out, ' ') // an autolink anywhere but the web
				}
				i += n
				continue
			}
			if n := s.tag(p, i); n > 0 {
				// A tag, a comment or a declaration: left out; the text
				// between two tags is text.
				if len(out) > 0 && i+n < len(p) && (joins(out[len(out)-1]) || joins(p[i+n])) {
					out = append(out, ' ')
				}
				i += n
				continue
			}
			// A "<" that could start one but is never closed: written so
			// that it starts nothing.
			out = append(out, '\\', '<')
			i++
			continue
		case (c == 'h' || c == 'H') && (i == 0 || !isWordByte(p[i-1])) && bareWeb(p[i:]):
			n := bareURL(p[i:])
			s.dest(p[i:i+n], true)
			out = append(out, p[i:i+n]...)
			i += n
			continue
		case c == '!' && i+1 < len(p) && p[i+1] == '[':
			opens = append(opens, opener{len(out), true})
			out = append(out, '!', '[')
			i += 2
			continue
		case c == '[':
			opens = append(opens, opener{len(out), false})
			out = append(out, '[')
			i++
			continue
		case c == ']' && (i+1 == len(p) || p[i+1] != '('):
			if len(opens) > 0 {
				opens = opens[:len(opens)-1]
			}
			if i+1 < len(p) && p[i+1] == ':' {
				// "]:" in a paragraph can end a reference definition's
				// label begun on an earlier line: written so that it
				// ends none.
				out = append(out, '\\', ']')
			} else {
				out = append(out, ']')
			}
			i++
			continue
		case c == ']':
			var o opener
			if len(opens) > 0 {
				o = opens[len(opens)-1]
				opens = opens[:len(opens)-1]
			} else {
				o.at = -1
			}
			n, dest, title, ok := linkTail(p[i+1:])
			if !ok {
				// Not read as a link here: written so that no reader does.
				out = append(out, ']', '\\', '(')
				i += 2
				continue
			}
			if d, web := s.dest(dest, !o.image); web {
				out = append(out, "]("+d+safeTitle(title)+")"...)
			} else {
				// A link to anywhere but the web is its text; an image,
				// its alt text.
				next := byte(' ')
				if i+1+n < len(p) {
					next = p[i+1+n]
				}
				if o.at >= 0 {
					w := 1
					if o.image {
						w = 2
					}
					for k := o.at; k < o.at+w; k++ {
						if o.at > 0 && joins(out[o.at-1]) || o.at+w < len(out) && joins(out[o.at+w]) {
							out[k] = ' '
						} else {
							holes = append(holes, k)
						}
					}
					if len(out) > 0 && joins(out[len(out)-1]) || joins(next) {
						out = append(out, ' ')
					}
				} else {
					out = append(out, '\\', ']', ' ')
				}
			}
			i += 1 + n
			continue
		}
		out = append(out, c)
		i++
	}
	if len(holes) > 0 {
		// The openers of links left out, taken out in one pass.
		slices.Sort(holes)
		kept := out[:0]
		prev := 0
		for _, h := range holes {
			kept = append(kept, out[prev:h]...)
			prev = h + 1
		}
		out = append(kept, out[prev:]...)
	}
	return out
}

// joins reports whether a byte next to something left out could make,
// with what stands on the other side, Markdown that the input did not
// have: a link, an image, a definition, a code span, a tag, an entity,
// an escape or emphasis. A space is left there instead of nothing.
func joins(c byte) bool {
	return strings.IndexByte("[]()!`<>:&\\*_~|\"'", c) >= 0
}

// tag returns the length of the tag, comment or declaration that opens
// at p[i] == '<' (through its ">", or a comment's "-->"), or 0 when none
// does. Where each next ">" and "-->" is, is found once for the
// paragraph, not once for each "<".
func (s *mdSanitizer) tag(p string, i int) int {
	if i+1 >= len(p) {
		return 0
	}
	c := p[i+1]
	if c == '/' && i+2 < len(p) {
		c = p[i+2] | 0x20
		if c < 'a' || c > 'z' {
			return 0
		}
	} else if !(c == '!' || c == '?' || 'a' <= c|0x20 && c|0x20 <= 'z') {
		return 0
	}
	if strings.HasPrefix(p[i:], "<!--") {
		if s.commentEnd < i+4 && s.commentEnd != len(p) {
			if k := strings.Index(p[i+4:], "-->"); k >= 0 {
				s.commentEnd = i + 4 + k
			} else {
				s.commentEnd = len(p)
			}
		}
		if s.commentEnd == len(p) {
			return 0
		}
		return s.commentEnd + 3 - i
	}
	if s.gt < i && s.gt != len(p) {
		if k := strings.IndexByte(p[i:], '>'); k >= 0 {
			s.gt = i + k
		} else {
			s.gt = len(p)
		}
	}
	if s.gt == len(p) {
		return 0
	}
	return s.gt + 1 - i
}

// codeSpans finds a paragraph's code spans as a CommonMark reader does,
// each on one line, and returns each opening run's offset with the end of
// its span. Outside a span, a backslash escapes the backtick after it (the
// rest of its run may open a span); inside one, a backslash is a
// backslash, and the run after it may close the span. A span is taken on
// one line only, and inline escapes every run that opens none: a reader
// then takes the same spans, whatever blocks it splits the paragraph into.
// In a paragraph that could be a table's, a span that holds a "|" is not
// taken, since GFM splits a table's cells first.
// Each run is matched once, with a table built once: linear in p.
func codeSpans(p string, table bool) map[int]int {
	type run struct{ at, n, line int }
	var runs []run
	var pipes []int // where each "|" is, when a table could hold them
	line := 0
	for i := 0; i < len(p); {
		switch p[i] {
		case '\n':
			line++
		case '|':
			if table {
				pipes = append(pipes, i)
			}
		case '`':
			j := i
			for j < len(p) && p[j] == '`' {
				j++
			}
			runs = append(runs, run{i, j - i, line})
			i = j
			continue
		}
		i++
	}
	// same[k] is the next run on run k's line of its length, short[k] of
	// its length less one (for a run whose first backtick is escaped), or
	// -1.
	same, short := make([]int, len(runs)), make([]int, len(runs))
	last := map[int]int{}
	for k := len(runs) - 1; k >= 0; k-- {
		if k+1 < len(runs) && runs[k+1].line != runs[k].line {
			clear(last)
		}
		same[k], short[k] = -1, -1
		if n, ok := last[runs[k].n]; ok {
			same[k] = n
		}
		if n, ok := last[runs[k].n-1]; ok {
			short[k] = n
		}
		last[runs[k].n] = k
	}
	closes := map[int]int{}
	k := 0
	for i := 0; i < len(p) && k < len(runs); {
		open, closer := -1, -1
		switch {
		case p[i] == '\\' && i+1 < len(p) && p[i+1] == '`':
			open, closer = i+1, short[k]
		case p[i] == '\\' && i+1 < len(p) && isPunct(p[i+1]):
			i += 2
			continue
		case p[i] == '`':
			open, closer = i, same[k]
		default:
			i++
			continue
		}
		if closer >= 0 && open < runs[k].at+runs[k].n {
			end := runs[closer].at + runs[closer].n
			if j, _ := slices.BinarySearch(pipes, open); j == len(pipes) || pipes[j] > end {
				closes[open] = end
				i, k = end, closer+1
				continue
			}
		}
		i, k = runs[k].at+runs[k].n, k+1
	}
	return closes
}

// mayHoldTable reports whether a line of p could be a GFM table's
// delimiter row: "|", "-", ":" and white space, with a "-".
func mayHoldTable(p string) bool {
	for line := range strings.Lines(p) {
		if strings.IndexByte(line, '-') >= 0 && strings.Trim(line, "|-: \t\n") == "" {
			return true
		}
	}
	return false
}

// autolink reads a CommonMark autolink at p[0] == '<': "<scheme:...>" or
// "<address@host>", with no white space or "<" inside. It returns its
// length (0 when p starts none) and whether it goes to the web; an
// e-mail address, or any scheme but http(s), does not.
func (s *mdSanitizer) autolink(p string) (int, bool) {
	end := strings.IndexAny(p[1:min(len(p), 1+maxDest)], " \t\n<>")
	if end < 0 || p[1+end] != '>' {
		return 0, false
	}
	inner := p[1 : 1+end]
	if i := strings.IndexByte(inner, ':'); i > 0 && isScheme(inner[:i]) {
		d, ok := s.judge(inner, true)
		return end + 2, ok && d == inner
	}
	if at := strings.IndexByte(inner, '@'); at > 0 && at < len(inner)-1 {
		return end + 2, false
	}
	return 0, false
}

// bareWeb reports whether p starts with "http://" or "https://", which
// GFM reads as a link where it stands.
func bareWeb(p string) bool {
	p = p[:min(len(p), 8)]
	return len(p) >= 7 && strings.EqualFold(p[:7], "http://") || len(p) == 8 && strings.EqualFold(p, "https://")
}

// bareURL is the length of the bare URL at the start of p, as GFM reads
// one: up to white space or "<", less trailing punctuation and each ")"
// that closes no "(" in it. One pass, and one back over its tail.
func bareURL(p string) int {
	// Up to a bracket, a backtick or a backslash too: what follows is
	// read as Markdown, not taken into the URL (a "](" after it is a
	// link's, and a backslash may escape the character after it).
	n := strings.IndexAny(p, " \t\n<[]`\\")
	if n < 0 {
		n = len(p)
	}
	open := strings.Count(p[:n], "(") - strings.Count(p[:n], ")")
	for n > 0 {
		switch p[n-1] {
		case '?', '!', '.', ',', ':', '*', '_', '~', '\'', '"':
			n--
			continue
		case ')':
			if open < 0 {
				open++
				n--
				continue
			}
		}
		break
	}
	return n
}

// bareLinkTail follows Markdown as it is written, to tell whether a GFM
// reader could read what was written since the last white space or "<"
// as a bare link ("http://", "https://", "ftp://" or "www." in it): such
// a link reads on over anything up to white space or "<", a code span's
// opening backticks too, and what the span held would then be Markdown,
// raw HTML and all. Each byte is read once.
type bareLinkTail struct {
	read int // how much of the text has been read
	open bool
}

// openIn reports whether a bare link could run on at the end of text, of
// which what was read before is unchanged (or that is shorter than what
// was read: written anew).
func openIn[T ~string | ~[]byte](t *bareLinkTail, text T) bool {
	if len(text) < t.read {
		*t = bareLinkTail{}
	}
	for ; t.read < len(text); t.read++ {
		switch c := text[t.read]; c {
		case ' ', '\t', '\n', '\r', '\f', '\v', '<':
			t.open = false
		case '/', '.':
			for _, start := range [...]string{"http://", "https://", "ftp://", "www."} {
				t.open = t.open || endsWithFold(text[:t.read+1], start)
			}
		}
	}
	return t.open
}

// endsWithFold reports whether text ends with lower, an ASCII string in
// lower case, in any case.
func endsWithFold[T ~string | ~[]byte](text T, lower string) bool {
	i := len(text) - len(lower)
	if i < 0 {
		return false
	}
	for j := range len(lower) {
		if c := text[i+j]; c != lower[j] && !('A' <= c && c <= 'Z' && c+'a'-'A' == lower[j]) {
			return false
		}
	}
	return true
}

// codeInWord reports whether s has a backtick before its first white
// space or "<": a bare link before it would read on over it.
func codeInWord(s string) bool {
	i := strings.IndexAny(s, " \t\n\r\f\v<")
	if i < 0 {
		i = len(s)
	}
	return strings.IndexByte(s[:i], '`') >= 0
}

func isWordByte(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9' || c >= 0x80
}

// isScheme reports whether s is a URI scheme as CommonMark's autolinks
// read one: a letter, then 1 to 31 letters, digits, "+", "." or "-".
func isScheme(s string) bool {
	if len(s) < 2 || len(s) > 32 || !('a' <= s[0]|0x20 && s[0]|0x20 <= 'z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i] | 0x20
		if !('a' <= c && c <= 'z' || '0' <= s[i] && s[i] <= '9' || s[i] == '+' || s[i] == '.' || s[i] == '-') {
			return false
		}
	}
	return true
}

// linkTail reads the "(destination "title")" of an inline link at p[0]
// == '(' and returns its length, destination and title; ok is false
// when p does not start one that heed reads (too long included).
func linkTail(p string) (n int, dest, title string, ok bool) {
	i := 1
	for i < len(p) && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n') {
		i++
	}
	start := i
	if i < len(p) && p[i] == '<' {
		end := strings.IndexAny(p[i+1:min(len(p), i+1+maxDest)], "<>\n")
		if end < 0 || p[i+1+end] != '>' {
			return 0, "", "", false
		}
		dest = p[i+1 : i+1+end]
		i += end + 2
	} else {
		depth := 0
	scan:
		for ; i < len(p); i++ {
			switch c := p[i]; {
			case i-start > maxDest:
				return 0, "", "", false
			case c == '\\' && i+1 < len(p):
				i++
			case c == '(':
				depth++
				if depth > 32 {
					return 0, "", "", false
				}
			case c == ')':
				if depth == 0 {
					break scan
				}
				depth--
			case c <= ' ':
				break scan
			}
		}
		dest = p[start:i]
	}
	tStart := i
	for i < len(p) && p[i] != ')' {
		if i-tStart > maxTitle {
			return 0, "", "", false
		}
		if p[i] == '\\' {
			i++
		}
		i++
	}
	if i >= len(p) {
		return 0, "", "", false
	}
	return i + 1, dest, p[tStart:i], true
}

// firstHeading is the text of the first heading of Markdown (ATX, or a
// setext "===" underline), its marks of emphasis and links left out.
func firstHeading(md string) string {
	fence, prev := "", ""
	for line := range strings.Lines(md) {
		line = strings.TrimRight(line, "\n")
		indent, rest := leadingSpaces(line)
		if fence != "" {
			if strings.HasPrefix(rest, fence) {
				fence = ""
			}
			continue
		}
		if f := fenceOpen(rest); f != "" && indent < 4 {
			fence, prev = f, ""
			continue
		}
		if indent < 4 && strings.HasPrefix(rest, "#") {
			t := strings.TrimLeft(rest, "#")
			if len(rest)-len(t) <= 6 && (t == "" || t[0] == ' ' || t[0] == '\t') {
				if h := plainHeading(strings.TrimRight(strings.TrimSpace(t), "#")); h != "" {
					return h
				}
			}
		}
		if indent < 4 && prev != "" && strings.Trim(rest, "= ") == "" && strings.HasPrefix(rest, "=") {
			return plainHeading(strings.TrimSpace(prev))
		}
		prev = strings.TrimSpace(line)
	}
	return ""
}

// plainHeading drops a heading's link targets and emphasis marks.
func plainHeading(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '*', '_', '`', '[':
		case ']':
			if i+1 < len(s) && s[i+1] == '(' {
				if j := strings.IndexByte(s[i:], ')'); j >= 0 {
					i += j
				}
			}
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// ErrNotAPage is wrapped by the error of a body Read does not read: not
// HTML, Markdown or plain text.
var ErrNotAPage = errors.New("not an HTML or text page")

// maxTypeChars is how much of a Content-Type an error repeats.
const maxTypeChars = 100

// Kind says how Read read a body.
type Kind string

// The kinds of body Read reads.
const (
	KindHTML     Kind = "html"
	KindMarkdown Kind = "markdown"
	KindText     Kind = "text"
)

// Read reads a body by its Content-Type (opts.ContentType): HTML is
// extracted (Extract), Markdown is read with FromMarkdown, plain text is
// kept as it is (as valid UTF-8); anything else is refused with
// ErrNotAPage. A body said to be Markdown or plain text that opens as an
// HTML document ("<!DOCTYPE html" or "<html", after white space) is read
// as the HTML it is: a server's word on its type is not taken over what
// the body plainly is.
func Read(raw []byte, opts Options) (*Document, Kind, error) {
	mediaType, _, _ := mime.ParseMediaType(opts.ContentType)
	switch mediaType {
	case "", "text/html", "application/xhtml+xml":
		doc, err := ExtractBytes(raw, opts)
		return doc, KindHTML, err
	case "text/markdown", "text/x-markdown", "text/plain":
		if looksHTML(raw) {
			o := opts
			o.ContentType = ""
			doc, err := ExtractBytes(raw, o)
			return doc, KindHTML, err
		}
		if mediaType != "text/plain" {
			doc, err := FromMarkdown(raw, opts)
			return doc, KindMarkdown, err
		}
		if len(raw) > MaxInputBytes {
			return nil, KindText, fmt.Errorf("%w: over %d bytes", ErrTooLarge, MaxInputBytes)
		}
		if !utf8.Valid(raw) {
			raw = bytes.ToValidUTF8(raw, []byte("\uFFFD"))
		}
		return &Document{URL: strings.ToValidUTF8(opts.URL, "\uFFFD"), Markdown: strings.TrimSpace(string(raw)), Links: []string{}}, KindText, nil
	}
	ct := strings.ToValidUTF8(opts.ContentType, "\uFFFD")
	if len(ct) > maxTypeChars {
		ct = strings.ToValidUTF8(ct[:maxTypeChars], "") + "…"
	}
	return nil, "", fmt.Errorf("%w (Content-Type %s); heed reads HTML, Markdown and plain text", ErrNotAPage, ct)
}

// looksHTML reports whether a body opens as an HTML document.
func looksHTML(raw []byte) bool {
	head := bytes.TrimLeft(raw[:min(len(raw), 1024)], " \t\r\n\xEF\xBB\xBF")
	head = head[:min(len(head), 14)]
	return bytes.HasPrefix(bytes.ToLower(head), []byte("<!doctype html")) || bytes.HasPrefix(bytes.ToLower(head), []byte("<html"))
}
