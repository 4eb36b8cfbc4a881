package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/ledger"
)

// Bounds of the crawl jobs (Limits.MaxCrawls, Limits.MaxPagesInAll) and
// of how long web_crawl and crawl_status wait.
const (
	// DefaultMaxCrawls is how many crawls one client may have running at
	// once.
	DefaultMaxCrawls = 3
	// DefaultPagesInAllTimes is how many times MaxPages a client's
	// running crawls may fetch in all (their max_pages together).
	DefaultPagesInAllTimes = 5
	// DefaultWait is how long web_crawl waits for its crawl to end before
	// it returns where the crawl stands: well within the 60 s a client's
	// SDK waits for a call by default.
	DefaultWait = 40 * time.Second
	// MaxWait is the longest an agent may ask a call to wait.
	MaxWait = 50 * time.Second
	// DefaultPagesShown is how many of a crawl's pages a result lists when
	// the agent does not say; MaxPagesShown at most.
	DefaultPagesShown = 20
	MaxPagesShown     = ingest.MaxKeptPage
	// maxTitleChars and maxURLChars bound a page listed.
	maxTitleChars = 200
	maxURLChars   = 1000
)

// KeptPage is a page a crawl stored, or found unchanged in the stash.
type KeptPage struct {
	URL       string    `json:"url"`
	ID        string    `json:"id,omitempty" jsonschema:"The snapshot's ID: stash_read reads it, and it is the resource heed://snapshot/{id}."`
	Title     string    `json:"title,omitempty" jsonschema:"The page's title: its own words, not heed's."`
	FetchedAt time.Time `json:"fetched_at,omitzero"`
	Unchanged bool      `json:"unchanged,omitempty" jsonschema:"The page was in the stash as it is: not stored again."`
}

// StatusInput is crawl_status's arguments.
type StatusInput struct {
	Crawl         int64  `json:"crawl" jsonschema:"The crawl's ID, as web_crawl gave it."`
	WaitSeconds   *int   `json:"wait_seconds,omitempty" jsonschema:"How long to wait for the crawl to end before returning where it stands: 0 returns at once (the default), at most 50."`
	SkippedReason string `json:"skipped_reason,omitempty" jsonschema:"List the URLs skipped for this reason (failed: those that failed), with their details: of the first 500 the crawl met while this server ran it."`
	MaxChars      int    `json:"max_chars,omitempty"` // its description is maxCharsDoc
}

// PagesInput is crawl_pages's arguments.
type PagesInput struct {
	Crawl    int64  `json:"crawl" jsonschema:"The crawl's ID, as web_crawl gave it."`
	Cursor   string `json:"cursor,omitempty" jsonschema:"Where to go on: the cursor for pages an earlier result of web_crawl, crawl_status or crawl_pages gave; none for the first pages."`
	Limit    int    `json:"limit,omitempty" jsonschema:"The most pages to list (default 20, at most 100)."`
	MaxChars int    `json:"max_chars,omitempty"` // its description is maxCharsDoc
}

// PagesOutput is crawl_pages's result.
type PagesOutput struct {
	Crawl int64      `json:"crawl"`
	State string     `json:"state" jsonschema:"running, done, interrupted, failed or cancelled."`
	Pages []KeptPage `json:"pages"`
	Next  string     `json:"next_cursor,omitempty" jsonschema:"Pass it as cursor for the pages after these: while the crawl runs, for those it stores later too. Absent once the crawl ended and these are its last."`
	Notes []string   `json:"notes,omitempty"`
}

// CancelInput is crawl_cancel's arguments.
type CancelInput struct {
	Crawl    int64 `json:"crawl" jsonschema:"The crawl's ID, as web_crawl gave it."`
	MaxChars int   `json:"max_chars,omitempty"` // its description is maxCharsDoc
}

func (in StatusInput) askedChars() int { return in.MaxChars }
func (in PagesInput) askedChars() int  { return in.MaxChars }
func (in CancelInput) askedChars() int { return in.MaxChars }
func (in MapInput) askedChars() int    { return in.MaxChars }

// sessionJobs are the crawls each session started: the bounds of Limits
// are counted over those that run, and a session cancels only its own.
// A session gone leaves its crawls to no client (the nil session), as
// are the crawls taken up when the server starts.
type sessionJobs struct {
	mu       sync.Mutex
	jobs     map[*sdk.ServerSession]map[int64]int // by session, the max_pages of each crawl it started (or reserved: below 0)
	reserved int64                                // the last reservation's (negative) key
}

