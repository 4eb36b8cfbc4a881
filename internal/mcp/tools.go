package mcp

import (
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed/internal/crawl"
)

// FetchInput is web_fetch's arguments.
type FetchInput struct {
	URL        string `json:"url" jsonschema:"The page to read: an absolute http or https URL."`
	MaxChars   int    `json:"max_chars,omitempty"` // its description is maxCharsDoc
	StartIndex int    `json:"start_index,omitempty" jsonschema:"The character of the page's Markdown to start from: 0 (the default) for the first part; for the next part, the next_start_index of the previous call."`
	Version    string `json:"version,omitempty" jsonschema:"With a start_index above 0: the version the first part gave, so that every part comes from the one copy of the page it was cut from (without it, the copy held now)."`
	Render     string `json:"render,omitempty" jsonschema:"When to render the page in a browser, its scripts run: auto (the default: when its HTML holds next to nothing but scripts), always, never. Never more than the user allows."`
}

// Part is a part of a long text, and where the rest of it is. Its
// Markdown is FenceReopen, then the text's characters StartIndex to
// StartIndex+Chars, then FenceClose (see part).
type Part struct {
	Markdown    string `json:"markdown" jsonschema:"This part of the page's main content, as Markdown: the page's own words, not heed's (the text content marks them so). It is fence_reopen, then the text's characters start_index to start_index+chars, then fence_close; it ends at a paragraph or line break, unless one line is longer than a part can hold."`
	StartIndex  int    `json:"start_index" jsonschema:"The character of the whole text this part starts at (characters are Unicode code points, and fence lines heed added are not counted)."`
	Chars       int    `json:"chars" jsonschema:"The characters of the text in this part, not counting fence_reopen and fence_close."`
	TotalChars  int    `json:"total_chars" jsonschema:"The characters in the whole text."`
	Remaining   int    `json:"remaining_chars" jsonschema:"The characters after this part; 0 when this part is the last."`
	NextStart   int    `json:"next_start_index,omitempty" jsonschema:"Where the next part starts, start_index + chars: call again with this start_index. Absent when this part is the last."`
	FenceReopen string `json:"fence_reopen,omitempty" jsonschema:"A line heed added before the text, with its line break: this part starts inside a fenced code block, and the line opens it again, with the marks and info string of its first line, in the block quotes and list items it is in (and, if the part starts within a line, the indentation that line has there). Not in the page: drop it to join the parts into the whole text."`
	FenceClose  string `json:"fence_close,omitempty" jsonschema:"A line heed added after the text (after a line break, if the text ends within a line): this part ends inside a fenced code block, and the line closes it; the next part opens it again. Not in the page: drop it to join the parts into the whole text."`

	// inLine: the part ends within a line longer than a part can hold.
	inLine bool
	// fenceLeftOpen: the part ends inside a fenced code block whose
	// marks are too long to repeat within the part.
	fenceLeftOpen bool
}

// FetchOutput is web_fetch's result.
type FetchOutput struct {
	URL         string `json:"url" jsonschema:"The page's URL, after redirects."`
	Title       string `json:"title,omitempty" jsonschema:"The page's title: its own words, not heed's."`
	Description string `json:"description,omitempty" jsonschema:"The page's description: its own words, not heed's."`
	Part
	Version  string   `json:"version" jsonschema:"Which copy of the page this part was cut from: pass it, with next_start_index, for the next part."`
	Robots   string   `json:"robots,omitempty" jsonschema:"What the page's own robots directives (meta robots, X-Robots-Tag) say to heed. Reported, not enforced: a page asked for on purpose is not a crawl."`
	Via      string   `json:"via,omitempty" jsonschema:"Where the Markdown came from when not from the page's HTML: markdown (the site answered with Markdown) or markdown-alternate (the page's own Markdown version)."`
	Rendered bool     `json:"rendered,omitempty" jsonschema:"The page was rendered in a browser, its scripts run."`
	Notes    []string `json:"notes,omitempty" jsonschema:"What heed changed in the request, such as a max_chars lowered to the user's limit, and how it cut the part."`
	// ChangedSince is set on a first part (start_index 0) of a page the
	// stash holds.
	ChangedSince *ChangedSince `json:"changed_since,omitempty" jsonschema:"On the first part of a page the stash holds: whether the page changed since the stash's copy, and by how many words. Absent when the stash holds no copy. web_fetch stores nothing: web_crawl stores the page as it is now."`
}

