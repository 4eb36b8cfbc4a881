package mcp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/history"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/textdiff"
)

// ChangesInput is stash_changes' arguments.
type ChangesInput struct {
	Since    string `json:"since,omitempty" jsonschema:"From when: a time (2026-12-01, or 2026-12-01T09:00:00Z; in UTC unless it says) or a duration back from now (36h, 7d). Default 7d."`
	Source   string `json:"source,omitempty" jsonschema:"Only this source (as stash_sources lists them, or web_crawl named it)."`
	Diffs    bool   `json:"diffs,omitempty" jsonschema:"Show what changed in each changed page, word by word: the words removed as [-...-] and those added as {+...+}, in the lines that changed, each diff cut to fit max_chars."`
	MaxChars int    `json:"max_chars,omitempty"` // its description is maxCharsDoc
	Cursor   string `json:"cursor,omitempty" jsonschema:"The next_cursor a stash_changes result gave, with the same since and source: the pages after those it listed."`
}

// PageChange is a page that became new, changed or removed since the
// time asked about.
type PageChange struct {
	ID      string    `json:"id" jsonschema:"The snapshot's ID: stash_read reads the page, and its versions are the resources heed://snapshot/{id}/history and heed://snapshot/{id}/versions/{n}."`
	URL     string    `json:"url"`
	Title   string    `json:"title" jsonschema:"The page's title: its own words, not heed's."`
	Source  string    `json:"source"`
	Change  string    `json:"change" jsonschema:"new (it had no version then, or had been found gone), changed (its content changed since), or removed (a crawl found it gone since)."`
	At      time.Time `json:"at" jsonschema:"When its last version, or its removal, was found."`
	From    int       `json:"from,omitempty" jsonschema:"The number of the version it had then; absent for a new page."`
	To      int       `json:"to" jsonschema:"The number of the version it has now; of a removed page, its removal's."`
	Added   *int      `json:"words_added,omitempty" jsonschema:"Of a changed page: the words added since the version it had then. Absent when the stash no longer keeps that version's text."`
	Deleted *int      `json:"words_removed,omitempty" jsonschema:"Of a changed page: the words removed since the version it had then."`
	Diff    string    `json:"diff,omitempty" jsonschema:"Asked for with diffs, of a changed page: its version then against its version now, word by word, the words removed as [-...-] and those added as {+...+}, in the lines that changed (a line of … between lines left out): the page's words, not heed's."`
	DiffCut bool      `json:"diff_cut,omitempty" jsonschema:"The diff was cut to fit max_chars, ending in …: the resources heed://snapshot/{id}/versions/{n} hold both versions whole."`
}

// ChangesOutput is stash_changes' result.
type ChangesOutput struct {
	Since      time.Time    `json:"since" jsonschema:"The time asked about, in UTC."`
	Source     string       `json:"source,omitempty" jsonschema:"The source asked about, if one was."`
	New        int          `json:"new" jsonschema:"How many pages are new since then, of those read (all of them, unless partial)."`
	Changed    int          `json:"changed" jsonschema:"How many pages changed since then, of those read."`
	Removed    int          `json:"removed" jsonschema:"How many pages were found gone since then, of those read."`
	Partial    bool         `json:"partial,omitempty" jsonschema:"The stash has more pages that changed than heed reads at once: new, changed and removed count those read so far, the first by URL, and next_cursor goes on to the rest, counting them too."`
	Pages      []PageChange `json:"pages" jsonschema:"By URL, from the one next_cursor went on from, as many as max_chars allows."`
	NextCursor string       `json:"next_cursor,omitempty" jsonschema:"When there are more pages than this result lists: pass it as cursor, with the same since and source, for the rest."`
	Notes      []string     `json:"notes,omitempty"`

	// after is the URL of the last page read, where the next read of the
	// stash goes on after, while partial.
	after string
}

func (in ChangesInput) askedChars() int { return in.MaxChars }

// Bounds of stash_changes' work. A call reads at most changesRead pages'
// changes from the stash, by URL (a stash of a hundred thousand changed
// pages is read a part at a time, each part's cursor going on to the
// next); and compares the versions of at most maxCompared changed pages,
// reading at most compareBytes of their texts (the first page's always,
// that the list goes on), so that its words and diffs take time and
// memory bounded whatever the pages hold (textdiff bounds each
// comparison). A diff takes at most a quarter of the result's budget,
// so that several pages' diffs fit in one result.
const (
	changesRead  = 1000
	maxCompared  = 100
	compareBytes = 8 << 20
	diffShare    = 4
)

