package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/stash"
	"github.com/heedhq/heed/robots/directives"
)

// site is a loopback web site that logs every request it serves, with
// when it began and ended.
type site struct {
	*httptest.Server
	mu     sync.Mutex
	pages  map[string]string // path -> HTML
	types  map[string]string // path -> Content-Type, if not HTML
	robots string            // "" for a 404
	log    []hit
	// block, if set, is called for a path before it is served: a test
	// holds a request there.
	block func(r *http.Request)
}

type hit struct {
	path       string
	start, end time.Time
}

func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{pages: map[string]string{}, types: map[string]string{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	h := hit{path: r.URL.RequestURI(), start: time.Now()}
	defer func() {
		h.end = time.Now()
		s.mu.Lock()
		s.log = append(s.log, h)
		s.mu.Unlock()
	}()
	s.mu.Lock()
	body, ok := s.pages[r.URL.Path]
	ct := s.types[r.URL.Path]
	robots, block := s.robots, s.block
	s.mu.Unlock()
	if block != nil {
		block(r)
	}
	switch {
	case r.URL.Path == "/robots.txt" && robots != "":
		fmt.Fprint(w, robots)
	case !ok:
		http.NotFound(w, r)
	default:
		if ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		fmt.Fprint(w, body)
	}
}

func (s *site) set(path, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[path] = body
}

func (s *site) hits() []hit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

func (s *site) count(path string) int {
	n := 0
	for _, h := range s.hits() {
		if h.path == path {
			n++
		}
	}
	return n
}

// html is a page with a title, paragraphs and links.
func html(title string, paras []string, links ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<html><head><title>%s</title></head><body><nav><a href=\"/\">Home</a></nav><main><h1>%s</h1>", title, title)
	for _, p := range paras {
		fmt.Fprintf(&b, "<p>%s</p>", p)
	}
	for _, l := range links {
		fmt.Fprintf(&b, `<p>See <a href="%s">%s</a>.</p>`, l, l)
	}
	b.WriteString("</main></body></html>")
	return b.String()
}

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}

// newServer is a Server whose client may reach loopback, as a user allows
// it with allow_net, with the limits given and no delay.
func newServer(t *testing.T, l Limits, allow []netip.Prefix) *Server {
	t.Helper()
	return testServer(t, fetch.Config{AllowNets: allow, Retries: -1}, 0, l, nil)
}

// testServer is a Server onto an ingest service of its own: a client made
// of fc, a stash of its own, the delay given between two requests to a
// host (0: none), the limits and the logger.
func testServer(t *testing.T, fc fetch.Config, delay time.Duration, l Limits, log *slog.Logger) *Server {
	t.Helper()
	if delay == 0 {
		delay = -1 // ingest.Config: negative is none
	}
	svc := ingest.New(ingest.Config{HTTP: fetch.New(fc), Agent: "heed/0.1", StashDir: t.TempDir(), Delay: delay})
	s := New(Config{Service: svc, Limits: l, Logger: log})
	t.Cleanup(func() {
		s.Close()
		svc.Close()
	})
	return s
}

// progressLog collects the progress notifications a client receives.
type progressLog struct {
	mu    sync.Mutex
	items []*sdk.ProgressNotificationParams
}

func (p *progressLog) handle(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.items = append(p.items, req.Params)
}

func (p *progressLog) all() []*sdk.ProgressNotificationParams {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.items)
}

// atLeast waits (up to ten seconds) until n notifications have arrived,
// and returns them in the order of their progress: a client handles a
// notification apart from the call's answer, so the last may come after
// it, and in any order.
func (p *progressLog) atLeast(n int) []*sdk.ProgressNotificationParams {
	for range 1000 {
		if len(p.all()) >= n {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	events := p.all()
	slices.SortStableFunc(events, func(a, b *sdk.ProgressNotificationParams) int { return cmp.Compare(a.Progress, b.Progress) })
	return events
}

// connect connects an SDK client to s over in-memory transports.
// serveHTTP serves s over streamable HTTP, as heed mcp --http does, and
// connects a client of the SDK to it, with the client's options.
func serveHTTP(t *testing.T, s *Server, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	cs, err := connectHTTP(t, hs.URL, opts, 0)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func connect(t *testing.T, s *Server, progress *progressLog) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.MCP().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	opts := &sdk.ClientOptions{}
	if progress != nil {
		opts.ProgressNotificationHandler = progress.handle
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "0"}, opts).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured result into out; it
// returns the result's text and whether it is an error.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any, out any) (text string, isError bool) {
	t.Helper()
	// A bound on the wait, far beyond what a call needs, so that a server
	// that hangs fails the test instead.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return decode(t, res, out)
}

func decode(t *testing.T, res *sdk.CallToolResult, out any) (string, bool) {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if out != nil && !res.IsError {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("structured content %s: %v", data, err)
		}
	}
	return b.String(), res.IsError
}

// waitCalled makes s report each tool call's return on a channel.
func waitCalled(s *Server) <-chan string {
	ch := make(chan string, 16)
	s.called = func(tool string) { ch <- tool }
	return ch
}