// runs reports whether the crawl of id runs, on this server (running
// are the service's jobs) or a team's workers.
func (s *Server) runs(ctx context.Context, id int64, running map[int64]bool) bool {
	if running[id] {
		return true
	}
	if !s.svc.Team() {
		return false
	}
	c, err := s.svc.CrawlStatus(ctx, id)
	return err == nil && c.State == ledger.Running
}

// admit reserves a crawl of maxPages for the session, within what it
// may have running, or says which bound it would pass. The caller
// gives the reservation back with done: with the crawl's ID when it
// started, 0 when it did not.
func (s *Server) admit(ctx context.Context, session *sdk.ServerSession, maxPages int) (done func(id int64), err error) {
	l := s.cfg.Limits
	live := map[*sdk.ServerSession]bool{}
	for ss := range s.mcp.Sessions() {
		live[ss] = true
	}
	s.sjobs.mu.Lock()
	var mine []int64
	for id := range s.sjobs.jobs[session] {
		if id > 0 {
			mine = append(mine, id)
		}
	}
	s.sjobs.mu.Unlock()
	running := map[int64]bool{}
	for _, id := range s.svc.Running() {
		running[id] = true
	}
	ended := map[int64]bool{}
	for _, id := range mine {
		if !s.runs(ctx, id, running) {
			ended[id] = true
		}
	}

	s.sjobs.mu.Lock()
	defer s.sjobs.mu.Unlock()
	for ss, crawls := range s.sjobs.jobs {
		if ss != nil && ss != session && !live[ss] {
			// A session gone: its crawls are no client's now.
			for id, p := range crawls {
				if id > 0 {
					s.sjobs.add(nil, id, p)
				}
			}
			delete(s.sjobs.jobs, ss)
		}
	}
	if !s.svc.Team() {
		for id := range s.sjobs.jobs[nil] {
			if !running[id] {
				delete(s.sjobs.jobs[nil], id)
			}
		}
	}
	n, pages := 0, 0
	for id, p := range s.sjobs.jobs[session] {
		if ended[id] {
			delete(s.sjobs.jobs[session], id)
			continue
		}
		n++
		pages += p
	}
	switch {
	case n >= l.MaxCrawls:
		return nil, fmt.Errorf("this client has %d crawls running, the most the user allows at once (%d): wait for one to end (crawl_status with wait_seconds), or cancel one (crawl_cancel)", n, l.MaxCrawls)
	case pages+maxPages > l.MaxPagesInAll:
		return nil, fmt.Errorf("this client's running crawls may fetch %d pages, and this one %d more: the user allows %d in all at once. Ask for a smaller max_pages, or wait for a crawl to end", pages, maxPages, l.MaxPagesInAll)
	}
	s.sjobs.reserved--
	key := s.sjobs.reserved
	s.sjobs.add(session, key, maxPages)
	return func(id int64) {
		s.sjobs.mu.Lock()
		defer s.sjobs.mu.Unlock()
		delete(s.sjobs.jobs[session], key)
		if id != 0 {
			s.sjobs.add(session, id, maxPages)
		}
	}, nil
}

// add notes a crawl of a session; mu is held.
func (j *sessionJobs) add(session *sdk.ServerSession, id int64, maxPages int) {
	if j.jobs == nil {
		j.jobs = map[*sdk.ServerSession]map[int64]int{}
	}
	if j.jobs[session] == nil {
		j.jobs[session] = map[int64]int{}
	}
	j.jobs[session][id] = maxPages
}

// owns reports whether a session may cancel the crawl of id: one it
// started, or one no client has (taken up when the server started, or
// left by a session gone).
func (s *Server) owns(session *sdk.ServerSession, id int64) bool {
	s.sjobs.mu.Lock()
	defer s.sjobs.mu.Unlock()
	_, mine := s.sjobs.jobs[session][id]
	_, nobody := s.sjobs.jobs[nil][id]
	return mine || nobody
}