func (s *Server) stashChanges(ctx context.Context, req *sdk.CallToolRequest, in ChangesInput) (*sdk.CallToolResult, ChangesOutput, error) {
	ctx, end, err := s.begin(ctx, "stash_changes")
	if err != nil {
		return nil, ChangesOutput{}, err
	}
	defer end()
	// The call reads the stash's changes and many pages' versions: one
	// open stash serves them all. Without one, the reads say why.
	release, _ := s.svc.Hold(ctx)
	defer release()
	var notes []string
	budget := s.chars(in.MaxChars, &notes)
	if in.Cursor != "" {
		// The rest of the pages read, or, past them, the stash's next
		// part: the time asked about is the first call's, not one
		// counted back from now again.
		l, c, err := s.lists.open(in.Cursor, "stash_changes", changesArgs(in), "since and source")
		if err != nil {
			return nil, ChangesOutput{Pages: []PageChange{}}, err
		}
		head := l.head.(ChangesOutput)
		items := itemsOf[heed.PageChange](l.groups[0])
		if c.offset == len(items) && head.Partial {
			return s.readChanges(ctx, in, budget, head, notes)
		}
		return s.changesPage(ctx, in, budget, head, notes, items, c.offset, l)
	}
	since := in.Since
	if since == "" {
		since = history.DefaultSince
	}
	at, err := history.ParseSince(since, time.Now())
	if err != nil {
		return nil, ChangesOutput{Pages: []PageChange{}}, fmt.Errorf("since: %v: give a time, such as 2026-12-01, or a duration back from now, such as 7d", err)
	}
	return s.readChanges(ctx, in, budget, ChangesOutput{Since: at.UTC(), Source: in.Source}, notes)
}

// changesArgs is what a stash_changes cursor is given with: the since
// and source of the call that gave it.
func changesArgs(in ChangesInput) string { return fmt.Sprintf("%q %q", in.Since, in.Source) }

// readChanges reads the next part of the stash's changes, after the
// last page head read (none, at first), adds them to head's counts, and
// lists the first of them.
func (s *Server) readChanges(ctx context.Context, in ChangesInput, budget int, head ChangesOutput, notes []string) (*sdk.CallToolResult, ChangesOutput, error) {
	// One more than a part, to know whether another follows it.
	part := s.changesPart
	cs, err := s.svc.Changes(ctx, heed.ChangesQuery{Since: head.Since, Source: head.Source, After: head.after, Limit: part + 1})
	var none *ingest.NoStashError
	if errors.As(err, &none) && !none.Files {
		cs, err = nil, nil // no stash yet: nothing changed
	}
	if err != nil {
		return nil, ChangesOutput{Pages: []PageChange{}}, s.failed(ctx, "read the stash's changes", err)
	}
	head.Partial = len(cs) > part
	if head.Partial {
		cs = cs[:part]
		head.after = cs[len(cs)-1].URL
	}
	for _, c := range cs {
		switch c.Change {
		case heed.New:
			head.New++
		case heed.Changed:
			head.Changed++
		case heed.Removed:
			head.Removed++
		}
	}
	return s.changesPage(ctx, in, budget, head, notes, cs, 0, nil)
}