func TestToolsListed(t *testing.T) {
	s := newServer(t, Limits{MaxPages: 7, MaxDepth: 2}, loopback)
	cs := connect(t, s, nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	props := map[string][]string{}
	for _, tool := range res.Tools {
		if tool.Description == "" || tool.OutputSchema == nil || tool.Annotations == nil {
			t.Errorf("%s: description %q, output schema %v, annotations %v", tool.Name, tool.Description, tool.OutputSchema, tool.Annotations)
		}
		// An agent is told when what a page builds with JavaScript is
		// seen, by every tool that reads the web.
		if strings.HasPrefix(tool.Name, "web_") && !strings.Contains(tool.Description, "rendered in a browser") {
			t.Errorf("%s does not say when pages are rendered: %s", tool.Name, tool.Description)
		}
		for _, sc := range []any{tool.InputSchema, tool.OutputSchema} {
			if path := nullableType(sc, tool.Name); path != "" {
				t.Errorf("%s has a type list where one type would do (a portable schema has one)", path)
			}
		}
		schema := tool.InputSchema.(map[string]any)
		if schema["type"] != "object" || schema["additionalProperties"] != false {
			t.Errorf("%s: input schema %v lets unknown arguments through", tool.Name, schema)
		}
		var names []string
		properties, _ := schema["properties"].(map[string]any)
		for name, p := range properties {
			names = append(names, name)
			if p.(map[string]any)["description"] == nil {
				t.Errorf("%s: argument %s has no description", tool.Name, name)
			}
		}
		sort.Strings(names)
		props[tool.Name] = names
	}
	want := map[string][]string{
		"web_fetch":     {"max_chars", "render", "start_index", "url", "version"},
		"web_crawl":     {"cursor", "exclude", "include", "max_chars", "max_depth", "max_pages", "render", "skipped_reason", "url", "wait_seconds", "whole_site"},
		"web_map":       {"cursor", "exclude", "include", "limit", "max_chars", "url", "whole_site"},
		"crawl_status":  {"crawl", "max_chars", "skipped_reason", "wait_seconds"},
		"crawl_pages":   {"crawl", "cursor", "limit", "max_chars"},
		"crawl_cancel":  {"crawl", "max_chars"},
		"web_grep":      {"cursor", "depth", "max_chars", "pattern", "url", "whole_site"},
		"stash_search":  {"cursor", "limit", "max_chars", "query", "source"},
		"stash_read":    {"max_chars", "start_index", "url_or_id", "version"},
		"stash_sources": {"cursor", "max_chars"},
		"stash_changes": {"cursor", "diffs", "max_chars", "since", "source"},
	}
	if fmt.Sprint(props) != fmt.Sprint(want) {
		t.Errorf("tools and their arguments:\n%v\nwant\n%v", props, want)
	}
	for _, tool := range res.Tools {
		if tool.Name == "web_crawl" && !strings.Contains(tool.Description, "7 pages, 2 links deep") {
			t.Errorf("web_crawl does not state the user's limits: %s", tool.Description)
		}
	}
}

// nullableType finds a schema whose type is a list, and returns its path.
func nullableType(schema any, path string) string {
	m, ok := schema.(map[string]any)
	if !ok {
		return ""
	}
	if _, ok := m["type"].([]any); ok {
		return path
	}
	props, _ := m["properties"].(map[string]any)
	for name, p := range props {
		if found := nullableType(p, path+"."+name); found != "" {
			return found
		}
	}
	if found := nullableType(m["items"], path+"[]"); found != "" {
		return found
	}
	return nullableType(m["additionalProperties"], path+"{}")
}

func TestWebFetch(t *testing.T) {
	site := newSite(t)
	site.robots = "User-agent: *\nDisallow: /\n"
	var paras []string
	for i := range 60 {
		paras = append(paras, fmt.Sprintf("Paragraph %d of the tide tables: ebb and flow, ĉiu tago, 潮の満ち引き, and so on at length.", i))
	}
	site.set("/long", strings.Replace(html("Tide tables", paras), "<head>", `<head><meta name="robots" content="noindex">`, 1))
	site.set("/notes.txt", "plain notes\nsecond line\n")
	site.types["/notes.txt"] = "text/plain; charset=utf-8"
	site.set("/image.png", "\x89PNG")
	site.types["/image.png"] = "image/png"
	s := newServer(t, Limits{MaxChars: 6000}, loopback)
	cs := connect(t, s, nil)

	// The first part, as large as the limit allows, ending at a paragraph
	// break; asking for more than the limit is lowered to it, and says so.
	var whole FetchOutput
	text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/long", "max_chars": 1_000_000}, &whole)
	if isErr {
		t.Fatalf("web_fetch: %s", text)
	}
	if whole.Title != "Tide tables" || whole.Chars < 500 || whole.NextStart != whole.Chars || whole.TotalChars <= 3000 ||
		!strings.HasPrefix(whole.Markdown, "# Tide tables\n\nParagraph 0") || !strings.HasSuffix(whole.Markdown, "at length.\n\n") {
		t.Errorf("web_fetch: %+v", whole)
	}
	if len(whole.Notes) != 1 || !strings.Contains(whole.Notes[0], "max_chars 1000000 was lowered to 6000, the limit the user set") || !strings.Contains(text, "lowered to 6000") {
		t.Errorf("the lowered max_chars is not reported: %v\n%s", whole.Notes, text)
	}
	if whole.Robots != "noindex" {
		t.Errorf("the page's robots directives: %q, want noindex reported", whole.Robots)
	}
	if n := site.count("/robots.txt"); n != 0 {
		t.Errorf("web_fetch asked for robots.txt %d times; a page read on purpose does not", n)
	}

	// Paging: parts of at most MinChars characters of result, each ending at
	// a paragraph break, following next_start_index, make up the page,
	// and each says what remains and how to ask for it.
	var got strings.Builder
	start, parts, total, version := 0, 0, 0, ""
	for {
		var p FetchOutput
		args := map[string]any{"url": site.URL + "/long", "max_chars": MinChars, "start_index": start}
		if start > 0 {
			args["version"] = version
		}
		text, isErr := call(t, cs, "web_fetch", args, &p)
		if isErr {
			t.Fatalf("part at %d: %s", start, text)
		}
		parts++
		got.WriteString(p.Markdown)
		if version == "" {
			version = p.Version
		}
		if len(p.Version) != 16 || p.Version != version {
			t.Errorf("part at %d: version %q, the first part's %q", start, p.Version, version)
		}
		total = p.TotalChars
		if p.StartIndex != start || p.Chars != len([]rune(p.Markdown)) || p.Remaining != p.TotalChars-start-p.Chars {
			t.Errorf("part at %d: %+v", start, p.Part)
		}
		if p.Remaining == 0 {
			if p.NextStart != 0 || !strings.Contains(text, "the end") {
				t.Errorf("last part: next %d, text %q", p.NextStart, text[max(0, len(text)-80):])
			}
			break
		}
		want := fmt.Sprintf("%d characters remain. For the next part, call web_fetch with the same url, version %q and start_index %d.", p.Remaining, version, start+p.Chars)
		if p.Chars < 300 || p.NextStart != start+p.Chars || !strings.HasSuffix(p.Markdown, ".\n\n") || !strings.Contains(text, want) {
			t.Errorf("part at %d: %+v; text lacks %q", start, p.Part, want)
		}
		start = p.NextStart
		if parts > 100 {
			t.Fatal("paging does not end")
		}
	}
	if parts < 3 || len([]rune(got.String())) != total || !strings.HasPrefix(got.String(), whole.Markdown) {
		t.Errorf("%d parts of %d characters; want parts making up the page of %d", parts, len([]rune(got.String())), total)
	}
	if !strings.HasSuffix(got.String(), "and so on at length.") {
		t.Errorf("the parts end with %q", got.String()[max(0, got.Len()-40):])
	}
	// Later parts came from the version read for the first: the page was
	// asked for once per first part (two here), not once per part.
	if n := site.count("/long"); n != 2 {
		t.Errorf("the page was requested %d times, want 2", n)
	}
	if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/long", "start_index": total + 5, "version": version}, nil); !isErr ||
		!strings.Contains(text, fmt.Sprintf("start_index %d is past the end of the text, which has %d characters", total+5, total)) {
		t.Errorf("start_index past the end: %v %s", isErr, text)
	}

	var notes FetchOutput
	if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/notes.txt"}, &notes); isErr || notes.Markdown != "plain notes\nsecond line" {
		t.Errorf("plain text: %s %+v", text, notes)
	}
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"url": site.URL + "/image.png"}, "not an HTML or text page (Content-Type image/png)"},
		{map[string]any{"url": site.URL + "/missing"}, "the server answered HTTP 404"},
		{map[string]any{"url": "ftp://example.com/x"}, "give an absolute http or https URL"},
		{map[string]any{"url": "/relative"}, "give an absolute http or https URL"},
		{map[string]any{"url": site.URL + "/long", "start_index": -1}, "start_index"},
		{map[string]any{"url": site.URL + "/long", "max_chars": 0}, "max_chars"},
		{map[string]any{}, "url"},
	} {
		if text, isErr := call(t, cs, "web_fetch", tt.args, nil); !isErr || !strings.Contains(text, tt.want) {
			t.Errorf("web_fetch %v: error %v, %q; want an error saying %q", tt.args, isErr, text, tt.want)
		}
	}
}

