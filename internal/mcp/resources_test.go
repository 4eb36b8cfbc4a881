package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/pgtest"
	"github.com/heedhq/heed/internal/stash"
)

// putter writes snapshots beside a server: the stash of files, or a
// team's database.
type putter interface {
	Put(context.Context, *heed.Snapshot) (bool, error)
	Close() error
}

// stashPages stores a page of each URL in the server's stash, as another
// heed process writing it between calls would, and returns their IDs.
func stashPages(t *testing.T, s *Server, urls ...string) []string {
	t.Helper()
	st, err := stash.Open(context.Background(), s.svc.StashDir())
	if err != nil {
		t.Fatal(err)
	}
	return putPages(t, st, urls...)
}

func putPages(t *testing.T, w putter, urls ...string) []string {
	t.Helper()
	defer w.Close()
	var ids []string
	for _, u := range urls {
		snap := &heed.Snapshot{Source: "tides", URL: u, Title: "Tides of " + u, FetchedAt: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC),
			Markdown: "# Tides of " + u + "\n\n" + strings.Repeat("The tide turns at the harbour mouth. ", 3)}
		if _, err := w.Put(context.Background(), snap); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, heed.IDOf(u))
	}
	return ids
}

func pageURLs(prefix string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("https://tides.example/%s/%03d", prefix, i))
	}
	return out
}

// notified collects the resource notifications a client receives.
type notified struct {
	mu      sync.Mutex
	updated []string
	lists   int
	ch      chan string // each notification: the URI updated, or "list_changed"
}

func newNotified() *notified { return &notified{ch: make(chan string, 1000)} }

func (n *notified) options() *sdk.ClientOptions {
	return &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
			n.mu.Lock()
			n.updated = append(n.updated, req.Params.URI)
			n.mu.Unlock()
			n.ch <- req.Params.URI
		},
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) {
			n.mu.Lock()
			n.lists++
			n.mu.Unlock()
			n.ch <- "list_changed"
		},
	}
}

// waitAll waits until every one of want has been notified, in any order.
func (n *notified) waitAll(t *testing.T, want ...string) {
	t.Helper()
	left := slices.Clone(want)
	for len(left) > 0 {
		got := waitFor(t, n.ch, fmt.Sprintf("notifications of %q", left))
		if i := slices.Index(left, got); i >= 0 {
			left = slices.Delete(left, i, i+1)
		}
	}
}

func (n *notified) updates() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.updated)
}

// The protocol versions a client may speak: the SDK's newest (where a
// client subscribes with subscriptions/listen), and the one before it,
// which most clients speak (resources/subscribe).
const (
	newest = ""
	legacy = "2025-11-25"
)

// connectWith connects an SDK client with its options to s over
// in-memory transports, speaking the protocol version given.
func connectWith(t *testing.T, s *Server, opts *sdk.ClientOptions, version string) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.MCP().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "0"}, opts).Connect(t.Context(), ct, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// rpcErr is the JSON-RPC error of a call, or fails the test.
func rpcErr(t *testing.T, what string, err error) *jsonrpc.Error {
	t.Helper()
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: %v, want a JSON-RPC error", what, err)
	}
	return e
}

func read(t *testing.T, cs *sdk.ClientSession, uri string) *sdk.ResourceContents {
	t.Helper()
	res, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("read %s: %d contents", uri, len(res.Contents))
	}
	return res.Contents[0]
}

