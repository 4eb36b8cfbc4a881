package crawl

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/url"
	"strings"
	"time"

	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/polite"
)

// Resumption says what a crawl taken up again had done: URLs ended, and
// URLs queued (those in flight when it stopped among them).
type Resumption struct {
	Ended  int `json:"ended"`
	Queued int `json:"queued"`
}

// keyed are the settings that make two crawls one (ledger.Crawl.Key):
// the start URL, the source and the settings that decide what each URL
// comes to.
type keyed struct {
	Start         string   `json:"start"`
	Source        string   `json:"source"`
	Include       []string `json:"include,omitempty"`
	Exclude       []string `json:"exclude,omitempty"`
	AllowHosts    []string `json:"allow_hosts,omitempty"`
	WholeSite     bool     `json:"whole_site,omitempty"`
	NoRobots      bool     `json:"no_robots,omitempty"`
	IgnoreSignals bool     `json:"ignore_signals,omitempty"`
}

// key is a crawl's ledger.Crawl.Key.
func key(o Options) string {
	k, _ := json.Marshal(keyOf(o.Options, o.Start))
	return string(k)
}

// keyOf are o's settings that make two crawls one, its start as given.
func keyOf(o crawlopt.Options, start string) keyed {
	return keyed{start, o.Source, o.Include, o.Exclude, o.AllowHosts, o.WholeSite, o.NoRobots, o.IgnoreSignals}
}

// stopReasons are the reasons of URLs a crawl skipped because it
// stopped: they stay queued in its ledger, to be crawled when it is
// resumed.
func stopReason(reason string) bool {
	return reason == ReasonInterrupted || reason == ReasonStopped || reason == ReasonDeadline || reason == ReasonCancelled
}

// begin records the crawl in the ledger, or takes up the one to resume
// (Options.Resume, or the last of its key cut short), and restores what
// it had done: the URLs it had seen, those it had stored (for
// duplicates), its counts, the hosts' next turns, and its queue.
func (r *run) begin(ctx context.Context) (*Resumption, error) {
	l := r.c.Ledger
	options, _ := json.Marshal(r.o.Options)
	// The crawl's key names its start as normalized: HTTP://Example.com
	// and http://example.com/ are one crawl.
	ko := r.o
	ko.Start = r.start
	rec, entries, err := l.Begin(ctx, ledger.Crawl{Key: key(ko), Start: r.start, Source: r.o.Source, Options: string(options), By: r.o.By}, r.o.Resume)
	if err != nil {
		return nil, err
	}
	r.id = rec.ID
	r.lsig = make(chan struct{}, 1)
	r.ldone = make(chan struct{})
	r.turns = map[string]time.Time{}
	if rec.Resumed == 0 {
		return nil, nil
	}
	if h, ok := r.c.Client.Turns.(interface{ Hold(string, time.Time) }); ok {
		if turns, err := l.Turns(ctx); err == nil {
			// A turn is at most the crawl's longest pace ahead: one further
			// (the clock was set back since, the ledger written by hand)
			// is held no longer.
			latest := time.Now().Add(max(r.o.Delay, r.o.MaxCrawlDelay))
			for _, t := range turns {
				if t.At.After(latest) {
					t.At = latest
				}
				h.Hold(t.Host, t.At)
			}
		}
	}
	res := &Resumption{}
	// The crawl's max_pages are its own over its runs; its summary is
	// this run's, and its record adds this run to what it had done.
	r.fetched = rec.Counts.Requests
	r.base = rec.Counts
	r.base.Requests = 0
	var queued []Item
	su, _ := url.Parse(r.start)
	for _, e := range entries {
		if e.URL == seedsMark(su) {
			r.seedsRead = true
			continue
		}
		if file, ok := strings.CutSuffix(e.URL, "#seeded"); ok {
			if r.seedFiles == nil {
				r.seedFiles = map[string]bool{}
			}
			r.seedFiles[file] = true
			continue
		}
		if e.Fate.Ended() {
			r.frontier.Mark(e.URL) // those queued are marked as they are queued again
		}
		if e.URL == r.start {
			r.seeded, r.startEnded = true, e.Fate.Ended()
		}
		switch e.Fate {
		case ledger.Queued:
			queued = append(queued, Item{URL: e.URL, Depth: e.Depth, LastMod: e.LastMod, Via: e.Via})
			continue
		case ledger.Stored, ledger.Unchanged, ledger.Claimed:
			if e.Depth == 0 && r.kept == "" {
				r.kept = e.URL // the start page, or where it redirected to
			}
			r.stored[e.URL] = true
			if _, ok := r.contents[e.Hash]; e.Hash != "" && !ok {
				r.contents[e.Hash] = e.URL
			}
		}
		res.Ended++
	}
	res.Queued = len(queued)
	r.resumed = queued
	return res, nil
}

// requeue queues again what the crawl taken up had queued, in order, as
// it queues a link: a URL its scope or its bounds leave out now (a
// ledger written by hand, a crawl of other settings taken up by its ID)
// is skipped, not asked.
func (r *run) requeue() {
	for _, it := range r.resumed {
		r.add(it)
	}
	r.resumed = nil
}

// note adds an entry to what the ledger is to record; r.mu is held.
func (r *run) note(e ledger.Entry) {
	if r.c.Ledger == nil {
		return
	}
	r.pending = append(r.pending, e)
	select {
	case r.lsig <- struct{}{}:
	default:
	}
}