// TestRefusals: no argument widens what the user allowed, and a refusal
// says what was refused, why, and what can be done, without internal
// detail.
func TestRefusals(t *testing.T) {
	site := newSite(t)
	site.robots = "User-agent: *\nAllow: /$\nDisallow: /private/\n\nUser-agent: heed\nDisallow: /private/\nDisallow: /closed\n"
	site.set("/", html("Home", []string{"The home page, with words enough to be the main content of it."}, "/a", "/b", "/c", "/private/x"))
	for _, p := range []string{"/a", "/b", "/c"} {
		site.set(p, html("Page "+p, []string{"A page of the site with words enough to be the main content."}, "/a/deeper"+p))
	}
	site.set("/closed", html("Closed", []string{"A page robots.txt closes to heed, readable on purpose."}))
	site.set("/private/x", html("Private", []string{"Private words."}))

	t.Run("loopback without the user's allowance", func(t *testing.T) {
		s := newServer(t, Limits{}, nil)
		cs := connect(t, s, nil)
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"web_fetch", map[string]any{"url": site.URL + "/"}},
			{"web_crawl", map[string]any{"url": site.URL + "/"}},
			{"web_grep", map[string]any{"url": site.URL + "/", "pattern": "x"}},
			{"web_grep", map[string]any{"url": site.URL + "/", "pattern": "x", "depth": 1}},
		} {
			text, isErr := call(t, cs, c.tool, c.args, nil)
			for _, want := range []string{"127.0.0.1 is a loopback address (127.0.0.0/8)", "only where the user allows them (allow_net in heed's config file", "no tool argument can allow one"} {
				if !isErr || !strings.Contains(text, want) {
					t.Errorf("%s %v: error %v, %q; want it to say %q", c.tool, c.args, isErr, text, want)
				}
			}
			if strings.Contains(text, "--allow-net 127") || strings.Contains(text, s.svc.StashDir()) || strings.Contains(text, "goroutine") {
				t.Errorf("%s: the refusal carries a command-line hint or internal detail: %q", c.tool, text)
			}
		}
		if n := len(site.hits()); n != 0 {
			t.Errorf("the site was asked %d times", n)
		}
	})

	s := newServer(t, Limits{MaxPages: 2, MaxDepth: 1}, loopback)
	cs := connect(t, s, nil)
	t.Run("arguments that would widen the user's limits", func(t *testing.T) {
		for _, extra := range []map[string]any{
			{"no_robots": true}, {"respect_robots": false}, {"allow_net": []string{"127.0.0.0/8"}},
			{"delay": 0}, {"ignore_signals": true}, {"allow_hosts": []string{"example.com"}},
		} {
			for _, tool := range []string{"web_crawl", "web_fetch", "web_grep"} {
				args := map[string]any{"url": site.URL + "/", "pattern": "x"}
				if tool != "web_grep" {
					delete(args, "pattern")
				}
				for k, v := range extra {
					args[k] = v
				}
				text, isErr := call(t, cs, tool, args, nil)
				var key string
				for k := range extra {
					key = k
				}
				if !isErr || !strings.Contains(text, "unexpected additional properties") || !strings.Contains(text, key) {
					t.Errorf("%s with %v: error %v, %q", tool, extra, isErr, text)
				}
			}
		}
		if n := len(site.hits()); n != 0 {
			t.Errorf("refused calls reached the site %d times", n)
		}
	})

	t.Run("robots.txt refuses the start URL", func(t *testing.T) {
		text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/closed"}, nil)
		for _, want := range []string{"disallowed by line 7", "Crawls always heed robots.txt, and no tool argument turns that off", "use web_fetch"} {
			if !isErr || !strings.Contains(text, want) {
				t.Errorf("web_crawl of a disallowed start: error %v, %q; want %q", isErr, text, want)
			}
		}
		if strings.Contains(text, "--no-robots") || strings.Contains(text, "respect_robots") {
			t.Errorf("an agent is told of an opt-out it cannot use: %q", text)
		}
		if n := site.count("/closed"); n != 0 {
			t.Errorf("the disallowed start URL was fetched")
		}
		if text, isErr := call(t, cs, "web_grep", map[string]any{"url": site.URL + "/closed", "pattern": "x", "depth": 1}, nil); !isErr || !strings.Contains(text, "disallowed by line 7") {
			t.Errorf("web_grep crawl of a disallowed start: %v %q", isErr, text)
		}
		// The one page, asked for on purpose, is read.
		var p FetchOutput
		if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/closed"}, &p); isErr || p.Title != "Closed" {
			t.Errorf("web_fetch of the page robots.txt closes to crawls: %s", text)
		}
	})

	t.Run("limits above the user's are lowered", func(t *testing.T) {
		before := len(site.hits())
		var out CrawlOutput
		text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "max_pages": 50, "max_depth": 9}, &out)
		if isErr {
			t.Fatal(text)
		}
		if out.Limits != (Limit{MaxPages: 2, MaxDepth: 1}) || out.Stored != 2 || out.Skipped["limit"] == 0 {
			t.Errorf("crawl with max_pages 50, max_depth 9 under limits 2 and 1: %+v", out)
		}
		wantNotes := []string{"max_pages 50 was lowered to 2, the limit the user set", "max_depth 9 was lowered to 1, the limit the user set"}
		if !slices.Equal(out.Notes, wantNotes) || !strings.Contains(text, wantNotes[0]) {
			t.Errorf("notes %q, want %q", out.Notes, wantNotes)
		}
		pages := 0
		for _, h := range site.hits()[before:] {
			if h.path != "/robots.txt" && h.path != "/sitemap.xml" && h.path != "/llms.txt" {
				pages++
			}
			if strings.HasPrefix(h.path, "/private/") {
				t.Errorf("a disallowed URL was fetched: %s", h.path)
			}
		}
		if pages != 2 {
			t.Errorf("the site served %d pages; the user's limit is 2", pages)
		}
		var grep GrepOutput
		if text, isErr := call(t, cs, "web_grep", map[string]any{"url": site.URL + "/", "pattern": "words", "depth": 5}, &grep); isErr ||
			!slices.Equal(grep.Notes, []string{"max_depth 5 was lowered to 1, the limit the user set"}) || grep.PagesSearched != 2 {
			t.Errorf("web_grep depth 5 under limit 1: %s %+v", text, grep)
		}
	})

	t.Run("bad arguments", func(t *testing.T) {
		for _, c := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"web_grep", map[string]any{"url": site.URL + "/", "pattern": "(?<=x)y"}, "not an RE2 regular expression"},
			{"web_grep", map[string]any{"url": site.URL + "/", "pattern": ""}, "pattern is empty"},
			{"web_grep", map[string]any{"url": site.URL + "/", "pattern": strings.Repeat("a", 1001)}, "at most 1000"},
			{"web_crawl", map[string]any{"url": "mailto:x@example.com"}, "give an absolute http or https URL"},
			{"web_crawl", map[string]any{"url": site.URL + "/", "max_pages": 0}, "max_pages"},
			{"web_crawl", map[string]any{"url": site.URL + "/", "include": "/docs"}, "include"},
			{"stash_search", map[string]any{"query": "  ** "}, "has no word to search for"},
			{"stash_read", map[string]any{"url_or_id": "https://nowhere.example/"}, "no page \"https://nowhere.example/\" in the stash: stash_search finds pages"},
		} {
			text, isErr := call(t, cs, c.tool, c.args, nil)
			if !isErr || !strings.Contains(text, c.want) || strings.Contains(text, s.svc.StashDir()) {
				t.Errorf("%s %v: error %v, %q; want %q", c.tool, c.args, isErr, text, c.want)
			}
		}
	})
}

