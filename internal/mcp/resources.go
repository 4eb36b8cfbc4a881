package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/wait"
)

// The stash as MCP resources. Each snapshot is heed://snapshot/{id}, its
// Markdown as stored (text/markdown), or a part of it with a query
// (start_index, max_chars, version, as stash_read takes them); its
// versions are heed://snapshot/{id}/history and
// heed://snapshot/{id}/versions/{n} (versions.go); the sources are
// heed://sources, as stash_sources lists them. resources/list
// lists heed://sources and then every snapshot, by ID, a page at a time
// (ingest.Service.ListPage decides the order and the cursor). A client may
// subscribe to either; a crawl of this server's service tells the
// subscribers of each page it stores, and every session that the list
// changed.
const (
	snapshotBase     = "heed://snapshot/"
	snapshotTemplate = snapshotBase + "{id}{?start_index,max_chars,version}"
	sourcesURI       = "heed://sources"
	markdownType     = "text/markdown"

	// ResourcePage is the most snapshots one page of resources/list lists.
	ResourcePage = 100
	// MaxSubscriptions is the most resources one session subscribes to
	// at once.
	MaxSubscriptions = 1000
	// DefaultNotifyEvery is the least time between two rounds of
	// notifications of what crawls stored: a crawl that stores many pages
	// a second tells each subscriber once a second of what changed.
	DefaultNotifyEvery = time.Second
	// maxURI is the longest resource URI heed reads.
	maxURI = 2048
	// codeNotFound is the JSON-RPC code of a resource not found: MCP's
	// for invalid params, as the specification has it (SEP-2164).
	codeNotFound = jsonrpc.CodeInvalidParams
)

// resources is what the stash's resources keep: who subscribes to what,
// and what crawls changed that is not told yet.
type resources struct {
	// every is the least time between two rounds of notifications
	// (DefaultNotifyEvery; tests set 0).
	every time.Duration

	mu       sync.Mutex
	subs     map[*sdk.ServerSession]map[string]bool // each session's subscriptions
	watchers map[string]int                         // how many sessions subscribe to each URI
	pending  map[string]bool                        // URIs subscribed to that changed, not told yet
	changed  bool                                   // the list changed, not told yet
	wake     chan struct{}
	start    sync.Once // of the loop that notifies
}

// addResources registers the stash's resources, and has the crawls of the
// service told to their subscribers while the Server lives.
func (s *Server) addResources() {
	s.res = &resources{
		every:    DefaultNotifyEvery,
		subs:     map[*sdk.ServerSession]map[string]bool{},
		watchers: map[string]int{},
		pending:  map[string]bool{},
		wake:     make(chan struct{}, 1),
	}
	s.mcp.AddResource(sourcesResource(), s.readSources)
	s.mcp.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: snapshotTemplate,
		Name:        "snapshot",
		Title:       "A page in heed's stash",
		Description: fmt.Sprintf(`A page heed stored in its stash (web_crawl puts pages there), by the ID that resources/list and stash_search give. Without a query, the whole page as stored: its Markdown and nothing else, the page's own words, not heed's. With start_index, max_chars or version, a part, in stash_read's words: max_chars characters (default %d, at most %d) from start_index, the page's words between <<< page text id=ID and ID>>> as in stash_read's result, the version of the copy it was cut from, and the URI of the next part, which names that version. Makes no network request.`,
			min(DefaultChars, s.cfg.Limits.MaxChars), s.cfg.Limits.MaxChars),
		MIMEType: markdownType,
	}, s.readSnapshot)
	s.addVersionResources()
	s.mcp.AddReceivingMiddleware(s.resourceMethods)
	stop := s.svc.Watch(s.stashChanged)
	context.AfterFunc(s.life, stop)
}

// sourcesResource is heed://sources as listed.
func sourcesResource() *sdk.Resource {
	return &sdk.Resource{
		URI:         sourcesURI,
		Name:        "sources",
		Title:       "The stash's sources",
		Description: `The sources in heed's stash (each site web_crawl crawled, or the user added) and how many pages each holds, as stash_sources lists them.`,
		MIMEType:    markdownType,
	}
}