// startedCrawls are the crawls the server's sessions started.
func (s *Server) startedCrawls() []int64 {
	s.sjobs.mu.Lock()
	defer s.sjobs.mu.Unlock()
	var ids []int64
	for _, crawls := range s.sjobs.jobs {
		for id := range crawls {
			if id > 0 {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// ResumeCrawls takes up again the crawls agents started that a server
// before this one left interrupted (it was closed, or its process
// died), and returns their IDs. They are no client's: counted against
// none.
func (s *Server) ResumeCrawls(ctx context.Context) ([]int64, error) {
	ids, err := s.svc.ResumeCrawls(ctx, ledger.ByAgent)
	s.sjobs.mu.Lock()
	defer s.sjobs.mu.Unlock()
	for _, id := range ids {
		s.sjobs.add(nil, id, 0)
	}
	return ids, err
}

// waitSeconds is how long to wait as an agent asked (nil: def), within
// MaxWait.
func waitSeconds(asked *int, def time.Duration) time.Duration {
	if asked == nil {
		return def
	}
	return min(time.Duration(max(*asked, 0))*time.Second, MaxWait)
}

// standing fills out with where crawl id stands, after waiting up to
// wait for its end: its record's counts and limits, what its job told
// (its scope; once it ended, what its bounds left and what robots.txt
// did), and the first pages it kept, shown at most; it returns the URLs
// its job skipped or failed, as it told them.
func (s *Server) standing(ctx context.Context, id int64, wait time.Duration, shown int, out *CrawlOutput) (*skipLog, error) {
	c, err := s.svc.WaitCrawl(ctx, id, wait)
	if err != nil {
		return nil, err
	}
	out.Crawl, out.Start, out.Source, out.State = c.ID, c.Start, c.Source, string(c.State)
	out.Stored, out.Unchanged, out.Failed, out.Requests = c.Counts.Stored, c.Counts.Unchanged, c.Counts.Failed, c.Counts.Requests
	out.New, out.Changed, out.Removed = c.Counts.New, c.Counts.Changed, c.Counts.Removed
	out.Skipped = c.Counts.Skipped
	if out.Skipped == nil {
		out.Skipped = map[string]int{}
	}
	var o crawlopt.Options
	if json.Unmarshal([]byte(c.Options), &o) == nil && o.MaxPages > 0 {
		out.Limits = Limit{MaxPages: o.MaxPages, MaxDepth: o.MaxDepth}
	}
	if !c.Ended.IsZero() {
		out.Seconds = c.Ended.Sub(c.Began).Seconds()
	}
	skips := &skipLog{groups: map[string]*group{}}
	if info, ok := s.svc.CrawlJob(id); ok {
		out.Scope = info.Scope
		if r := info.Result; info.Ended && r != nil && r.Summary != nil {
			out.Left, out.Robots = r.Summary.Left, r.Summary.Robots
		}
		for _, ev := range info.Skips {
			skips.add(Skip{URL: ev.URL, Event: string(ev.Kind), Reason: ev.Reason, Detail: cutTo(s.skipDetail(ev), maxDetailChars)})
		}
	}
	if out.Scope == "" {
		if sc, err := crawl.ScopeOf(o); err == nil {
			out.Scope = sc.String()
		}
	}
	out.Pages, out.PagesCursor, err = s.keptPages(ctx, id, "", shown, c.State == ledger.Running)
	return skips, err
}

// keptPages are the pages crawl id kept after cursor, limit at most,
// and the cursor after them: of a crawl that runs, always (it may keep
// more); of one that ended, while there may be more.
func (s *Server) keptPages(ctx context.Context, id int64, cursor string, limit int, running bool) ([]KeptPage, string, error) {
	kept, next, err := s.svc.CrawlKept(ctx, id, cursor, limit)
	if err != nil {
		return nil, "", err
	}
	pages := make([]KeptPage, 0, len(kept))
	for _, k := range kept {
		pages = append(pages, keptPage(k))
	}
	switch {
	case len(kept) == 0 && running:
		next = cursor
	case len(kept) < limit && !running:
		next = ""
	}
	return pages, next, nil
}

// keptPage is a page a crawl kept as a result lists it: its URL and
// title cut to their bounds.
func keptPage(k ingest.KeptPage) KeptPage {
	return KeptPage{URL: cutTo(k.URL, maxURLChars), ID: k.ID, Title: cutTo(k.Title, maxTitleChars), FetchedAt: k.FetchedAt, Unchanged: k.Fate == ledger.Unchanged}
}

// pagesText lists pages, and says where the rest are.
func pagesText(b *strings.Builder, pages []KeptPage, next string, id int64) {
	for _, p := range pages {
		what := "stored"
		if p.Unchanged {
			what = "unchanged"
		}
		title := "(no title)"
		if p.Title != "" {
			title = fmt.Sprintf("%q", p.Title)
		}
		fmt.Fprintf(b, "- %s (%s, id %s): %s\n", p.URL, what, p.ID, title)
	}
	if next != "" {
		fmt.Fprintf(b, "More pages: crawl_pages with crawl %d and cursor %q.\n", id, next)
	}
}

// jobError is what an agent is told of a crawl job's error.
func (s *Server) jobError(ctx context.Context, what string, err error) error {
	switch {
	case errors.Is(err, ledger.ErrNoCrawl):
		return errors.New("no crawl has that ID: web_crawl gives the ID of the crawl it starts")
	case errors.Is(err, ingest.ErrNotRunning):
		return errors.New("that crawl is not running in this server: it has ended (crawl_status says how), or another heed process runs it")
	case heed.KindOf(err) == heed.Invalid:
		return s.toolError(err)
	}
	return s.failed(ctx, what, err)
}

func (s *Server) crawlStatus(ctx context.Context, req *sdk.CallToolRequest, in StatusInput) (*sdk.CallToolResult, CrawlOutput, error) {
	ctx, end, err := s.begin(ctx, "crawl_status")
	if err != nil {
		return nil, CrawlOutput{}, err
	}
	defer end()
	var out CrawlOutput
	budget := s.chars(in.MaxChars, &out.Notes)
	skips, err := s.standing(ctx, in.Crawl, waitSeconds(in.WaitSeconds, 0), DefaultPagesShown, &out)
	if err != nil {
		return nil, out, s.jobError(ctx, "read a crawl", err)
	}
	if in.SkippedReason != "" && len(skips.groups) == 0 && total(out.Skipped)+out.Failed > 0 {
		if _, ok := s.svc.CrawlJob(in.Crawl); !ok {
			out.Notes = append(out.Notes, "this server did not run that crawl, or ran it long ago: its URLs skipped are counted, not listed")
		}
	}
	return s.crawlResult(CrawlInput{URL: out.Start, SkippedReason: in.SkippedReason}, budget, out, skips)
}

// crawlResult is web_crawl's and crawl_status's result for a crawl that
// stands as out: with its skipped URLs held for the cursors of its
// result (skips), those of skipped_reason listed.
func (s *Server) crawlResult(in CrawlInput, budget int, out CrawlOutput, skips *skipLog) (*sdk.CallToolResult, CrawlOutput, error) {
	var l *listing
	if skips != nil && len(skips.groups) > 0 {
		l = skips.listing(out.Start, out)
		out.SkippedCursor = cursor{id: l.id, group: noGroup}.String()
		l.head = out
		s.lists.put(l, noGroup)
	}
	return s.crawlPage(in, budget, out, l, cursor{group: noGroup})
}

func (s *Server) crawlPages(ctx context.Context, req *sdk.CallToolRequest, in PagesInput) (*sdk.CallToolResult, PagesOutput, error) {
	ctx, end, err := s.begin(ctx, "crawl_pages")
	if err != nil {
		return nil, PagesOutput{}, err
	}
	defer end()
	out := PagesOutput{Crawl: in.Crawl}
	budget := s.chars(in.MaxChars, &out.Notes)
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultPagesShown
	}
	limit = min(limit, MaxPagesShown)
	if len(in.Cursor) > 64 {
		return nil, out, errors.New("cursor is not one heed gave: give the pages_cursor or next_cursor of an earlier result, or none")
	}
	c, err := s.svc.CrawlStatus(ctx, in.Crawl)
	if err != nil {
		return nil, out, s.jobError(ctx, "read a crawl", err)
	}
	out.State = string(c.State)
	kept, next, err := s.svc.CrawlKept(ctx, in.Crawl, in.Cursor, limit)
	if err != nil {
		return nil, out, s.jobError(ctx, "list a crawl's pages", err)
	}
	render := func(n int) (string, PagesOutput) {
		o := out
		o.Pages = []KeptPage{}
		for _, k := range kept[:n] {
			o.Pages = append(o.Pages, keptPage(k))
		}
		switch {
		case n < len(kept):
			o.Next = kept[n-1].Cursor
			if n == 0 {
				o.Next = in.Cursor
			}
			o.Notes = append(o.Notes, fmt.Sprintf("%d of the %d pages asked for are listed, as many as max_chars %d allows; the next_cursor goes on from there", n, len(kept), budget))
		case len(kept) == 0 && c.State == ledger.Running:
			o.Next = in.Cursor
		case len(kept) < limit && c.State != ledger.Running:
			o.Next = ""
		default:
			o.Next = next
		}
		if len(kept) == 0 && in.Cursor == "" && c.State != ledger.Running && c.Counts.Stored+c.Counts.Unchanged > 0 {
			o.Notes = append(o.Notes, "heed keeps the list of the pages of its last 50 crawls that ended, and this one is older: stash_search with its source finds its pages")
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%d pages of crawl %d (%s):\n", len(o.Pages), in.Crawl, o.State)
		pagesText(&b, o.Pages, o.Next, in.Crawl)
		b.WriteString(noteLines(o.Notes))
		return b.String(), o
	}
	n := len(kept)
	text, o := render(n)
	for n > 0 && resultChars(text, o) > budget*7/8 {
		n--
		text, o = render(n)
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, o, nil
}

func (s *Server) crawlCancel(ctx context.Context, req *sdk.CallToolRequest, in CancelInput) (*sdk.CallToolResult, CrawlOutput, error) {
	ctx, end, err := s.begin(ctx, "crawl_cancel")
	if err != nil {
		return nil, CrawlOutput{}, err
	}
	defer end()
	var out CrawlOutput
	budget := s.chars(in.MaxChars, &out.Notes)
	if !s.owns(req.Session, in.Crawl) {
		if _, err := s.svc.CrawlStatus(ctx, in.Crawl); err != nil {
			return nil, out, s.jobError(ctx, "read a crawl", err)
		}
		return nil, out, errors.New("that crawl is not one this client started: a client cancels only its own crawls (or those heed took up again when it started)")
	}
	if err := s.svc.CancelCrawl(ctx, in.Crawl); err != nil {
		return nil, out, s.jobError(ctx, "cancel a crawl", err)
	}
	skips, err := s.standing(ctx, in.Crawl, 0, DefaultPagesShown, &out)
	if err != nil {
		return nil, out, s.jobError(ctx, "read a crawl", err)
	}
	return s.crawlResult(CrawlInput{URL: out.Start}, budget, out, skips)
}

// MapInput is web_map's arguments.
type MapInput struct {
	URL       string   `json:"url" jsonschema:"The site's start URL: an absolute http or https URL. The map stays within its directory, the path up to its last /, unless whole_site."`
	WholeSite bool     `json:"whole_site,omitempty" jsonschema:"List the start URL's whole site (its origin), not only its directory."`
	Include   []string `json:"include,omitempty" jsonschema:"List only paths matching these globs, such as /docs/** (* within a path segment, ** across)."`
	Exclude   []string `json:"exclude,omitempty" jsonschema:"Leave out paths matching these globs."`
	Limit     int      `json:"limit,omitempty" jsonschema:"The most URLs to find (default 200, at most 1000)."`
	MaxChars  int      `json:"max_chars,omitempty"` // its description is maxCharsDoc
	Cursor    string   `json:"cursor,omitempty" jsonschema:"The next_cursor a web_map result gave, with the same url: the rest of the URLs that call found, without asking the site again."`
}

// MapOutput is web_map's result.
type MapOutput struct {
	Start          string          `json:"start"`
	Scope          string          `json:"scope"`
	URLs           []ingest.MapURL `json:"urls" jsonschema:"The URLs, each with where it was found: start, link (of the start page), llms.txt, sitemap."`
	Found          int             `json:"found" jsonschema:"The URLs found within limit; those listed may be fewer, to fit max_chars (next_cursor lists the rest)."`
	Cut            bool            `json:"cut,omitempty" jsonschema:"The list was cut at limit: there are more."`
	Disallowed     int             `json:"disallowed,omitempty" jsonschema:"URLs found that robots.txt disallows: not listed."`
	OutOfScope     int             `json:"out_of_scope,omitempty" jsonschema:"URLs found outside the scope: not listed."`
	SitemapsUnread int             `json:"sitemaps_unread,omitempty"`
	NextCursor     string          `json:"next_cursor,omitempty" jsonschema:"When urls was cut to fit max_chars: pass it as cursor, with the same url, for the rest."`
	Notes          []string        `json:"notes,omitempty"`
}

// Bounds of web_map's list.
const (
	DefaultMapShown = 200
	MaxMapShown     = 1000
)

func (s *Server) webMap(ctx context.Context, req *sdk.CallToolRequest, in MapInput) (*sdk.CallToolResult, MapOutput, error) {
	ctx, end, err := s.begin(ctx, "web_map")
	if err != nil {
		return nil, MapOutput{}, err
	}
	defer end()
	var out MapOutput
	budget := s.chars(in.MaxChars, &out.Notes)
	if in.Cursor != "" {
		// The rest of a map made: the site is not asked again.
		l, c, err := s.lists.open(in.Cursor, "web_map", crawlArgs(in.URL), "the url")
		if err != nil {
			return nil, out, err
		}
		head := l.head.(MapOutput)
		head.Notes = append(slices.Clip(head.Notes), out.Notes...)
		return s.mapPage(budget, head, l, c.offset)
	}
	if err := inputURL(in.URL, "map"); err != nil {
		return nil, out, err
	}
	o := crawlopt.Defaults()
	o.Start, o.Delay, o.MaxPages = in.URL, s.svc.Delay(), s.cfg.Limits.MaxPages
	o.WholeSite, o.Include, o.Exclude = in.WholeSite, in.Include, in.Exclude
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultMapShown
	}
	mctx, cancel := context.WithTimeout(ctx, s.cfg.Limits.Deadline)
	defer cancel()
	m, err := s.svc.Map(mctx, ingest.MapRequest{Options: o, Limit: min(limit, MaxMapShown)})
	if cut := s.cut(ctx); err != nil && cut != nil {
		return nil, out, cut
	}
	if err != nil {
		return nil, out, s.crawlError(ctx, in.URL, err)
	}
	out = MapOutput{Start: cutTo(m.Start, maxURLChars), Scope: cutTo(m.Scope, maxURLChars), Found: len(m.URLs), Cut: m.Cut, Disallowed: m.Disallowed, OutOfScope: m.OutOfScope, SitemapsUnread: m.SitemapsUnread, Notes: out.Notes}
	l := &listing{id: newListingID(), tool: "web_map", args: crawlArgs(in.URL), head: out, groups: []group{{items: m.URLs, kept: len(m.URLs), count: len(m.URLs)}}}
	for _, u := range m.URLs {
		l.bytes += len(u.URL) + itemOverhead
	}
	return s.mapPage(budget, out, l, 0)
}

// mapPage is web_map's result: head, with the URLs of l from offset that
// fit its budget; l is held for the rest, if any.
func (s *Server) mapPage(budget int, head MapOutput, l *listing, offset int) (*sdk.CallToolResult, MapOutput, error) {
	urls := itemsOf[ingest.MapURL](l.groups[0])
	show := func(u ingest.MapURL, max int) (string, ingest.MapURL) {
		u.URL = cutTo(u.URL, max)
		return fmt.Sprintf("- %s (%s)\n", u.URL, strings.Join(u.Via, ", ")), u
	}
	render := func(p listPage[ingest.MapURL], cut bool) (string, MapOutput) {
		o := head
		o.URLs, o.NextCursor, o.Notes = p.listed(cut, budget, len(urls), "URLs", "web_map with the same url", head.Notes)
		var b strings.Builder
		fmt.Fprintf(&b, "%d URLs of %s (%s), each with where it was found:\n", len(urls), o.Start, o.Scope)
		for _, line := range p.lines {
			b.WriteString(line)
		}
		if o.Cut {
			b.WriteString("The map was cut at its limit: a larger limit, or include and exclude, lists others.\n")
		}
		if o.Disallowed+o.OutOfScope > 0 {
			fmt.Fprintf(&b, "Left out: %d disallowed by robots.txt, %d outside the scope.\n", o.Disallowed, o.OutOfScope)
		}
		b.WriteString(noteLines(o.Notes))
		b.WriteString("web_crawl crawls them into the stash.\n")
		return b.String(), o
	}
	held := false
	p := pageOf(budget, urls, offset, func(cut bool) int { return resultChars(render(listPage[ingest.MapURL]{from: offset}, cut)) }, show, func(next int) cursor {
		if !held {
			held = true
			s.lists.put(l, 0)
		}
		return cursor{id: l.id, group: 0, offset: next}
	})
	text, out := render(p, p.next != "")
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}

// addJobTools adds the tools that follow crawl jobs, and web_map.
func (s *Server) addJobTools() {
	closed := ptr(false)
	budget := min(DefaultChars, s.cfg.Limits.MaxChars)
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:         "crawl_status",
		Title:        "How a crawl stands",
		Description:  fmt.Sprintf(`Say how a crawl web_crawl started stands (its `+"`crawl`"+` ID): running, done, interrupted (heed takes it up again when it starts), failed or cancelled; its counts, skipped URLs counted by reason, and the first pages it stored, with a `+"`pages_cursor`"+` for crawl_pages. `+"`wait_seconds`"+` waits for the crawl to end first, up to 50 seconds. `+"`skipped_reason`"+` lists the URLs skipped for one reason (or failed), with why. The result takes at most `+"`max_chars`"+` characters as JSON (default %d, at most %d). Makes no network request.`, budget, s.cfg.Limits.MaxChars),
		InputSchema:  schemaFor[StatusInput](map[string]float64{"crawl": 1, "wait_seconds": 0}),
		OutputSchema: schemaFor[CrawlOutput](nil),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: closed},
	}, bounded(s, "crawl_status", s.crawlStatus))
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:         "crawl_pages",
		Title:        "The pages a crawl stored",
		Description:  fmt.Sprintf(`List the pages a crawl (its `+"`crawl`"+` ID) stored or found unchanged, in the order it kept them, each with its URL, snapshot ID (for stash_read, and the resource heed://snapshot/{id}) and title: `+"`limit`"+` pages a call (default 20, at most 100), from `+"`cursor`"+`, with a `+"`next_cursor`"+` for the next call; while the crawl runs, the cursor goes on to the pages it stores later. The result takes at most `+"`max_chars`"+` characters as JSON (default %d, at most %d). Makes no network request.`, budget, s.cfg.Limits.MaxChars),
		InputSchema:  schemaFor[PagesInput](map[string]float64{"crawl": 1, "limit": 1}),
		OutputSchema: schemaFor[PagesOutput](nil),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: closed},
	}, bounded(s, "crawl_pages", s.crawlPages))
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:         "crawl_cancel",
		Title:        "Cancel a crawl",
		Description:  fmt.Sprintf(`Cancel a running crawl web_crawl started (its `+"`crawl`"+` ID): it asks for no page more (a request under way is let go), keeps what it stored, and is not taken up again. Returns how it stands, as crawl_status does, in at most `+"`max_chars`"+` characters as JSON (default %d, at most %d).`, budget, s.cfg.Limits.MaxChars),
		InputSchema:  schemaFor[CancelInput](map[string]float64{"crawl": 1}),
		OutputSchema: schemaFor[CrawlOutput](nil),
		Annotations:  &sdk.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: closed},
	}, bounded(s, "crawl_cancel", s.crawlCancel))
	sdk.AddTool(s.mcp, &sdk.Tool{
		Name:         "web_map",
		Title:        "List a site's URLs",
		Description:  fmt.Sprintf(`List a site's URLs without storing anything, to decide what to crawl: the start `+"`url`"+`, the links of its page, and the pages its llms.txt and sitemaps list, within the scope a crawl would keep to (the start URL's directory unless `+"`whole_site`"+`; `+"`include`"+` and `+"`exclude`"+` globs) and allowed by robots.txt, each with where it was found. Finds at most `+"`limit`"+` URLs (default 200, at most 1000). Its requests are as polite as web_crawl's; pages are read as served (none is rendered in a browser). The result takes at most `+"`max_chars`"+` characters as JSON (default %d, at most %d): URLs cut to fit end with a `+"`next_cursor`"+`; call again with the same `+"`url`"+` and `+"`cursor`"+` set to it for the rest, without asking the site again.`, budget, s.cfg.Limits.MaxChars),
		InputSchema:  schemaFor[MapInput](map[string]float64{"limit": 1}),
		OutputSchema: schemaFor[MapOutput](nil),
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)},
	}, bounded(s, "web_map", s.webMap))
}