func TestWebCrawlAndStash(t *testing.T) {
	site := newSite(t)
	site.robots = "User-agent: *\nDisallow: /private/\n"
	site.set("/", html("Tides", []string{"Tides rise and fall twice a day, pulled by the Moon and the Sun."}, "/spring", "/neap", "/private/log", "/hidden"))
	site.set("/spring", html("Spring tides", []string{"Spring tides come at new and full moon, when the Sun and Moon pull together.", strings.Repeat("Spring tide water runs high and low. ", 60)}))
	site.set("/neap", html("Neap tides", []string{"Neap tides come at the quarter moons, when the pulls are at right angles."}))
	site.set("/hidden", strings.Replace(html("Hidden", []string{"A page that asks not to be indexed."}), "<head>", `<head><meta name="robots" content="noindex">`, 1))
	site.set("/private/log", html("Log", []string{"Private."}))
	s := newServer(t, Limits{MaxChars: 4500}, loopback)
	s.progressEvery = 0 // a notification for every page
	var progress progressLog
	cs := connect(t, s, &progress)

	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "web_crawl", Arguments: map[string]any{"url": site.URL + "/"}, Meta: sdk.Meta{"progressToken": "crawl-1"}})
	if err != nil {
		t.Fatal(err)
	}
	var out CrawlOutput
	text, isErr := decode(t, res, &out)
	if isErr {
		t.Fatal(text)
	}
	source := strings.ReplaceAll(strings.TrimPrefix(site.URL, "http://"), ":", "_")
	if out.Source != source || out.Stored != 3 || out.New != 3 || out.Changed != 0 || out.Removed != 0 || out.Skipped["robots"] != 1 || out.Skipped["noindex"] != 1 || out.Failed != 0 {
		t.Errorf("summary: %+v", out)
	}
	if out.Limits != (Limit{MaxPages: DefaultMaxPages, MaxDepth: DefaultMaxDepth}) || len(out.Notes) != 0 {
		t.Errorf("limits %+v, notes %v; want the user's, unchanged", out.Limits, out.Notes)
	}
	// The skipped URLs are counted by reason, and listed for one reason
	// on request, without crawling again.
	if len(out.Skips) != 0 || out.SkippedCursor == "" || !strings.Contains(text, "noindex (1), robots (1)") {
		t.Errorf("skips %+v, cursor %q; want counts only, and a cursor to list them", out.Skips, out.SkippedCursor)
	}
	var reasons []string
	for _, reason := range []string{"robots", "noindex"} {
		var listed CrawlOutput
		if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "cursor": out.SkippedCursor, "skipped_reason": reason}, &listed); isErr || listed.Stored != 3 {
			t.Fatalf("web_crawl, the URLs skipped for %s: %s", reason, text)
		}
		for _, sk := range listed.Skips {
			reasons = append(reasons, sk.Reason+" "+strings.TrimPrefix(sk.URL, site.URL))
		}
	}
	sort.Strings(reasons)
	if !slices.Equal(reasons, []string{"noindex /hidden", "robots /private/log"}) {
		t.Errorf("skips %v", reasons)
	}
	if !strings.Contains(text, "3 stored (3 new, 0 changed), 0 unchanged, 0 removed, 0 failed, 2 skipped (1 noindex, 1 robots)") || !strings.Contains(text, fmt.Sprintf("stash_search and source %q", source)) {
		t.Errorf("text: %s", text)
	}
	// Progress: one notification per page fetched (the disallowed page is
	// not), in order, each saying how far the crawl is.
	events := drained(t, cs, &progress, site.URL+"/")
	if len(events) != 4 {
		t.Fatalf("%d progress notifications, want one per page fetched (4)", len(events))
	}
	for i, p := range events {
		if p.ProgressToken != "crawl-1" || p.Progress != float64(i+1) || p.Total != DefaultMaxPages || !strings.Contains(p.Message, "stored") {
			t.Errorf("progress %d: %+v", i, p)
		}
	}
	if last := events[len(events)-1].Message; !strings.HasPrefix(last, "4 of at most 100 pages fetched: ") {
		t.Errorf("last progress message %q", last)
	}

	// The stash tools read what was stored.
	var srcs SourcesOutput
	if text, isErr := call(t, cs, "stash_sources", nil, &srcs); isErr || len(srcs.Sources) != 1 || srcs.Sources[0] != (Source{Name: source, Snapshots: 3}) {
		t.Errorf("stash_sources: %s %+v", text, srcs)
	}
	var found SearchOutput
	text, isErr = call(t, cs, "stash_search", map[string]any{"query": "quarter moons", "source": source}, &found)
	if isErr || len(found.Hits) != 1 || found.Hits[0].Title != "Neap tides" || !strings.Contains(found.Hits[0].Snippet, "**quarter**") || !strings.Contains(text, "stash_read") {
		t.Errorf("stash_search: %s %+v", text, found)
	}
	if text, isErr := call(t, cs, "stash_search", map[string]any{"query": "quarter moons", "source": "elsewhere"}, nil); !isErr || !strings.Contains(text, `no source "elsewhere" in the stash`) || !strings.Contains(text, "stash_sources") {
		t.Errorf("stash_search in a source the stash does not hold: %v %q", isErr, text)
	}
	var none SearchOutput
	if _, isErr := call(t, cs, "stash_search", map[string]any{"query": "unicorns", "source": source}, &none); isErr || len(none.Hits) != 0 {
		t.Errorf("stash_search without hits in the crawl's source: %+v", none)
	}
	var many SearchOutput
	if text, isErr := call(t, cs, "stash_search", map[string]any{"query": "tides", "limit": 500}, &many); isErr || len(many.Hits) != 3 || !slices.Equal(many.Notes, []string{"limit 500 was lowered to 50"}) {
		t.Errorf("stash_search limit 500: %s %+v", text, many)
	}
	if text, _ := call(t, cs, "stash_search", map[string]any{"query": "unicorns"}, nil); !strings.Contains(text, "Nothing in the stash matches") {
		t.Errorf("no hits: %q", text)
	}

	// stash_read pages a long snapshot, by ID and then by the next start.
	var spring SearchOutput
	call(t, cs, "stash_search", map[string]any{"query": "spring new full moon"}, &spring)
	if len(spring.Hits) == 0 {
		t.Fatal("the spring tides page is not found")
	}
	var first, second ReadOutput
	text, isErr = call(t, cs, "stash_read", map[string]any{"url_or_id": spring.Hits[0].ID}, &first)
	// A line longer than a part is cut within, and each part says so.
	if isErr || first.URL != site.URL+"/spring" || !strings.HasPrefix(first.Markdown, "# Spring tides\n\nSpring tides come") || first.NextStart != first.Chars || first.Remaining != first.TotalChars-first.Chars ||
		!slices.Equal(first.Notes, []string{"this part ends within a line longer than max_chars allows; the next part goes on with it"}) ||
		first.Version == "" || !strings.Contains(text, fmt.Sprintf("call stash_read with url_or_id %q, version %q and start_index %d", spring.Hits[0].ID, first.Version, first.Chars)) {
		t.Errorf("stash_read: %s %+v", text, first)
	}
	if _, isErr := call(t, cs, "stash_read", map[string]any{"url_or_id": site.URL + "/spring", "start_index": first.NextStart, "max_chars": 100_000, "version": first.Version}, &second); isErr ||
		second.Version != first.Version || second.StartIndex != first.NextStart || second.NextStart != 0 && second.NextStart != first.NextStart+second.Chars ||
		len(second.Notes) == 0 || second.Notes[0] != "max_chars 100000 was lowered to 4500, the limit the user set" {
		t.Errorf("stash_read, second part: %+v", second)
	}
	whole := first.Markdown + second.Markdown
	for start := second.NextStart; start != 0; {
		var p ReadOutput
		if text, isErr := call(t, cs, "stash_read", map[string]any{"url_or_id": first.ID, "start_index": start, "version": first.Version}, &p); isErr {
			t.Fatal(text)
		}
		whole += p.Markdown
		start = p.NextStart
	}
	if len([]rune(whole)) != first.TotalChars || !strings.HasPrefix(whole, "# Spring tides\n") || !strings.HasSuffix(whole, "runs high and low.") {
		t.Errorf("the parts of stash_read make %q", whole)
	}

	// A second crawl finds the pages unchanged; the stash's log has both.
	var again CrawlOutput
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "max_depth": 0}, &again); isErr || again.Unchanged != 1 || again.Stored != 0 || again.Limits.MaxDepth != 0 {
		t.Errorf("re-crawl of the start URL only: %s %+v", text, again)
	}
}

func TestWebGrep(t *testing.T) {
	site := newSite(t)
	site.robots = "User-agent: *\nDisallow: /private/\n"
	site.set("/", html("Harbour", []string{"The harbour opens at dawn.", "Mooring fees are due at the harbour office."}, "/rules", "/private/fees", "/quiet"))
	site.set("/rules", html("Rules", []string{"No mooring in the fairway.", "Speed limit in the harbour: 4 knots."}))
	site.set("/private/fees", html("Fees", []string{"Harbour fees for members only."}))
	site.set("/quiet", strings.Replace(html("Quiet", []string{"The harbour is quiet here."}), "<head>", `<head><meta name="robots" content="noindex">`, 1))
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)

	// Depth 0: the one page, without robots.txt; line numbers are those of
	// the page's Markdown as web_fetch gives it.
	var one GrepOutput
	text, isErr := call(t, cs, "web_grep", map[string]any{"url": site.URL + "/private/fees", "pattern": "(?i)harbour"}, &one)
	if isErr || one.PagesSearched != 1 || one.MatchCount != 1 || one.Matches[0] != (Match{URL: site.URL + "/private/fees", Line: 3, Text: "Harbour fees for members only."}) {
		t.Errorf("web_grep depth 0: %s %+v", text, one)
	}
	if _, line, _ := strings.Cut(text, site.URL+"/private/fees:3: <<< page text id="); !strings.Contains(line, " Harbour fees for members only. ") {
		t.Errorf("text: %s", text)
	}
	var page FetchOutput
	call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/private/fees"}, &page)
	if lines := strings.Split(page.Markdown, "\n"); len(lines) < 3 || lines[2] != "Harbour fees for members only." {
		t.Errorf("line 3 of web_fetch's Markdown is not the match: %q", page.Markdown)
	}
	if n := site.count("/robots.txt"); n != 0 {
		t.Errorf("web_grep at depth 0 asked for robots.txt")
	}

	// Depth 1: a polite crawl. The disallowed page is not fetched and the
	// noindex page not searched; nothing is stored.
	fetchedBefore := site.count("/private/fees")
	var crawled GrepOutput
	text, isErr = call(t, cs, "web_grep", map[string]any{"url": site.URL + "/", "pattern": "(?i)harbour", "depth": 1}, &crawled)
	if isErr {
		t.Fatal(text)
	}
	var got []string
	for _, m := range crawled.Matches {
		got = append(got, fmt.Sprintf("%s:%d", strings.TrimPrefix(m.URL, site.URL), m.Line))
	}
	want := []string{"/:1", "/:3", "/:5", "/rules:5"}
	if !slices.Equal(got, want) || crawled.MatchCount != 4 || crawled.PagesSearched != 2 || crawled.Skipped["robots"] != 1 || crawled.Skipped["noindex"] != 1 {
		t.Errorf("web_grep depth 1: matches %v (want %v), %+v", got, want, crawled)
	}
	if site.count("/private/fees") != fetchedBefore || site.count("/robots.txt") != 1 {
		t.Errorf("the disallowed page was fetched by the crawl, or robots.txt not read once: %v", site.hits())
	}
	var srcs SourcesOutput
	if call(t, cs, "stash_sources", nil, &srcs); len(srcs.Sources) != 0 {
		t.Errorf("web_grep stored pages: %+v", srcs)
	}
	var none GrepOutput
	if text, isErr := call(t, cs, "web_grep", map[string]any{"url": site.URL + "/rules", "pattern": "lighthouse"}, &none); isErr || none.MatchCount != 0 || none.Matches == nil || !strings.Contains(text, "0 matches") {
		t.Errorf("no matches: %s %+v", text, none)
	}
}