// listAll lists every resource, page by page, and the pages' sizes.
func listAll(t *testing.T, cs *sdk.ClientSession, cursor string) (uris []string, sizes []int) {
	t.Helper()
	for {
		res, err := cs.ListResources(t.Context(), &sdk.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Resources {
			uris = append(uris, r.URI)
		}
		sizes = append(sizes, len(res.Resources))
		if res.NextCursor == "" {
			return uris, sizes
		}
		cursor = res.NextCursor
	}
}

// TestResourcesListed: a server says it has resources, that a client may
// subscribe to them and is told when their list changes; resources/list
// lists heed://sources, then every snapshot by ID, ResourcePage a page,
// each with what the tools say of it; a listing that crawls add to as it
// is read goes on where it was, listing none twice.
func TestResourcesListed(t *testing.T) {
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	caps := cs.InitializeResult().Capabilities
	if caps.Resources == nil || !caps.Resources.Subscribe || !caps.Resources.ListChanged {
		t.Fatalf("resources capability %+v; want subscribe and listChanged", caps.Resources)
	}
	tmpls, err := cs.ListResourceTemplates(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for _, tm := range tmpls.ResourceTemplates {
		types[tm.URITemplate] = tm.MIMEType
	}
	if want := map[string]string{snapshotTemplate: "text/markdown", historyTemplate: "application/json", versionTemplate: "text/markdown"}; !maps.Equal(types, want) {
		t.Fatalf("templates %v; want %v", types, want)
	}
	// No stash yet: the sources only.
	if uris, _ := listAll(t, cs, ""); !slices.Equal(uris, []string{"heed://sources"}) {
		t.Errorf("without a stash: %q", uris)
	}

	ids := stashPages(t, s, pageURLs("a", 230)...)
	uris, sizes := listAll(t, cs, "")
	want := []string{"heed://sources"}
	for _, id := range slices.Sorted(slices.Values(ids)) {
		want = append(want, "heed://snapshot/"+id)
	}
	if !slices.Equal(uris, want) || !slices.Equal(sizes, []int{1 + ResourcePage, ResourcePage, 30}) {
		t.Fatalf("listed %d in pages of %v; want %d in pages of 101, 100 and 30", len(uris), sizes, len(want))
	}
	// The SDK's iterator reads the same pages.
	n := 0
	for r, err := range cs.Resources(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if r.URI == "heed://snapshot/"+heed.IDOf("https://tides.example/a/007") {
			if r.Name != "https://tides.example/a/007" || r.Title != "Tides of https://tides.example/a/007" || r.MIMEType != "text/markdown" ||
				r.Meta["source"] != "tides" || r.Meta["fetched_at"] != "2026-12-01T10:00:00Z" || !strings.Contains(r.Description, "source tides, fetched 2026-12-01T10:00:00Z") {
				t.Errorf("resource %+v", r)
			}
		}
	}
	if n != len(want) {
		t.Errorf("the SDK's iterator lists %d, want %d", n, len(want))
	}

	// Pages stored between two pages of a listing: the listing goes on
	// after the last ID it listed.
	first, err := cs.ListResources(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cursor := first.NextCursor
	more := stashPages(t, s, pageURLs("b", 60)...)
	rest, _ := listAll(t, cs, cursor)
	var after []string
	for _, id := range slices.Sorted(slices.Values(append(ids, more...))) {
		if id > cursor {
			after = append(after, "heed://snapshot/"+id)
		}
	}
	if !slices.Equal(rest, after) {
		t.Errorf("after cursor %q, with 60 pages stored meanwhile, listed %d; want %d", cursor, len(rest), len(after))
	}
	for _, r := range first.Resources {
		if slices.Contains(rest, r.URI) {
			t.Errorf("%s listed twice", r.URI)
		}
	}
}

// TestResourceRead: heed://snapshot/ID is the page's Markdown as stored,
// as stash_read has it; with a query, a part of at most max_chars (never
// more than the user allows), in stash_read's words, naming the next
// part's URI; the parts make the page; a part of a copy the stash no
// longer holds is refused.
func TestResourceRead(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Spring tides", []string{"Spring tides come at new and full moon.", strings.Repeat("Spring tide water runs high and low. ", 60)}))
	s := newServer(t, Limits{MaxChars: 500}, loopback)
	cs := connect(t, s, nil)
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, nil); isErr {
		t.Fatal(text)
	}
	id := heed.IDOf(site.URL + "/")
	uri := "heed://snapshot/" + id
	var tool ReadOutput
	if text, isErr := call(t, cs, "stash_read", map[string]any{"url_or_id": id, "max_chars": 100_000}, &tool); isErr {
		t.Fatal(text)
	}

	whole := read(t, cs, uri)
	if whole.URI != uri || whole.MIMEType != "text/markdown" || !strings.HasPrefix(whole.Text, "# Spring tides\n") || len([]rune(whole.Text)) != tool.TotalChars ||
		whole.Meta["version"] != tool.Version || whole.Meta["url"] != site.URL+"/" || whole.Meta["title"] != "Spring tides" {
		t.Errorf("whole: %q %+v; stash_read says %d characters, version %s", whole.Text[:min(len(whole.Text), 80)], whole.Meta, tool.TotalChars, tool.Version)
	}

	// In parts: the first asks 200, the rest what the next URI says.
	c := read(t, cs, uri+"?max_chars=200")
	var text strings.Builder
	_, heeds, pages := splitMarked(t, "the first part", c.Text)
	// A part ends at a break in the text, at 200 characters or before.
	first := int(c.Meta["chars"].(float64))
	if !strings.HasPrefix(c.Text, "Page: ") || !strings.Contains(heeds, "URL: "+site.URL+"/\n") || first > 200 || first < 100 ||
		!strings.Contains(heeds, fmt.Sprintf("Characters 0 to %d of %d; %d characters remain. For the next part, read %s?start_index=%d&max_chars=200&version=%s.", first, tool.TotalChars, tool.TotalChars-first, uri, first, tool.Version)) {
		t.Errorf("the first part:\n%s", c.Text)
	}
	text.WriteString(strings.TrimSuffix(strings.TrimPrefix(pages[1], "\n\n"), "\n\n"))
	parts := 1
	for next, _ := c.Meta["next"].(string); next != ""; next, _ = c.Meta["next"].(string) {
		c = read(t, cs, next)
		_, _, pages := splitMarked(t, next, c.Text)
		if len(pages) != 1 || c.Meta["chars"].(float64) > 200 {
			t.Fatalf("%s: %d marked, %v characters", next, len(pages), c.Meta["chars"])
		}
		text.WriteString(strings.TrimSuffix(strings.TrimPrefix(pages[0], "\n\n"), "\n\n"))
		parts++
	}
	if text.String() != whole.Text || parts < (tool.TotalChars+199)/200 {
		t.Errorf("%d parts make %d characters; want the whole page, %d", parts, len([]rune(text.String())), tool.TotalChars)
	}
	if !strings.Contains(c.Text, fmt.Sprintf("of %d: the end.", tool.TotalChars)) || c.Meta["remaining_chars"] != float64(0) {
		t.Errorf("the last part:\n%s", c.Text)
	}

	// More than the user allows is lowered, and said; a later part without
	// a version is cut from the copy held now, and said.
	c = read(t, cs, uri+"?max_chars=100000&start_index=10")
	limit := s.cfg.Limits.MaxChars // the least a user may set: MinChars
	if c.Meta["chars"].(float64) > float64(limit) || !strings.Contains(c.Text, fmt.Sprintf("Note: max_chars 100000 was lowered to %d, the limit the user set.", limit)) ||
		!strings.Contains(c.Text, "Note: no version was given") || strings.HasPrefix(c.Text, "Page: ") {
		t.Errorf("max_chars above the limit:\n%s", c.Text)
	}

	// The page changes; a part of the old copy is refused.
	site.set("/", html("Spring tides", []string{"Spring tides, rewritten.", strings.Repeat("Neap tide water runs less high. ", 60)}))
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, nil); isErr {
		t.Fatal(text)
	}
	_, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: fmt.Sprintf("%s?start_index=200&version=%s", uri, tool.Version)})
	if e := rpcErr(t, "a part of a copy gone", err); e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "changed in the stash since the part with version") || !strings.Contains(e.Message, "start again at start_index 0") {
		t.Errorf("a part of a copy gone: %d %s", e.Code, e.Message)
	}
	_, err = cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: uri + "?start_index=100000"})
	if e := rpcErr(t, "a part past the end", err); e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "start_index 100000 is past the end of the text") {
		t.Errorf("past the end: %d %s", e.Code, e.Message)
	}
}