// ChangedSince is how a page read now differs from the stash's copy of
// it.
type ChangedSince struct {
	ID        string    `json:"id" jsonschema:"The stash's snapshot of the page: stash_read reads its copy."`
	Version   int       `json:"history_version" jsonschema:"The number of the stash's copy in the page's history, which the resource heed://snapshot/{id}/history lists (not a part's version, which names a copy by its hash)."`
	FetchedAt time.Time `json:"fetched_at" jsonschema:"When the stash's copy was fetched."`
	Removed   time.Time `json:"removed,omitzero" jsonschema:"When a crawl found the page gone (HTTP 404 or 410, it now redirects, or no longer reached), if one did: the stash keeps its last copy."`
	Change    string    `json:"change" jsonschema:"unchanged: the page reads as the stash's copy does; changed: it differs."`
	Added     int       `json:"words_added" jsonschema:"Words added to the stash's copy, a word changed counted as one added and one removed."`
	Deleted   int       `json:"words_removed" jsonschema:"Words of the stash's copy removed."`
}

// CrawlInput is web_crawl's arguments.
type CrawlInput struct {
	URL           string   `json:"url" jsonschema:"Where the crawl starts: an absolute http or https URL. The crawl stays within its directory, the path up to its last / (https://go.dev/doc/ stays under /doc/), unless whole_site. With cursor: the url of the crawl that gave it."`
	MaxPages      int      `json:"max_pages,omitempty" jsonschema:"The most pages to fetch. Defaults to, and is never more than, the user's limit."`
	MaxDepth      *int     `json:"max_depth,omitempty" jsonschema:"How many links deep to follow from the start URL; 0 crawls the start URL only. Defaults to, and is never more than, the user's limit."`
	Include       []string `json:"include,omitempty" jsonschema:"Crawl only paths matching these globs, such as /docs/** (* within a path segment, ** across). The start URL is always crawled."`
	Exclude       []string `json:"exclude,omitempty" jsonschema:"Skip paths matching these globs, such as /blog/**."`
	WholeSite     bool     `json:"whole_site,omitempty" jsonschema:"Crawl the start URL's whole site (its origin), not only its directory."`
	Render        string   `json:"render,omitempty" jsonschema:"When to render a page in a browser, its scripts run: auto (the default: when its HTML holds next to nothing but scripts), always, never. Never more than the user allows."`
	MaxChars      int      `json:"max_chars,omitempty"` // its description is maxCharsDoc
	SkippedReason string   `json:"skipped_reason,omitempty" jsonschema:"List the URLs skipped for this reason (failed: the URLs that failed), with their details, as many as max_chars allows. Without cursor, of the crawl this call makes; with the skipped_cursor of a crawl's result, of that crawl, without crawling again."`
	Cursor        string   `json:"cursor,omitempty" jsonschema:"The skipped_cursor or next_cursor a web_crawl result gave, with the same url: lists that crawl's skipped URLs (of skipped_reason, or of the reason the cursor goes on with), and crawls nothing."`
	WaitSeconds   *int     `json:"wait_seconds,omitempty" jsonschema:"How long to wait for the crawl to end before returning where it stands (it goes on after): default 40, at most 50, 0 to return at once."`
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
	Crawl         int64          `json:"crawl" jsonschema:"The crawl's ID: crawl_status, crawl_pages and crawl_cancel take it."`
	State         string         `json:"state" jsonschema:"running (it goes on), done, interrupted (heed takes it up again when it starts), failed, or cancelled."`
	Source        string         `json:"source" jsonschema:"The stash source the pages are stored under: pass it to stash_search to search only them."`
	Start         string         `json:"start"`
	Stored        int            `json:"stored" jsonschema:"Pages stored: new and changed together."`
	New           int            `json:"new" jsonschema:"Pages stored that the stash did not hold, or held as found gone."`
	Changed       int            `json:"changed" jsonschema:"Pages stored whose content changed since the stash's copy: the copy is kept as an earlier version."`
	Unchanged     int            `json:"unchanged" jsonschema:"Pages already in the stash as they are."`
	Removed       int            `json:"removed" jsonschema:"Pages the stash held that were found gone: they answered HTTP 404 or 410, now redirect to another page of their site, or a complete crawl no longer reached them. Their last copy stays in the stash, out of search."`
	Failed        int            `json:"failed"`
	Requests      int            `json:"requests" jsonschema:"Requests made, counted against the crawl's page limit (limits)."`
	Skipped       map[string]int `json:"skipped" jsonschema:"URLs skipped, by reason: robots (robots.txt disallows), noindex, signal (Content-Signal ai-input=no), scope, limit, deadline, duplicate, not-html, redirect, cancelled."`
	Pages         []KeptPage     `json:"pages" jsonschema:"The first pages the crawl stored or found unchanged, in the order it kept them."`
	PagesCursor   string         `json:"pages_cursor,omitempty" jsonschema:"Pass it as cursor to crawl_pages for the pages after these."`
	Robots        string         `json:"robots,omitempty" jsonschema:"Once the crawl ended: what the robots.txt policy did."`
	Left          crawl.Left     `json:"left" jsonschema:"Once the crawl ended: what its bounds left alone, sitemaps not read to their end and URLs found and not kept. A larger page limit reads more."`
	Seconds       float64        `json:"elapsed_seconds,omitempty" jsonschema:"Once the crawl ended: how long it ran."`
	Limits        Limit          `json:"limits" jsonschema:"The limits the crawl ran under."`
	Scope         string         `json:"scope" jsonschema:"What the crawl kept to: the start URL's directory and below, or all of its origin (web_crawl's whole_site)."`
	SkippedCursor string         `json:"skipped_cursor,omitempty" jsonschema:"Pass it as web_crawl's cursor, with the crawl's start as web_crawl's url and a reason as web_crawl's skipped_reason, to list the URLs skipped (or failed) for that reason, without crawling again."`
	Skips         []Skip         `json:"skips,omitempty" jsonschema:"For the reason asked for (web_crawl's skipped_reason, crawl_status's skipped_reason): the URLs skipped (or failed) for it, in the order the crawl met them, as many as max_chars allows."`
	NextCursor    string         `json:"next_cursor,omitempty" jsonschema:"When skips was cut to fit max_chars: pass it as web_crawl's cursor, with the crawl's start as web_crawl's url, for the rest."`
	Notes         []string       `json:"notes,omitempty" jsonschema:"What heed changed in the request, such as a page limit lowered to the user's, and how it cut the result."`
}