// noteTurn notes the host's next turn after a request to u.
func (r *run) noteTurn(u *url.URL, delay time.Duration) {
	if r.c.Ledger == nil {
		return
	}
	r.mu.Lock()
	r.turns[polite.HostKey(u)] = time.Now().Add(delay)
	r.mu.Unlock()
}

// ended notes what a URL came to, with its content's hash if it was
// kept, and the requests it made with it. A URL skipped because the
// crawl stopped stays queued, and is asked again when the crawl is taken
// up: its requests, cut short, do not count against the crawl's
// max_pages.
func (r *run) ended(it Item, e Event, hash string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asking -= it.requests
	if e.Kind == Skipped && stopReason(e.Reason) {
		r.fetched -= it.requests
		return
	}
	if (e.Kind == Stored || e.Kind == Unchanged) && e.URL != it.URL {
		// The page is the URL it redirected to, kept under it (as
		// ledger.Kept lists it); the URL asked for ends claimed, so that
		// a twin naming either as its canonical URL is a duplicate after
		// a resume as before.
		r.note(ledger.Entry{URL: it.URL, Fate: ledger.Claimed, Depth: it.Depth})
		r.note(ledger.Entry{URL: e.URL, Fate: ledger.Fate(e.Kind), Depth: it.Depth, Hash: hash})
		return
	}
	r.note(ledger.Entry{URL: it.URL, Fate: ledger.Fate(e.Kind), Depth: it.Depth, Hash: hash})
}

// counts are the crawl's counts so far, over its runs; r.mu is held.
// The URLs skipped because the crawl stopped are not counted: they stay
// queued, and a crawl taken up crawls them.
func (r *run) counts() ledger.Counts {
	c := ledger.Counts{
		// The requests of the URLs that ended: those of a URL asked for
		// now count with its end, as a crawl taken up asks it again.
		Requests: r.fetched - r.asking, Stored: r.base.Stored + r.sum.Stored, Unchanged: r.base.Unchanged + r.sum.Unchanged,
		New: r.base.New + r.sum.New, Changed: r.base.Changed + r.sum.Changed, Removed: r.base.Removed + r.sum.Removed,
		Failed: r.base.Failed + r.sum.Failed, Skipped: maps.Clone(r.base.Skipped),
	}
	if c.Skipped == nil {
		c.Skipped = map[string]int{}
	}
	for reason, n := range r.sum.Skipped {
		// URLs left by a stop stay queued, to be taken up again, and are
		// not counted; those of a crawl cancelled are not, and are.
		if !stopReason(reason) || reason == ReasonCancelled {
			c.Skipped[reason] += n
		}
	}
	return c
}

// record writes what the crawl notes to its ledger as it goes: each
// write takes all that waits, in order, so that a URL's links are
// recorded with or before its end, and its end soon after it came. A
// write that fails is said once, and tried again with the next.
func (r *run) record() {
	defer close(r.ldone)
	ctx := context.WithoutCancel(r.ctx)
	warned := false
	for {
		_, open := <-r.lsig
		r.mu.Lock()
		batch, counts := r.pending, r.counts()
		turns := make([]ledger.Turn, 0, len(r.turns))
		for h, at := range r.turns {
			turns = append(turns, ledger.Turn{Host: h, At: at})
		}
		r.pending = nil
		clear(r.turns)
		r.mu.Unlock()
		if len(batch) > 0 || len(turns) > 0 {
			if err := r.c.Ledger.Write(ctx, r.id, batch, counts, turns); err != nil {
				r.mu.Lock()
				r.pending = append(batch, r.pending...)
				r.mu.Unlock()
				if !warned {
					warned = true
					r.emit(Event{Kind: Failed, URL: r.start, Reason: "ledger", Detail: "the crawl's progress could not be recorded; an interrupted crawl may not be resumed where it stopped: " + err.Error()})
				}
				if !open {
					return
				}
				time.Sleep(100 * time.Millisecond)
				continue
			}
		}
		if !open {
			return
		}
	}
}

// finish records the crawl's end and its counts, once every note is
// written.
func (r *run) finish() {
	close(r.lsig)
	<-r.ldone
	cause := context.Cause(r.ctx)
	state := ledger.Done
	r.mu.Lock()
	failed := r.stashErr != nil
	left := false // URLs skipped because the crawl stopped, left queued
	for reason, n := range r.sum.Skipped {
		left = left || stopReason(reason) && n > 0
	}
	counts := r.counts()
	r.mu.Unlock()
	switch {
	case failed:
		state = ledger.CrawlFailed
	case errors.Is(cause, ledger.ErrCancelled):
		state = ledger.Cancelled
	case errors.Is(cause, context.Canceled), errors.Is(cause, context.DeadlineExceeded), left:
		// Its URLs left are queued, to be taken up again: those of a host
		// whose next turn came after the deadline too, before it came.
		state = ledger.Interrupted
	case r.refused:
		// Refused at its door, the crawl is not done: what it had queued
		// is crawled once the site lets it.
		state = ledger.CrawlFailed
	}
	_ = r.c.Ledger.Finish(context.WithoutCancel(r.ctx), r.id, state, counts)
}
