package mcp

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/ingest"
)

// FetchInput is web_fetch's arguments.
type FetchInput struct {
	URL        string `json:"url" jsonschema:"The page to read: an absolute http or https URL."`
	MaxChars   int    `json:"max_chars,omitempty" jsonschema:"The most characters of Markdown to return in this call. Longer pages come in parts."`
	StartIndex int    `json:"start_index,omitempty" jsonschema:"The character to start from: 0 (the default) for the first part; for the next part, the next_start_index of the previous call."`
	Version    string `json:"version,omitempty" jsonschema:"With a start_index above 0: the version the first part gave, so that every part comes from the one copy of the page it was cut from (without it, the copy held now)."`
}

// Part is a part of a long text, and where the rest of it is.
type Part struct {
	Markdown   string `json:"markdown" jsonschema:"This part of the page's main content, as Markdown."`
	StartIndex int    `json:"start_index" jsonschema:"The character this part starts at."`
	Chars      int    `json:"chars" jsonschema:"The characters in this part."`
	TotalChars int    `json:"total_chars" jsonschema:"The characters in the whole text."`
	Remaining  int    `json:"remaining_chars" jsonschema:"The characters after this part; 0 when this part is the last."`
	NextStart  int    `json:"next_start_index,omitempty" jsonschema:"Where the next part starts: call again with this start_index. Absent when this part is the last."`
}

// FetchOutput is web_fetch's result.
type FetchOutput struct {
	URL         string `json:"url" jsonschema:"The page's URL, after redirects."`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Part
	Version string   `json:"version" jsonschema:"Which copy of the page this part was cut from: pass it, with next_start_index, for the next part."`
	Robots  string   `json:"robots,omitempty" jsonschema:"What the page's own robots directives (meta robots, X-Robots-Tag) say to heed. Reported, not enforced: a page asked for on purpose is not a crawl."`
	Notes   []string `json:"notes,omitempty" jsonschema:"What heed changed in the request, such as a max_chars lowered to the user's limit."`
}

// CrawlInput is web_crawl's arguments.
type CrawlInput struct {
	URL      string   `json:"url" jsonschema:"Where the crawl starts: an absolute http or https URL. The crawl stays on its host."`
	MaxPages int      `json:"max_pages,omitempty" jsonschema:"The most pages to fetch. Defaults to, and is never more than, the user's limit."`
	MaxDepth *int     `json:"max_depth,omitempty" jsonschema:"How many links deep to follow from the start URL; 0 crawls the start URL only. Defaults to, and is never more than, the user's limit."`
	Include  []string `json:"include,omitempty" jsonschema:"Crawl only paths matching these globs, such as /docs/** (* within a path segment, ** across). The start URL is always crawled."`
	Exclude  []string `json:"exclude,omitempty" jsonschema:"Skip paths matching these globs, such as /blog/**."`
}

// Skip is a URL a crawl skipped or failed, and why.
type Skip struct {
	URL    string `json:"url"`
	Event  string `json:"event" jsonschema:"skipped or failed"`
	Reason string `json:"reason" jsonschema:"The reason, such as robots, noindex, signal, limit, deadline."`
	Detail string `json:"detail,omitempty" jsonschema:"The robots.txt rule and line, the directive, or the error."`
}

// Limit is a limit a crawl ran under.
type Limit struct {
	MaxPages int `json:"max_pages"`
	MaxDepth int `json:"max_depth"`
}

// CrawlOutput is web_crawl's result.
type CrawlOutput struct {
	Source    string         `json:"source" jsonschema:"The stash source the pages are stored under: pass it to stash_search to search only them."`
	Start     string         `json:"start"`
	Stored    int            `json:"stored" jsonschema:"Pages stored, new or changed."`
	Unchanged int            `json:"unchanged" jsonschema:"Pages already in the stash as they are."`
	Failed    int            `json:"failed"`
	Skipped   map[string]int `json:"skipped" jsonschema:"URLs skipped, by reason: robots (robots.txt disallows), noindex, signal (Content-Signal ai-input=no), scope, limit, deadline, duplicate, not-html, redirect."`
	Robots    string         `json:"robots" jsonschema:"What the robots.txt policy did."`
	Left      crawl.Left     `json:"left" jsonschema:"What the crawl's bounds left alone: sitemaps not read to their end, URLs found and not kept. A larger max_pages reads more."`
	Seconds   float64        `json:"elapsed_seconds"`
	Limits    Limit          `json:"limits" jsonschema:"The limits the crawl ran under."`
	Skips     []Skip         `json:"skips,omitempty" jsonschema:"The first URLs skipped (other than out of scope) or failed, with their reasons."`
	Notes     []string       `json:"notes,omitempty" jsonschema:"What heed changed in the request, such as a max_pages lowered to the user's limit."`
}

