package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/render"
)

// crawlOptions clamps what an agent asks of a crawl from start into a
// crawl's options: heed's defaults, with the user's deadline and delay;
// max_pages and max_depth as asked, never more than the user's limits,
// and the limits themselves where the agent asks none (pages of 0, no
// depth); render as renderMode settles it. Each setting lowered is
// noted.
func (s *Server) crawlOptions(start string, pages int, depth *int, render string, notes *[]string) (crawlopt.Options, error) {
	l := s.cfg.Limits
	o := crawlopt.Defaults()
	o.Start, o.Deadline, o.Delay = start, l.Deadline, s.svc.Delay()
	o.MaxPages, o.MaxDepth = l.MaxPages, l.MaxDepth
	if pages > l.MaxPages {
		*notes = append(*notes, fmt.Sprintf("max_pages %d was lowered to %d, the limit the user set", pages, l.MaxPages))
	} else if pages > 0 {
		o.MaxPages = pages
	}
	if depth != nil {
		if *depth > l.MaxDepth {
			*notes = append(*notes, fmt.Sprintf("max_depth %d was lowered to %d, the limit the user set", *depth, l.MaxDepth))
		} else {
			o.MaxDepth = *depth
		}
	}
	mode, err := s.renderMode(render, notes)
	if err != nil {
		return crawlopt.Options{}, err
	}
	o.Render = string(mode)
	return o, nil
}

// renderRank orders the modes by what they ask of the browser.
var renderRank = map[render.Mode]int{render.Never: 0, render.Auto: 1, render.Always: 2}

// renderMode settles when pages are rendered: as the agent asks (auto
// when it does not), and never more than the user allows.
func (s *Server) renderMode(asked string, notes *[]string) (render.Mode, error) {
	m, err := render.ParseMode(asked)
	if err != nil {
		return "", fmt.Errorf("render %q is not a mode heed knows: give auto, always or never", asked)
	}
	if allowed := s.cfg.Limits.Render; renderRank[m] > renderRank[allowed] {
		if asked != "" {
			*notes = append(*notes, fmt.Sprintf("render %s was lowered to %s, the most the user allows", m, allowed))
		}
		m = allowed
	}
	return m, nil
}

// defaultRender is when pages are rendered where the agent did not say:
// auto, or less if the user allows less.
func (s *Server) defaultRender() render.Mode {
	m, _ := s.renderMode("", nil)
	return m
}

// skipReasons are what web_crawl's skipped_reason may name: the reasons
// a crawl skips a URL for, and failed.
var skipReasons = []string{
	crawl.ReasonRobots, crawl.ReasonNoindex, crawl.ReasonSignal, crawl.ReasonScope, crawl.ReasonLimit,
	crawl.ReasonDeadline, crawl.ReasonInterrupted, crawl.ReasonStopped, crawl.ReasonDup, crawl.ReasonType,
	crawl.ReasonRedirect, reasonFailed,
}

// reasonFailed is the group of the URLs a crawl failed.
const reasonFailed = "failed"

// maxDetailChars bounds what a skip says of why.
const maxDetailChars = 500

// skipLog keeps a crawl's skipped and failed URLs by reason, as many as a
// listing holds; it counts them all.
type skipLog struct {
	groups map[string]*group
	items  int
	bytes  int
}

func (k *skipLog) add(sk Skip) {
	name := sk.Reason
	if sk.Event == string(crawl.Failed) {
		name = reasonFailed
	}
	g := k.groups[name]
	if g == nil {
		g = &group{name: name, items: []Skip(nil)}
		k.groups[name] = g
	}
	g.count++
	size := len(sk.URL) + len(sk.Reason) + len(sk.Detail) + itemOverhead
	if k.items >= maxListItems || k.bytes+size > maxListBytes {
		return
	}
	g.items = append(g.items.([]Skip), sk)
	g.kept++
	k.items, k.bytes = k.items+1, k.bytes+size
}