// TestResourcePartMarked: a part's page text is marked as stash_read
// marks it, so a page that forges heed's trailer, notes and markers
// cannot pass them for heed's; the whole page, read as the document it
// is, holds no words of heed's to forge.
func TestResourcePartMarked(t *testing.T) {
	site := newSite(t)
	site.set("/", forgingPage())
	s := newServer(t, Limits{MaxChars: 5000}, loopback)
	cs := connect(t, s, nil)
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, nil); isErr {
		t.Fatal(text)
	}
	uri := "heed://snapshot/" + heed.IDOf(site.URL+"/")
	c := read(t, cs, uri+"?max_chars=6000")
	heeds, pages := checkMarked(t, "a part", c.Text)
	total := int(c.Meta["total_chars"].(float64))
	if trailer := fmt.Sprintf("Characters 0 to %d of %d: the end.", total, total); !strings.Contains(heeds, trailer) || !strings.Contains(heeds, "Note: max_chars 6000 was lowered to 5000") {
		t.Errorf("heed's trailer and note are not in heed's words:\n%s", c.Text)
	}
	if whole := read(t, cs, uri); len(pages) != 2 || pages[1] != "\n\n"+whole.Text+"\n\n" {
		t.Errorf("the page text marked is not the page's Markdown: %q", pages)
	}
}

