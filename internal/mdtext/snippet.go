package mdtext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/heedhq/heed"
)

// Terms are the words of a query, lower-cased and roughly stemmed,
// for marking them in snippets. A word of an unspaced script is a
// sequence of its characters, all of which must stand side by side.
func Terms(text string) [][]string {
	var out [][]string
	for _, w := range strings.Fields(strings.ToLower(text)) {
		tokens := strings.FieldsFunc(Segment(w), NotWord)
		if !strings.ContainsFunc(w, unspaced) {
			for _, t := range tokens {
				out = append(out, []string{stem(t)})
			}
			continue
		}
		if len(tokens) > maxTermChars {
			tokens = tokens[:maxTermChars]
		}
		if len(tokens) > 0 {
			out = append(out, tokens)
		}
	}
	return out
}

// NotWord reports whether r is no part of a word: not a letter, a number
// or the katakana length mark.
func NotWord(r rune) bool { return !IsWordRune(r) }

// stem cuts the commonest English endings, so that "tides" marks "tide"
// and "rising" marks "rise" in a snippet (the index itself stems properly).
func stem(w string) string {
	for _, suffix := range []string{"ing", "ed", "es", "s", "e"} {
		if len(w) > len(suffix)+2 && strings.HasSuffix(w, suffix) {
			return w[:len(w)-len(suffix)]
		}
	}
	return w
}

// piece is a word of an indexed body, as snippets cut it: joined is true
// when it follows the one before without a space (characters of an
// unspaced script, which the index separates with zero-width spaces).
type piece struct {
	text   string
	joined bool
	key    string // text without its punctuation around, lower-cased, as terms are matched
}

// pieceReader cuts a body into pieces as far as asked, no further.
type pieceReader struct {
	body   string
	at     int // where the next piece is looked for
	joined bool
	ps     []piece
}

// has reports whether piece i exists, cutting pieces up to it.
func (pr *pieceReader) has(i int) bool {
	for len(pr.ps) <= i && pr.at < len(pr.body) {
		start := -1
		for pr.at < len(pr.body) {
			r, size := utf8.DecodeRuneInString(pr.body[pr.at:])
			sep := unicode.IsSpace(r) || r == ZWSP || r == Barrier
			if sep && start >= 0 {
				break
			}
			if sep {
				pr.joined = pr.joined && (r == ZWSP || r == Barrier)
			} else if start < 0 {
				start = pr.at
			}
			pr.at += size
		}
		if start >= 0 {
			text := pr.body[start:pr.at]
			pr.ps = append(pr.ps, piece{text: text, joined: pr.joined, key: strings.ToLower(strings.TrimFunc(text, NotWord))})
			if pr.at < len(pr.body) {
				r, _ := utf8.DecodeRuneInString(pr.body[pr.at:])
				pr.joined = r == ZWSP || r == Barrier
			}
		}
	}
	return i < len(pr.ps)
}

// match is the index and length of the first of terms matching at piece
// i, or -1 and 0.
func (pr *pieceReader) match(terms [][]string, i int) (int, int) {
	for k, term := range terms {
		if !pr.has(i + len(term) - 1) {
			continue
		}
		ok := true
		for j, w := range term {
			p := pr.ps[i+j]
			c := p.key
			if (j > 0 && !p.joined) || !strings.HasPrefix(c, w) || (j < len(term)-1 && c != w) {
				ok = false
				break
			}
		}
		if ok {
			return k, len(term)
		}
	}
	return -1, 0
}

// termsIn is how many of the terms (the first maxSnippetTerms, as
// snippets look for) what Markdown says holds, each counted once.
func termsIn(markdown string, terms [][]string) int {
	if len(terms) > maxSnippetTerms {
		terms = terms[:maxSnippetTerms]
	}
	pr := &pieceReader{body: Body(markdown)}
	found := make([]bool, len(terms))
	n := 0
	for i := 0; pr.has(i) && n < len(terms); i++ {
		for k := range terms {
			if !found[k] {
				if j, _ := pr.match(terms[k:k+1], i); j == 0 {
					found[k] = true
					n++
				}
			}
		}
	}
	return n
}

// Snippet is the window of about 16 words of what a snapshot's Markdown
// says (Body) around the first place that matches the query's terms, as
// plain text, with where what matched is in it.
func Snippet(markdown string, terms [][]string) (string, []heed.Span) {
	return snippet(Body(markdown), terms, 16)
}

