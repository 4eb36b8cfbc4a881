package crawl

import (
	"context"
	"errors"
	"net/http"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/render"
)

// ViaRendered says a snapshot's page was rendered in a browser.
const ViaRendered = "rendered"

// render renders a page whose static HTML needs it (or every HTML page,
// with render.Always), and reads it again (Render). The browser's
// requests are the crawl's: each on its host's turn, spaced by the
// host's delay, and only where the resource's robots.txt allows it.
func (r *run) render(it Item, resp *fetch.Response, p *Page) (*Page, bool, error) {
	return Render(r.ctx, r.c.Browser, render.Mode(r.o.Render), resp, p, it, r.c.Agent, r.o.IgnoreSignals, r.browserGet)
}

// Render renders the page p read from resp when mode says so
// (render.Browser.Apply), its requests made by get, and reads it again:
// its links and directives are the rendered page's, its Via says
// ViaRendered, and its notes say what a rendering that was wanted left
// undone or cut short. A page that is not HTML, or is skipped, is p.
func Render(ctx context.Context, b *render.Browser, mode render.Mode, resp *fetch.Response, p *Page, it Item, agent string, ignoreSignals bool, get render.Get) (*Page, bool, error) {
	if p.Kind != extract.KindHTML || p.Skip != "" {
		return p, false, nil
	}
	var rp *Page
	rendered, note, err := b.Apply(ctx, mode, resp, p.Doc.Markdown, get, func(html []byte) error {
		again := *resp
		again.Body = html
		again.Header = resp.Header.Clone()
		again.Header.Set("Content-Type", "text/html; charset=utf-8")
		var err error
		rp, err = readPage(ctx, &again, it, agent, ignoreSignals)
		return err
	})
	if err != nil {
		return nil, false, err
	}
	if rendered {
		p = rp
		p.Via = append(p.Via, ViaRendered)
	}
	if note != "" {
		p.Notes = append(p.Notes, note)
	}
	return p, rendered, nil
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