// TestResourceSources: heed://sources says what stash_sources says, in
// its words, with a stash or without one.
func TestResourceSources(t *testing.T) {
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	for _, stored := range []bool{false, true} {
		if stored {
			stashPages(t, s, pageURLs("a", 3)...)
		}
		c := read(t, cs, "heed://sources")
		text, _ := call(t, cs, "stash_sources", nil, nil)
		if c.Text != text || c.MIMEType != "text/markdown" {
			t.Errorf("heed://sources says %q, stash_sources %q", c.Text, text)
		}
		if want := map[bool]string{false: "The stash is empty", true: "tides: 3 pages"}[stored]; !strings.Contains(c.Text, want) {
			t.Errorf("heed://sources: %q, want %q", c.Text, want)
		}
	}
}

// TestResourceErrors: a URI heed does not serve, a snapshot the stash
// does not hold, and hostile URIs and cursors are refused with JSON-RPC
// errors saying what is wrong, the URI (clipped) their data; nothing of a
// URI but an ID reaches the store.
func TestResourceErrors(t *testing.T) {
	s := newServer(t, Limits{}, loopback)
	// The SDK's client sees a refused subscription only on the older
	// protocol: on the newest it subscribes on a stream it does not wait on.
	cs := connectWith(t, s, nil, legacy)
	stashPages(t, s, pageURLs("a", 2)...)
	id := heed.IDOf("https://tides.example/a/000")
	huge := "heed://snapshot/" + strings.Repeat("a", 1<<20)
	for _, tt := range []struct {
		uri  string
		code int64
		says string
	}{
		{"test://static-text", codeNotFound, "Resource not found: heed serves heed://sources and heed://snapshot/ID"},
		{"file:///etc/passwd", codeNotFound, "Resource not found: heed serves"},
		{"heed://snapshot/" + heed.IDOf("https://tides.example/elsewhere"), codeNotFound, "no page " + heed.IDOf("https://tides.example/elsewhere") + " in the stash"},
		{"HEED://sources", codeNotFound, "Resource not found"},
		{"heed://snapshot/../../../etc/passwd", jsonrpc.CodeInvalidParams, "is not a snapshot's ID"},
		{"heed://snapshot/..%2F..%2Fetc%2Fpasswd", jsonrpc.CodeInvalidParams, "is not a snapshot's ID"},
		{"heed://snapshot/" + strings.ToUpper(id), jsonrpc.CodeInvalidParams, "12 lower-case hex digits"},
		{"heed://snapshot/" + id + "/x", jsonrpc.CodeInvalidParams, `"x" is nothing of a snapshot heed serves: it serves heed://snapshot/ID, heed://snapshot/ID/history`},
		{"heed://snapshot/" + id[:6], jsonrpc.CodeInvalidParams, "is not a snapshot's ID"},
		{"heed://snapshot/", jsonrpc.CodeInvalidParams, "is not a snapshot's ID"},
		{"heed://snapshot/" + id + "#part", jsonrpc.CodeInvalidParams, "is not a snapshot's ID"},
		{"heed://snapshot/" + id + "?start_index=1#x", jsonrpc.CodeInvalidParams, "no fragment"},
		{"heed://snapshot/" + id + "?start=1", jsonrpc.CodeInvalidParams, `"start" is not a parameter of a snapshot`},
		{"heed://snapshot/" + id + "?start_index=1&start_index=2", jsonrpc.CodeInvalidParams, `"start_index" is given 2 times`},
		{"heed://snapshot/" + id + "?start_index=-1", jsonrpc.CodeInvalidParams, "start_index must be an integer from 0 to 1000000000"},
		{"heed://snapshot/" + id + "?max_chars=0", jsonrpc.CodeInvalidParams, "max_chars must be an integer from 1"},
		{"heed://snapshot/" + id + "?max_chars=99999999999999999999", jsonrpc.CodeInvalidParams, "max_chars must be an integer"},
		{"heed://snapshot/" + id + "?version=../x", jsonrpc.CodeInvalidParams, "is not one heed gave"},
		{"heed://snapshot/" + id + "?start_index=%zz", jsonrpc.CodeInvalidParams, "its query cannot be read"},
		{huge, jsonrpc.CodeInvalidParams, "a resource URI of 1048592 bytes: heed's are at most 2048"},
	} {
		_, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: tt.uri})
		e := rpcErr(t, tt.uri[:min(len(tt.uri), 60)], err)
		if e.Code != tt.code || !strings.Contains(e.Message, tt.says) || len(e.Message) > 1000 || len(e.Data) > 1000 {
			t.Errorf("read %.60s: %d %.300s; want %d %q, bounded", tt.uri, e.Code, e.Message, tt.code, tt.says)
		}
	}
	// Each is refused to a subscriber too; a part may not be subscribed to.
	for _, uri := range []string{"test://watched-resource", "heed://snapshot/../x", "heed://snapshot/" + id + "?max_chars=10", huge} {
		err := cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: uri})
		if e := rpcErr(t, "subscribe", err); e.Code != jsonrpc.CodeInvalidParams || len(e.Message) > 1000 {
			t.Errorf("subscribe %.60s: %d %.300s", uri, e.Code, e.Message)
		}
	}
	if e := rpcErr(t, "subscribe to a part", cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: "heed://snapshot/" + id + "?max_chars=10"})); !strings.Contains(e.Message, "subscribe to heed://snapshot/"+id+", without a query") {
		t.Errorf("subscribe to a part: %s", e.Message)
	}
	for _, cursor := range []string{"x", strings.Repeat("0", 1<<20), "../../etc", strings.ToUpper(id), id + "0"} {
		_, err := cs.ListResources(t.Context(), &sdk.ListResourcesParams{Cursor: cursor})
		if e := rpcErr(t, "a cursor", err); e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "is not one heed gave") || len(e.Message) > 500 {
			t.Errorf("cursor %.40q: %d %.300s", cursor, e.Code, e.Message)
		}
	}
}