// GrepInput is web_grep's arguments.
type GrepInput struct {
	URL     string `json:"url" jsonschema:"The page to search, or where the crawl starts at depth above 0: an absolute http or https URL."`
	Pattern string `json:"pattern" jsonschema:"An RE2 regular expression (Go syntax: no lookaround, no backreferences), matched against each line of the pages' Markdown. (?i) makes it case-insensitive."`
	Depth   int    `json:"depth,omitempty" jsonschema:"0 (the default): the one page, read on purpose, without robots.txt. Above 0: a polite crawl this many links deep, heeding robots.txt, that stores nothing."`
}

// Match is one line that matched.
type Match struct {
	URL  string `json:"url"`
	Line int    `json:"line" jsonschema:"The line's number in the page's Markdown (as web_fetch returns it), from 1."`
	Text string `json:"text" jsonschema:"The line (cut at 500 characters)."`
}

// GrepOutput is web_grep's result.
type GrepOutput struct {
	Pattern       string         `json:"pattern"`
	PagesSearched int            `json:"pages_searched"`
	MatchCount    int            `json:"match_count" jsonschema:"Every match found; matches lists at most 200, the first by URL and line."`
	Matches       []Match        `json:"matches" jsonschema:"Matches by URL and line."`
	Truncated     bool           `json:"truncated,omitempty" jsonschema:"True when there were more matches than listed."`
	Skipped       map[string]int `json:"skipped,omitempty" jsonschema:"For a crawl: URLs skipped, by reason."`
	Robots        string         `json:"robots" jsonschema:"Whether robots.txt was consulted."`
	Notes         []string       `json:"notes,omitempty"`
}

// SearchInput is stash_search's arguments.
type SearchInput struct {
	Query  string `json:"query" jsonschema:"Words to find (all must match, in any form that stems alike), \"quoted phrases\", and a trailing * for a prefix."`
	Limit  int    `json:"limit,omitempty" jsonschema:"The most results (default 10, at most 50)."`
	Source string `json:"source,omitempty" jsonschema:"Only this source (as stash_sources lists them, or web_crawl named it)."`
}

// Hit is one search result.
type Hit struct {
	ID      string  `json:"id" jsonschema:"The snapshot's ID: stash_read takes it."`
	URL     string  `json:"url"`
	Title   string  `json:"title"`
	Source  string  `json:"source"`
	Snippet string  `json:"snippet" jsonschema:"Words around the match, the matching ones in **bold**."`
	Score   float64 `json:"score" jsonschema:"BM25; higher is better."`
}

// SearchOutput is stash_search's result.
type SearchOutput struct {
	Hits  []Hit    `json:"hits" jsonschema:"Best first."`
	Notes []string `json:"notes,omitempty"`
}

// ReadInput is stash_read's arguments.
type ReadInput struct {
	URLOrID    string `json:"url_or_id" jsonschema:"A snapshot's URL, or the ID stash_search gave."`
	StartIndex int    `json:"start_index,omitempty" jsonschema:"The character to start from: 0 (the default) for the first part; for the next part, the next_start_index of the previous call."`
	MaxChars   int    `json:"max_chars,omitempty" jsonschema:"The most characters of Markdown to return in this call."`
	Version    string `json:"version,omitempty" jsonschema:"With a start_index above 0: the version the first part gave, so that every part comes from the one copy of the page it was cut from (without it, the copy held now)."`
}

// ReadOutput is stash_read's result.
type ReadOutput struct {
	ID        string    `json:"id"`
	URL       string    `json:"url"`
	Title     string    `json:"title"`
	Source    string    `json:"source"`
	FetchedAt time.Time `json:"fetched_at"`
	Part
	Version string   `json:"version" jsonschema:"Which copy of the page this part was cut from (a hash of its Markdown): pass it, with next_start_index, for the next part."`
	Notes   []string `json:"notes,omitempty"`
}