// TestCancel: web_crawl returns while its crawl runs; cancelling a call
// that follows it stops the waiting, not the crawl; crawl_cancel stops
// the crawl: no request goes out after it, what was stored stays, and it
// says so.
func TestCancel(t *testing.T) {
	site := newSite(t)
	links := []string{"/p1", "/p2", "/p3", "/p4", "/p5", "/p6"}
	site.set("/", html("Start", []string{"The start page of a site with six more."}, links...))
	for _, l := range links {
		site.set(l, html("Page "+l, []string{"A page about the sea, " + l + ", long enough to be content."}))
	}
	held := make(chan struct{})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	site.block = func(r *http.Request) {
		if r.URL.Path == "/p3" {
			close(held)
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}
	}
	s := testServer(t, fetch.Config{AllowNets: loopback, Retries: -1}, 0, Limits{}, nil)
	cs := connect(t, s, nil)
	var started CrawlOutput
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "wait_seconds": 0}, &started); isErr || started.Crawl == 0 || started.State != "running" {
		t.Fatalf("web_crawl, not waiting: %s %+v", text, started)
	}
	waitFor(t, held, "the crawl to ask for /p3")

	// A call that waits for the crawl, cancelled: the crawl goes on.
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "crawl_status", Arguments: map[string]any{"crawl": started.Crawl, "wait_seconds": 30}})
		errc <- err
	}()
	cancel()
	if err := waitFor(t, errc, "the cancelled call to return"); err == nil {
		t.Errorf("the cancelled call returned no error")
	}
	var st CrawlOutput
	if text, isErr := call(t, cs, "crawl_status", map[string]any{"crawl": started.Crawl}, &st); isErr || st.State != "running" {
		t.Fatalf("after a call that followed it was cancelled: %s %+v; want the crawl running", text, st)
	}

	before := len(site.hits())
	var cancelled CrawlOutput
	text, isErr := call(t, cs, "crawl_cancel", map[string]any{"crawl": started.Crawl}, &cancelled)
	if isErr || cancelled.State != "cancelled" || cancelled.Skipped["cancelled"] == 0 || cancelled.Stored < 2 {
		t.Fatalf("crawl_cancel: %s %+v", text, cancelled)
	}
	after := site.hits()
	// Only /p3 itself, cut off, may have been logged since.
	if len(after) > before+1 {
		t.Errorf("requests after the cancellation: %v", after[before:])
	}
	for _, h := range after {
		if h.path == "/p4" || h.path == "/p5" || h.path == "/p6" {
			t.Errorf("%s was fetched after the crawl was cancelled", h.path)
		}
	}
	var srcs SourcesOutput
	call(t, cs, "stash_sources", nil, &srcs)
	if len(srcs.Sources) != 1 || srcs.Sources[0].Snapshots < 2 || srcs.Sources[0].Snapshots > 3 {
		t.Errorf("what was stored before the cancellation: %+v, want the start, /p1 and perhaps /p2", srcs)
	}
	if text, isErr := call(t, cs, "crawl_cancel", map[string]any{"crawl": started.Crawl}, nil); !isErr || !strings.Contains(text, "not running") {
		t.Errorf("cancelling it again: %v %s", isErr, text)
	}
}

// TestSharedPoliteness: two agents crawl one host at once and a third
// fetches from it; the host sees one request at a time, spaced by the
// user's delay, and one robots.txt request.
func TestSharedPoliteness(t *testing.T) {
	site := newSite(t)
	site.robots = "User-agent: *\nDisallow: /private/\n"
	links := []string{"/a", "/b", "/c"}
	site.set("/", html("Start", []string{"The start page, with words enough to be content."}, links...))
	for _, l := range links {
		site.set(l, html("Page "+l, []string{"Words of page " + l + ", enough to be content."}))
	}
	const delay = 60 * time.Millisecond
	s := testServer(t, fetch.Config{AllowNets: loopback, Retries: -1}, delay, Limits{}, nil)
	agents := []*sdk.ClientSession{connect(t, s, nil), connect(t, s, nil), connect(t, s, nil)}
	var wg sync.WaitGroup
	results := make([]CrawlOutput, 2)
	texts := make([]string, 3)
	for i := range 2 {
		wg.Go(func() {
			res, err := agents[i].CallTool(t.Context(), &sdk.CallToolParams{Name: "web_crawl", Arguments: map[string]any{"url": site.URL + "/"}})
			if err != nil {
				texts[i] = err.Error()
				return
			}
			texts[i], _ = decode(t, res, &results[i])
		})
	}
	wg.Go(func() {
		res, err := agents[2].CallTool(t.Context(), &sdk.CallToolParams{Name: "web_fetch", Arguments: map[string]any{"url": site.URL + "/b"}})
		if err == nil {
			texts[2], _ = decode(t, res, nil)
		}
	})
	wg.Wait()
	for i, r := range results {
		if r.Stored+r.Unchanged != 4 {
			t.Errorf("agent %d's crawl: %+v\n%s", i, r, texts[i])
		}
	}
	if !strings.Contains(texts[2], "Words of page /b") {
		t.Errorf("web_fetch: %s", texts[2])
	}
	hits := site.hits()
	sort.Slice(hits, func(i, j int) bool { return hits[i].start.Before(hits[j].start) })
	// Two crawls of four pages, a sitemap and an llms.txt each, the
	// fetch, and one robots.txt.
	if len(hits) != 14 || site.count("/robots.txt") != 1 {
		t.Errorf("the host served %d requests (%d of robots.txt), want 14 (1)", len(hits), site.count("/robots.txt"))
	}
	for i := 1; i < len(hits); i++ {
		if gap := hits[i].start.Sub(hits[i-1].end); gap < delay {
			t.Errorf("request %d (%s) began %v after request %d (%s) ended; the delay is %v", i, hits[i].path, gap, i-1, hits[i-1].path, delay)
		}
	}
}

// TestStreamableHTTP serves the tools over streamable HTTP, as heed mcp
// --http does.
func TestStreamableHTTP(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Over HTTP", []string{"A page read by an agent over streamable HTTP."}))
	s := newServer(t, Limits{}, loopback)
	cs := serveHTTP(t, s, nil)
	var p FetchOutput
	if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/"}, &p); isErr || p.Title != "Over HTTP" {
		t.Errorf("web_fetch over HTTP: %s %+v", text, p)
	}
}

// TestStashBusy: while another heed process writes the stash, web_crawl
// says so and the stash can still be read; the server holds the stash's
// writer lock only during its calls, so once the other is done, and
// between calls, the stash is free.
func TestStashBusy(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Buoys", []string{"Red buoys to port, green to starboard, coming in from the sea."}))
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, nil); isErr {
		t.Fatal(text)
	}
	// Between calls the server holds no lock: another heed can write.
	other, err := stash.Open(t.Context(), s.svc.StashDir())
	if err != nil {
		t.Fatal(err)
	}
	if !other.Writable() {
		t.Fatalf("the server held the stash's writer lock between calls")
	}
	text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, nil)
	if !isErr || !strings.Contains(text, "another heed process (such as a crawl the user started) is writing the stash. Try again when it is done") {
		t.Errorf("web_crawl while another process writes: %v %q", isErr, text)
	}
	var found SearchOutput
	if text, isErr := call(t, cs, "stash_search", map[string]any{"query": "starboard"}, &found); isErr || len(found.Hits) != 1 {
		t.Errorf("stash_search while another process writes: %s %+v", text, found)
	}
	other.Close()
	var again CrawlOutput
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, &again); isErr || again.Unchanged != 1 {
		t.Errorf("web_crawl once the other is done: %s %+v", text, again)
	}
}