// GrepInput is web_grep's arguments.
type GrepInput struct {
	URL       string `json:"url" jsonschema:"The page to search, or where the crawl starts at depth above 0: an absolute http or https URL."`
	Pattern   string `json:"pattern" jsonschema:"An RE2 regular expression (Go syntax: no lookaround, no backreferences), matched against each line of the pages' Markdown. (?i) makes it case-insensitive."`
	Depth     int    `json:"depth,omitempty" jsonschema:"0 (the default): the one page, read on purpose, without robots.txt. Above 0: a polite crawl this many links deep, heeding robots.txt, that stores nothing, within the URL's directory (the path up to its last /) unless whole_site."`
	WholeSite bool   `json:"whole_site,omitempty" jsonschema:"With depth above 0: crawl the URL's whole site (its origin), not only its directory."`
	MaxChars  int    `json:"max_chars,omitempty"` // its description is maxCharsDoc
	Cursor    string `json:"cursor,omitempty" jsonschema:"The next_cursor a web_grep result gave, with the same url, pattern, depth and whole_site: the rest of the matches that call found, without searching again."`
}

// Match is one line that matched.
type Match struct {
	URL  string `json:"url"`
	Line int    `json:"line" jsonschema:"The line's number in the page's Markdown (as web_fetch returns it), from 1."`
	Text string `json:"text" jsonschema:"The line (cut at 500 characters): the page's own words, not heed's."`
}