// listing is the log as a listing of web_crawl's for a crawl from start,
// its groups by name.
func (k *skipLog) listing(start string, head CrawlOutput) *listing {
	l := &listing{id: newListingID(), tool: "web_crawl", args: crawlArgs(start), head: head, bytes: k.bytes}
	for _, g := range k.groups {
		l.groups = append(l.groups, *g)
	}
	slices.SortFunc(l.groups, func(a, b group) int { return strings.Compare(a.name, b.name) })
	return l
}

// crawlArgs is what a web_crawl cursor is given with: the url of the
// crawl whose skipped URLs it lists, as its start URL normalized.
func crawlArgs(url string) string {
	if n, err := crawl.Normalize(url); err == nil {
		return n
	}
	return url
}

func (s *Server) webCrawl(ctx context.Context, req *sdk.CallToolRequest, in CrawlInput) (*sdk.CallToolResult, CrawlOutput, error) {
	ctx, end, err := s.begin(ctx, "web_crawl")
	if err != nil {
		return nil, CrawlOutput{}, err
	}
	defer end()
	var out CrawlOutput
	budget := s.chars(in.MaxChars, &out.Notes)
	if in.Cursor != "" {
		return s.crawlSkips(in, budget, out.Notes)
	}
	if err := inputURL(in.URL, "crawl"); err != nil {
		return nil, out, err
	}
	if _, err := crawl.Normalize(in.URL); err != nil {
		return nil, out, fmt.Errorf("%q is not a URL heed can crawl: give an absolute http or https URL, such as https://docs.example.com/", in.URL)
	}
	o, err := s.crawlOptions(in.URL, in.MaxPages, in.MaxDepth, in.Render, &out.Notes)
	if err != nil {
		return nil, out, err
	}
	o.Source = crawl.SourceName(in.URL)
	o.Include, o.Exclude, o.WholeSite = in.Include, in.Exclude, in.WholeSite
	maxPages := o.MaxPages

	admitted, err := s.admit(ctx, req.Session, o.MaxPages)
	if err != nil {
		return nil, out, err
	}
	// The crawl is a job of the service: it goes on when this call
	// returns, and is followed by its ID. While the call waits, its
	// progress is told: pages fetched, of at most max_pages.
	prog := s.newProgress(ctx, req, maxPages)
	var mu sync.Mutex
	counts := map[crawl.Kind]int{}
	pages := 0
	var id int64
	defer func() { admitted(id) }()
	id, err = s.svc.StartCrawl(ctx, ingest.CrawlRequest{Options: o, By: ledger.ByAgent}, func(ev crawl.Event) {
		mu.Lock()
		defer mu.Unlock()
		if ev.Kind == crawl.Began {
			return
		}
		counts[ev.Kind]++
		if !fetched(ev) {
			return
		}
		pages++
		prog.update(pages, func() string {
			return fmt.Sprintf("%d of at most %d pages fetched: %d stored, %d unchanged, %d removed, %d skipped, %d failed; %d queued; last %s %s",
				pages, maxPages, counts[crawl.Stored], counts[crawl.Unchanged], counts[crawl.Removed], counts[crawl.Skipped], counts[crawl.Failed], ev.Queued, ev.Kind, ev.URL)
		})
	})
	if cut := s.cut(ctx); err != nil && cut != nil {
		s.log.Debug("heed mcp: a crawl cut short", "error", err)
		return nil, out, cut
	}
	if err != nil {
		return nil, out, s.crawlError(ctx, in.URL, err)
	}
	notes := out.Notes
	skips, err := s.standing(ctx, id, waitSeconds(in.WaitSeconds, DefaultWait), DefaultPagesShown, &out)
	prog.flush()
	if err != nil {
		return nil, out, s.jobError(ctx, "read a crawl", err)
	}
	out.Notes = notes
	if info, ok := s.svc.CrawlJob(id); ok && info.Err != nil && out.Stored+out.Unchanged == 0 {
		// A crawl that failed within the wait, having kept nothing (its
		// start URL refused, or gone), fails the call, saying why.
		return nil, out, s.crawlError(ctx, in.URL, info.Err)
	}
	return s.crawlResult(in, budget, out, skips)
}

