package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/printable"
)

func (s *Server) stashSearch(ctx context.Context, req *sdk.CallToolRequest, in SearchInput) (*sdk.CallToolResult, SearchOutput, error) {
	ctx, end, err := s.begin(ctx, "stash_search")
	if err != nil {
		return nil, SearchOutput{}, err
	}
	defer end()
	out := SearchOutput{Hits: []Hit{}}
	budget := s.chars(in.MaxChars, &out.Notes)
	args := fmt.Sprintf("%q %q %d", in.Query, in.Source, in.Limit)
	if in.Cursor != "" {
		// The rest of the hits of a search made: none made anew.
		l, c, err := s.lists.open(in.Cursor, "stash_search", args, "the query, limit and source")
		if err != nil {
			return nil, out, err
		}
		head := l.head.(SearchOutput)
		head.Notes = append(slices.Clip(head.Notes), out.Notes...)
		return s.searchPage(args, budget, head, itemsOf[Hit](l.groups[0]), c.offset, l)
	}
	limit := in.Limit
	if limit > MaxSearchResults {
		out.Notes = append(out.Notes, fmt.Sprintf("limit %d was lowered to %d", limit, MaxSearchResults))
		limit = MaxSearchResults
	}
	hits, err := s.svc.Search(ctx, heed.Query{Text: in.Query, Source: in.Source, Limit: limit})
	if errors.Is(err, heed.ErrEmptyQuery) {
		return nil, out, fmt.Errorf("query %q has no word to search for: give words, a \"quoted phrase\" or a prefix*", in.Query)
	}
	if errors.Is(err, heed.ErrQueryTooLong) {
		return nil, out, fmt.Errorf("the query is %d bytes long; a query may be at most %d: search for fewer words", len(in.Query), heed.MaxQuery)
	}
	if err != nil {
		return nil, out, s.failed(ctx, "search the stash", err)
	}
	var all []Hit
	for _, h := range hits {
		// Plain text, its control characters shown escaped: the marks
		// are the only Markdown in it.
		snippet := printable.Marked(h.Snippet, h.Matches, "**", "**")
		all = append(all, Hit{ID: h.ID, URL: h.URL, Title: h.Title, Source: h.Source, Snippet: snippet, Page: h.Page, Score: h.Score})
	}
	out.Total = len(all)
	return s.searchPage(args, budget, out, all, 0, nil)
}