// GrepOutput is web_grep's result.
type GrepOutput struct {
	Pattern       string         `json:"pattern"`
	PagesSearched int            `json:"pages_searched"`
	MatchCount    int            `json:"match_count" jsonschema:"Every match found; heed keeps at most 200, the first by URL and line."`
	Matches       []Match        `json:"matches" jsonschema:"Matches by URL and line, from the one next_cursor went on from, as many as max_chars allows."`
	Truncated     bool           `json:"truncated,omitempty" jsonschema:"True when there were more matches than heed keeps."`
	Skipped       map[string]int `json:"skipped,omitempty" jsonschema:"For a crawl: URLs skipped, by reason."`
	Robots        string         `json:"robots" jsonschema:"Whether robots.txt was consulted."`
	Scope         string         `json:"scope,omitempty" jsonschema:"For a crawl: what it kept to, the URL's directory and below or all of its origin (whole_site)."`
	NextCursor    string         `json:"next_cursor,omitempty" jsonschema:"When matches was cut to fit max_chars: pass it as cursor, with the same arguments, for the rest."`
	Notes         []string       `json:"notes,omitempty"`
}

// SearchInput is stash_search's arguments.
type SearchInput struct {
	Query    string `json:"query" jsonschema:"Words to find (all must match, in any form that stems alike), \"quoted phrases\", and a trailing * for a prefix."`
	Limit    int    `json:"limit,omitempty" jsonschema:"The most results (default 10, at most 50)."`
	Source   string `json:"source,omitempty" jsonschema:"Only this source (as stash_sources lists them, or web_crawl named it)."`
	MaxChars int    `json:"max_chars,omitempty"` // its description is maxCharsDoc
	Cursor   string `json:"cursor,omitempty" jsonschema:"The next_cursor a stash_search result gave, with the same query, limit and source: the rest of the hits that search found."`
}

// Hit is one search result.
type Hit struct {
	ID      string  `json:"id" jsonschema:"The snapshot's ID: stash_read takes it."`
	URL     string  `json:"url"`
	Title   string  `json:"title" jsonschema:"The page's title: its own words, not heed's."`
	Source  string  `json:"source"`
	Snippet string  `json:"snippet" jsonschema:"The page's words around the match, not heed's, the matching ones in **bold**."`
	Page    int     `json:"page,omitempty" jsonschema:"The page of a document (a PDF) the snippet is on; absent for a page of the web."`
	Score   float64 `json:"score" jsonschema:"BM25; higher is better."`
}

// SearchOutput is stash_search's result.
type SearchOutput struct {
	Hits       []Hit    `json:"hits" jsonschema:"Best first, from the one next_cursor went on from, as many as max_chars allows."`
	Total      int      `json:"total" jsonschema:"How many hits the search found (at most limit)."`
	NextCursor string   `json:"next_cursor,omitempty" jsonschema:"When hits was cut to fit max_chars: pass it as cursor, with the same arguments, for the rest."`
	Notes      []string `json:"notes,omitempty"`
}

// ReadInput is stash_read's arguments.
type ReadInput struct {
	URLOrID    string `json:"url_or_id" jsonschema:"A snapshot's URL, or the ID stash_search gave."`
	StartIndex int    `json:"start_index,omitempty" jsonschema:"The character of the page's Markdown to start from: 0 (the default) for the first part; for the next part, the next_start_index of the previous call."`
	MaxChars   int    `json:"max_chars,omitempty"` // its description is maxCharsDoc
	Version    string `json:"version,omitempty" jsonschema:"With a start_index above 0: the version the first part gave, so that every part comes from the one copy of the page it was cut from (without it, the copy held now)."`
}