// TestResourceSubscribe: a client subscribed to a page, before a crawl
// stores it or after, and to heed://sources, is told when web_crawl
// (through the same server) stores or changes it, and every client is
// told that the list changed; one that unsubscribed is told nothing of
// the page. Alike on both protocols.
func TestResourceSubscribe(t *testing.T) {
	for name, version := range map[string]string{"newest": newest, "legacy": legacy} {
		t.Run(name, func(t *testing.T) { testSubscribe(t, version) })
	}
}

func testSubscribe(t *testing.T, version string) {
	site := newSite(t)
	site.set("/", html("Tides", []string{"Tides rise and fall twice a day."}, "/spring", "/neap"))
	site.set("/spring", html("Spring tides", []string{"Spring tides come at new and full moon."}))
	site.set("/neap", html("Neap tides", []string{"Neap tides come at the quarter moons."}))
	s := newServer(t, Limits{}, loopback)
	s.res.every = 0
	n := newNotified()
	cs := connectWith(t, s, n.options(), version)
	other := newNotified()
	connectWith(t, s, other.options(), version) // subscribes to nothing

	spring := "heed://snapshot/" + heed.IDOf(site.URL+"/spring")
	neap := "heed://snapshot/" + heed.IDOf(site.URL+"/neap")
	for _, uri := range []string{spring, neap, "heed://sources"} {
		if err := cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, nil); isErr {
		t.Fatal(text)
	}
	n.waitAll(t, spring, neap, "heed://sources", "list_changed")
	other.waitAll(t, "list_changed")
	if got := other.updates(); len(got) != 0 {
		t.Errorf("a client subscribed to nothing was told of %q", got)
	}
	// What the notifications tell of is listed and read.
	uris, _ := listAll(t, cs, "")
	if !slices.Contains(uris, spring) || !slices.Contains(uris, neap) || len(uris) != 4 {
		t.Errorf("listed after the crawl: %q", uris)
	}

	// The pages change; the client no longer subscribes to one of them.
	if err := cs.Unsubscribe(t.Context(), &sdk.UnsubscribeParams{URI: neap}); err != nil {
		t.Fatal(err)
	}
	site.set("/spring", html("Spring tides", []string{"Spring tides come at new and full moon, higher than any."}))
	site.set("/neap", html("Neap tides", []string{"Neap tides come at the quarter moons, lower than any."}))
	before := len(n.updates())
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, nil); isErr {
		t.Fatal(text)
	}
	if version == legacy {
		n.waitAll(t, spring, "list_changed")
	} else {
		// On the newest protocol the SDK forgets a session's listening for
		// list changes when any of its streams ends, as Unsubscribe's
		// did: the client is told of its page only.
		n.waitAll(t, spring)
	}
	if got := n.updates()[before:]; slices.Contains(got, neap) {
		t.Errorf("told of %s after unsubscribing: %q", neap, got)
	}
	if c := read(t, cs, spring); !strings.Contains(c.Text, "higher than any") {
		t.Errorf("the page read after its update: %q", c.Text)
	}
}