// Source is one source of the stash.
type Source struct {
	Name      string `json:"name" jsonschema:"The source's name: stash_search's source argument."`
	Snapshots int    `json:"snapshots"`
}

// SourcesOutput is stash_sources' result.
type SourcesOutput struct {
	Sources []Source `json:"sources" jsonschema:"By name."`
}

func ptr[T any](v T) *T { return &v }

// maxArg is the greatest value of an integer argument. Limits lower
// larger counts; no text has this many characters.
const maxArg = 1_000_000_000

// schemaFor infers a tool's schema from a type and sets the least value of
// the integer properties named.
func schemaFor[T any](minimums map[string]float64) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err) // the types above are fixed: a test catches this
	}
	// Types first: a pointer's ["null", "integer"] is an integer too.
	singleTypes(s)
	for name, m := range minimums {
		s.Properties[name].Minimum = ptr(m)
	}
	// Every integer has a greatest value too, so that a number too large
	// for heed is refused by the schema, in its words, not by decoding.
	for _, p := range s.Properties {
		if p.Type == "integer" {
			p.Maximum = ptr(float64(maxArg))
		}
	}
	return s
}

// singleTypes gives every property one type: the inferred ["null", "array"]
// of a slice (or pointer) becomes "array". An optional argument is left out,
// never null, and a result never holds null; and clients that map schemas
// onto a dialect of single types (as some model providers' function
// declarations are) read them as written.
func singleTypes(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	for _, p := range s.Properties {
		singleTypes(p)
	}
	singleTypes(s.Items)
	singleTypes(s.AdditionalProperties)
}

func (s *Server) addTools() {
	l := s.cfg.Limits
	open := ptr(true)
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:  "web_fetch",
		Title: "Read one web page",
		Description: fmt.Sprintf(`Read one web page as Markdown: its main content, without navigation, headers, footers or ads. A page asked for on purpose is not a crawl, so robots.txt is not consulted; the page's own robots directives are reported. Long pages come in parts of max_chars characters (default %d, at most %d): when remaining_chars is above 0, call web_fetch again with the same url, start_index set to next_start_index and the version the first part gave: every part then comes from the one copy of the page (for 10 minutes after the last part read; after that, or if the page changed, start again at 0). Only public addresses, and networks the user allowed, are reached. Reads HTML, plain text and Markdown.`,
			min(DefaultChars, l.MaxChars), l.MaxChars),
		InputSchema:  schemaFor[FetchInput](map[string]float64{"max_chars": 1, "start_index": 0}),
		OutputSchema: schemaFor[FetchOutput](nil),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: open},
	}, s.webFetch)
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:  "web_crawl",
		Title: "Crawl a site politely into the stash",
		Description: fmt.Sprintf(`Crawl a site breadth-first from url, on its host, and store each page's main content as Markdown in heed's stash, where stash_search finds it. The crawl is polite and no argument changes that: robots.txt is heeded for every URL (a start URL it disallows fails the crawl), requests to a host go one at a time at least %s apart (longer if robots.txt's Crawl-delay asks), and pages marked noindex or a site's Content-Signal ai-input=no are not stored. The user's limits are %d pages, %d links deep and %s; larger max_pages or max_depth are lowered to them. Sends progress notifications when the request carries a progress token: pages fetched, of at most max_pages (at most one a page, and four a second). Cancelling the request stops the crawl and nothing more is sent for it; what was stored stays. Returns the summary: pages stored, unchanged, failed, and skipped by reason.`,
			s.svc.Delay(), l.MaxPages, l.MaxDepth, l.Deadline),
		InputSchema:  schemaFor[CrawlInput](map[string]float64{"max_pages": 1, "max_depth": 0}),
		OutputSchema: schemaFor[CrawlOutput](nil),
		Annotations:  &sdk.ToolAnnotations{OpenWorldHint: open, DestructiveHint: ptr(false), IdempotentHint: true},
	}, s.webCrawl)
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:  "web_grep",
		Title: "Find a pattern in a page or a site",
		Description: fmt.Sprintf(`Find the lines of web pages' Markdown that match an RE2 regular expression, with their URL and line number. At depth 0 (the default) it reads the one page at url on purpose, as web_fetch does, without robots.txt. Above depth 0 it crawls from url as politely as web_crawl does (robots.txt heeded, one request at a time per host, noindex pages and Content-Signal ai-input=no sites not searched), at most %d pages and %d links deep (a larger depth is lowered), and stores nothing in the stash. Lists at most %d matches. Sends progress notifications, pages fetched of at most how many, when the request carries a progress token.`,
			l.MaxPages, l.MaxDepth, MaxMatches),
		InputSchema:  schemaFor[GrepInput](map[string]float64{"depth": 0}),
		OutputSchema: schemaFor[GrepOutput](nil),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: open},
	}, s.webGrep)
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:         "stash_search",
		Title:        "Search the stash",
		Description:  `Search the pages heed has crawled into its stash (web_crawl puts them there), ranked by BM25 with a title match weighing more. Returns each hit's ID, URL, title, source and a snippet; read a whole page with stash_read.`,
		InputSchema:  schemaFor[SearchInput](map[string]float64{"limit": 1}),
		OutputSchema: schemaFor[SearchOutput](nil),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.stashSearch)
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:  "stash_read",
		Title: "Read a page from the stash",
		Description: fmt.Sprintf(`Read a stored page's Markdown by its URL or ID (as stash_search gives). Long pages come in parts of max_chars characters (default %d, at most %d): when remaining_chars is above 0, call again with the same url_or_id, start_index set to next_start_index and the version the first part gave. If a crawl stored a new copy of the page meanwhile, the call says so, and the page is read again from start_index 0. Makes no network request.`,
			min(DefaultChars, l.MaxChars), l.MaxChars),
		InputSchema:  schemaFor[ReadInput](map[string]float64{"max_chars": 1, "start_index": 0}),
		OutputSchema: schemaFor[ReadOutput](nil),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.stashRead)
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:         "stash_sources",
		Title:        "List the stash's sources",
		Description:  `List the sources in heed's stash (each site web_crawl crawled, or the user added) and how many pages each holds. Pass a name to stash_search's source to search only it.`,
		InputSchema:  schemaFor[struct{}](nil),
		OutputSchema: schemaFor[SourcesOutput](nil),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.stashSources)
}

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

