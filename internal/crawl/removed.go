package crawl

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/heedhq/heed/fetch"
)

// Gone says whether a URL's failure, err, says its page is gone: an
// HTTP 404 or 410, named by its status ("404", "410"); "" else. A page
// the store held that is gone is marked removed, not failed.
func Gone(err error) string {
	var se *fetch.StatusError
	if errors.As(err, &se) && (se.Status == http.StatusNotFound || se.Status == http.StatusGone) {
		return strconv.Itoa(se.Status)
	}
	return ""
}

// ReasonUnreached is the Reason of a Removed event for a page that a
// complete crawl of its source no longer reached.
const ReasonUnreached = "unreached"

// Complete reports whether a crawl that came to c reached all it could:
// it ran to its end (not stopped, not cut by max_pages, max_depth or its
// deadline), nothing failed, and nothing it found was left by its bounds.
// Only such a crawl says that a page it did not reach is gone.
func Complete(sum *Summary) bool {
	if sum.Failed > 0 || sum.Left.URLs > 0 || sum.Left.Sitemaps > 0 {
		return false
	}
	for reason, n := range sum.Skipped {
		if n > 0 && (reason == ReasonLimit || reason == ReasonDeadline || stopReason(reason)) {
			return false
		}
	}
	return true
}

// Unreached are those of present, the pages of the crawl's source that
// are not removed, that a complete crawl did not reach: within its
// scope, and not reached (reached says which URLs the crawl met,
// whatever they came to).
func (e *Engine) Unreached(present []string, reached func(string) bool) []string {
	var out []string
	for _, p := range present {
		if reached(p) {
			continue
		}
		u, err := url.Parse(p)
		if err != nil || e.scope.check(u) != "" {
			continue
		}
		out = append(out, p)
	}
	return out
}

// sweep marks the pages of the source that a complete crawl no longer
// reached removed, and says so.
func (r *run) sweep(ctx context.Context) error {
	r.mu.Lock()
	complete := Complete(&r.sum) && r.base.Failed == 0 && r.base.Skipped[ReasonLimit] == 0 && r.base.Skipped[ReasonDeadline] == 0
	r.mu.Unlock()
	if !complete || r.c.Store == nil || context.Cause(ctx) != nil {
		return nil
	}
	present, err := r.c.Store.Present(ctx, r.o.Source)
	if err != nil {
		return err
	}
	gone := r.eng.Unreached(present, func(u string) bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.frontier.Seen(u)
	})
	now := time.Now()
	for _, u := range gone {
		removed, err := r.c.Store.MarkRemoved(ctx, r.o.Source, u, now, ReasonUnreached)
		if err != nil {
			return err
		}
		if removed {
			r.tell(Event{Kind: Removed, URL: u, Reason: ReasonUnreached, Detail: "a complete crawl of its source no longer reaches it"})
		}
	}
	return nil
}
