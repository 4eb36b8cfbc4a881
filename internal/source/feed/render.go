package feed

import (
	"sort"
	"strings"
	"time"

	"github.com/heedhq/heed/internal/source"
)

// MaxKept is how many items a feed's snapshot keeps at most: items seen
// before stay when they leave the feed, the oldest going past this.
const MaxKept = 1000

// A snapshot of a feed is Markdown: the feed's description, then one
// section per item, newest first:
//
//	## Title
//
//	- Link: <https://example.com/post>
//	- Date: 2026-01-02T03:04:05Z
//	- Author: Jane Doe
//	- ID: tag:example.com,2026:1
//
// An item with none of these says "- Date: unknown", so that its content
// never starts where its fields are read.
//	The item's content.
//
// Headings inside the content are moved down to level 3 and below, so
// that a line starting "## " outside a code fence always starts an item:
// the next sync reads the items back from the snapshot that way, and
// keeps those the feed no longer lists.

// section is one item's Markdown, and what it is known by.
type section struct {
	key  string
	date time.Time
	text string
}

// key is what an item is known by across syncs: its ID, or its link, or
// its title and date.
func key(id, link, title string, date time.Time) string {
	switch {
	case id != "":
		return "id " + id
	case link != "":
		return "id " + link
	}
	return "title " + title + " " + date.Format(time.RFC3339)
}

// Render writes an item as a section.
func (it Item) Render() string {
	var b strings.Builder
	title := it.heading()
	meta := false
	field := func(name, v string) {
		if v != "" {
			b.WriteString("- " + name + ": " + v + "\n")
			meta = true
		}
	}
	if l := source.SafeURL(it.Link); source.HTTPURL(l) != "" {
		field("Link", "<"+l+">")
	}
	if !it.Date.IsZero() {
		field("Date", it.Date.UTC().Format(time.RFC3339))
	}
	field("Author", source.Plain(it.Author))
	if it.ID != it.Link {
		field("ID", source.Plain(it.ID))
	}
	if !meta {
		// The list of fields is never left out, so that content that
		// starts with a list is never read back as the fields.
		field("Date", "unknown")
	}
	if md := strings.TrimSpace(it.Markdown); md != "" {
		if meta {
			b.WriteString("\n")
		}
		b.WriteString(md + "\n")
	}
	// The item's Markdown is read as it will be read in the snapshot,
	// after the list of fields: its headings demoted, and a fence it
	// leaves open closed, so that nothing of it reads as another item.
	return "## " + title + "\n\n" + strings.TrimRight(Demote(b.String()), "\n")
}

// heading is an item's title as its heading writes it: plain text,
// escaped, or "(untitled)".
func (it Item) heading() string {
	if t := source.Plain(it.Title); t != "" {
		return t
	}
	return "(untitled)"
}

// section is an item as a section, known by what it will be known by
// when read back: the ID and title as written.
func (it Item) section() section {
	id, title := source.Plain(it.ID), it.heading()
	if title == "(untitled)" {
		title = ""
	}
	if it.ID == it.Link {
		id = ""
	}
	return section{key: key(id, it.Link, title, it.Date), date: it.Date, text: it.Render()}
}

// Document writes a feed's snapshot: the preamble, then the items given
// merged with those of the old snapshot (the new one's Markdown) that the
// feed no longer lists, newest first, MaxKept at most. It returns the
// Markdown, how many items it holds and how many of them are new.
func Document(preamble string, items []Item, old string) (md string, total, fresh int) {
	kept := Sections(old)
	seen := map[string]bool{}
	var all []section
	for _, it := range items {
		s := it.section()
		if seen[s.key] {
			continue
		}
		seen[s.key] = true
		all = append(all, s)
	}
	oldKeys := map[string]bool{}
	for _, s := range kept {
		oldKeys[s.key] = true
	}
	for _, s := range all {
		if !oldKeys[s.key] {
			fresh++
		}
	}
	for _, s := range kept {
		if !seen[s.key] {
			seen[s.key] = true
			all = append(all, s)
		}
	}
	sortSections(all)
	if len(all) > MaxKept {
		all = all[:MaxKept]
	}
	var b strings.Builder
	if p := Demote(strings.TrimSpace(preamble)); p != "" {
		b.WriteString(p + "\n\n")
	}
	for i, s := range all {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(s.text)
	}
	return strings.TrimSpace(b.String()), len(all), fresh
}