// crawlSkips is web_crawl given a cursor: the skipped URLs of a crawl
// made, of the reason asked for, and no crawl.
func (s *Server) crawlSkips(in CrawlInput, budget int, notes []string) (*sdk.CallToolResult, CrawlOutput, error) {
	var unused []string
	for _, a := range []struct {
		name string
		set  bool
	}{
		{"max_pages", in.MaxPages != 0}, {"max_depth", in.MaxDepth != nil}, {"include", in.Include != nil}, {"exclude", in.Exclude != nil},
		{"whole_site", in.WholeSite}, {"render", in.Render != ""},
	} {
		if a.set {
			unused = append(unused, a.name)
		}
	}
	if len(unused) > 0 {
		return nil, CrawlOutput{}, fmt.Errorf("with cursor, web_crawl lists the skipped URLs of a crawl made, and crawls nothing: leave out %s", strings.Join(unused, ", "))
	}
	l, c, err := s.lists.open(in.Cursor, "web_crawl", crawlArgs(in.URL), "the url")
	if err != nil {
		return nil, CrawlOutput{}, err
	}
	out := l.head.(CrawlOutput)
	out.Notes = append(slices.Clip(out.Notes), notes...)
	if c.group == noGroup && in.SkippedReason == "" {
		return nil, out, fmt.Errorf("give skipped_reason with this cursor: the crawl skipped or failed URLs for %s", reasonsOf(l))
	}
	if c.group != noGroup && in.SkippedReason != "" && in.SkippedReason != l.groups[c.group].name {
		return nil, out, fmt.Errorf("cursor %q goes on with the URLs skipped for %s, not %s: leave out skipped_reason, or give the skipped_cursor of the crawl's result", in.Cursor, l.groups[c.group].name, in.SkippedReason)
	}
	return s.crawlPage(in, budget, out, l, c)
}

// reasonsOf says what a crawl's listing holds: each reason, and how many
// URLs.
func reasonsOf(l *listing) string {
	var rs []string
	for _, g := range l.groups {
		rs = append(rs, fmt.Sprintf("%s (%d)", g.name, g.count))
	}
	return strings.Join(rs, ", ")
}