// ReadOutput is stash_read's result.
type ReadOutput struct {
	ID        string    `json:"id"`
	URL       string    `json:"url"`
	Title     string    `json:"title" jsonschema:"The page's title: its own words, not heed's."`
	Source    string    `json:"source"`
	FetchedAt time.Time `json:"fetched_at"`
	// Removed is when heed found the page gone from its site: this is its
	// last copy.
	Removed time.Time `json:"removed,omitzero" jsonschema:"When heed found the page gone from its site (a 404 or 410, it now redirects, or a complete crawl no longer reaches it): this is its last copy, not the page as the site has it."`
	Part
	Version string   `json:"version" jsonschema:"Which copy of the page this part was cut from (a hash of its Markdown): pass it, with next_start_index, for the next part."`
	Notes   []string `json:"notes,omitempty"`
}

// SourcesInput is stash_sources' arguments.
type SourcesInput struct {
	MaxChars int    `json:"max_chars,omitempty"` // its description is maxCharsDoc
	Cursor   string `json:"cursor,omitempty" jsonschema:"The next_cursor a stash_sources result gave: the rest of the sources it listed."`
}

// Source is one source of the stash.
type Source struct {
	Name      string `json:"name" jsonschema:"The source's name: stash_search's source argument."`
	Snapshots int    `json:"snapshots"`
}

// SourcesOutput is stash_sources' result.
type SourcesOutput struct {
	Sources    []Source `json:"sources" jsonschema:"By name, from the one next_cursor went on from, as many as max_chars allows."`
	Total      int      `json:"total" jsonschema:"How many sources the stash holds."`
	NextCursor string   `json:"next_cursor,omitempty" jsonschema:"When sources was cut to fit max_chars: pass it as cursor for the rest."`
	Notes      []string `json:"notes,omitempty"`
}