// part cuts a text into the part asked for.
func part(text string, start, n int) (Part, error) {
	w, total := window(text, start, n)
	if start > 0 && start >= total {
		return Part{}, fmt.Errorf("start_index %d is past the end of the text, which has %d characters; start_index 0 reads it from the start", start, total)
	}
	p := Part{Markdown: w, StartIndex: start, Chars: len([]rune(w)), TotalChars: total}
	p.Remaining = total - start - p.Chars
	if p.Remaining > 0 {
		p.NextStart = start + p.Chars
	}
	return p, nil
}

// partText is what an agent reads of a part: the Markdown, and where the
// rest is.
func partText(tool, ref string, p Part) string {
	var b strings.Builder
	b.WriteString(p.Markdown)
	b.WriteString("\n\n---\n")
	if p.Remaining > 0 {
		fmt.Fprintf(&b, "Characters %d to %d of %d; %d characters remain. For the next part, call %s with %s and start_index %d.\n",
			p.StartIndex, p.StartIndex+p.Chars, p.TotalChars, p.Remaining, tool, ref, p.NextStart)
	} else {
		fmt.Fprintf(&b, "Characters %d to %d of %d: the end.\n", p.StartIndex, p.StartIndex+p.Chars, p.TotalChars)
	}
	return b.String()
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
				if p, err = s.fetchPage(ctx, in.URL); err != nil {
					return nil, out, err
				}
			}
			out.Notes = append(out.Notes, "no version was given: this part is cut from the copy heed holds now; pass the version the first part gave to be sure every part comes from one copy")
		} else if p = s.pages.get(norm, in.Version); p == nil {
			return nil, out, fmt.Errorf("the copy of %s that version %q names is no longer held: heed keeps the pages it read for %v, and only so many, or the page has changed since. Start again with start_index 0, which reads the page as it is now", in.URL, in.Version, pageCacheTTL)
		}
	} else {
		var err error
		if p, err = s.fetchPage(ctx, in.URL); err != nil {
			return nil, out, err
		}
	}
	pt, err := part(p.markdown, in.StartIndex, n)
	if err != nil {
		return nil, out, err
	}
	out.URL, out.Title, out.Description, out.Part = p.url, p.title, p.description, pt
	out.Robots, out.Version = p.robots, p.version
	text := partText("web_fetch", fmt.Sprintf("url %q, version %q", in.URL, p.version), pt)
	if in.StartIndex == 0 {
		text = fmt.Sprintf("Page: %s\nURL: %s\n\n", out.Title, out.URL) + text
	}
	for _, note := range out.Notes {
		text += "Note: " + note + ".\n"
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

// DefaultProgressEvery is the least time between two progress
// notifications of one call.
const DefaultProgressEvery = 250 * time.Millisecond

// progress sends a tool call's progress notifications, if the request
// asked for them. They are about the work: how many pages the call has
// fetched (progress), of at most how many (total); one is sent when that
// count rises, never for a link skipped unfetched, so a call sends at
// most one a page. They are spaced by at least every: a rise that comes
// sooner is held back, and sent with the next, or when the call's work is
// done (flush). Once the call's context ends (its client cancelled it,
// or the server is closing), none is sent.
type progress struct {
	req   *sdk.CallToolRequest
	ctx   context.Context
	token any
	total int
	every time.Duration

	mu   sync.Mutex
	sent int       // the progress of the last notification sent
	last time.Time // when it was sent
	held *sdk.ProgressNotificationParams
}

func (s *Server) newProgress(ctx context.Context, req *sdk.CallToolRequest, total int) *progress {
	return &progress{req: req, ctx: ctx, token: req.Params.GetProgressToken(), total: total, every: s.progressEvery}
}

// update says that done pages of at most total are fetched, and what the
// call is doing; msg is called only when a notification is to be made.
func (p *progress) update(done int, msg func() string) {
	if p.token == nil || p.req.Session == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	done = min(done, p.total)
	if p.ctx.Err() != nil || done <= p.sent {
		return
	}
	n := &sdk.ProgressNotificationParams{ProgressToken: p.token, Progress: float64(done), Total: float64(p.total), Message: msg()}
	if !p.last.IsZero() && time.Since(p.last) < p.every {
		p.held = n
		return
	}
	p.notify(n)
}

// flush sends the notification held back, if any: the call's work is done.
func (p *progress) flush() {
	if p.token == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held != nil && p.ctx.Err() == nil {
		p.notify(p.held)
	}
}

func (p *progress) notify(n *sdk.ProgressNotificationParams) {
	p.req.Session.NotifyProgress(p.ctx, n)
	p.sent, p.last, p.held = int(n.Progress), time.Now(), nil
}

// fetched reports whether a crawl's event is of a request it made, as
// max_pages counts them: a page stored, unchanged or failed, or skipped
// for what it said (its robots directives, the site's content signal, its
// type, a duplicate) or for where it redirected (to another origin, whose
// target is queued, or out of scope, disallowed or past the limit); not a
// URL skipped unfetched (out of scope, disallowed, past a limit, or left
// in the queue when the crawl stopped). A page reached through redirects
// on its origin is one event for its requests, so progress can still fall
// short of the requests made.
func fetched(ev crawl.Event) bool {
	switch ev.Kind {
	case crawl.Stored, crawl.Unchanged, crawl.Failed:
		return true
	}
	switch ev.Reason {
	case crawl.ReasonNoindex, crawl.ReasonSignal, crawl.ReasonType, crawl.ReasonDup, crawl.ReasonRedirect:
		return true
	}
	// The crawler says so of a URL it refused after fetching it: a
	// redirect it would not follow, or a final URL it would not keep.
	return ev.Kind == crawl.Skipped && strings.HasPrefix(ev.Detail, "redirected to ")
}

// crawlLimits settles a crawl's limits: the user's when the agent gives
// none, and never more.
func (s *Server) crawlLimits(pages int, depth *int, notes *[]string) (maxPages, maxDepth int) {
	l := s.cfg.Limits
	maxPages, maxDepth = l.MaxPages, l.MaxDepth
	if pages > l.MaxPages {
		*notes = append(*notes, fmt.Sprintf("max_pages %d was lowered to %d, the limit the user set", pages, l.MaxPages))
	} else if pages > 0 {
		maxPages = pages
	}
	if depth != nil {
		if *depth > l.MaxDepth {
			*notes = append(*notes, fmt.Sprintf("max_depth %d was lowered to %d, the limit the user set", *depth, l.MaxDepth))
		} else {
			maxDepth = *depth
		}
	}
	return maxPages, maxDepth
}

// crawlRequest is a crawl within the user's limits.
func (s *Server) crawlRequest(start string, maxPages, maxDepth int) ingest.CrawlRequest {
	return ingest.CrawlRequest{
		Start: start, MaxPages: maxPages, MaxDepth: maxDepth,
		Deadline: s.cfg.Limits.Deadline, Delay: s.svc.Delay(),
	}
}

const maxSkipsShown = 20

func (s *Server) webCrawl(ctx context.Context, req *sdk.CallToolRequest, in CrawlInput) (*sdk.CallToolResult, CrawlOutput, error) {
	ctx, end, err := s.begin(ctx, "web_crawl")
	if err != nil {
		return nil, CrawlOutput{}, err
	}
	defer end()
	var out CrawlOutput
	if err := inputURL(in.URL, "crawl"); err != nil {
		return nil, out, err
	}
	if _, err := crawl.Normalize(in.URL); err != nil {
		return nil, out, fmt.Errorf("%q is not a URL heed can crawl: give an absolute http or https URL, such as https://docs.example.com/", in.URL)
	}
	maxPages, maxDepth := s.crawlLimits(in.MaxPages, in.MaxDepth, &out.Notes)
	cr := s.crawlRequest(in.URL, maxPages, maxDepth)
	cr.Source = crawl.SourceName(in.URL)
	cr.Include, cr.Exclude = in.Include, in.Exclude

	prog := s.newProgress(ctx, req, maxPages)
	var mu sync.Mutex
	counts := map[crawl.Kind]int{}
	pages := 0
	res, err := s.svc.Crawl(ctx, cr, func(ev crawl.Event) {
		mu.Lock()
		defer mu.Unlock()
		counts[ev.Kind]++
		if !fetched(ev) {
			return
		}
		pages++
		prog.update(pages, func() string {
			return fmt.Sprintf("%d of at most %d pages fetched: %d stored, %d unchanged, %d skipped, %d failed; %d queued; last %s %s",
				pages, maxPages, counts[crawl.Stored], counts[crawl.Unchanged], counts[crawl.Skipped], counts[crawl.Failed], ev.Queued, ev.Kind, ev.URL)
		})
	})
	prog.flush()
	if cut := s.cut(ctx); err != nil && cut != nil {
		s.log.Debug("heed mcp: a crawl cut short", "error", err)
		return nil, out, cut
	}
	if err != nil {
		return nil, out, s.crawlError(ctx, in.URL, err)
	}
	if cut := s.cut(ctx); cut != nil {
		return nil, out, fmt.Errorf("%v. web_crawl of %s stopped after storing %d pages; they stay in the stash, and crawling again picks up where this left off", cut, in.URL, res.Stored)
	}
	sum := res.Summary
	out.Source, out.Start = res.Source, in.URL
	out.Stored, out.Unchanged, out.Failed, out.Skipped = sum.Stored, sum.Unchanged, sum.Failed, sum.Skipped
	out.Robots, out.Seconds, out.Left = sum.Robots, sum.Seconds, sum.Left
	out.Limits = Limit{MaxPages: maxPages, MaxDepth: maxDepth}
	for _, ev := range res.Skips[:min(len(res.Skips), maxSkipsShown)] {
		out.Skips = append(out.Skips, Skip{URL: ev.URL, Event: string(ev.Kind), Reason: ev.Reason, Detail: s.skipDetail(ev, maxDepth)})
	}
	text := fmt.Sprintf("Crawled %s into the stash as source %q: %s", in.URL, res.Source, sum.Text())
	for _, sk := range out.Skips {
		text += fmt.Sprintf("- %s %s: %s: %s\n", sk.Event, sk.URL, sk.Reason, sk.Detail)
	}
	for _, note := range out.Notes {
		text += "Note: " + note + ".\n"
	}
	text += fmt.Sprintf("Search these pages with stash_search and source %q.\n", res.Source)
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

// maxPatternLen bounds a web_grep pattern.
const maxPatternLen = 1000

// maxPatternInsts bounds a web_grep pattern's compiled program. RE2 runs
// in time linear in the text, times the program's size: a short pattern
// with a large repeat count, such as [a-z]{1000}x, is a program of a
// thousand steps, and costly on every byte of every page.
const maxPatternInsts = 400

// maxLineChars is how much of a matching line web_grep returns.
const maxLineChars = 500

// maxMatchBytes is how much of a line web_grep matches: a longer line is
// matched in its first maxMatchBytes only, so that one long line (a page
// of text with no line breaks) cannot make the matching slow to stop.
const maxMatchBytes = 16 << 10

// compilePattern compiles a web_grep pattern, or says why it will not.
func compilePattern(pattern string) (*regexp.Regexp, error) {
	if pattern == "" {
		return nil, errors.New("pattern is empty: give an RE2 regular expression, such as (?i)rate limit")
	}
	if len(pattern) > maxPatternLen {
		return nil, fmt.Errorf("pattern is %d bytes long; heed takes patterns of at most %d", len(pattern), maxPatternLen)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern is not an RE2 regular expression (%v); RE2 has no lookaround or backreferences, and \\ escapes a special character", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("pattern is not an RE2 regular expression (%v)", err)
	}
	prog, err := syntax.Compile(tree.Simplify())
	if err != nil {
		return nil, fmt.Errorf("pattern is not an RE2 regular expression (%v)", err)
	}
	if n := len(prog.Inst); n > maxPatternInsts {
		return nil, fmt.Errorf("pattern is too costly to match: it compiles to %d steps, and heed matches patterns of at most %d. Counted repeats cost the most ({1000} repeats what precedes it a thousand times): use a smaller count, or + or *, and fewer or shorter alternatives", n, maxPatternInsts)
	}
	return re, nil
}

// grepper collects a pattern's matches over pages. It keeps the first
// MaxMatches matches by URL and line, and counts the rest.
type grepper struct {
	re      *regexp.Regexp
	ctx     context.Context // matching stops when it ends
	mu      sync.Mutex
	pages   int
	matches []Match
	count   int
	cut     int  // lines matched in their first maxMatchBytes only
	stopped bool // a page's matching stopped when ctx ended
}

func (g *grepper) page(url, markdown string) {
	var found []Match
	n, cut, line, stopped := 0, 0, 0, false
	for l := range strings.Lines(markdown) {
		if g.ctx.Err() != nil {
			stopped = true
			break
		}
		line++
		l = strings.TrimRight(l, "\r\n")
		m := l
		if len(m) > maxMatchBytes {
			m = cutBytes(m, maxMatchBytes)
			cut++
		}
		if !g.re.MatchString(m) {
			continue
		}
		n++
		// Within a page lines come in order: its first MaxMatches are
		// all it can add to the first MaxMatches overall.
		if len(found) < MaxMatches {
			found = append(found, Match{URL: url, Line: line, Text: strings.Clone(cutChars(l, maxLineChars))})
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pages++
	g.count += n
	g.cut += cut
	g.stopped = g.stopped || stopped
	if len(found) == 0 {
		return
	}
	// Keep the first matches by URL and line, whatever order the pages
	// come in: never more than twice MaxMatches at once.
	g.matches = append(g.matches, found...)
	sort.SliceStable(g.matches, func(i, j int) bool {
		a, b := g.matches[i], g.matches[j]
		return a.URL < b.URL || a.URL == b.URL && a.Line < b.Line
	})
	g.matches = slices.Clip(g.matches[:min(len(g.matches), MaxMatches)])
}

// cutBytes cuts s to at most n bytes, at a character's boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cutChars cuts s to at most n characters.
func cutChars(s string, n int) string {
	i := 0
	for at := range s {
		if i == n {
			return s[:at]
		}
		i++
	}
	return s
}

func (s *Server) webGrep(ctx context.Context, req *sdk.CallToolRequest, in GrepInput) (*sdk.CallToolResult, GrepOutput, error) {
	ctx, end, err := s.begin(ctx, "web_grep")
	if err != nil {
		return nil, GrepOutput{}, err
	}
	defer end()
	out := GrepOutput{Pattern: in.Pattern}
	if err := inputURL(in.URL, "read"); err != nil {
		return nil, out, err
	}
	re, err := compilePattern(in.Pattern)
	if err != nil {
		return nil, out, err
	}
	// The user's deadline bounds the matching as it does a crawl, at any
	// depth.
	deadline := s.cfg.Limits.Deadline
	gctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	g := &grepper{re: re, ctx: gctx}
	if in.Depth <= 0 {
		p, err := s.fetchPage(gctx, in.URL)
		if err != nil {
			if cut := s.cut(ctx); cut != nil {
				return nil, out, cut
			}
			return nil, out, err
		}
		s.newProgress(ctx, req, 1).update(1, func() string { return fmt.Sprintf("1 of 1 page fetched: read %s, searching it", p.url) })
		g.page(p.url, p.markdown)
		out.Robots = "robots.txt is not consulted (one page, read on purpose)"
	} else {
		if _, err := crawl.Normalize(in.URL); err != nil {
			return nil, out, fmt.Errorf("%q is not a URL heed can crawl: give an absolute http or https URL, such as https://docs.example.com/", in.URL)
		}
		maxPages, maxDepth := s.crawlLimits(0, &in.Depth, &out.Notes)
		cr := s.crawlRequest(in.URL, maxPages, maxDepth)
		cr.Page = func(url string, doc *extract.Document) { g.page(url, doc.Markdown) }
		// No stash: a grep reads pages, and stores none of them.
		cr.NoStore = true
		prog := s.newProgress(ctx, req, maxPages)
		var mu sync.Mutex
		pages := 0
		res, err := s.svc.Crawl(gctx, cr, func(ev crawl.Event) {
			if !fetched(ev) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			pages++
			prog.update(pages, func() string {
				g.mu.Lock()
				defer g.mu.Unlock()
				return fmt.Sprintf("%d of at most %d pages fetched, %d searched, %d matches; last %s %s", pages, maxPages, g.pages, g.count, ev.Kind, ev.URL)
			})
		})
		prog.flush()
		if cut := s.cut(ctx); cut != nil {
			return nil, out, cut
		}
		if err != nil {
			return nil, out, s.crawlError(gctx, in.URL, err)
		}
		out.Skipped, out.Robots = res.Skipped, res.Robots
	}
	if cut := s.cut(ctx); cut != nil {
		return nil, out, cut
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if gctx.Err() != nil {
		out.Notes = append(out.Notes, fmt.Sprintf("the user's deadline of %v passed before the search was done: these are the matches found until then", deadline))
	}
	if g.cut > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d lines were longer than %d KB and were searched in their first %d KB only", g.cut, maxMatchBytes>>10, maxMatchBytes>>10))
	}
	out.PagesSearched, out.MatchCount = g.pages, g.count
	out.Matches = append([]Match{}, g.matches...)
	out.Truncated = g.count > len(out.Matches)
	var b strings.Builder
	fmt.Fprintf(&b, "%d matches of %q in %d pages", out.MatchCount, in.Pattern, out.PagesSearched)
	if out.Truncated {
		fmt.Fprintf(&b, " (the first %d listed; %d more not listed)", len(out.Matches), out.MatchCount-len(out.Matches))
	}
	b.WriteString(".\n")
	for _, m := range out.Matches {
		fmt.Fprintf(&b, "%s:%d: %s\n", m.URL, m.Line, m.Text)
	}
	for _, note := range out.Notes {
		b.WriteString("Note: " + note + ".\n")
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: b.String()}}}, out, nil
}

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
	var b strings.Builder
	for _, h := range hits {
		out.Hits = append(out.Hits, Hit{ID: h.ID, URL: h.URL, Title: h.Title, Source: h.Source, Snippet: h.Snippet, Score: h.Score})
		fmt.Fprintf(&b, "%s  %s\n    [%s] %s\n    %s\n", h.ID, h.Title, h.Source, h.URL, h.Snippet)
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
	text := partText("stash_read", fmt.Sprintf("url_or_id %q, version %q", snap.ID, v), pt)
	if in.StartIndex == 0 {
		text = fmt.Sprintf("Page: %s\nURL: %s\nSource: %s, fetched %s\n\n", snap.Title, snap.URL, snap.Source, snap.FetchedAt.Format(time.RFC3339)) + text
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
	if err != nil {
		return nil, out, s.failed(ctx, "list the stash's sources", err)
	}
	var b strings.Builder
	for name, n := range srcs {
		out.Sources = append(out.Sources, Source{Name: name, Snapshots: n})
	}
	sort.Slice(out.Sources, func(i, j int) bool { return out.Sources[i].Name < out.Sources[j].Name })
	for _, src := range out.Sources {
		fmt.Fprintf(&b, "%s: %d pages\n", src.Name, src.Snapshots)
	}
	if len(out.Sources) == 0 {
		b.WriteString("The stash is empty. web_crawl crawls a site into it.\n")
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: b.String()}}}, out, nil
}