// snapshotResource is a snapshot as resources/list lists it: by its URL,
// with its title (the page's own words), source and when it was fetched.
func snapshotResource(e heed.Entry) *sdk.Resource {
	at := e.FetchedAt.Format(time.RFC3339)
	return &sdk.Resource{
		URI:         snapshotBase + e.ID,
		Name:        e.URL,
		Title:       e.Title,
		Description: fmt.Sprintf("The page %s in the stash, source %s, fetched %s, as Markdown.", e.URL, e.Source, at),
		MIMEType:    markdownType,
		Meta:        sdk.Meta{"id": e.ID, "url": e.URL, "source": e.Source, "fetched_at": at},
	}
}

// resourceMethods answers resources/list from the stash, which the SDK
// cannot page (it lists the resources added to it, and the stash's are
// too many, and change under it); and it refuses a resource URI heed does
// not serve before the SDK looks it up, saying which it serves.
func (s *Server) resourceMethods(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch r := req.(type) {
		case *sdk.ListResourcesRequest:
			if method == "resources/list" {
				return s.listResources(ctx, r)
			}
		case *sdk.ReadResourceRequest:
			if r.Params != nil {
				if _, err := parseURI(r.Params.URI); err != nil {
					return nil, err
				}
			}
		}
		return next(ctx, method, req)
	}
}

// listResources lists heed://sources, on the first page, and a page of
// the snapshots, by ID.
func (s *Server) listResources(ctx context.Context, req *sdk.ListResourcesRequest) (*sdk.ListResourcesResult, error) {
	ctx, end, err := s.begin(ctx, "resources/list")
	if err != nil {
		return nil, rpcError(jsonrpc.CodeInternalError, err.Error(), "")
	}
	defer end()
	cursor := ""
	if req.Params != nil {
		cursor = req.Params.Cursor
	}
	res := &sdk.ListResourcesResult{Resources: []*sdk.Resource{}}
	// The stash is the user's, and changes with every crawl: a client
	// keeps no copy of a page of it, and shares none.
	res.TTLMs, res.CacheScope = 0, "private"
	entries, next, err := s.svc.ListPage(ctx, cursor, ResourcePage)
	var none *ingest.NoStashError
	switch {
	case errors.Is(err, ingest.ErrCursor):
		return nil, rpcError(jsonrpc.CodeInvalidParams, fmt.Sprintf("cursor %q is not one heed gave: list from the start, without a cursor, and pass the nextCursor of each page for the next", heed.Clip(cursor, 64)), "")
	case errors.As(err, &none) && !none.Files:
		// No stash yet: no snapshots.
	case err != nil:
		return nil, s.rpcFailed(ctx, "list the stash", err)
	}
	if cursor == "" {
		res.Resources = append(res.Resources, sourcesResource())
	}
	for _, e := range entries {
		res.Resources = append(res.Resources, snapshotResource(e))
	}
	res.NextCursor = next
	return res, nil
}

// ref is a resource URI heed serves, read.
type ref struct {
	sources bool
	id      string // a snapshot's
	history bool   // the snapshot's history (heed://snapshot/ID/history)
	n       int    // a version of it (heed://snapshot/ID/versions/N); 0 for none
	part    bool   // a query asks for a part
	start   int
	chars   int // 0: the default
	version string
}