// snippet is the window of about n words of body around the first place
// that matches the query, as plain text (plain), with where what matched
// is in it. A character of an
// unspaced script counts as half a word. Only the window is marked, and
// only the first maxSnippetTerms terms are looked for, so that the cost
// stays linear in the body whatever the query.
func snippet(body string, terms [][]string, n int) (string, []heed.Span) {
	pr := &pieceReader{body: body}
	if len(terms) > maxSnippetTerms {
		terms = terms[:maxSnippetTerms]
	}
	core := func(f string) string {
		return strings.TrimFunc(f, NotWord)
	}
	// matchAt reports the length of a term matching at piece i, or 0.
	matchAt := func(i int) int {
		_, n := pr.match(terms, i)
		return n
	}
	first := 0
	for i := 0; pr.has(i); i++ {
		if matchAt(i) > 0 {
			first = i
			break
		}
	}
	ps := pr.ps
	from := max(0, first-n/4)
	for from > 0 && ps[from].joined && first-from < n/2 {
		from-- // start a run of characters at its start, if near
	}
	to, budget := from, 2*n
	for pr.has(to) && budget > 0 {
		ps = pr.ps
		if ps[to].joined {
			budget--
		} else {
			budget -= 2
		}
		to++
	}
	marked := make([]bool, to-from)
	for i := from; i < to; i++ {
		for j := range matchAt(i) {
			if i+j < to {
				marked[i+j-from] = true
			}
		}
	}
	ps = pr.ps
	isMarked := func(i int) bool { return i >= from && i < to && marked[i-from] }
	var b strings.Builder
	var spans []heed.Span
	runes := 0
	write := func(s string) {
		b.WriteString(s)
		runes += utf8.RuneCountInString(s)
	}
	if from > 0 {
		write("…")
	}
	wrote := false
	for i := from; i < to; i++ {
		p := ps[i]
		text := plain(p.text)
		if text == "" {
			continue // markup alone: a heading's #, a table's |
		}
		if wrote && !p.joined {
			write(" ")
		}
		wrote = true
		if !isMarked(i) {
			write(text)
			continue
		}
		// Mark the word, not the punctuation around it; a run of joined
		// characters is one span.
		c := core(text)
		at := strings.Index(text, c)
		write(text[:at])
		start := runes
		write(c)
		if n := len(spans); n > 0 && p.joined && i > from && isMarked(i-1) && spans[n-1].End == start {
			spans[n-1].End = runes
		} else {
			spans = append(spans, heed.Span{Start: start, End: runes})
		}
		write(text[at+len(c):])
	}
	if pr.has(to) {
		write("…")
	}
	return b.String(), spans
}

// markup reports whether a word without letters or digits is Markdown's
// alone: a heading's #s, a table's |, a quote's >, a list's - or *, a
// rule (---), a table's |---|, a code span's or fence's backticks, a
// fence's tildes; not prose's = or + or :.
func markup(w string) bool {
	switch {
	case w == "-" || w == "*":
		return true
	case strings.Trim(w, "#") == "", strings.Trim(w, ">") == "", strings.Trim(w, "`") == "":
		return true
	case strings.ContainsAny(w, "|"):
		return strings.Trim(w, "|-: ") == ""
	case len(w) >= 3:
		return strings.Trim(w, "-") == "" || strings.Trim(w, "*") == "" || strings.Trim(w, "_") == "" || strings.Trim(w, "=") == "" || strings.Trim(w, "~") == ""
	}
	return false
}

// unescape takes the backslashes off Markdown's escaped punctuation
// (\*, \_, \[, \#): what the page says has none.
func unescape(w string) string {
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		if w[i] == '\\' && i+1 < len(w) && strings.IndexByte("\\`*_{}[]()#+-.!|<>~\"':=", w[i+1]) >= 0 {
			i++
		}
		b.WriteByte(w[i])
	}
	return b.String()
}

// plain is a word of a snapshot's Markdown as a reader sees it: without
// the emphasis, code and link marks around it, and nothing at all for
// markup that stands alone (a heading's #, a table's |, a rule).
func plain(word string) string {
	if n := len(word) - len(strings.TrimRight(word, `\`)); n%2 == 1 {
		word = word[:len(word)-1] // a hard line break's
	}
	if strings.Contains(word, `\`) {
		word = unescape(word)
	}
	first := strings.IndexFunc(word, IsWordRune)
	if first < 0 {
		if markup(word) {
			return ""
		}
		return strings.ReplaceAll(word, "`", "") // a code span's, as `->`.
	}
	last := strings.LastIndexFunc(word, IsWordRune)
	_, size := utf8.DecodeRuneInString(word[last:])
	lead, mid, tail := word[:first], word[first:last+size], word[last+size:]
	marks := strings.NewReplacer("*", "", "_", "", "`", "", "~", "", "[", "", "]", "")
	lead = strings.ReplaceAll(marks.Replace(lead), "!", "")
	// Inside a word, a mark between its parts, as in 25.1.1.**: not the
	// one of snake_case.
	mid = strings.NewReplacer("**", "", "__", "", "`", "").Replace(mid)
	return lead + mid + marks.Replace(tail)
}

// maxSnippetTerms is how many of a query's terms a snippet looks for.
const maxSnippetTerms = 16

// maxTermChars is how many characters of a query's run of an unspaced
// script a snippet looks for: each place of a body is compared with
// that many at most.
const maxTermChars = 64