// crawlPage is web_crawl's result: the crawl's summary, and the URLs
// skipped for skipped_reason (or the reason c goes on with) from c's
// place, as many as fit its budget. l holds the crawl's skipped URLs, if
// there were any.
func (s *Server) crawlPage(in CrawlInput, budget int, out CrawlOutput, l *listing, c cursor) (*sdk.CallToolResult, CrawlOutput, error) {
	var items []Skip
	reason := in.SkippedReason
	if c.group != noGroup {
		reason = l.groups[c.group].name
	}
	var g *group
	if reason != "" && l != nil {
		for i := range l.groups {
			if l.groups[i].name == reason {
				g, c.group = &l.groups[i], i
			}
		}
	}
	if g != nil {
		items = itemsOf[Skip](*g)
	} else if reason != "" {
		out.Notes = append(out.Notes, fmt.Sprintf("the crawl skipped no URL for %s", reason))
	}
	show := func(sk Skip, max int) (string, Skip) {
		sk.URL, sk.Detail = cutTo(sk.URL, max), cutTo(sk.Detail, max)
		return fmt.Sprintf("- %s %s: %s: %s\n", sk.Event, sk.URL, sk.Reason, sk.Detail), sk
	}
	render := func(p listPage[Skip], cut bool) (string, CrawlOutput) {
		o := out
		o.Skips, o.NextCursor, o.Notes = p.listed(cut, budget, len(items), "URLs skipped for "+reason, "web_crawl with the same url", out.Notes)
		if g != nil && g.kept < g.count {
			o.Notes = append(o.Notes, fmt.Sprintf("the crawl skipped %d URLs for %s; heed keeps the first %d", g.count, reason, g.kept))
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Crawl %d of %s (%s) into the stash as source %q: %s; %d stored (%d new, %d changed), %d unchanged, %d removed, %d failed, %d skipped%s; %d requests.\n",
			o.Crawl, o.Start, o.Scope, o.Source, o.State, o.Stored, o.New, o.Changed, o.Unchanged, o.Removed, o.Failed, total(o.Skipped), byReason(o.Skipped), o.Requests)
		switch ledger.State(o.State) {
		case ledger.Running:
			fmt.Fprintf(&b, "It goes on: crawl_status with crawl %d says how it stands (wait_seconds waits for its end), crawl_pages lists its pages, crawl_cancel stops it.\n", o.Crawl)
		case ledger.Interrupted:
			b.WriteString("It was cut short; heed takes it up again when it starts.\n")
		}
		if t := o.Left.Text(); t != "" {
			b.WriteString(t + " A larger max_pages reads more.\n")
		}
		if o.Robots != "" {
			b.WriteString(o.Robots + "\n")
		}
		pagesText(&b, o.Pages, o.PagesCursor, o.Crawl)
		if o.SkippedCursor != "" {
			fmt.Fprintf(&b, "The URLs skipped or failed come on request, for one reason at a time: %s. Call web_crawl with the same url, cursor %q and skipped_reason set to the reason.\n", reasonsOf(l), o.SkippedCursor)
		}
		if reason != "" && g != nil {
			fmt.Fprintf(&b, "URLs skipped for %s:\n", reason)
			for _, line := range p.lines {
				b.WriteString(line)
			}
		}
		b.WriteString(noteLines(o.Notes))
		fmt.Fprintf(&b, "Search these pages with stash_search and source %q.\n", o.Source)
		return b.String(), o
	}
	// What heed says besides the URLs listed leaves them their room.
	size := func() int { return resultChars(render(listPage[Skip]{from: c.offset}, true)) }
	// The crawl's first pages take half the budget at most, the first
	// of them kept; crawl_pages lists them all.
	if n := len(out.Pages); n > 0 {
		for len(out.Pages) > 0 && size() > budget/2 {
			out.Pages = out.Pages[:len(out.Pages)-1]
		}
		if len(out.Pages) < n {
			out.PagesCursor = "" // crawl_pages from the first
			out.Notes = append(out.Notes, fmt.Sprintf("%d of the crawl's first %d pages are listed, as many as max_chars %d allows; crawl_pages lists them all", len(out.Pages), n, budget))
		}
	}
	out.Notes = append(out.Notes, shrunk)
	out.Notes = withNote(out.Notes, shrunk, fitEnvelope(budget, size, &out.Start, &out.Scope, &out.Robots))
	p := pageOf(budget, items, c.offset, func(cut bool) int { return resultChars(render(listPage[Skip]{from: c.offset}, cut)) }, show, func(next int) cursor {
		return cursor{id: l.id, group: c.group, offset: next}
	})
	text, o := render(p, p.next != "")
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, o, nil
}

// total is how many URLs a crawl skipped.
func total(skipped map[string]int) int {
	n := 0
	for _, c := range skipped {
		n += c
	}
	return n
}

// byReason says how many URLs a crawl skipped for each reason, as the
// crawl's summary says it.
func byReason(skipped map[string]int) string {
	if len(skipped) == 0 {
		return ""
	}
	var rs []string
	for r, n := range skipped {
		rs = append(rs, fmt.Sprintf("%d %s", n, r))
	}
	slices.Sort(rs)
	return " (" + strings.Join(rs, ", ") + ")"
}