// changesPage is stash_changes' result: head, with the pages read from
// offset that fit its budget and the bounds of its work, each changed
// one with its words counted (and its diff, if asked); the rest are
// held, in l if they are already.
func (s *Server) changesPage(ctx context.Context, in ChangesInput, budget int, head ChangesOutput, notes []string, items []heed.PageChange, offset int, l *listing) (*sdk.CallToolResult, ChangesOutput, error) {
	bound := newBoundary() // drawn again once the pages' texts are known
	show := func(pc PageChange, max int) (string, PageChange) {
		pc.URL, pc.Title = cutTo(pc.URL, max), cutTo(pc.Title, max)
		if max > 0 && utf8.RuneCountInString(pc.Diff) > max {
			pc.Diff, pc.DiffCut = cutTo(pc.Diff, max), true
		}
		return changeLine(pc, bound), pc
	}
	// render makes the result of the page p of the list; measured with
	// no page listed, it says what a list cut says (cut), and the notes
	// the pages listed may need, as long as they can be (worst).
	render := func(p listPage[PageChange], cut, worst bool) (string, ChangesOutput) {
		out := head
		out.Pages, out.NextCursor, out.Notes = p.shown, p.next, slices.Clip(notes)
		if out.Pages == nil {
			out.Pages = []PageChange{}
		}
		if cut {
			out.NextCursor = cmp.Or(p.next, widestCursor)
			out.Notes = append(out.Notes, changesNote(budget, p.from, len(p.shown), len(items), s.changesPart, out.NextCursor))
		}
		unkept, diffsCut := 0, 0
		if worst {
			unkept, diffsCut = maxCompared, maxCompared
		}
		for _, pc := range out.Pages {
			if pc.Change == string(heed.Changed) && pc.Added == nil {
				unkept++
			}
			if pc.DiffCut {
				diffsCut++
			}
		}
		if unkept > 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("the stash no longer keeps the text of the earlier version of %s listed (its retention let it go): their words are not counted", heed.Count(unkept, "changed page")))
		}
		if diffsCut > 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("%s cut to fit max_chars, ending in …: the resources heed://snapshot/{id}/versions/{n} hold the versions whole", heed.Count(diffsCut, "diff")))
		}
		var b strings.Builder
		where := ""
		if out.Source != "" {
			where = fmt.Sprintf(" in source %q", out.Source)
		}
		fmt.Fprintf(&b, "Since %s%s: %d new, %d changed, %d removed", out.Since.Format(time.RFC3339), where, out.New, out.Changed, out.Removed)
		if out.Partial {
			b.WriteString(" among the pages read so far (there are more: next_cursor goes on)")
		}
		b.WriteString(".\n")
		for _, line := range p.lines {
			b.WriteString(line)
		}
		if len(items) == 0 {
			b.WriteString("Nothing in the stash is new, changed or removed since then. web_crawl crawls a site into the stash again.\n")
		} else {
			b.WriteString("Read a page with stash_read and its ID; its versions are the resources heed://snapshot/{id}/history and heed://snapshot/{id}/versions/{n}.\n")
		}
		b.WriteString(noteLines(out.Notes))
		return b.String(), out
	}
	// The note's numbers, measured with no page listed, take a few
	// digits more once pages are (as pageOf has it).
	room := budget - resultChars(render(listPage[PageChange]{from: offset}, true, true)) - 32

	// The pages from offset, each changed one compared, as far as they
	// may fit the budget and the bounds of the work allow.
	var pages []PageChange
	used, compared, read := 0, 0, 0
	for _, c := range items[offset:] {
		pc := PageChange{ID: c.ID, URL: c.URL, Title: c.Title, Source: c.Source, Change: string(c.Change), At: c.At.UTC(), From: c.From, To: c.To}
		if c.Change == heed.Changed {
			if len(pages) > 0 && (compared >= maxCompared || read >= compareBytes) {
				break
			}
			n, err := s.compare(ctx, &pc, in.Diffs, budget/diffShare)
			if err != nil {
				return nil, ChangesOutput{Pages: []PageChange{}}, s.failed(ctx, "read a page's versions", err)
			}
			compared, read = compared+1, read+n
		}
		pages = append(pages, pc)
		line, el := show(pc, 0)
		if used += itemChars(line, el); used > room {
			break
		}
	}
	quoted := make([]string, 0, 2*len(pages))
	for _, pc := range pages {
		quoted = append(quoted, pc.Title, pc.Diff)
	}
	bound = newBoundary(quoted...)
	p := listPage[PageChange]{from: offset}
	p.lines, p.shown = fitItems(room, pages, show)
	next := offset + len(p.shown)
	if next < len(items) || head.Partial {
		// The rest of these pages, or the stash's next part: the cursor
		// goes on from the listing, held once.
		if l == nil {
			l = &listing{id: newListingID(), tool: "stash_changes", args: changesArgs(in), head: head, groups: []group{{items: items, kept: len(items), count: len(items)}}}
			for _, c := range items {
				l.bytes += len(c.ID) + len(c.URL) + len(c.Title) + len(c.Source) + itemOverhead
			}
			s.lists.put(l, 0)
		}
		p.next = cursor{id: l.id, offset: next}.String()
	}
	text, out := render(p, p.next != "", false)
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

// changesNote is the note of a list of changes cut: which of the pages
// read it shows, and how to ask for the rest, or for the stash's next
// part pages that changed (of part pages at most) when these are all
// listed.
func changesNote(budget, from, shown, of, part int, next string) string {
	if from+shown == of {
		return fmt.Sprintf("pages %d to %d of the %d read are listed; the stash has more pages that changed, which heed reads %d at a time: for them, call stash_changes with the same since and source and cursor %q (next_cursor)",
			from+1, from+shown, of, part, next)
	}
	return fmt.Sprintf("pages %d to %d of the %d read are listed, as many as max_chars %d and the versions heed compares in a call (of %d changed pages at most) allow; for the rest, call stash_changes with the same since and source and cursor %q (next_cursor)",
		from+1, from+shown, of, budget, maxCompared, next)
}