// parseURI reads a resource URI: heed://sources, heed://snapshot/ID with
// an optional query of start_index, max_chars and version, and
// heed://snapshot/ID/history and heed://snapshot/ID/versions/N without
// one. Anything else is refused with an error saying what heed serves,
// and no part of the URI is looked up before it is read whole: an ID is
// 12 hex digits and N a number as heed writes it, so no path, escape or
// dot reaches the store.
func parseURI(raw string) (ref, error) {
	if len(raw) > maxURI {
		return ref{}, uriError(jsonrpc.CodeInvalidParams, raw, fmt.Sprintf("a resource URI of %d bytes: heed's are at most %d", len(raw), maxURI))
	}
	if raw == sourcesURI {
		return ref{sources: true}, nil
	}
	rest, ok := strings.CutPrefix(raw, snapshotBase)
	if !ok {
		return ref{}, uriError(codeNotFound, raw, "Resource not found: heed serves "+sourcesURI+" and "+snapshotBase+"ID (a page of its stash by its ID, as resources/list lists them), with its versions at "+snapshotBase+"ID/history")
	}
	path, query, hasQuery := strings.Cut(rest, "?")
	id, sub, hasSub := strings.Cut(path, "/")
	if !ingest.ValidID(id) {
		return ref{}, uriError(jsonrpc.CodeInvalidParams, raw, fmt.Sprintf("%q is not a snapshot's ID: an ID is 12 lower-case hex digits, as resources/list and stash_search give them", heed.Clip(id, 64)))
	}
	r := ref{id: id, part: hasQuery}
	if hasSub {
		n, isVersion := strings.CutPrefix(sub, "versions/")
		switch {
		case sub == "history":
			r.history = true
		case isVersion && versionNumber(n) > 0:
			r.n = versionNumber(n)
		default:
			return ref{}, uriError(jsonrpc.CodeInvalidParams, raw, fmt.Sprintf("%q is nothing of a snapshot heed serves: it serves %sID, %sID/history (its versions) and %sID/versions/N (the Markdown of version N, a number its history lists)", heed.Clip(sub, 64), snapshotBase, snapshotBase, snapshotBase))
		}
		if hasQuery {
			return ref{}, uriError(jsonrpc.CodeInvalidParams, raw, "a snapshot's history and versions take no query: read them whole")
		}
		return r, nil
	}
	if !hasQuery {
		return r, nil
	}
	if strings.Contains(query, "#") {
		return ref{}, uriError(jsonrpc.CodeInvalidParams, raw, "a resource URI of heed's has no fragment")
	}
	values, err := url.ParseQuery(query)
	if err != nil {
		return ref{}, uriError(jsonrpc.CodeInvalidParams, raw, "its query cannot be read: give start_index, max_chars and version as name=value pairs joined by &")
	}
	for name, vs := range values {
		if len(vs) != 1 {
			return ref{}, uriError(jsonrpc.CodeInvalidParams, raw, fmt.Sprintf("%q is given %d times; give it once", heed.Clip(name, 64), len(vs)))
		}
		v := vs[0]
		switch name {
		case "start_index":
			r.start, err = queryInt(name, v, 0)
		case "max_chars":
			r.chars, err = queryInt(name, v, 1)
		case "version":
			if len(v) != 16 || !isHex(v) {
				err = fmt.Errorf("version %q is not one heed gave: a version is 16 hex digits, as a part names its copy", heed.Clip(v, 64))
			}
			r.version = v
		default:
			err = fmt.Errorf("%q is not a parameter of a snapshot: it takes start_index, max_chars and version", heed.Clip(name, 64))
		}
		if err != nil {
			return ref{}, uriError(jsonrpc.CodeInvalidParams, raw, err.Error())
		}
	}
	return r, nil
}

// versionNumber is the number of a version as a URI names it: digits,
// as heed writes the number (no sign, no leading zero), from 1 to
// maxArg; 0 for anything else.
func versionNumber(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxArg || strconv.Itoa(n) != s {
		return 0
	}
	return n
}

// queryInt reads an integer parameter of a URI's query, as a tool's
// schema bounds its integer arguments.
func queryInt(name, v string, least int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < least || n > maxArg {
		return 0, fmt.Errorf("%s must be an integer from %d to %d, not %q", name, least, maxArg, heed.Clip(v, 64))
	}
	return n, nil
}

func isHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// uriError is the error of a resource URI refused: the URI, quoted (its
// control characters escaped) and clipped, and what is wrong with it; the
// URI, clipped, is the error's data.
func uriError(code int64, uri, why string) error {
	return rpcError(code, fmt.Sprintf("%q: %s", heed.Clip(uri, 256), why), uri)
}

// rpcError is a JSON-RPC error with a message for agents, and the URI
// (clipped) it is about, if any, as its data.
func rpcError(code int64, msg, uri string) error {
	e := &jsonrpc.Error{Code: code, Message: msg}
	if uri != "" {
		e.Data, _ = json.Marshal(map[string]string{"uri": heed.Clip(uri, 256)})
	}
	return e
}

// rpcFailed is what a resource method is told of an error of the stash,
// as a tool call is told it (failed), as a JSON-RPC error.
func (s *Server) rpcFailed(ctx context.Context, what string, err error) error {
	return rpcError(jsonrpc.CodeInternalError, s.failed(ctx, what, err).Error(), "")
}

// readSources reads heed://sources: the words of stash_sources.
func (s *Server) readSources(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	ctx, end, err := s.begin(ctx, "resources/read")
	if err != nil {
		return nil, rpcError(jsonrpc.CodeInternalError, err.Error(), "")
	}
	defer end()
	srcs, err := s.svc.Sources(ctx)
	var none *ingest.NoStashError
	if errors.As(err, &none) && !none.Files {
		err = nil // no stash yet: no sources
	}
	if err != nil {
		return nil, s.rpcFailed(ctx, "list the stash's sources", err)
	}
	_, text := sourceList(srcs)
	return private(&sdk.ResourceContents{URI: sourcesURI, MIMEType: markdownType, Text: text}), nil
}

