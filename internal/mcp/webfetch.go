package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
)

// chars settles how many characters a call returns: the default when the
// agent gives none, the user's limit when it asks for more.
func (s *Server) chars(asked int, notes *[]string) int {
	limit := s.cfg.Limits.MaxChars
	switch {
	case asked <= 0:
		return min(DefaultChars, limit)
	case asked > limit:
		*notes = append(*notes, fmt.Sprintf("max_chars %d was lowered to %d, the limit the user set", asked, limit))
		return limit
	}
	return asked
}

// partText is what an agent reads of a part: the Markdown, marked as
// the page's by bound, and where the rest is.
func partText(tool, ref string, p Part, bound boundary) string {
	var b strings.Builder
	b.WriteString(bound.block(p.Markdown))
	b.WriteString("\n---\n")
	if p.Remaining > 0 {
		fmt.Fprintf(&b, "Characters %d to %d of %d; %d characters remain. For the next part, call %s with %s and start_index %d.\n",
			p.StartIndex, p.StartIndex+p.Chars, p.TotalChars, p.Remaining, tool, ref, p.NextStart)
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
	n := s.chars(in.MaxChars, &out.Notes)
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
	pt, err := part(p.markdown, in.StartIndex, n)
	if err != nil {
		return nil, out, err
	}
	out.URL, out.Title, out.Description, out.Part = p.url, p.title, p.description, pt
	out.Robots, out.Version, out.Via, out.Rendered = p.robots, p.version, p.via, p.rendered
	if p.note != "" {
		out.Notes = append(out.Notes, p.note)
	}
	out.Notes = append(out.Notes, partNotes(pt)...)
	bound := newBoundary(pt.Markdown, out.Title)
	text := partText("web_fetch", fmt.Sprintf("url %q, version %q", in.URL, p.version), pt, bound)
	if in.StartIndex == 0 {
		text = fmt.Sprintf("Page: %s\nURL: %s\n\n", bound.inline(out.Title), out.URL) + text
	}
	for _, note := range out.Notes {
		text += "Note: " + note + ".\n"
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}
