package mcp

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/ingest"
)

// maxPatternLen bounds a web_grep pattern.
const maxPatternLen = 1000

// maxPatternInsts bounds a web_grep pattern's compiled program. RE2 runs
// in time linear in the text, times the program's size: a short pattern
// with a large repeat count, such as [a-z]{1000}x, is a program of a
// thousand steps, and costly on every byte of every page.
const maxPatternInsts = 400

// maxLineChars is how much of a matching line web_grep returns.
const maxLineChars = 500

// maxMatchBytes is how much of a line web_grep matches: a longer line is
// matched in its first maxMatchBytes only, so that one long line (a page
// of text with no line breaks) cannot make the matching slow to stop.
const maxMatchBytes = 16 << 10

// compilePattern compiles a web_grep pattern, or says why it will not.
func compilePattern(pattern string) (*regexp.Regexp, error) {
	if pattern == "" {
		return nil, errors.New("pattern is empty: give an RE2 regular expression, such as (?i)rate limit")
	}
	if len(pattern) > maxPatternLen {
		return nil, fmt.Errorf("pattern is %d bytes long; heed takes patterns of at most %d", len(pattern), maxPatternLen)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern is not an RE2 regular expression (%v); RE2 has no lookaround or backreferences, and \\ escapes a special character", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("pattern is not an RE2 regular expression (%v)", err)
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return nil, fmt.Errorf("pattern is not an RE2 regular expression (%v)", err)
	}
	if n := len(prog.Inst); n > maxPatternInsts {
		return nil, fmt.Errorf("pattern is too costly to match: it compiles to %d steps, and heed matches patterns of at most %d. Counted repeats cost the most ({1000} repeats what precedes it a thousand times): use a smaller count, or + or *, and fewer or shorter alternatives", n, maxPatternInsts)
	}
	return re, nil
}

// grepper collects a pattern's matches over pages. It keeps the first
// MaxMatches matches by URL and line, and counts the rest.
type grepper struct {
	re      *regexp.Regexp
	ctx     context.Context // matching stops when it ends
	mu      sync.Mutex
	pages   int
	matches []Match
	count   int
	cut     int  // lines matched in their first maxMatchBytes only
	stopped bool // a page's matching stopped when ctx ended
}