// waitFor waits for a value on ch, failing the test if none comes within
// a bound far beyond what a working server needs: a broken one fails the
// test rather than hang it.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("still waiting for %s after 20s", what)
		panic("unreachable")
	}
}

// TestCloseDuringCall: Server.Close while a web_crawl holds the stash (as
// heed mcp --http does when shutting down gives up on a call in flight)
// stops the call, which returns without harm, and later calls are
// refused with a reason.
func TestCloseDuringCall(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Start", []string{"The start page of a site with words enough to be content."}, "/p1"))
	site.set("/p1", html("P1", []string{"Page one of a site with words enough to be content here."}))
	held := make(chan struct{})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	site.block = func(r *http.Request) {
		if r.URL.Path == "/p1" {
			close(held)
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}
	}
	s := newServer(t, Limits{}, loopback)
	called := waitCalled(s)
	cs := connect(t, s, nil)
	go cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "web_crawl", Arguments: map[string]any{"url": site.URL + "/"}})
	waitFor(t, held, "the crawl to ask for /p1")
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	if tool := waitFor(t, called, "web_crawl to return"); tool != "web_crawl" {
		t.Errorf("called %s", tool)
	}
	if err := waitFor(t, closed, "Close to return"); err != nil {
		t.Errorf("Close: %v", err)
	}
	// The stash was let go: another heed may write it.
	other, err := stash.Open(t.Context(), s.svc.StashDir())
	if err != nil {
		t.Fatal(err)
	}
	writable := other.Writable()
	other.Close()
	if !writable {
		t.Errorf("the stash is still held after Close")
	}
	text, isErr := call(t, cs, "stash_sources", nil, nil)
	if !isErr || !strings.Contains(text, "shutting down") {
		t.Errorf("a call after Close: error %v, %q", isErr, text)
	}
}

// TestErrorsWithoutInternalDetail: an agent's error never carries Go
// type names, the resolver's address, the stash's path or limits in
// terms other than its own.
func TestErrorsWithoutInternalDetail(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Start", []string{"The start page, with words enough to be the content."}, "/deeper"))
	site.set("/deeper", html("Deeper", []string{"A deeper page, with words enough to be the content."}))
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"web_fetch", map[string]any{"url": site.URL + "/", "start_index": 1e19}, "start_index"},
		{"web_fetch", map[string]any{"url": site.URL + "/", "max_chars": 1e19}, "max_chars"},
		{"web_crawl", map[string]any{"url": site.URL + "/", "max_pages": 1e19}, "max_pages"},
		{"web_grep", map[string]any{"url": site.URL + "/", "pattern": "x", "depth": 1e19}, "depth"},
		{"stash_search", map[string]any{"query": "x", "limit": 1e19}, "limit"},
	} {
		text, isErr := call(t, cs, c.tool, c.args, nil)
		if !isErr || !strings.Contains(text, c.want) || strings.Contains(text, "Go struct") || strings.Contains(text, "unmarshal") || strings.Contains(text, "mcp.") {
			t.Errorf("%s %v: error %v, %q; want a refusal naming %s without Go's words", c.tool, c.args, isErr, text, c.want)
		}
	}

	// A name that does not resolve: said so, without the resolver's
	// address. (The resolver answers as the system's does, and asks no
	// one.)
	dns := testServer(t, fetch.Config{Retries: -1, Resolver: noSuchHost{}}, crawlopt.Defaults().Delay, Limits{}, nil)
	text, isErr := call(t, connect(t, dns, nil), "web_fetch", map[string]any{"url": "http://nowhere.invalid/"}, nil)
	if !isErr || strings.Contains(text, "10.255.255.53") || !strings.Contains(text, "the name nowhere.invalid does not resolve. Check the host name") {
		t.Errorf("web_fetch of a name that does not resolve: %v %q", isErr, text)
	}

	// max_depth 0 is reported as the agent gave it.
	var out CrawlOutput
	text, isErr = call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "max_depth": 0}, &out)
	if isErr || strings.Contains(text, "max_depth -1") {
		t.Errorf("web_crawl max_depth 0: %v %q", isErr, text)
	}
	for _, sk := range out.Skips {
		if strings.Contains(sk.Detail, "-1") {
			t.Errorf("skip %+v speaks of a max_depth the agent did not give", sk)
		}
	}
}

// TestCrawlFailureWithoutStashPath: a page the stash cannot write is a
// failed URL, told without the stash's path.
func TestCrawlFailureWithoutStashPath(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Start", []string{"The start page, with words enough to be the content."}))
	s := newServer(t, Limits{}, loopback)
	source := strings.ReplaceAll(strings.TrimPrefix(site.URL, "http://"), ":", "_")
	// Something in the way of the page's file: a directory where it goes.
	rel, _ := stash.PathFor(source, site.URL+"/")
	if err := os.MkdirAll(filepath.Join(s.svc.StashDir(), filepath.FromSlash(rel), "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s, nil)
	var out CrawlOutput
	text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "skipped_reason": "failed"}, &out)
	if strings.Contains(text, s.svc.StashDir()) || strings.Contains(fmt.Sprint(out), s.svc.StashDir()) {
		t.Errorf("the agent is shown the stash's path: %v %q %+v", isErr, text, out)
	}
	if !isErr && (out.Failed != 1 || len(out.Skips) != 1 || !strings.Contains(out.Skips[0].Detail, "heed's own log")) {
		t.Errorf("the failed page: %q %+v", text, out)
	}
}

// noSuchHost is a resolver that finds no name, as a system resolver
// says it.
type noSuchHost struct{}

func (noSuchHost) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	return nil, &net.DNSError{Err: "no such host", Name: host, Server: "10.255.255.53:53", IsNotFound: true}
}

// TestFetchRedirectTakesTurn: one agent crawls host B while another
// fetches a page of host A that redirects to B. The redirect's request to
// B waits for B's turn in the shared schedule: B serves one request at a
// time, spaced by the delay, as if the fetch had asked B itself.
func TestFetchRedirectTakesTurn(t *testing.T) {
	b, inSlow, overlap := heldSite(t)
	a := newSite(t)
	a.Config.Handler = http.RedirectHandler(b.URL+"/x", http.StatusFound)

	const delay = 100 * time.Millisecond
	s := testServer(t, fetch.Config{AllowNets: loopback, Retries: -1}, delay, Limits{}, nil)
	crawler, fetcher := connect(t, s, nil), connect(t, s, nil)
	crawled := make(chan struct{})
	go func() {
		defer close(crawled)
		crawler.CallTool(t.Context(), &sdk.CallToolParams{Name: "web_crawl", Arguments: map[string]any{"url": b.URL + "/"}})
	}()
	waitFor(t, inSlow, "the crawl's request for /slow")
	var p FetchOutput
	if text, isErr := call(t, fetcher, "web_fetch", map[string]any{"url": a.URL + "/"}, &p); isErr || p.URL != b.URL+"/x" || p.Title != "X" {
		t.Fatalf("web_fetch through the redirect: %s %+v", text, p)
	}
	if waitFor(t, overlap, "the held request") {
		t.Errorf("B served %s (web_fetch via A's redirect) while the crawl's request for /slow was still out", p.URL)
	}
	waitFor(t, crawled, "the crawl")
	hits := b.hits()
	sort.Slice(hits, func(i, j int) bool { return hits[i].start.Before(hits[j].start) })
	for i := 1; i < len(hits); i++ {
		if gap := hits[i].start.Sub(hits[i-1].end); gap < delay {
			t.Errorf("B: request %d (%s) began %v after request %d (%s) ended; the delay is %v", i, hits[i].path, gap, i-1, hits[i-1].path, delay)
		}
	}
}

