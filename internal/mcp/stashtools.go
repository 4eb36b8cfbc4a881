package mcp

import (
	"context"
	"errors"
	"fmt"
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
	var quoted []string
	for _, h := range hits {
		// Plain text, its control characters shown escaped: the marks
		// are the only Markdown in it.
		snippet := printable.Marked(h.Snippet, h.Matches, "**", "**")
		out.Hits = append(out.Hits, Hit{ID: h.ID, URL: h.URL, Title: h.Title, Source: h.Source, Snippet: snippet, Score: h.Score})
		quoted = append(quoted, h.Title, snippet)
	}
	bound := newBoundary(quoted...)
	var b strings.Builder
	for _, h := range out.Hits {
		fmt.Fprintf(&b, "%s  %s\n    [%s] %s\n    %s\n", h.ID, bound.inline(h.Title), h.Source, h.URL, bound.inline(h.Snippet))
	}
	if len(hits) == 0 {
		b.WriteString("Nothing in the stash matches. Try other words, or crawl a site into the stash with web_crawl.\n")
	} else {
		b.WriteString("Read a page with stash_read and its ID or URL.\n")
	}
	for _, note := range out.Notes {
		b.WriteString("Note: " + note + ".\n")
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: b.String()}}}, out, nil
}

func (s *Server) stashRead(ctx context.Context, req *sdk.CallToolRequest, in ReadInput) (*sdk.CallToolResult, ReadOutput, error) {
	ctx, end, err := s.begin(ctx, "stash_read")
	if err != nil {
		return nil, ReadOutput{}, err
	}
	defer end()
	var out ReadOutput
	n := s.chars(in.MaxChars, &out.Notes)
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
	pt, err := part(snap.Markdown, in.StartIndex, n)
	if err != nil {
		return nil, out, err
	}
	out.ID, out.URL, out.Title, out.Source, out.FetchedAt, out.Part, out.Version = snap.ID, snap.URL, snap.Title, snap.Source, snap.FetchedAt, pt, v
	out.Notes = append(out.Notes, partNotes(pt)...)
	bound := newBoundary(pt.Markdown, snap.Title)
	text := partText("stash_read", fmt.Sprintf("url_or_id %q, version %q", snap.ID, v), pt, bound)
	if in.StartIndex == 0 {
		text = fmt.Sprintf("Page: %s\nURL: %s\nSource: %s, fetched %s\n\n", bound.inline(snap.Title), snap.URL, snap.Source, snap.FetchedAt.Format(time.RFC3339)) + text
	}
	for _, note := range out.Notes {
		text += "Note: " + note + ".\n"
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

func (s *Server) stashSources(ctx context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, SourcesOutput, error) {
	ctx, end, err := s.begin(ctx, "stash_sources")
	if err != nil {
		return nil, SourcesOutput{}, err
	}
	defer end()
	out := SourcesOutput{Sources: []Source{}}
	srcs, err := s.svc.Sources(ctx)
	var none *ingest.NoStashError
	if errors.As(err, &none) && !none.Files {
		err = nil // no stash yet: no sources
	}
	if err != nil {
		return nil, out, s.failed(ctx, "list the stash's sources", err)
	}
	var text string
	out.Sources, text = sourceList(srcs)
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}
