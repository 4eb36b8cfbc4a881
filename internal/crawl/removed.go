package crawl

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawlopt"
)

// gone says whether a URL's failure, err, says its page is gone: an
// HTTP 404 or 410, named by its status ("404", "410"); "" else. A page
// the store held that is gone is marked removed, not failed.
func gone(err error) string {
	var se *fetch.StatusError
	if errors.As(err, &se) && (se.Status == http.StatusNotFound || se.Status == http.StatusGone) {
		return strconv.Itoa(se.Status)
	}
	return ""
}

// The reasons of a Removed event beside an HTTP status: a page a
// complete crawl no longer reached, and one that now redirects.
const (
	ReasonUnreached = "unreached"
	ReasonMoved     = "moved"
)

// ReasonGone is the reason of a URL skipped because its page, found
// gone before, is gone still: nothing became of it, and it is no page
// the crawl kept.
const ReasonGone = "gone"

// IncompleteReasons are the reasons of URLs skipped that leave a crawl
// incomplete: its bounds (max_pages, max_depth) and its stops (its
// deadline, an interruption, a failure of its store, a cancel). A page
// beyond such a URL may be there still.
var IncompleteReasons = []string{ReasonLimit, ReasonDeadline, ReasonInterrupted, ReasonStopped, ReasonCancelled}

// Complete reports whether a crawl that came to c reached all it could:
// it ran to its end (no URL skipped for IncompleteReasons), nothing
// failed but for pages gone (a 404 or a 410: gone says how many), and
// nothing it found was left by its bounds. Only such a crawl says that a
// page it did not reach is gone.
func Complete(sum *Summary, gone int) bool {
	if sum.Failed > gone || sum.Left.URLs > 0 || sum.Left.Sitemaps > 0 {
		return false
	}
	for reason, n := range sum.Skipped {
		if n > 0 && slices.Contains(IncompleteReasons, reason) {
			return false
		}
	}
	return true
}

// UnreachedEvent is the event of a page a complete crawl of its source
// no longer reached, marked removed; MovedEvent of one that now
// redirects to final. Every crawl, on one machine or a team's, tells
// them alike.
func UnreachedEvent(rawURL string) Event {
	return Event{Kind: Removed, URL: rawURL, Reason: ReasonUnreached, Detail: "a complete crawl of its source no longer reaches it"}
}

// MovedEvent: see UnreachedEvent.
func MovedEvent(rawURL, final string) Event {
	return Event{Kind: Removed, URL: rawURL, Reason: ReasonMoved, Detail: "it redirects to " + final}
}

// Reach is what decides which pages a crawl can reach, as text: its
// start URL (normalized), its source, its scope and robots policy (what
// makes two crawls one, ledger.Crawl.Key) and the seeds it reads. Only a
// crawl of the same reach as an earlier one says that a page the earlier
// one kept and it did not reach is gone: a crawl from another start, or
// that reads no sitemap, was never going to reach it.
func Reach(o crawlopt.Options) string {
	start, err := Normalize(o.Start)
	if err != nil {
		start = o.Start
	}
	r, _ := json.Marshal(struct {
		keyed
		NoSitemaps bool `json:"no_sitemaps,omitempty"`
		NoLLMsTxt  bool `json:"no_llms_txt,omitempty"`
	}{keyOf(o, start), o.NoSitemaps, o.NoLLMsTxt})
	return string(r)
}

// Unreached are those of kept, the pages an earlier crawl of the same
// reach kept, that a complete crawl did not reach: within its scope, and
// not reached (reached says which URLs the crawl met, whatever they came
// to).
func (e *Engine) Unreached(kept []string, reached func(string) bool) []string {
	var out []string
	for _, p := range kept {
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

// sweep marks removed the pages that the last crawl before this one of
// the same reach kept and this one, complete, no longer reached, and says
// so.
func (r *run) sweep(ctx context.Context) error {
	r.mu.Lock()
	complete := Complete(&r.sum, r.gone) && r.base.Failed == 0 && r.base.Skipped[ReasonLimit] == 0 && r.base.Skipped[ReasonDeadline] == 0
	r.mu.Unlock()
	if !complete || r.c.Store == nil || r.c.Ledger == nil || context.Cause(ctx) != nil {
		return nil
	}
	prev, err := r.previous(ctx)
	if err != nil || prev == 0 {
		return err
	}
	var kept []string
	for after := int64(0); ; {
		ks, err := r.c.Ledger.Kept(ctx, prev, after, 1000)
		if err != nil {
			return err
		}
		for _, k := range ks {
			kept = append(kept, k.URL)
		}
		if len(ks) < 1000 {
			break
		}
		after = ks[len(ks)-1].Seq
	}
	gone := r.eng.Unreached(kept, func(u string) bool {
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
			r.tell(UnreachedEvent(u))
		}
	}
	return nil
}

// previous is the last crawl before this one of the same reach, or 0.
func (r *run) previous(ctx context.Context) (int64, error) {
	crawls, err := r.c.Ledger.Crawls(ctx, maxPrevious)
	if err != nil {
		return 0, err
	}
	reach := Reach(r.o.Options)
	for _, c := range crawls { // newest first
		if c.ID >= r.id || c.Source != r.o.Source {
			continue
		}
		var o crawlopt.Options
		if json.Unmarshal([]byte(c.Options), &o) == nil && Reach(o) == reach {
			return c.ID, nil
		}
	}
	return 0, nil
}

// maxPrevious is how many of the newest crawls a sweep looks among for
// the last of its reach.
const maxPrevious = 1000
