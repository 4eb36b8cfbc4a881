package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
)

// partText is what an agent reads of a part: the Markdown, marked as
// the page's by bound, and where the rest is; next says how to ask for
// it.
func partText(next string, p Part, bound boundary) string {
	var b strings.Builder
	b.WriteString(bound.block(p.Markdown))
	b.WriteString("\n---\n")
	if p.Remaining > 0 {
		fmt.Fprintf(&b, "Characters %d to %d of %d; %d characters remain. For the next part, call %s and start_index %d.\n",
			p.StartIndex, p.StartIndex+p.Chars, p.TotalChars, p.Remaining, next, p.NextStart)
	} else {
		fmt.Fprintf(&b, "Characters %d to %d of %d: the end.\n", p.StartIndex, p.StartIndex+p.Chars, p.TotalChars)
	}
	return b.String()
}

// partNotes says how a part was cut, where it was not at a paragraph or
// line break between blocks.
func partNotes(p Part) []string {
	var notes []string
	if p.FenceReopen != "" {
		notes = append(notes, "this part starts inside a code block, which heed opens again with fence_reopen, a line not in the page")
	}
	if p.FenceClose != "" {
		notes = append(notes, "this part ends inside a code block, which heed closes with fence_close, a line not in the page; the next part opens it again")
	}
	if p.fenceLeftOpen {
		notes = append(notes, "this part ends inside a code block whose fence is too long to close within max_chars")
	}
	if p.inLine {
		notes = append(notes, "this part ends within a line longer than max_chars allows; the next part goes on with it")
	}
	return notes
}

// withNote settles a note appended to notes to measure the result with
// it: kept if on, and if notes did not hold it already.
func withNote(notes []string, note string, on bool) []string {
	if !on || slices.Index(notes, note) < len(notes)-1 {
		return notes[:len(notes)-1]
	}
	return notes
}

// inputURL refuses a URL argument that no door of heed takes
// (fetch.CheckURL), naming at most a bounded part of it and never its
// credentials.
func inputURL(raw, verb string) error {
	if err := fetch.CheckURL(raw); err != nil {
		return fmt.Errorf("%q is not a URL heed can %s: %v; give an absolute http or https URL, such as https://docs.example.com/", fetch.Redact(raw), verb, err)
	}
	return nil
}

func (s *Server) webFetch(ctx context.Context, req *sdk.CallToolRequest, in FetchInput) (*sdk.CallToolResult, FetchOutput, error) {
	ctx, end, err := s.begin(ctx, "web_fetch")
	if err != nil {
		return nil, FetchOutput{}, err
	}
	defer end()
	var out FetchOutput
	if err := inputURL(in.URL, "fetch"); err != nil {
		return nil, out, err
	}
	budget := s.chars(in.MaxChars, &out.Notes)
	mode, err := s.renderMode(in.Render, &out.Notes)
	if err != nil {
		return nil, out, err
	}
	var p *page
	if in.StartIndex > 0 {
		// A later part: cut from the copy the first part was, if heed
		// still has it, and never from another.
		norm, err := crawl.Normalize(in.URL)
		if err != nil {
			return nil, out, fmt.Errorf("%q is not a URL heed can fetch: give an absolute http or https URL, such as https://example.com/page", in.URL)
		}
		if in.Version == "" {
			// Without a version: the copy most lately read, or the page
			// as it is now; the note says how to be sure of one copy.
			if p = s.pages.latest(norm); p == nil {
				if p, err = s.fetchPage(ctx, in.URL, mode); err != nil {
					return nil, out, err
				}
			}
			out.Notes = append(out.Notes, "no version was given: this part is cut from the copy heed holds now; pass the version the first part gave to be sure every part comes from one copy")
		} else if p = s.pages.get(norm, in.Version); p == nil {
			return nil, out, fmt.Errorf("the copy of %s that version %q names is no longer held: heed keeps the pages it read for %v, and only so many, or the page has changed since. Start again with start_index 0, which reads the page as it is now", in.URL, in.Version, pageCacheTTL)
		}
	} else {
		var err error
		if p, err = s.fetchPage(ctx, in.URL, mode); err != nil {
			return nil, out, err
		}
	}
	if in.StartIndex == 0 {
		out.ChangedSince = s.changedSince(ctx, p)
	}
	out.URL, out.Title, out.Description = p.url, p.title, p.description
	out.Robots, out.Version, out.Via, out.Rendered = p.robots, p.version, p.via, p.rendered
	if p.note != "" {
		out.Notes = append(out.Notes, p.note)
	}
	next := fmt.Sprintf("web_fetch with the same url, version %q", p.version)
	render := func(pt Part) (string, any) {
		o := out
		o.Part, o.Notes = pt, append(slices.Clip(out.Notes), partNotes(pt)...)
		bound := newBoundary(pt.Markdown, o.Title)
		text := partText(next, pt, bound)
		if in.StartIndex == 0 {
			text = fmt.Sprintf("Page: %s\nURL: %s\n%s\n", bound.inline(o.Title), o.URL, sinceText(o.ChangedSince)) + text
		}
		text += noteLines(o.Notes)
		return text, o
	}
	// What the page wrote besides its Markdown (its title, description,
	// the URL it redirected to) leaves the Markdown its room.
	total := len(p.markdown) // as many characters at most
	withoutPart := func() int {
		return resultChars(render(Part{StartIndex: in.StartIndex, Chars: total, TotalChars: total, Remaining: total, NextStart: total}))
	}
	out.Notes = append(out.Notes, shrunk)
	out.Notes = withNote(out.Notes, shrunk, fitEnvelope(budget, withoutPart, &out.Title, &out.Description, &out.URL, &out.Robots))
	pt, err := fitPart(p.markdown, in.StartIndex, budget, render)
	if err != nil {
		return nil, out, err
	}
	text, o := render(pt)
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, o.(FetchOutput), nil
}

// changedSince is how a page read now differs from the stash's copy of
// it; nil when the stash holds none, or cannot be read (the fetch is
// what was asked for, and goes on without it).
func (s *Server) changedSince(ctx context.Context, p *page) *ChangedSince {
	c, err := s.svc.SinceStored(ctx, p.url, p.markdown)
	if err != nil {
		s.log.Debug("heed mcp: web_fetch could not compare the page with the stash's copy", "url", p.url, "error", err)
		return nil
	}
	if c == nil {
		return nil
	}
	return &ChangedSince{ID: c.ID, Version: c.Version, FetchedAt: c.FetchedAt.UTC(), Removed: c.Removed.UTC(), Change: string(c.Change), Added: c.WordsAdded, Deleted: c.WordsRemoved}
}

// sinceText says how a page differs from the stash's copy, in a line;
// "" when the stash holds none.
func sinceText(c *ChangedSince) string {
	if c == nil {
		return ""
	}
	held := fmt.Sprintf("version %d, id %s, fetched %s", c.Version, c.ID, c.FetchedAt.Format(time.RFC3339))
	if !c.Removed.IsZero() {
		held += ", found gone " + c.Removed.Format(time.RFC3339)
	}
	if c.Change == string(heed.Unchanged) {
		return fmt.Sprintf("Since the stash's copy (%s): unchanged.\n", held)
	}
	return fmt.Sprintf("Since the stash's copy (%s): changed, %d words added and %d removed. web_fetch stores nothing; web_crawl stores the page as it is now.\n", held, c.Added, c.Deleted)
}