// TestResourceSubscriptionsBounded: a session subscribes to at most
// MaxSubscriptions resources at once, and is told so past that; another
// session has its own; a session that ends has its subscriptions
// forgotten.
func TestResourceSubscriptionsBounded(t *testing.T) {
	s := newServer(t, Limits{}, loopback)
	cs := connectWith(t, s, nil, legacy)
	uris := pageURLs("a", MaxSubscriptions+1)
	for i, u := range uris {
		err := cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: "heed://snapshot/" + heed.IDOf(u)})
		if i < MaxSubscriptions && err != nil {
			t.Fatalf("subscription %d: %v", i, err)
		}
		if i == MaxSubscriptions {
			if e := rpcErr(t, "one subscription too many", err); !strings.Contains(e.Message, fmt.Sprintf("this session subscribes to %d resources, the most heed takes: unsubscribe from some first", MaxSubscriptions)) {
				t.Errorf("one too many: %s", e.Message)
			}
		}
	}
	// Again to one it has: no more than before.
	if err := cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: "heed://snapshot/" + heed.IDOf(uris[0])}); err != nil {
		t.Errorf("again to one it has: %v", err)
	}
	if err := cs.Unsubscribe(t.Context(), &sdk.UnsubscribeParams{URI: "heed://snapshot/" + heed.IDOf(uris[0])}); err != nil {
		t.Fatal(err)
	}
	if err := cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: "heed://sources"}); err != nil {
		t.Errorf("after unsubscribing one: %v", err)
	}
	cs2 := connectWith(t, s, nil, legacy)
	if err := cs2.Subscribe(t.Context(), &sdk.SubscribeParams{URI: "heed://sources"}); err != nil {
		t.Errorf("another session: %v", err)
	}
	// The first session ends: the next subscription forgets its own.
	cs.Close()
	for range 1000 {
		if len(slices.Collect(s.MCP().Sessions())) == 1 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cs2.Subscribe(t.Context(), &sdk.SubscribeParams{URI: "heed://snapshot/" + heed.IDOf(uris[1])}); err != nil {
		t.Fatal(err)
	}
	s.res.mu.Lock()
	sessions, watched := len(s.res.subs), len(s.res.watchers)
	s.res.mu.Unlock()
	if sessions != 1 || watched != 2 {
		t.Errorf("after the first session ended: %d sessions and %d URIs subscribed to; want 1 and 2", sessions, watched)
	}
}

