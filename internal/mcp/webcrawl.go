package mcp

import (
	"context"
	"fmt"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ingest"
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
	o, err := s.crawlOptions(in.URL, in.MaxPages, in.MaxDepth, in.Render, &out.Notes)
	if err != nil {
		return nil, out, err
	}
	o.Source = crawl.SourceName(in.URL)
	o.Include, o.Exclude, o.WholeSite = in.Include, in.Exclude, in.WholeSite
	maxPages := o.MaxPages

	prog := s.newProgress(ctx, req, maxPages)
	var mu sync.Mutex
	counts := map[crawl.Kind]int{}
	pages := 0
	res, err := s.svc.Crawl(ctx, ingest.CrawlRequest{Options: o}, func(ev crawl.Event) {
		mu.Lock()
		defer mu.Unlock()
		if ev.Kind == crawl.Began {
			out.Scope = ev.Detail
			return
		}
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
	out.Limits = Limit{MaxPages: o.MaxPages, MaxDepth: o.MaxDepth}
	for _, ev := range res.Skips[:min(len(res.Skips), maxSkipsShown)] {
		out.Skips = append(out.Skips, Skip{URL: ev.URL, Event: string(ev.Kind), Reason: ev.Reason, Detail: s.skipDetail(ev)})
	}
	text := fmt.Sprintf("Crawled %s (%s) into the stash as source %q: %s", in.URL, out.Scope, res.Source, sum.Text())
	if sum.Left != (crawl.Left{}) {
		text += "A larger max_pages reads more.\n"
	}
	for _, sk := range out.Skips {
		text += fmt.Sprintf("- %s %s: %s: %s\n", sk.Event, sk.URL, sk.Reason, sk.Detail)
	}
	for _, note := range out.Notes {
		text += "Note: " + note + ".\n"
	}
	text += fmt.Sprintf("Search these pages with stash_search and source %q.\n", res.Source)
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, out, nil
}