// sortSections puts sections newest first, those without a date last,
// keeping the order of equals.
func sortSections(all []section) {
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i].date, all[j].date
		if a.IsZero() || b.IsZero() {
			return !a.IsZero() && b.IsZero()
		}
		return a.After(b)
	})
}

// Sections reads the item sections back from a feed snapshot's Markdown.
func Sections(md string) []section {
	var out []section
	var cur *strings.Builder
	flush := func() {
		if cur != nil {
			out = append(out, readSection(strings.TrimRight(cur.String(), "\n")))
		}
	}
	lines(md, func(line string, fenced bool, _ int) {
		if !fenced && strings.HasPrefix(line, "## ") {
			flush()
			cur = &strings.Builder{}
		}
		if cur != nil {
			cur.WriteString(line + "\n")
		}
	})
	flush()
	return out
}

// readSection finds what a section is known by in its text.
func readSection(text string) section {
	head, rest, _ := strings.Cut(text, "\n")
	title := strings.TrimPrefix(head, "## ")
	if title == "(untitled)" {
		title = ""
	}
	var id, link string
	var date time.Time
	for l := range strings.SplitSeq(strings.TrimLeft(rest, "\n"), "\n") {
		name, v, ok := strings.Cut(strings.TrimPrefix(l, "- "), ": ")
		if !strings.HasPrefix(l, "- ") || !ok {
			break
		}
		switch name {
		case "Link":
			link = strings.TrimSuffix(strings.TrimPrefix(v, "<"), ">")
		case "Date":
			date, _ = time.Parse(time.RFC3339, v)
		case "ID":
			id = v
		}
	}
	return section{key: key(id, link, title, date), date: date, text: text}
}