// compare counts the words added to a changed page since its version
// then, and removed, and, if asked, its diff, cut to at most share
// characters of a result; it returns how many bytes of the versions'
// texts it read. A version whose text the stash no longer keeps, or
// cannot read (a damaged text), leaves the words uncounted: one page's
// fails no list.
func (s *Server) compare(ctx context.Context, pc *PageChange, diffs bool, share int) (int, error) {
	old, err := s.svc.VersionText(ctx, pc.URL, pc.From)
	if err != nil {
		s.uncompared(ctx, pc, err)
		return 0, nil
	}
	cur, err := s.svc.VersionText(ctx, pc.URL, pc.To)
	if err != nil {
		s.uncompared(ctx, pc, err)
		return len(old), nil
	}
	added, removed := textdiff.Count(old, cur)
	pc.Added, pc.Deleted = &added, &removed
	if diffs {
		pc.Diff, pc.DiffCut = changedLines(textdiff.Words(old, cur), share)
	}
	return len(old) + len(cur), nil
}

// uncompared notes why a changed page's versions were not compared: a
// text not kept is the retention's; any other failure is logged.
func (s *Server) uncompared(ctx context.Context, pc *PageChange, err error) {
	if !errors.Is(err, heed.ErrNotFound) {
		s.log.WarnContext(ctx, "stash_changes: the versions of a page could not be compared", "url", pc.URL, "error", err)
	}
}

// changedLines are the lines of a word diff that hold a change (or lie
// within one), a line of … between those apart, cut to at most room
// characters of a result that holds them twice, at a line break if one
// is in the second half, ending in … (cut).
func changedLines(diff string, room int) (text string, cut bool) {
	var b strings.Builder
	closing := "" // the mark that closes the change open, if one is
	skipped := false
	for line := range strings.Lines(diff) {
		keep := closing != ""
		// A mark opens and closes a change; the text between holds no
		// mark (textdiff escapes the text's), but may end in a mark's
		// first character.
		for rest := line; ; {
			if closing != "" {
				i := strings.Index(rest, closing)
				if i < 0 {
					break
				}
				rest, closing = rest[i+2:], ""
				continue
			}
			i, j := strings.Index(rest, "[-"), strings.Index(rest, "{+")
			if i < 0 || j >= 0 && j < i {
				i = j
			}
			if i < 0 {
				break
			}
			keep, closing = true, map[byte]string{'[': "-]", '{': "+}"}[rest[i]]
			rest = rest[i+2:]
		}
		if !keep {
			skipped = true
			continue
		}
		if skipped {
			b.WriteString("…\n")
			skipped = false
		}
		b.WriteString(line)
	}
	if skipped && b.Len() > 0 {
		if !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
		b.WriteString("…\n")
	}
	text = b.String()
	n := charsWithin(text, 0, room)
	if n >= utf8.RuneCountInString(text) {
		return text, false
	}
	kept := cutChars(text, max(n-1, 0))
	if i := strings.LastIndexByte(kept, '\n'); i >= 0 && i+1 > len(kept)/2 {
		kept = kept[:i+1]
	}
	return kept + "…", true
}

// changeLine is a page changed as stash_changes lists it: what became of
// it, its URL and versions, its ID, source and title, marked as the
// page's words, and its diff, if it has one, in a block of code within
// the mark, so that no Markdown of the page (nor its marks) is read as
// the result's.
func changeLine(pc PageChange, bound boundary) string {
	var b strings.Builder
	when := pc.At.Format(time.RFC3339)
	switch pc.Change {
	case string(heed.New):
		fmt.Fprintf(&b, "- new: %s (version %d, %s)", pc.URL, pc.To, when)
	case string(heed.Removed):
		fmt.Fprintf(&b, "- removed: %s (found gone %s, after version %d)", pc.URL, when, pc.From)
	default:
		fmt.Fprintf(&b, "- changed: %s (version %d to %d, %s)", pc.URL, pc.From, pc.To, when)
		if pc.Added != nil {
			fmt.Fprintf(&b, ": %d words added, %d removed", *pc.Added, *pc.Deleted)
		}
	}
	fmt.Fprintf(&b, "\n  id %s, source %s: %s\n", pc.ID, pc.Source, bound.inline(pc.Title))
	if pc.Diff != "" {
		// After a blank line: the marker goes on no line of heed's.
		b.WriteString("\n" + bound.block(fenced(pc.Diff)))
	}
	return b.String()
}

// fenced is text as a fenced code block: its fence longer than any run
// of backticks it holds.
func fenced(text string) string {
	run, longest := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return fence + "\n" + text + fence
}