// heldSite is host B of the redirect tests: a crawl from its start page
// asks for /slow, which it holds until /x arrives or 2 s pass. inSlow is
// closed when /slow is asked for; overlap says whether /x arrived while
// /slow was held.
func heldSite(t *testing.T) (b *site, inSlow chan struct{}, overlap chan bool) {
	t.Helper()
	b = newSite(t)
	b.set("/", html("B", []string{"The start page of B, with words enough to be content."}, "/slow"))
	b.set("/slow", html("Slow", []string{"A slow page of B, with words enough to be content."}))
	b.set("/x", html("X", []string{"A page of B reached through A's redirect, with words."}))
	inSlow = make(chan struct{})
	overlap = make(chan bool, 1)
	xArrived := make(chan struct{})
	b.block = func(r *http.Request) {
		switch r.URL.Path {
		case "/slow":
			close(inSlow)
			// A request to B that does not wait for B's turn arrives
			// while this one is held.
			select {
			case <-xArrived:
				overlap <- true
			case <-time.After(2 * time.Second):
				overlap <- false
			}
		case "/x":
			close(xArrived)
		}
	}
	return b, inSlow, overlap
}

// TestPartsOfOneCopy: the parts of a page an agent reads come from the
// copy its first part was cut from, though the page changes and another
// agent reads it meanwhile; a part of a copy not held is refused with a
// way on, and one asked for without its version comes from the copy read
// last, with a note.
func TestPartsOfOneCopy(t *testing.T) {
	site := newSite(t)
	site.set("/news.txt", strings.Repeat("A line of the first copy.\n", 400))
	site.types["/news.txt"] = "text/plain"
	s := newServer(t, Limits{}, loopback)
	a, b := connect(t, s, nil), connect(t, s, nil)
	var p1, other, p2 FetchOutput
	call(t, a, "web_fetch", map[string]any{"url": site.URL + "/news.txt", "max_chars": MinChars}, &p1)
	site.set("/news.txt", strings.Repeat("B line of the second copy.\n", 500)) // the page changes
	call(t, b, "web_fetch", map[string]any{"url": site.URL + "/news.txt", "max_chars": MinChars}, &other)
	if other.Version == p1.Version || !strings.HasPrefix(other.Markdown, "B line") || p1.NextStart == 0 {
		t.Errorf("the changed page: %+v; the first copy's version %q", other, p1.Version)
	}
	text, isErr := call(t, a, "web_fetch", map[string]any{"url": site.URL + "/news.txt", "max_chars": MinChars, "start_index": p1.NextStart, "version": p1.Version}, &p2)
	if isErr || !strings.HasPrefix(p2.Markdown, "A line") || strings.Contains(p2.Markdown, "B line") || p2.TotalChars != p1.TotalChars || p2.Version != p1.Version {
		t.Errorf("agent A's second part does not continue its first: %v %q %+v", isErr, text, p2)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"url": site.URL + "/news.txt", "start_index": 50, "version": "0123456789abcdef"}, "is no longer held"},
	} {
		if text, isErr := call(t, a, "web_fetch", c.args, nil); !isErr || !strings.Contains(text, c.want) || !strings.Contains(text, "start_index 0") {
			t.Errorf("web_fetch %v: error %v, %q; want %q and a way on", c.args, isErr, text, c.want)
		}
	}
	// Without a version: the copy read last (A's), said so in a note.
	var p3 FetchOutput
	if text, isErr := call(t, a, "web_fetch", map[string]any{"url": site.URL + "/news.txt", "max_chars": MinChars, "start_index": p1.NextStart}, &p3); isErr ||
		!strings.HasPrefix(p3.Markdown, "A line") || p3.Version != p1.Version || len(p3.Notes) != 1 || !strings.Contains(p3.Notes[0], "no version was given") {
		t.Errorf("a later part without its version: %v %q %+v", isErr, text, p3)
	}
	if n := site.count("/news.txt"); n != 2 {
		t.Errorf("the page was asked for %d times; want once per first part (2)", n)
	}
}

// TestPageCacheBytes: the page cache holds at most pageCacheBytes,
// dropping the least lately read copies, but always the newest.
func TestPageCacheBytes(t *testing.T) {
	c := newPageCache()
	big := strings.Repeat("x", pageCacheBytes/3)
	for i := range 4 {
		c.put("u", newPage("u", &extract.Document{Markdown: big + fmt.Sprint(i)}, directives.Set{}))
	}
	if len(c.pages) != 2 || c.bytes > pageCacheBytes || c.get("u", version(big+"3")) == nil || c.get("u", version(big+"0")) != nil {
		t.Errorf("%d copies, %d bytes held", len(c.pages), c.bytes)
	}
	huge := strings.Repeat("y", pageCacheBytes+1)
	c.put("v", newPage("v", &extract.Document{Markdown: huge}, directives.Set{}))
	if len(c.pages) != 1 || c.get("v", version(huge)) == nil {
		t.Errorf("a copy larger than the cache: %d copies held", len(c.pages))
	}
	c.remove("v " + version(huge))
	if len(c.pages) != 0 || len(c.order) != 0 || c.bytes != 0 {
		t.Errorf("an empty cache: %d copies, %d in order, %d bytes", len(c.pages), len(c.order), c.bytes)
	}
}

// TestPageCacheCountsAllKept: a copy is counted by all it keeps, not its
// Markdown only: a page whose description is large, and whose Markdown
// is small, fills the cache by its description. Its links are not kept.
func TestPageCacheCountsAllKept(t *testing.T) {
	c := newPageCache()
	desc := strings.Repeat("d", pageCacheBytes/2)
	links := make([]string, 1000)
	for i := range links {
		links[i] = fmt.Sprintf("https://example.com/%d", i)
	}
	for i := range 3 {
		c.put("u", newPage("u", &extract.Document{Title: "T", Description: desc, Markdown: fmt.Sprint("# T ", i), Links: links}, directives.Set{}))
	}
	if len(c.pages) != 1 || c.bytes < len(desc) || c.bytes > pageCacheBytes {
		t.Errorf("three copies with a description of half the cache: %d held, %d bytes counted", len(c.pages), c.bytes)
	}
	p := c.get("u", version("# T 2"))
	if p == nil || p.description != desc || p.title != "T" || p.size("u "+p.version) != c.bytes {
		t.Errorf("the newest copy: %v; counted %d bytes", p != nil, c.bytes)
	}
}

// TestPageCacheLifetime: a copy is kept for pageCacheTTL from when it
// was last read, and a copy past it is dropped (not only refused) at the
// next use of the cache, whatever copy that use asks for.
func TestPageCacheLifetime(t *testing.T) {
	c := newPageCache()
	now := time.Unix(1_000_000, 0)
	c.now = func() time.Time { return now }
	c.put("a", newPage("a", &extract.Document{Markdown: "A"}, directives.Set{}))
	c.put("b", newPage("b", &extract.Document{Markdown: "B"}, directives.Set{}))
	now = now.Add(pageCacheTTL - time.Minute)
	if c.get("a", version("A")) == nil { // a is read: kept for longer
		t.Fatal("a copy within its lifetime is not held")
	}
	now = now.Add(2 * time.Minute) // b's lifetime is over, a's is not
	if c.get("a", version("A")) == nil {
		t.Error("a copy read lately is not held")
	}
	if _, ok := c.pages["b "+version("B")]; ok || len(c.order) != 1 || c.bytes != c.pages["a "+version("A")].size("a "+version("A")) {
		t.Errorf("a copy past its lifetime is still held: %d copies, %d bytes", len(c.pages), c.bytes)
	}
	now = now.Add(pageCacheTTL + time.Second)
	c.put("c", newPage("c", &extract.Document{Markdown: "C"}, directives.Set{}))
	if len(c.pages) != 1 || c.get("a", version("A")) != nil || c.get("c", version("C")) == nil {
		t.Errorf("after a's lifetime: %d copies", len(c.pages))
	}
}