// Demote moves every ATX heading of Markdown outside code fences down
// two levels (to 6 at most), those in block quotes and list items too,
// so that none is a level 1 or 2 heading, keeping its indentation; it
// escapes the underlines of setext headings (a line of "=" or "-"),
// writing a long line of "-" as "***", a break either way; and should a
// code fence be left open at the end, it closes it, so that nothing after
// the Markdown reads as code.
func Demote(md string) string {
	md = strings.ReplaceAll(strings.ReplaceAll(md, "\r\n", "\n"), "\r", "\n")
	var b strings.Builder
	end := lines(md, func(line string, fenced bool, at int) {
		switch {
		case !fenced && at >= 0:
			line = line[:at] + demote(line[at:])
		case !fenced:
			// "-" or "--" alone reads as an empty list item, but under a
			// paragraph it underlines a heading.
			_, rest := stripQuotes(line, -1)
			t := strings.TrimLeft(rest, " \t")
			if run := strings.TrimRight(t, " \t"); run == "-" || run == "--" {
				line = line[:len(line)-len(t)] + "\\" + t
			}
		}
		b.WriteString(line + "\n")
	})
	if end != nil {
		b.WriteString(end.closer() + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// demote is a block's first line with a heading moved down or a setext
// underline escaped.
func demote(s string) string {
	if n := len(s) - len(strings.TrimLeft(s, "#")); n > 0 {
		if after := s[n:]; n <= 6 && (after == "" || after[0] == ' ' || after[0] == '\t') {
			return strings.Repeat("#", min(n+2, 6)) + after
		}
		return s
	}
	if c := s[0]; c == '=' || c == '-' {
		run := strings.TrimRight(s, " \t")
		if strings.Trim(run, string(c)) != "" {
			return s
		}
		if c == '-' && len(run) >= 3 {
			return "***"
		}
		return "\\" + s
	}
	return s
}

// fence is an open fenced code block, as lines tracks it.
type fence struct {
	char   byte // '`' or '~'
	n      int  // the opening run's length: a closing run is as long or longer
	col    int  // the column its container's content starts at (a list item's)
	quotes int  // the block quotes it is in
}

// closer is a line that closes the fence.
func (f *fence) closer() string {
	return strings.Repeat("> ", f.quotes) + strings.Repeat(" ", f.col) + strings.Repeat(string(f.char), f.n)
}

// lines calls fn for each line of Markdown ("\n"-separated), saying
// whether it is inside a fenced code block (the fence lines themselves
// count as inside), and returns the fence left open at the end, if any.
// It follows CommonMark as far as fences go: a fence may open in a block
// quote or a list item ("- ```"), up to three spaces in from its
// container's content; it closes with a run of its own character at
// least as long, and nothing after it but spaces, or when its container
// ends (a line of a list item's code indented less than the item's
// content, a line of a quote's code without the quote's ">").
//
// For a line outside code, fn is also given the byte its block starts at,
// past the block quotes' markers and list items' markers that contain
// it, where a heading may start; -1 when the line is indented as code.
func lines(md string, fn func(line string, fenced bool, at int)) *fence {
	var (
		f      *fence
		cols   []int // the content columns of the open list items
		quotes int   // the block quotes the last line was in
	)
	for l := range strings.SplitSeq(md, "\n") {
		q, rest := stripQuotes(l, -1)
		if f != nil {
			q, rest = stripQuotes(l, f.quotes)
			if q == f.quotes {
				col, i := indent(rest)
				switch {
				case i == len(rest): // blank: still code
					fn(l, true, -1)
					continue
				case col >= f.col:
					fn(l, true, -1)
					if run := rest[i:]; col-f.col <= 3 && closes(run, f) {
						f = nil
					}
					continue
				}
			}
			// The container ended, and the code with it.
			f = nil
			q, rest = stripQuotes(l, -1)
		}
		if q != quotes {
			cols, quotes = cols[:0], q
		}
		col, i := indent(rest)
		if i == len(rest) {
			fn(l, false, -1)
			continue
		}
		for len(cols) > 0 && col < cols[len(cols)-1] {
			cols = cols[:len(cols)-1]
		}
		// List markers open items, nested ones on one line too.
		for {
			base := 0
			if len(cols) > 0 {
				base = cols[len(cols)-1]
			}
			w, ok := listMarker(rest[i:])
			if !ok || col-base > 3 {
				break
			}
			after := rest[i+w:]
			pad, j := indent(after)
			if j == len(after) || pad > 4 {
				pad = 1
				j = min(j, 1)
			}
			cols = append(cols, col+w+pad)
			col, i = col+w+pad, i+w+j
			if i >= len(rest) {
				break
			}
		}
		base := 0
		if len(cols) > 0 {
			base = cols[len(cols)-1]
		}
		at := -1
		if col-base <= 3 && i < len(rest) {
			at = len(l) - len(rest) + i
		}
		if col-base <= 3 && i < len(rest) {
			if c := rest[i]; c == '`' || c == '~' {
				run := rest[i:]
				n := len(run) - len(strings.TrimLeft(run, string(c)))
				if n >= 3 && (c == '~' || !strings.Contains(run[n:], "`")) {
					f = &fence{char: c, n: n, col: base, quotes: q}
				}
			}
		}
		if f != nil {
			at = -1
		}
		fn(l, f != nil, at)
	}
	return f
}

// stripQuotes takes up to max block-quote markers (">" after up to three
// spaces, and one space after it) off the start of a line, all of them
// when max is -1, and says how many it took.
func stripQuotes(l string, max int) (int, string) {
	n := 0
	for max < 0 || n < max {
		t := strings.TrimLeft(l, " ")
		if len(l)-len(t) > 3 || !strings.HasPrefix(t, ">") {
			break
		}
		l = strings.TrimPrefix(t[1:], " ")
		n++
	}
	return n, l
}

// indent is the column a line's text starts at (tabs to the next multiple
// of four) and the byte it starts at.
func indent(s string) (col, i int) {
	for i < len(s) {
		switch s[i] {
		case ' ':
			col++
		case '\t':
			col += 4 - col%4
		default:
			return col, i
		}
		i++
	}
	return col, i
}

// listMarker reports whether s starts with a list item's marker ("-",
// "*", "+", or up to nine digits and "." or ")") followed by white space
// or the end, and its width.
func listMarker(s string) (int, bool) {
	w := 0
	switch {
	case s == "":
		return 0, false
	case s[0] == '-' || s[0] == '*' || s[0] == '+':
		w = 1
	default:
		for w < len(s) && w < 9 && '0' <= s[w] && s[w] <= '9' {
			w++
		}
		if w == 0 || w == len(s) || s[w] != '.' && s[w] != ')' {
			return 0, false
		}
		w++
	}
	if w < len(s) && s[w] != ' ' && s[w] != '\t' {
		return 0, false
	}
	return w, true
}

// closes reports whether a line's text closes a fence.
func closes(run string, f *fence) bool {
	n := len(run) - len(strings.TrimLeft(run, string(f.char)))
	return n >= f.n && strings.TrimSpace(run[n:]) == ""
}