// maxCharsDoc is every tool's max_chars, described.
var maxCharsDoc = fmt.Sprintf("The most characters this call's result may take, as JSON: its text and its structured content together. A longer page or list is cut to fit, and the result says so and where the rest is. Default %d (or the user's limit, if lower), at least %d, never more than the user's limit.", DefaultChars, MinChars)

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
	// Every tool's budget, described and bounded in one place.
	if p := s.Properties["max_chars"]; p != nil {
		p.Description, p.Minimum = maxCharsDoc, ptr(float64(MinChars))
	}
	if p := s.Properties["skipped_reason"]; p != nil {
		for _, r := range skipReasons {
			p.Enum = append(p.Enum, r)
		}
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
	budget := min(DefaultChars, l.MaxChars)
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:  "web_fetch",
		Title: "Read one web page",
		Description: fmt.Sprintf(`Read one web page as Markdown: its main content, without navigation, headers, footers or ads. Reads HTML, plain text and Markdown. A page whose HTML holds next to nothing but scripts is rendered in a browser first, its scripts run, as far as the user allows (`+"`render`"+`). A page asked for on purpose is not a crawl, so robots.txt is not consulted; the page's own robots directives are reported. The result takes at most `+"`max_chars`"+` characters as JSON, its text and structured content together (default %d, at most %d), so a long page comes in parts, each ending at a paragraph or line break; a part that ends inside a code block closes it (`+"`fence_close`"+`), and the next part opens it again (`+"`fence_reopen`"+`). When `+"`remaining_chars`"+` is above 0, call web_fetch again with the same `+"`url`"+`, `+"`start_index`"+` set to `+"`next_start_index`"+` and the `+"`version`"+` the first part gave: every part then comes from the one copy of the page (for 10 minutes after the last part read; after that, or if the page changed, start again at 0). If the stash holds the page, the first part says whether it changed since the stash's copy, and by how many words (`+"`changed_since`"+`); web_fetch stores nothing. Only public addresses, and networks the user allowed, are reached. `+pageTextRule,
			budget, l.MaxChars),
		InputSchema:  schemaFor[FetchInput](map[string]float64{"start_index": 0}),
		OutputSchema: schemaFor[FetchOutput](nil),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: open},
	}, bounded(s, "web_fetch", s.webFetch))
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:  "web_crawl",
		Title: "Crawl a site politely into the stash",
		Description: fmt.Sprintf(`Start a crawl of a site, breadth-first from `+"`url`"+` on its host, storing each page's main content as Markdown in heed's stash, where stash_search finds it. The crawl runs on after the call returns: the call waits for its end up to `+"`wait_seconds`"+` (default 40), then returns its `+"`crawl`"+` ID, its state, its counts (skipped URLs counted by reason) and the first pages it stored; crawl_status follows it, crawl_pages lists its pages, crawl_cancel stops it. Cancelling the call stops the waiting, not the crawl. The crawl is polite and no argument changes that: robots.txt is heeded for every URL (a start URL it disallows fails the call), requests to a host go one at a time at least %s apart (longer if robots.txt's Crawl-delay asks), and pages marked noindex or a site's Content-Signal ai-input=no are not stored. The user's limits are %d pages, %d links deep and %s a crawl; larger `+"`max_pages`"+` or `+"`max_depth`"+` are lowered to them; a client may have %d crawls running at once, of %d pages in all. Pages whose HTML holds next to nothing but scripts are rendered in a browser first, as far as the user allows (`+"`render`"+`). Sends progress notifications while it waits, when the request carries a progress token: pages fetched, of at most `+"`max_pages`"+`. The URLs of one reason come on request: `+"`skipped_reason`"+` lists them, or, with the `+"`skipped_cursor`"+` a crawl's result gave as `+"`cursor`"+` and the same `+"`url`"+`, of that crawl, without crawling again. The result takes at most `+"`max_chars`"+` characters as JSON (default %d, at most %d): a list cut to fit ends with a `+"`next_cursor`"+`, to pass as `+"`cursor`"+` for the rest.`,
			s.svc.Delay(), l.MaxPages, l.MaxDepth, l.Deadline, l.MaxCrawls, l.MaxPagesInAll, budget, l.MaxChars),
		InputSchema:  schemaFor[CrawlInput](map[string]float64{"max_pages": 1, "max_depth": 0, "wait_seconds": 0}),
		OutputSchema: schemaFor[CrawlOutput](nil),
		Annotations:  &sdk.ToolAnnotations{OpenWorldHint: open, DestructiveHint: ptr(false), IdempotentHint: true},
	}, bounded(s, "web_crawl", s.webCrawl))
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:  "web_grep",
		Title: "Find a pattern in a page or a site",
		Description: fmt.Sprintf(`Find the lines of web pages' Markdown that match an RE2 regular expression (`+"`pattern`"+`), with their URL and line number. At `+"`depth`"+` 0 (the default) it reads the one page at `+"`url`"+` on purpose, as web_fetch does, without robots.txt. Above depth 0 it crawls from `+"`url`"+` as politely as web_crawl does (robots.txt heeded, one request at a time per host, noindex pages and Content-Signal ai-input=no sites not searched), at most %d pages and %d links deep (a larger `+"`depth`"+` is lowered), and stores nothing in the stash. Pages whose HTML holds next to nothing but scripts are rendered in a browser first, as far as the user allows. Keeps at most %d matches. The result takes at most `+"`max_chars`"+` characters as JSON (default %d, at most %d): matches cut to fit end with a `+"`next_cursor`"+`; call again with the same arguments and `+"`cursor`"+` set to it for the rest of the matches found, without searching again. Sends progress notifications, pages fetched of at most how many, when the request carries a progress token. `+pageTextRule,
			l.MaxPages, l.MaxDepth, MaxMatches, budget, l.MaxChars),
		InputSchema:  schemaFor[GrepInput](map[string]float64{"depth": 0}),
		OutputSchema: schemaFor[GrepOutput](nil),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: open},
	}, bounded(s, "web_grep", s.webGrep))
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:  "stash_search",
		Title: "Search the stash",
		Description: fmt.Sprintf(`Search the pages heed has crawled into its stash (web_crawl puts them there), ranked by BM25 with a title match weighing more: at most `+"`limit`"+` hits (10 unless it says, at most %d), in one `+"`source`"+` if it names one. Returns each hit's ID, URL, title, source and a snippet; read a whole page with stash_read. The result takes at most `+"`max_chars`"+` characters as JSON (default %d, at most %d): hits cut to fit end with a `+"`next_cursor`"+`; call again with the same arguments and `+"`cursor`"+` set to it for the rest. `+pageTextRule,
			MaxSearchResults, budget, l.MaxChars),
		InputSchema:  schemaFor[SearchInput](map[string]float64{"limit": 1}),
		OutputSchema: schemaFor[SearchOutput](nil),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, bounded(s, "stash_search", s.stashSearch))
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:  "stash_read",
		Title: "Read a page from the stash",
		Description: fmt.Sprintf(`Read a stored page's Markdown by its URL or ID (`+"`url_or_id`"+`, as stash_search gives). The result takes at most `+"`max_chars`"+` characters as JSON (default %d, at most %d), so a long page comes in parts as web_fetch gives them: when `+"`remaining_chars`"+` is above 0, call again with the same `+"`url_or_id`"+`, `+"`start_index`"+` set to `+"`next_start_index`"+` and the `+"`version`"+` the first part gave. If a crawl stored a new copy of the page meanwhile, the call says so, and the page is read again from start_index 0. Makes no network request. `+pageTextRule,
			budget, l.MaxChars),
		InputSchema:  schemaFor[ReadInput](map[string]float64{"start_index": 0}),
		OutputSchema: schemaFor[ReadOutput](nil),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, bounded(s, "stash_read", s.stashRead))
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:  "stash_sources",
		Title: "List the stash's sources",
		Description: fmt.Sprintf(`List the sources in heed's stash (each site web_crawl crawled, or the user added) and how many pages each holds, by name. Pass a name to stash_search's `+"`source`"+` to search only it. The result takes at most `+"`max_chars`"+` characters as JSON (default %d, at most %d): sources cut to fit end with a `+"`next_cursor`"+`; call again with `+"`cursor`"+` set to it for the rest.`,
			budget, l.MaxChars),
		InputSchema:  schemaFor[SourcesInput](nil),
		OutputSchema: schemaFor[SourcesOutput](nil),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, bounded(s, "stash_sources", s.stashSources))
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:  "stash_changes",
		Title: "What changed in the stash",
		Description: fmt.Sprintf(`List the pages of heed's stash that are new, changed or removed since a time (`+"`since`"+`: a time such as 2026-12-01 or 2026-12-01T09:00:00Z, or a duration back from now such as 36h or 7d; 7d unless it says), in one `+"`source`"+` if it names one, by URL, and count them. A page is new if it had no version then (or had been found gone), changed if its content changed since, removed if a crawl found it gone since (HTTP 404 or 410, a redirect to another page of its site, or a complete crawl no longer reaching it; its last copy stays in the stash). Each changed page says how many words were added and removed between its version then and its version now; with `+"`diffs`"+` it shows them too, word by word, the words removed as [-...-] and those added as {+...+}, in the lines that changed, each diff cut to fit. A page's versions are the resources heed://snapshot/{id}/history and heed://snapshot/{id}/versions/{n}. heed reads the stash's changes %d pages at a time, and compares the versions of at most %d changed pages a call: when there are more, the counts are of the pages read so far (`+"`partial`"+`), and `+"`next_cursor`"+` goes on. The result takes at most `+"`max_chars`"+` characters as JSON (default %d, at most %d): pages cut to fit end with a `+"`next_cursor`"+`; call again with the same `+"`since`"+` and `+"`source`"+` and `+"`cursor`"+` set to it for the rest. Makes no network request. `+pageTextRule,
			changesRead, maxCompared, budget, l.MaxChars),
		InputSchema:  schemaFor[ChangesInput](nil),
		OutputSchema: schemaFor[ChangesOutput](nil),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, bounded(s, "stash_changes", s.stashChanges))
}