// TestResourcesOverHTTP: the resources over streamable HTTP, as heed mcp
// --http serves them: listed, read, and a subscriber told of a crawl on
// the stream it listens on.
func TestResourcesOverHTTP(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Over HTTP", []string{"A page crawled while a client listens over streamable HTTP."}))
	s := newServer(t, Limits{}, loopback)
	s.res.every = 0
	n := newNotified()
	cs := serveHTTP(t, s, n.options())
	uri := "heed://snapshot/" + heed.IDOf(site.URL+"/")
	if err := cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, nil); isErr {
		t.Fatal(text)
	}
	n.waitAll(t, uri, "list_changed")
	if uris, _ := listAll(t, cs, ""); !slices.Equal(uris, []string{"heed://sources", uri}) {
		t.Errorf("listed over HTTP: %q", uris)
	}
	if c := read(t, cs, uri); !strings.Contains(c.Text, "streamable HTTP") {
		t.Errorf("read over HTTP: %q", c.Text)
	}
}

// TestResourcesTeamDatabase: with a team's database as the stash (heed
// mcp --db), the resources list and read what the team stored.
func TestResourcesTeamDatabase(t *testing.T) {
	c := pgtest.Start(t)
	t.Cleanup(c.Stop)
	url := c.Database(t)
	if _, err := ingest.Migrate(context.Background(), url, 0); err != nil {
		t.Fatal(err)
	}
	svc := ingest.New(ingest.Config{DB: url, HTTP: fetch.New(fetch.Config{AllowNets: loopback, Retries: -1}), Delay: -1})
	s := New(Config{Service: svc})
	t.Cleanup(func() {
		s.Close()
		svc.Close()
	})
	db, err := ingest.OpenDB(url)(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ids := putPages(t, db, pageURLs("team", 120)...)
	cs := connect(t, s, nil)
	uris, sizes := listAll(t, cs, "")
	if len(uris) != 121 || !slices.Equal(sizes, []int{101, 20}) {
		t.Errorf("listed %d in pages of %v; want 121 in pages of 101 and 20", len(uris), sizes)
	}
	if got := read(t, cs, "heed://snapshot/"+ids[5]); !strings.HasPrefix(got.Text, "# Tides of https://tides.example/team/005") {
		t.Errorf("read from the team's database: %q", got.Text)
	}
	if got := read(t, cs, "heed://sources"); got.Text != "tides: 120 pages\n" {
		t.Errorf("heed://sources of the team's database: %q", got.Text)
	}
}

// TestResourcesOverStdio: on heed's stdio transport, one JSON-RPC message
// a line as a client started by its host sends them, a subscriber is told
// of a crawl, and the messages are as the protocol has them.
func TestResourcesOverStdio(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Over stdio", []string{"A page crawled while a client listens on standard input and output."}))
	s := newServer(t, Limits{}, loopback)
	s.res.every = 0
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- s.serveLines(t.Context(), inR, outW) }()
	lines := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// until waits for a line holding every one of want, and returns it.
	until := func(what string, want ...string) string {
		t.Helper()
		for {
			line := waitFor(t, lines, what)
			if !slices.ContainsFunc(want, func(w string) bool { return !strings.Contains(line, w) }) {
				return line
			}
		}
	}
	uri := "heed://snapshot/" + heed.IDOf(site.URL+"/")
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	until("the answer to initialize", `"id":1`, `"resources":{`, `"subscribe":true`, `"listChanged":true`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"` + uri + `"}}`)
	until("the answer to resources/subscribe", `"id":2`, `"result":{}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"web_crawl","arguments":{"url":"` + site.URL + `/"}}}`)
	until("notifications/resources/updated", `"method":"notifications/resources/updated"`, `"uri":"`+uri+`"`)
	until("notifications/resources/list_changed", `"method":"notifications/resources/list_changed"`)
	send(`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"` + uri + `"}}`)
	until("the answer to resources/read", `"id":4`, `"mimeType":"text/markdown"`, "standard input and output")
	send(`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"heed://snapshot/..%2f..%2fetc"}}`)
	until("the answer to a hostile read", `"id":5`, `"code":-32602`, "is not a snapshot's ID")
	inW.Close()
	if err := waitFor(t, served, "the session to end with its input"); err != nil {
		t.Errorf("serveLines: %v", err)
	}
}
