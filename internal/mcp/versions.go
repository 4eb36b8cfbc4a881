package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/history"
	"github.com/heedhq/heed/internal/ingest"
)

// A page's versions as resources: heed://snapshot/{id}/history, its
// history as JSON (each version with the URI of its Markdown), and
// heed://snapshot/{id}/versions/{n}, the Markdown of version n, as the
// stash keeps it. parseURI reads both, and refuses what is neither.
const (
	historyTemplate = snapshotBase + "{id}/history"
	versionTemplate = snapshotBase + "{id}/versions/{n}"
	jsonType        = "application/json"

	// maxHistoryEntries bounds the versions heed://snapshot/{id}/history
	// lists, the newest: a retention without limit keeps every one.
	maxHistoryEntries = 1000
	// maxUnreadable bounds the entries a history cannot read that it
	// lists, and maxUnreadableBytes what it quotes of each.
	maxUnreadable      = 100
	maxUnreadableBytes = 200
)

// HistoryEntry is a version of a page as its history resource lists it.
type HistoryEntry struct {
	heed.PageVersion
	// URI is the resource of the version's Markdown; none for a removal.
	URI string `json:"uri,omitempty"`
}

// HistoryResource is heed://snapshot/{id}/history.
type HistoryResource struct {
	ID     string `json:"id"`
	URL    string `json:"url"`
	Source string `json:"source"`
	Title  string `json:"title"`
	// Versions are the page's versions, oldest first, removals among
	// them; Earlier how many older ones the stash keeps that are not
	// listed (maxHistoryEntries).
	Versions []HistoryEntry `json:"versions"`
	Earlier  int            `json:"earlier,omitempty"`
	// Unreadable are entries of the history the stash kept but cannot
	// read, each cut short.
	Unreadable []string `json:"unreadable,omitempty"`
}

// addVersionResources registers the resources of a page's versions.
func (s *Server) addVersionResources() {
	s.mcp.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: historyTemplate,
		Name:        "snapshot-history",
		Title:       "The versions of a page in heed's stash",
		Description: `The versions heed's stash keeps of a page (a crawl that finds its content changed keeps the one before), by the ID that resources/list and stash_search give, as JSON: each version's number, when it was found, its content's hash and size, and the URI of its Markdown; a page found gone (an HTTP 404 or 410, a redirect to another page of its site, or a complete crawl no longer reaching it) has a removal among them. stash_changes says which pages changed since a time. Makes no network request.`,
		MIMEType:    jsonType,
	}, s.readHistory)
	s.mcp.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: versionTemplate,
		Name:        "snapshot-version",
		Title:       "A version of a page in heed's stash",
		Description: `The Markdown of version n of a page in heed's stash, whole, as the stash keeps it: the page's own words, not heed's. heed://snapshot/{id}/history lists the versions kept. Makes no network request.`,
		MIMEType:    markdownType,
	}, s.readVersion)
}

// pageHistory is the history of the page a resource URI names, or the
// JSON-RPC error that says why there is none.
func (s *Server) pageHistory(ctx context.Context, uri string, r ref) (*heed.History, error) {
	h, err := s.svc.History(ctx, r.id)
	var none *ingest.NoStashError
	if errors.Is(err, heed.ErrNotFound) || errors.As(err, &none) && !none.Files {
		return nil, rpcError(codeNotFound, fmt.Sprintf("Resource not found: no page %s in the stash: resources/list and stash_search list pages and their IDs, and web_crawl adds pages", r.id), uri)
	}
	if err != nil {
		return nil, s.rpcFailed(ctx, "read a page's history", err)
	}
	return h, nil
}

// readHistory reads heed://snapshot/ID/history: the page's versions, as
// JSON, the newest maxHistoryEntries at most.
func (s *Server) readHistory(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	return s.readResource(ctx, req, s.readHistoryOf)
}

