package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/render"
)

// ViaRendered says a snapshot's page was rendered in a browser.
const ViaRendered = "rendered"

// render renders a page whose static HTML needs it (or every HTML page,
// with render.Always), and reads it again: its links and directives are
// the rendered page's. The browser's requests are the crawl's: each on
// its host's turn, spaced by the host's delay, and only where the
// resource's robots.txt allows it. Without a browser, or when rendering
// fails, a page rendered only because it looked empty is kept as it is,
// with a note; one that the crawl asked to render always fails.
func (r *run) render(it Item, resp *fetch.Response, p *Page) (*Page, bool, error) {
	mode := r.o.Render
	if mode == "" {
		mode = render.Auto
	}
	if mode == render.Never || p.Kind != extract.KindHTML || p.Skip != "" {
		return p, false, nil
	}
	if mode == render.Auto && !render.Needs(resp.Body, p.Doc.Markdown) {
		return p, false, nil
	}
	var err error
	if r.c.Browser == nil {
		err = render.ErrNoBrowser
	} else {
		var page *render.Page
		if page, err = r.c.Browser.Render(r.ctx, resp, r.browserGet); err == nil {
			again := *resp
			again.Body = page.HTML
			again.Header = resp.Header.Clone()
			again.Header.Set("Content-Type", "text/html; charset=utf-8")
			rp, rerr := ReadPage(&again, it, r.c.Agent, r.o.IgnoreSignals)
			if rerr == nil {
				rp.Via = append(rp.Via, ViaRendered)
				if page.Cut != "" {
					rp.Notes = append(rp.Notes, CutNote(page.Cut))
				}
				return rp, true, nil
			}
			err = rerr
		}
	}
	if mode == render.Always {
		return nil, false, &heed.Error{Kind: heed.KindOf(err), Op: "render", URL: resp.URL, Err: err}
	}
	p.Notes = append(p.Notes, fmt.Sprintf("the page holds next to nothing without its scripts, and was not rendered: %v", err))
	return p, false, nil
}

// errDisallowed refuses a browser's request that robots.txt disallows.
var errDisallowed = errors.New("robots.txt disallows it")

// browserGet makes one of a rendered page's requests as the crawl makes
// its own: robots.txt asked first, for every hop, and the host's turn
// and delay kept.
func (r *run) browserGet(ctx context.Context, req fetch.Request) (*fetch.Response, error) {
	allowed := func(raw string) error {
		if d, err := r.policy.Allowed(ctx, r.c.Agent, raw); err != nil || !d.Allowed {
			return &heed.Error{Kind: heed.Blocked, Op: "render", URL: fetch.Redact(raw), Err: errDisallowed}
		}
		return nil
	}
	if err := allowed(req.URL); err != nil {
		return nil, err
	}
	req.CheckRedirect = allowed
	if req.Accept == "" {
		req.Accept = "*/*"
	}
	resp, err := r.c.Client.Spaced(r.delayFor(req.URL)).Get(ctx, req)
	if err == nil && resp.Status == http.StatusNotModified {
		return nil, errors.New("not modified")
	}
	return resp, err
}

// CutNote says that a rendered page spent a budget, and was read as it
// stood then.
func CutNote(budget string) string {
	return "rendered until its " + budget + " budget was spent, and read as it stood then"
}