// searchPage is stash_search's result: head, with the hits from offset
// that fit its budget; the rest are held, in l if they are already.
func (s *Server) searchPage(args string, budget int, head SearchOutput, hits []Hit, offset int, l *listing) (*sdk.CallToolResult, SearchOutput, error) {
	var quoted []string
	for _, h := range hits[offset:] {
		quoted = append(quoted, h.Title, h.Snippet)
	}
	bound := newBoundary(quoted...)
	show := func(h Hit, max int) (string, Hit) {
		h.URL, h.Title, h.Snippet = cutTo(h.URL, max), cutTo(h.Title, max), cutTo(h.Snippet, max)
		where := heed.Hit{URL: h.URL, Page: h.Page}.Where()
		return fmt.Sprintf("%s  %s\n    [%s] %s\n    %s\n", h.ID, bound.inline(h.Title), h.Source, where, bound.inline(h.Snippet)), h
	}
	render := func(p listPage[Hit], cut bool) (string, SearchOutput) {
		out := head
		out.Hits, out.NextCursor, out.Notes = p.listed(cut, budget, len(hits), "hits", "stash_search with the same query, limit and source", head.Notes)
		var b strings.Builder
		for _, line := range p.lines {
			b.WriteString(line)
		}
		if len(hits) == 0 {
			b.WriteString("Nothing in the stash matches. Try other words, or crawl a site into the stash with web_crawl.\n")
		} else {
			b.WriteString("Read a page with stash_read and its ID or URL.\n")
		}
		b.WriteString(noteLines(out.Notes))
		return b.String(), out
	}
	p := pageOf(budget, hits, offset, func(cut bool) int { return resultChars(render(listPage[Hit]{from: offset}, cut)) }, show, func(next int) cursor {
		if l == nil {
			l = &listing{id: newListingID(), tool: "stash_search", args: args, head: head, groups: []group{{items: hits, kept: len(hits), count: len(hits)}}}
			for _, h := range hits {
				l.bytes += len(h.ID) + len(h.URL) + len(h.Title) + len(h.Source) + len(h.Snippet) + itemOverhead
			}
			return s.lists.put(l, 0).at(next)
		}
		return cursor{id: l.id, offset: next}
	})
	text, out := render(p, p.next != "")
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

func (s *Server) stashRead(ctx context.Context, req *sdk.CallToolRequest, in ReadInput) (*sdk.CallToolResult, ReadOutput, error) {
	ctx, end, err := s.begin(ctx, "stash_read")
	if err != nil {
		return nil, ReadOutput{}, err
	}
	defer end()
	var out ReadOutput
	budget := s.chars(in.MaxChars, &out.Notes)
	snap, err := s.svc.Read(ctx, strings.TrimSpace(in.URLOrID))
	if errors.Is(err, heed.ErrNotFound) {
		return nil, out, fmt.Errorf("no page %q in the stash: stash_search finds pages and their IDs, stash_sources lists the sources, and web_crawl adds pages", fetch.Redact(in.URLOrID))
	}
	if err != nil {
		return nil, out, s.failed(ctx, "read the stash", err)
	}
	// Every part comes from one copy: a crawl may store a new one between
	// two parts, and the stash keeps only the newest.
	v := version(snap.Markdown)
	if in.StartIndex > 0 {
		if in.Version == "" {
			out.Notes = append(out.Notes, "no version was given: this part is cut from the copy the stash holds now; pass the version the first part gave to be sure every part comes from one copy")
		} else if in.Version != v {
			return nil, out, fmt.Errorf("the page %s changed in the stash since the part with version %q (a crawl stored a new copy, version %q); start again at start_index 0", snap.URL, in.Version, v)
		}
	}
	out.ID, out.URL, out.Title, out.Source, out.FetchedAt, out.Version = snap.ID, snap.URL, snap.Title, snap.Source, snap.FetchedAt, v
	if !snap.Removed.IsZero() {
		out.Removed = snap.Removed
		out.Notes = append(out.Notes, fmt.Sprintf("heed found this page gone from its site on %s: this is its last copy, not the page as the site has it (stash_changes and the resource heed://snapshot/%s/history say more)", snap.Removed.UTC().Format(time.RFC3339), snap.ID))
	}
	next := fmt.Sprintf("stash_read with url_or_id %q, version %q", snap.ID, v)
	render := func(pt Part) (string, any) {
		o := out
		o.Part, o.Notes = pt, append(slices.Clip(out.Notes), partNotes(pt)...)
		bound := newBoundary(pt.Markdown, o.Title)
		text := partText(next, pt, bound)
		if in.StartIndex == 0 {
			text = fmt.Sprintf("Page: %s\nURL: %s\nSource: %s, fetched %s\n\n", bound.inline(o.Title), o.URL, o.Source, o.FetchedAt.Format(time.RFC3339)) + text
		}
		text += noteLines(o.Notes)
		return text, o
	}
	// The page's title and URL leave the Markdown its room.
	total := len(snap.Markdown)
	withoutPart := func() int {
		return resultChars(render(Part{StartIndex: in.StartIndex, Chars: total, TotalChars: total, Remaining: total, NextStart: total}))
	}
	out.Notes = append(out.Notes, shrunk)
	out.Notes = withNote(out.Notes, shrunk, fitEnvelope(budget, withoutPart, &out.Title, &out.URL))
	pt, err := fitPart(snap.Markdown, in.StartIndex, budget, render)
	if err != nil {
		return nil, out, err
	}
	text, o := render(pt)
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, o.(ReadOutput), nil
}

func (s *Server) stashSources(ctx context.Context, req *sdk.CallToolRequest, in SourcesInput) (*sdk.CallToolResult, SourcesOutput, error) {
	ctx, end, err := s.begin(ctx, "stash_sources")
	if err != nil {
		return nil, SourcesOutput{}, err
	}
	defer end()
	out := SourcesOutput{Sources: []Source{}}
	budget := s.chars(in.MaxChars, &out.Notes)
	if in.Cursor != "" {
		l, c, err := s.lists.open(in.Cursor, "stash_sources", "", "")
		if err != nil {
			return nil, out, err
		}
		head := l.head.(SourcesOutput)
		head.Notes = append(slices.Clip(head.Notes), out.Notes...)
		return s.sourcesPage(budget, head, itemsOf[Source](l.groups[0]), c.offset, l)
	}
	srcs, err := s.svc.Sources(ctx)
	var none *ingest.NoStashError
	if errors.As(err, &none) && !none.Files {
		err = nil // no stash yet: no sources
	}
	if err != nil {
		return nil, out, s.failed(ctx, "list the stash's sources", err)
	}
	var all []Source
	for name, n := range srcs {
		all = append(all, Source{Name: name, Snapshots: n})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	out.Total = len(all)
	if len(all) > maxListItems {
		out.Notes = append(out.Notes, fmt.Sprintf("the stash holds %d sources; heed lists the first %d by name", len(all), maxListItems))
		all = all[:maxListItems]
	}
	return s.sourcesPage(budget, out, all, 0, nil)
}

// sourcesPage is stash_sources' result: head, with the sources from
// offset that fit its budget; the rest are held, in l if they are
// already.
func (s *Server) sourcesPage(budget int, head SourcesOutput, srcs []Source, offset int, l *listing) (*sdk.CallToolResult, SourcesOutput, error) {
	show := func(src Source, max int) (string, Source) {
		src.Name = cutTo(src.Name, max)
		return fmt.Sprintf("%s: %d pages\n", src.Name, src.Snapshots), src
	}
	render := func(p listPage[Source], cut bool) (string, SourcesOutput) {
		out := head
		out.Sources, out.NextCursor, out.Notes = p.listed(cut, budget, len(srcs), "sources", "stash_sources", head.Notes)
		var b strings.Builder
		for _, line := range p.lines {
			b.WriteString(line)
		}
		if len(srcs) == 0 {
			b.WriteString("The stash is empty. web_crawl crawls a site into it.\n")
		}
		b.WriteString(noteLines(out.Notes))
		return b.String(), out
	}
	p := pageOf(budget, srcs, offset, func(cut bool) int { return resultChars(render(listPage[Source]{from: offset}, cut)) }, show, func(next int) cursor {
		if l == nil {
			l = &listing{id: newListingID(), tool: "stash_sources", head: head, groups: []group{{items: srcs, kept: len(srcs), count: len(srcs)}}}
			for _, src := range srcs {
				l.bytes += len(src.Name) + itemOverhead
			}
			return s.lists.put(l, 0).at(next)
		}
		return cursor{id: l.id, offset: next}
	})
	text, out := render(p, p.next != "")
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}