// sourceList is the stash's sources by name, and what stash_sources and
// heed://sources say of them.
func sourceList(srcs map[string]int) ([]Source, string) {
	out := []Source{}
	for name, n := range srcs {
		out = append(out, Source{Name: name, Snapshots: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	var b strings.Builder
	for _, src := range out {
		fmt.Fprintf(&b, "%s: %d pages\n", src.Name, src.Snapshots)
	}
	if len(out) == 0 {
		b.WriteString("The stash is empty. web_crawl crawls a site into it.\n")
	}
	return out, b.String()
}

// private is the result of a read: the stash is the user's, and changes
// with every crawl, so a client keeps no copy of it, and shares none.
func private(c *sdk.ResourceContents) *sdk.ReadResourceResult {
	res := &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{c}}
	res.TTLMs, res.CacheScope = 0, "private"
	return res
}

// readResource reads a resource by read: the call begun, and its URI
// parsed (parseURI), for every resource alike.
func (s *Server) readResource(ctx context.Context, req *sdk.ReadResourceRequest, read func(ctx context.Context, uri string, r ref) (*sdk.ReadResourceResult, error)) (*sdk.ReadResourceResult, error) {
	ctx, end, err := s.begin(ctx, "resources/read")
	if err != nil {
		return nil, rpcError(jsonrpc.CodeInternalError, err.Error(), "")
	}
	defer end()
	uri := req.Params.URI
	r, err := parseURI(uri)
	if err != nil {
		return nil, err
	}
	return read(ctx, uri, r)
}

// readSnapshot reads heed://snapshot/ID: the page's Markdown as stored,
// or, with a query, a part of it in stash_read's words, the page's words
// marked as theirs, and where the next part is.
func (s *Server) readSnapshot(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	return s.readResource(ctx, req, s.readSnapshotOf)
}

// readSnapshotOf is readSnapshot of the resource at uri, r as parseURI read it.
func (s *Server) readSnapshotOf(ctx context.Context, uri string, r ref) (*sdk.ReadResourceResult, error) {
	snap, err := s.svc.Read(ctx, r.id)
	var none *ingest.NoStashError
	if errors.Is(err, heed.ErrNotFound) || errors.As(err, &none) && !none.Files {
		return nil, rpcError(codeNotFound, fmt.Sprintf("Resource not found: no page %s in the stash: resources/list and stash_search list pages and their IDs, and web_crawl adds pages", r.id), uri)
	}
	if err != nil {
		return nil, s.rpcFailed(ctx, "read the stash", err)
	}
	v := version(snap.Markdown)
	at := snap.FetchedAt.Format(time.RFC3339)
	meta := sdk.Meta{"id": snap.ID, "url": snap.URL, "title": snap.Title, "source": snap.Source, "fetched_at": at, "version": v}
	if !snap.Removed.IsZero() {
		// The page is gone from its site: this is its last copy.
		meta["removed"] = snap.Removed.UTC().Format(time.RFC3339)
	}
	if !r.part {
		return private(&sdk.ResourceContents{URI: uri, MIMEType: markdownType, Text: snap.Markdown, Meta: meta}), nil
	}
	// Every part comes from one copy, as stash_read's do.
	var notes []string
	switch {
	case r.version != "" && r.version != v:
		return nil, rpcError(jsonrpc.CodeInvalidParams, fmt.Sprintf("the page %s changed in the stash since the part with version %q (a crawl stored a new copy, version %q); start again at start_index 0", snap.URL, r.version, v), uri)
	case r.version == "" && r.start > 0:
		notes = append(notes, "no version was given: this part is cut from the copy the stash holds now; pass the version the first part gave to be sure every part comes from one copy")
	}
	n := s.partChars(r.chars, &notes)
	pt, err := part(snap.Markdown, r.start, n)
	if err != nil {
		return nil, rpcError(jsonrpc.CodeInvalidParams, err.Error(), uri)
	}
	meta["start_index"], meta["chars"], meta["total_chars"], meta["remaining_chars"] = pt.StartIndex, pt.Chars, pt.TotalChars, pt.Remaining
	bound := newBoundary(pt.Markdown, snap.Title)
	var b strings.Builder
	if r.start == 0 {
		fmt.Fprintf(&b, "Page: %s\nURL: %s\nSource: %s, fetched %s\n\n", bound.inline(snap.Title), snap.URL, snap.Source, at)
	}
	b.WriteString(bound.block(pt.Markdown))
	b.WriteString("\n---\n")
	if pt.Remaining > 0 {
		nextURI := fmt.Sprintf("%s%s?start_index=%d&max_chars=%d&version=%s", snapshotBase, snap.ID, pt.NextStart, n, v)
		meta["next_start_index"], meta["next"] = pt.NextStart, nextURI
		fmt.Fprintf(&b, "Characters %d to %d of %d; %d characters remain. For the next part, read %s.\n",
			pt.StartIndex, pt.StartIndex+pt.Chars, pt.TotalChars, pt.Remaining, nextURI)
	} else {
		fmt.Fprintf(&b, "Characters %d to %d of %d: the end.\n", pt.StartIndex, pt.StartIndex+pt.Chars, pt.TotalChars)
	}
	b.WriteString(noteLines(notes))
	if len(notes) > 0 {
		meta["notes"] = notes
	}
	return private(&sdk.ResourceContents{URI: uri, MIMEType: markdownType, Text: b.String(), Meta: meta}), nil
}

// subscribe takes a session's subscription to a resource heed serves,
// whole (a part is not told of apart from its page), up to
// MaxSubscriptions a session. A snapshot need not be stored yet: a
// subscriber is told when a crawl stores it.
func (s *Server) subscribe(ctx context.Context, req *sdk.SubscribeRequest) error {
	uri := req.Params.URI
	r, err := parseURI(uri)
	if err != nil {
		return err
	}
	if r.part {
		return uriError(jsonrpc.CodeInvalidParams, uri, fmt.Sprintf("subscribe to %s%s, without a query: a page's subscribers are told when it changes, not each part", snapshotBase, r.id))
	}
	if r.history || r.n > 0 {
		return uriError(jsonrpc.CodeInvalidParams, uri, fmt.Sprintf("subscribe to %s%s: a page's subscribers are told when it changes, and so when its history does; a version never changes", snapshotBase, r.id))
	}
	// The sessions still connected: those gone are forgotten.
	live := map[*sdk.ServerSession]bool{}
	for ss := range s.mcp.Sessions() {
		live[ss] = true
	}
	res := s.res
	res.mu.Lock()
	defer res.mu.Unlock()
	for ss, uris := range res.subs {
		if !live[ss] {
			res.drop(ss, uris)
		}
	}
	mine := res.subs[req.Session]
	switch {
	case mine[uri]:
		return nil
	case len(mine) >= MaxSubscriptions:
		return uriError(jsonrpc.CodeInvalidParams, uri, fmt.Sprintf("this session subscribes to %d resources, the most heed takes: unsubscribe from some first", len(mine)))
	case mine == nil:
		mine = map[string]bool{}
		res.subs[req.Session] = mine
	}
	mine[uri] = true
	res.watchers[uri]++
	return nil
}

// unsubscribe ends a session's subscription, if it has one.
func (s *Server) unsubscribe(ctx context.Context, req *sdk.UnsubscribeRequest) error {
	res := s.res
	res.mu.Lock()
	defer res.mu.Unlock()
	if mine := res.subs[req.Session]; mine[req.Params.URI] {
		delete(mine, req.Params.URI)
		res.unwatch(req.Params.URI)
		if len(mine) == 0 {
			delete(res.subs, req.Session)
		}
	}
	return nil
}

// drop forgets a session's subscriptions. res.mu is held.
func (res *resources) drop(ss *sdk.ServerSession, uris map[string]bool) {
	for uri := range uris {
		res.unwatch(uri)
	}
	delete(res.subs, ss)
}

// unwatch counts one session fewer subscribed to uri. res.mu is held.
func (res *resources) unwatch(uri string) {
	if res.watchers[uri]--; res.watchers[uri] <= 0 {
		delete(res.watchers, uri)
		delete(res.pending, uri)
	}
}

// stashChanged notes what a crawl changed, to be told: the snapshot to
// its subscribers, and the list (and the sources' counts) to every
// session. It returns at once: the crawl does not wait for the
// notifications, which notifyLoop sends.
func (s *Server) stashChanged(c ingest.Change) {
	res := s.res
	res.mu.Lock()
	res.changed = true
	if uri := snapshotBase + c.ID; c.ID != "" && res.watchers[uri] > 0 {
		res.pending[uri] = true
	}
	if res.watchers[sourcesURI] > 0 {
		res.pending[sourcesURI] = true
	}
	res.mu.Unlock()
	res.start.Do(func() { go s.notifyLoop() })
	select {
	case res.wake <- struct{}{}:
	default: // a round is due already
	}
}

// notifyLoop tells what crawls changed, in rounds at least res.every
// apart, until the Server closes: notifications/resources/updated to the
// subscribers of each resource that changed, and
// notifications/resources/list_changed to every session. The SDK tells a
// list changed when a resource is added, so heed://sources is added
// again.
func (s *Server) notifyLoop() {
	res := s.res
	for {
		select {
		case <-s.life.Done():
			return
		case <-res.wake:
		}
		res.mu.Lock()
		pending, changed := res.pending, res.changed
		res.pending, res.changed = map[string]bool{}, false
		res.mu.Unlock()
		for uri := range pending {
			s.mcp.ResourceUpdated(s.life, &sdk.ResourceUpdatedNotificationParams{URI: uri})
		}
		if changed {
			s.mcp.AddResource(sourcesResource(), s.readSources)
		}
		if wait.Sleep(s.life, res.every) != nil {
			return
		}
	}
}

// partChars is how many characters of a page a part of its resource
// holds: as asked (max_chars), and at most the user's limit; by default
// DefaultChars or the limit. A resource is read, not a tool's result:
// max_chars counts the page's own characters, and heed's framing is
// beside them.
func (s *Server) partChars(asked int, notes *[]string) int {
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