// TestRobotsUnreachable: a site whose robots.txt answers 503 is closed to
// crawls while it does (RFC 9309), and the agent is told that robots.txt
// could not be read, not that it disallows the page, and what it can do.
func TestRobotsUnreachable(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Start", []string{"The start page, with words enough to be content."}))
	site.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		site.serve(w, r)
	})
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"web_crawl", map[string]any{"url": site.URL + "/"}},
		{"web_grep", map[string]any{"url": site.URL + "/", "pattern": "start", "depth": 1}},
	} {
		text, isErr := call(t, cs, c.tool, c.args, nil)
		for _, want := range []string{"the site's robots.txt could not be read (it answered HTTP 503)", "Try again later", "web_fetch"} {
			if !isErr || !strings.Contains(text, want) {
				t.Errorf("%s with robots.txt answering 503: error %v, %q; want %q", c.tool, isErr, text, want)
			}
		}
		if strings.Contains(text, "disallowed") {
			t.Errorf("%s: %q speaks of a rule that disallows", c.tool, text)
		}
	}
	if n := site.count("/"); n != 0 {
		t.Errorf("the start page was crawled %d times", n)
	}
	var p FetchOutput
	if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/"}, &p); isErr || p.Title != "Start" {
		t.Errorf("web_fetch of the one page: %s", text)
	}
}

// TestStashReadPartsOfOneCopy: a crawl that stores a new copy of a page
// between two parts of stash_read does not give the second part from the
// new copy: the call says the page changed, and how to go on.
func TestStashReadPartsOfOneCopy(t *testing.T) {
	site := newSite(t)
	alpha := make([]string, 40)
	for i := range alpha {
		alpha[i] = fmt.Sprintf("Alpha paragraph %d, with words enough to make the page long.", i)
	}
	site.set("/", html("News", alpha))
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	var c CrawlOutput
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "max_depth": 0}, &c); isErr || c.Stored != 1 {
		t.Fatalf("web_crawl: %v %q", isErr, text)
	}
	var p1, p2 ReadOutput
	if text, isErr := call(t, cs, "stash_read", map[string]any{"url_or_id": site.URL + "/", "max_chars": MinChars}, &p1); isErr || p1.Version == "" || p1.NextStart == 0 {
		t.Fatal(text)
	}
	// The second part of the same copy.
	if text, isErr := call(t, cs, "stash_read", map[string]any{"url_or_id": p1.ID, "max_chars": MinChars, "start_index": p1.NextStart, "version": p1.Version}, &p2); isErr || p2.Version != p1.Version || p2.TotalChars != p1.TotalChars {
		t.Fatalf("the second part of an unchanged page: %v %q", isErr, text)
	}
	site.set("/", html("News", []string{strings.Repeat("Omega ", 400)}))
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "max_depth": 0}, &c); isErr || c.Stored != 1 {
		t.Fatalf("web_crawl again: %v %q", isErr, text)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"url_or_id": p1.ID, "max_chars": MinChars, "start_index": p1.NextStart, "version": p1.Version}, "changed in the stash"},
	} {
		if text, isErr := call(t, cs, "stash_read", c.args, nil); !isErr || !strings.Contains(text, c.want) || !strings.Contains(text, "start_index 0") {
			t.Errorf("stash_read %v: error %v, %q; want %q and a way on", c.args, isErr, text, c.want)
		}
	}
	// Without a version: the copy the stash holds now, said so.
	var pv ReadOutput
	if text, isErr := call(t, cs, "stash_read", map[string]any{"url_or_id": p1.ID, "max_chars": MinChars, "start_index": p1.NextStart}, &pv); isErr ||
		!strings.Contains(pv.Markdown, "Omega") || len(pv.Notes) == 0 || !strings.Contains(pv.Notes[0], "no version was given") {
		t.Errorf("stash_read without a version: %v %q", isErr, text)
	}
	// From the start, the new copy, with its own version.
	var p3 ReadOutput
	if text, isErr := call(t, cs, "stash_read", map[string]any{"url_or_id": p1.ID, "max_chars": MinChars}, &p3); isErr || p3.Version == p1.Version || !strings.Contains(p3.Markdown, "Omega") {
		t.Errorf("the new copy from the start: %v %q", isErr, text)
	}
}

// TestNoStashYet: before anything was crawled there is no stash, and the
// tools that read it say so without making one: stash_sources lists
// none, stash_search and stash_read say the stash is empty and how to
// fill it, naming no path of the machine.
func TestNoStashYet(t *testing.T) {
	s := newServer(t, Limits{}, loopback)
	dir := s.svc.StashDir()
	os.Remove(dir) // t.TempDir made it; a new user has none
	cs := connect(t, s, nil)
	var srcs SourcesOutput
	if text, isErr := call(t, cs, "stash_sources", nil, &srcs); isErr || len(srcs.Sources) != 0 || !strings.Contains(text, "empty") {
		t.Errorf("stash_sources with no stash: %v %q", isErr, text)
	}
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"stash_search", map[string]any{"query": "tides"}},
		{"stash_read", map[string]any{"url_or_id": "https://example.com/"}},
	} {
		text, isErr := call(t, cs, c.tool, c.args, nil)
		if !isErr || !strings.Contains(text, "stash is empty: web_crawl crawls a site into it") || strings.Contains(text, dir) {
			t.Errorf("%s with no stash: %v %q", c.tool, isErr, text)
		}
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("reading the stash made it")
	}
}

// TestSnippetWithoutControls: a page's control and bidi characters are
// shown escaped in stash_search's snippets, as on a terminal, never raw.
func TestSnippetWithoutControls(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Tides", []string{"The spring tides \u202e come \x1b[2J twice a month, with words enough to be content."}))
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "max_depth": 0}, nil); isErr {
		t.Fatalf("web_crawl: %s", text)
	}
	var found SearchOutput
	text, isErr := call(t, cs, "stash_search", map[string]any{"query": "spring tides"}, &found)
	if isErr || len(found.Hits) != 1 {
		t.Fatalf("stash_search: %s", text)
	}
	sn := found.Hits[0].Snippet
	if strings.ContainsAny(sn+text, "\u202e\x1b") || !strings.Contains(sn, "**spring**") {
		t.Errorf("a snippet with the page's controls raw, or unmarked: %q", sn)
	}
}

// TestNetworkErrorNamesTheURLOnce: a page whose host refuses the
// connection is told with its URL once, not again in Go's own words.
func TestNetworkErrorNamesTheURLOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String() + "/page"
	ln.Close()
	cs := connect(t, newServer(t, Limits{}, loopback), nil)
	text, isErr := call(t, cs, "web_fetch", map[string]any{"url": u}, nil)
	if !isErr || strings.Count(text, u) != 1 {
		t.Errorf("web_fetch of a closed port: %v %q; want an error naming its URL once", isErr, text)
	}
}

// TestStashReadAmbiguousID: stash_read of a start of an ID that two
// pages' IDs have says it is ambiguous and names them, however short the
// start; one more digit reads the page.
func TestStashReadAmbiguousID(t *testing.T) {
	site := newSite(t)
	// Two pages whose IDs start with the same three hex digits.
	seen := map[string]string{}
	var a, b, prefix string
	for i := 0; prefix == ""; i++ {
		p := fmt.Sprintf("/p%d", i)
		id := heed.IDOf(site.URL + p)
		if q, ok := seen[id[:3]]; ok && heed.IDOf(site.URL + q)[3] != id[3] {
			a, b, prefix = q, p, id[:3]
		}
		seen[id[:3]] = p
	}
	for _, p := range []string{a, b} {
		site.set(p, html("Page "+p, []string{"The page " + p + " has words enough to be the content."}))
	}
	cs := connect(t, newServer(t, Limits{}, loopback), nil)
	for _, p := range []string{a, b} {
		if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + p, "max_depth": 0}, nil); isErr {
			t.Fatalf("web_crawl %s: %s", p, text)
		}
	}
	text, isErr := call(t, cs, "stash_read", map[string]any{"url_or_id": prefix}, nil)
	if !isErr || !strings.Contains(text, "IDs start with "+prefix) || !strings.Contains(text, heed.IDOf(site.URL+a)) || strings.Contains(text, "no page") {
		t.Errorf("stash_read %s (the start of two IDs): %v %q; want it said to be ambiguous", prefix, isErr, text)
	}
	var out ReadOutput
	if text, isErr := call(t, cs, "stash_read", map[string]any{"url_or_id": heed.IDOf(site.URL + b)[:4]}, &out); isErr || out.URL != site.URL+b {
		t.Errorf("stash_read of a start only one ID has: %v %q %+v", isErr, text, out)
	}
}