func (g *grepper) page(url, markdown string) {
	var found []Match
	n, cut, line, stopped := 0, 0, 0, false
	for l := range strings.Lines(markdown) {
		if g.ctx.Err() != nil {
			stopped = true
			break
		}
		line++
		l = strings.TrimRight(l, "\r\n")
		m := l
		if len(m) > maxMatchBytes {
			m = cutBytes(m, maxMatchBytes)
			cut++
		}
		if !g.re.MatchString(m) {
			continue
		}
		n++
		// Within a page lines come in order: its first MaxMatches are
		// all it can add to the first MaxMatches overall.
		if len(found) < MaxMatches {
			found = append(found, Match{URL: url, Line: line, Text: strings.Clone(cutChars(l, maxLineChars))})
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pages++
	g.count += n
	g.cut += cut
	g.stopped = g.stopped || stopped
	if len(found) == 0 {
		return
	}
	// Keep the first matches by URL and line, whatever order the pages
	// come in: never more than twice MaxMatches at once.
	g.matches = append(g.matches, found...)
	sort.SliceStable(g.matches, func(i, j int) bool {
		a, b := g.matches[i], g.matches[j]
		return a.URL < b.URL || a.URL == b.URL && a.Line < b.Line
	})
	g.matches = slices.Clip(g.matches[:min(len(g.matches), MaxMatches)])
}

// cutBytes cuts s to at most n bytes, at a character's boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cutChars cuts s to at most n characters.
func cutChars(s string, n int) string {
	i := 0
	for at := range s {
		if i == n {
			return s[:at]
		}
		i++
	}
	return s
}

func (s *Server) webGrep(ctx context.Context, req *sdk.CallToolRequest, in GrepInput) (*sdk.CallToolResult, GrepOutput, error) {
	ctx, end, err := s.begin(ctx, "web_grep")
	if err != nil {
		return nil, GrepOutput{}, err
	}
	defer end()
	out := GrepOutput{Pattern: in.Pattern}
	budget := s.chars(in.MaxChars, &out.Notes)
	if in.Cursor != "" {
		// The rest of the matches of a search made: none made anew.
		l, c, err := s.lists.open(in.Cursor, "web_grep", grepArgs(in), "the url, pattern, depth and whole_site")
		if err != nil {
			return nil, out, err
		}
		head := l.head.(GrepOutput)
		head.Notes = append(slices.Clip(head.Notes), out.Notes...)
		return s.grepPage(in, budget, head, itemsOf[Match](l.groups[0]), c.offset, l)
	}
	if err := inputURL(in.URL, "read"); err != nil {
		return nil, out, err
	}
	re, err := compilePattern(in.Pattern)
	if err != nil {
		return nil, out, err
	}
	// The user's deadline bounds the matching as it does a crawl, at any
	// depth.
	deadline := s.cfg.Limits.Deadline
	gctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	g := &grepper{re: re, ctx: gctx}
	if in.Depth <= 0 {
		p, err := s.fetchPage(gctx, in.URL, s.defaultRender())
		if err != nil {
			if cut := s.cut(ctx); cut != nil {
				return nil, out, cut
			}
			return nil, out, err
		}
		s.newProgress(ctx, req, 1).update(1, func() string { return fmt.Sprintf("1 of 1 page fetched: read %s, searching it", p.url) })
		g.page(p.url, p.markdown)
		out.Robots = "robots.txt is not consulted (one page, read on purpose)"
	} else {
		if _, err := crawl.Normalize(in.URL); err != nil {
			return nil, out, fmt.Errorf("%q is not a URL heed can crawl: give an absolute http or https URL, such as https://docs.example.com/", in.URL)
		}
		o, err := s.crawlOptions(in.URL, 0, &in.Depth, "", &out.Notes)
		if err != nil {
			return nil, out, err
		}
		o.WholeSite = in.WholeSite
		// No stash: a grep reads pages, and stores none of them.
		cr := ingest.CrawlRequest{Options: o, NoStore: true, Page: func(url string, doc *extract.Document) { g.page(url, doc.Markdown) }}
		maxPages := o.MaxPages
		prog := s.newProgress(ctx, req, maxPages)
		var mu sync.Mutex
		pages := 0
		var scope string
		res, err := s.svc.Crawl(gctx, cr, func(ev crawl.Event) {
			if ev.Kind == crawl.Began {
				scope = ev.Detail // before any other event
				return
			}
			if !fetched(ev) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			pages++
			prog.update(pages, func() string {
				g.mu.Lock()
				defer g.mu.Unlock()
				return fmt.Sprintf("%d of at most %d pages fetched, %d searched, %d matches; last %s %s", pages, maxPages, g.pages, g.count, ev.Kind, ev.URL)
			})
		})
		prog.flush()
		if cut := s.cut(ctx); cut != nil {
			return nil, out, cut
		}
		if err != nil {
			return nil, out, s.crawlError(gctx, in.URL, err)
		}
		out.Skipped, out.Robots, out.Scope = res.Skipped, res.Robots, scope
	}
	if cut := s.cut(ctx); cut != nil {
		return nil, out, cut
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if gctx.Err() != nil {
		out.Notes = append(out.Notes, fmt.Sprintf("the user's deadline of %v passed before the search was done: these are the matches found until then", deadline))
	}
	if g.cut > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d lines were longer than %d KB and were searched in their first %d KB only", g.cut, maxMatchBytes>>10, maxMatchBytes>>10))
	}
	out.PagesSearched, out.MatchCount = g.pages, g.count
	out.Truncated = g.count > len(g.matches)
	return s.grepPage(in, budget, out, slices.Clone(g.matches), 0, nil)
}

// grepArgs is what a web_grep cursor is given with: the arguments of the
// search whose matches it goes on with.
func grepArgs(in GrepInput) string {
	return fmt.Sprintf("%q %q %d %v", in.URL, in.Pattern, in.Depth, in.WholeSite)
}

// grepPage is web_grep's result: head, with the matches from offset that
// fit its budget; the rest are held, in l if they are already.
func (s *Server) grepPage(in GrepInput, budget int, head GrepOutput, matches []Match, offset int, l *listing) (*sdk.CallToolResult, GrepOutput, error) {
	var quoted []string
	for _, m := range matches[offset:] {
		quoted = append(quoted, m.Text)
	}
	bound := newBoundary(quoted...)
	show := func(m Match, max int) (string, Match) {
		m.URL, m.Text = cutTo(m.URL, max), cutTo(m.Text, max)
		return fmt.Sprintf("%s:%d: %s\n", m.URL, m.Line, bound.inline(m.Text)), m
	}
	render := func(p listPage[Match], cut bool) (string, GrepOutput) {
		out := head
		out.Matches, out.NextCursor, out.Notes = p.listed(cut, budget, len(matches), "matches", "web_grep with the same url, pattern, depth and whole_site", head.Notes)
		var b strings.Builder
		fmt.Fprintf(&b, "%d matches of %q in %d pages", out.MatchCount, out.Pattern, out.PagesSearched)
		if out.Scope != "" {
			fmt.Fprintf(&b, " (%s)", out.Scope)
		}
		if out.Truncated {
			fmt.Fprintf(&b, " (the first %d kept; %d more not kept)", len(matches), out.MatchCount-len(matches))
		}
		b.WriteString(".\n")
		for _, line := range p.lines {
			b.WriteString(line)
		}
		b.WriteString(noteLines(out.Notes))
		return b.String(), out
	}
	// What heed says besides the matches (the pattern, the scope) leaves
	// them their room.
	size := func() int { return resultChars(render(listPage[Match]{from: offset}, true)) }
	head.Notes = append(head.Notes, shrunk)
	head.Notes = withNote(head.Notes, shrunk, fitEnvelope(budget, size, &head.Pattern, &head.Scope))
	p := pageOf(budget, matches, offset, func(cut bool) int { return resultChars(render(listPage[Match]{from: offset}, cut)) }, show, func(next int) cursor {
		if l == nil {
			l = &listing{id: newListingID(), tool: "web_grep", args: grepArgs(in), head: head, groups: []group{{items: matches, kept: len(matches), count: len(matches)}}}
			for _, m := range matches {
				l.bytes += len(m.URL) + len(m.Text) + itemOverhead
			}
			return s.lists.put(l, 0).at(next)
		}
		return cursor{id: l.id, group: 0, offset: next}
	})
	text, out := render(p, p.next != "")
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}