// readHistoryOf is readHistory of the resource at uri, r as parseURI read it.
func (s *Server) readHistoryOf(ctx context.Context, uri string, r ref) (*sdk.ReadResourceResult, error) {
	if !r.history {
		return nil, uriError(jsonrpc.CodeInvalidParams, uri, "not a page's history: read "+snapshotBase+r.id+"/history")
	}
	release, _ := s.svc.Hold(ctx) // the page, then its history, from one open stash
	defer release()
	h, err := s.pageHistory(ctx, uri, r)
	if err != nil {
		return nil, err
	}
	out := HistoryResource{ID: h.ID, URL: h.URL, Source: h.Source, Title: h.Title, Versions: []HistoryEntry{}}
	vs := h.Versions
	if len(vs) > maxHistoryEntries {
		out.Earlier, vs = len(vs)-maxHistoryEntries, vs[len(vs)-maxHistoryEntries:]
	}
	for _, v := range vs {
		e := HistoryEntry{PageVersion: v}
		if v.Removed == "" {
			e.URI = versionURI(h.ID, v.N)
		}
		out.Versions = append(out.Versions, e)
	}
	for _, u := range h.Unreadable[:min(len(h.Unreadable), maxUnreadable)] {
		out.Unreadable = append(out.Unreadable, heed.Clip(u, maxUnreadableBytes))
	}
	text, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, s.rpcFailed(ctx, "write a page's history", err)
	}
	cur, removed := history.Current(h.Versions)
	meta := sdk.Meta{"id": h.ID, "url": h.URL, "title": h.Title, "source": h.Source, "versions": len(h.Versions), "current": cur.N}
	if removed {
		meta["removed"] = true
	}
	return private(&sdk.ResourceContents{URI: uri, MIMEType: jsonType, Text: string(text), Meta: meta}), nil
}

// readVersion reads heed://snapshot/ID/versions/N: the Markdown of the
// page's version N, whole, as the stash keeps it.
func (s *Server) readVersion(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	return s.readResource(ctx, req, s.readVersionOf)
}

// readVersionOf is readVersion of the resource at uri, r as parseURI read it.
func (s *Server) readVersionOf(ctx context.Context, uri string, r ref) (*sdk.ReadResourceResult, error) {
	if r.n == 0 {
		return nil, uriError(jsonrpc.CodeInvalidParams, uri, "not a page's version: read "+snapshotBase+r.id+"/versions/N")
	}
	// The page's history, then the version's text, from one open stash.
	release, _ := s.svc.Hold(ctx)
	defer release()
	h, err := s.pageHistory(ctx, uri, r)
	if err != nil {
		return nil, err
	}
	v, ok := history.Find(h.Versions, r.n)
	switch {
	case !ok:
		return nil, rpcError(codeNotFound, fmt.Sprintf("Resource not found: the stash keeps no version %d of page %s: %s%s/history lists those it keeps", r.n, r.id, snapshotBase, r.id), uri)
	case v.Removed != "":
		return nil, rpcError(codeNotFound, fmt.Sprintf("Resource not found: version %d of page %s is its removal (found gone: %s), which has no text: %s%s/history lists its versions", r.n, r.id, v.Removed, snapshotBase, r.id), uri)
	}
	text, err := s.svc.VersionText(ctx, r.id, r.n)
	if errors.Is(err, heed.ErrNotFound) {
		return nil, rpcError(codeNotFound, fmt.Sprintf("Resource not found: the stash no longer keeps the text of version %d of page %s: %s%s/history lists the versions it keeps", r.n, r.id, snapshotBase, r.id), uri)
	}
	if err != nil {
		return nil, s.rpcFailed(ctx, "read a version of a page", err)
	}
	meta := sdk.Meta{"id": h.ID, "url": h.URL, "title": h.Title, "source": h.Source, "n": v.N, "at": v.At.UTC().Format(time.RFC3339), "hash": v.Hash}
	return private(&sdk.ResourceContents{URI: uri, MIMEType: markdownType, Text: text, Meta: meta}), nil
}

// versionURI is the resource of a page's version n.
func versionURI(id string, n int) string {
	return snapshotBase + id + "/versions/" + strconv.Itoa(n)
}
