package feed

import (
	"sort"
	"strings"
	"time"
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
	title := it.Title
	if title == "" {
		title = "(untitled)"
	}
	b.WriteString("## " + title + "\n\n")
	meta := false
	field := func(name, v string) {
		if v != "" {
			b.WriteString("- " + name + ": " + v + "\n")
			meta = true
		}
	}
	if it.Link != "" {
		field("Link", "<"+it.Link+">")
	}
	if !it.Date.IsZero() {
		field("Date", it.Date.UTC().Format(time.RFC3339))
	}
	field("Author", it.Author)
	if it.ID != it.Link {
		field("ID", it.ID)
	}
	if md := Demote(it.Markdown); md != "" {
		if meta {
			b.WriteString("\n")
		}
		b.WriteString(md + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func (it Item) section() section {
	return section{key: key(it.ID, it.Link, it.Title, it.Date), date: it.Date, text: it.Render()}
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
	lines(md, func(line string, fenced bool) {
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

// Demote moves every heading of Markdown outside code fences down two
// levels (to 6 at most), so that none is a level 1 or 2 heading.
func Demote(md string) string {
	if !strings.Contains(md, "#") {
		return md
	}
	var b strings.Builder
	lines(md, func(line string, fenced bool) {
		if !fenced {
			trimmed := strings.TrimLeft(line, " ")
			if len(line)-len(trimmed) <= 3 && strings.HasPrefix(trimmed, "#") {
				n := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
				if after := trimmed[n:]; n <= 6 && (after == "" || after[0] == ' ' || after[0] == '\t') {
					line = strings.Repeat("#", min(n+2, 6)) + after
				}
			}
		}
		b.WriteString(line + "\n")
	})
	return strings.TrimSuffix(b.String(), "\n")
}

// lines calls fn for each line of Markdown, saying whether it is inside
// a fenced code block (the fence lines themselves count as inside).
func lines(md string, fn func(line string, fenced bool)) {
	var fence string // the opening fence's run, while in one
	for l := range strings.SplitSeq(md, "\n") {
		trimmed := strings.TrimLeft(l, " ")
		indent := len(l) - len(trimmed)
		if fence == "" {
			if indent <= 3 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
				c := trimmed[0]
				n := len(trimmed) - len(strings.TrimLeft(trimmed, string(c)))
				if c != '`' || !strings.Contains(trimmed[n:], "`") {
					fence = strings.Repeat(string(c), n)
				}
			}
			fn(l, fence != "")
			continue
		}
		fn(l, true)
		if indent <= 3 && strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == "" {
			fence = ""
		}
	}
}
