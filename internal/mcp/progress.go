package mcp

import (
	"context"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed/internal/crawl"
)

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
// max_pages counts them: a page stored, unchanged or failed, found gone
// by its answer (an HTTP 404 or 410, not a page the crawl no longer
// reached), or skipped
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
	case crawl.Removed:
		return ev.Reason != crawl.ReasonUnreached
	}
	switch ev.Reason {
	case crawl.ReasonNoindex, crawl.ReasonSignal, crawl.ReasonType, crawl.ReasonDup, crawl.ReasonRedirect:
		return true
	}
	// The crawler says so of a URL it refused after fetching it: a
	// redirect it would not follow, or a final URL it would not keep.
	return ev.Kind == crawl.Skipped && strings.HasPrefix(ev.Detail, "redirected to ")
}
