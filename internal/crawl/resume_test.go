package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/polite"
)

// bookSite is a site of 1 + sections + sections×pages pages without
// validators: the start page links to each section, each section to its
// pages.
func bookSite(t *testing.T, sections, pages int) (*site, int) {
	s := newSite(t)
	s.robots = "User-agent: *\nAllow: /\n"
	var secs []string
	for i := range sections {
		sec := fmt.Sprintf("/s%d/", i)
		secs = append(secs, sec)
		var ps []string
		for j := range pages {
			p := fmt.Sprintf("/s%d/p%d", i, j)
			ps = append(ps, p)
			s.set(p, page{body: html(fmt.Sprintf("Page %d of section %d", j, i))})
		}
		s.set(sec, page{body: html(fmt.Sprintf("Section %d", i), ps...)})
	}
	s.set("/", page{body: html("Contents", secs...)})
	return s, 1 + sections + sections*pages
}

// byPath counts the requests of each path.
func byPath(s *site) map[string]int {
	n := map[string]int{}
	for _, p := range s.paths() {
		n[p]++
	}
	return n
}

func TestCrawlResumesWhereItStopped(t *testing.T) {
	c, st := crawler(t)
	s, pages := bookSite(t, 10, 20)
	o := options(s.URL + "/")
	o.Source, o.MaxPages = "book", 1000

	// The first run is stopped (Ctrl-C) once a third of the pages are
	// stored.
	ctx, cancel := context.WithCancel(t.Context())
	var mu sync.Mutex
	stored := map[string]int{}
	var first events
	sum, err := c.Crawl(ctx, o, func(ev Event) {
		first.add(ev)
		if ev.Kind == Stored {
			mu.Lock()
			stored[ev.URL]++
			if len(stored) == pages/3 {
				cancel()
			}
			mu.Unlock()
		}
	})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	began := first.find(Began, "/")
	if began == nil || began.Crawl == 0 || began.Resumed != nil {
		t.Fatalf("the first run's first event is %+v: want a new crawl's ID", began)
	}
	id := began.Crawl
	rec, err := c.Ledger.Crawl(t.Context(), id)
	if err != nil || rec.State != ledger.Interrupted {
		t.Fatalf("crawl %d after Ctrl-C: %+v, %v; want interrupted", id, rec, err)
	}
	if sum.Skipped[ReasonInterrupted] == 0 {
		t.Fatalf("the first run's summary skips none as interrupted: %+v", sum)
	}
	requestsBefore := len(s.requests())

	// The same crawl again takes it up: it says what it resumes, asks
	// what was queued, and nothing it had ended.
	var second events
	sum2, err := c.Crawl(t.Context(), o, func(ev Event) {
		second.add(ev)
		if ev.Kind == Stored {
			mu.Lock()
			stored[ev.URL]++
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	began2 := second.find(Began, "/")
	if began2 == nil || began2.Crawl != id || began2.Resumed == nil {
		t.Fatalf("the second run's first event is %+v: want crawl %d resumed", began2, id)
	}
	if r := began2.Resumed; r.Ended < pages/3 || r.Queued == 0 || r.Ended+r.Queued > pages {
		t.Fatalf("resumed %+v: want at least %d ended, some queued, no more than %d in all", *r, pages/3, pages)
	}
	for u, n := range stored {
		if n > 1 {
			t.Errorf("%s stored %d times", u, n)
		}
	}
	entries, err := st.List(t.Context(), "book")
	if err != nil || len(entries) != pages {
		t.Fatalf("the stash holds %d pages of the book (%v), want %d", len(entries), err, pages)
	}
	// What was in flight when the crawl stopped is asked once more: the
	// one request to the site's one host (the pages fetched are stored
	// though the crawl stops); no page ended is.
	const inFlight = 1
	hits := byPath(s)
	if hits["/robots.txt"] != 1 {
		t.Errorf("robots.txt was asked for %d times; kept in the ledger, once is enough", hits["/robots.txt"])
	}
	extra := 0
	for p, n := range hits {
		if p != "/robots.txt" && n > 1 {
			extra += n - 1
		}
	}
	if extra > inFlight || len(s.requests())-requestsBefore == 0 {
		t.Errorf("%d pages were asked again (at most %d were in flight)", extra, inFlight)
	}
	if sum.Stored+sum2.Stored != pages || sum2.Skipped[ReasonInterrupted] != 0 {
		t.Errorf("the runs' summaries: %+v, %+v; want their stored pages to add up to %d, none interrupted in the second", sum, sum2, pages)
	}
	t.Logf("%d of %d pages asked again after the interrupt", extra, pages)
	rec, err = c.Ledger.Crawl(t.Context(), id)
	if err != nil || rec.State != ledger.Done || rec.Resumed != 1 || rec.Counts.Stored != pages || rec.Counts.Skipped[ReasonInterrupted] != 0 {
		t.Fatalf("crawl %d at its end: %+v, %v; want done, resumed once, %d pages", id, rec, err, pages)
	}

	// A crawl done is not resumed: the same crawl again is a new one,
	// and the first one's record stays as it ended.
	var third events
	if _, err := c.Crawl(t.Context(), o, third.add); err != nil {
		t.Fatal(err)
	}
	if b := third.find(Began, "/"); b == nil || b.Crawl == id || b.Resumed != nil {
		t.Fatalf("a crawl after one done began as %+v: want a new crawl", b)
	}
	if again, err := c.Ledger.Crawl(t.Context(), id); err != nil || again.Counts.Stored != rec.Counts.Stored || !again.Ended.Equal(rec.Ended) {
		t.Fatalf("crawl %d's record changed after a later crawl: %+v, was %+v", id, again, rec)
	}
	if got := byPath(s)["/s0/p0"]; got != 2 {
		t.Errorf("/s0/p0 was asked %d times; the new crawl asks every page again", got)
	}
}

func TestCrawlResumeByID(t *testing.T) {
	c, _ := crawler(t)
	s, _ := bookSite(t, 2, 3)
	o := options(s.URL + "/")
	o.Source = "book"
	var ev events
	if _, err := c.Crawl(t.Context(), o, ev.add); err != nil {
		t.Fatal(err)
	}
	done := ev.find(Began, "/").Crawl
	o.Resume = done
	_, err := c.Crawl(t.Context(), o, nil)
	if !errors.Is(err, ledger.ErrNotResumable) || heed.KindOf(err) != heed.Invalid || !strings.Contains(err.Error(), "done") {
		t.Errorf("resuming a crawl done: %v; want it refused, saying it is done", err)
	}
	o.Resume = done + 100
	_, err = c.Crawl(t.Context(), o, nil)
	if !errors.Is(err, ledger.ErrNoCrawl) || heed.KindOf(err) != heed.NotFound {
		t.Errorf("resuming a crawl that is not: %v; want not found", err)
	}
}

// A crawl interrupted while a request waits for its host's turn records
// the requests it made, not the one it never made: taken up again, it
// has the rest of its max_pages for the pages it had queued.
func TestCrawlInterruptedCountsTheRequestsMade(t *testing.T) {
	c, _ := crawler(t)
	s := newSite(t)
	s.set("/", page{body: html("Home", "/a", "/b")})
	s.set("/a", page{body: html("A")})
	s.set("/b", page{body: html("B")})
	o := options(s.URL + "/")
	o.Source, o.MaxPages, o.NoRobots, o.NoSitemaps, o.NoLLMsTxt = "waits", 3, true, true, true
	// The home page is asked at once; /a waits an hour for its turn, and
	// the crawl is interrupted then.
	o.Delay, o.Deadline = time.Hour, 2*time.Hour
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var ev events
	if _, err := c.Crawl(ctx, o, func(e Event) {
		ev.add(e)
		if e.Kind == Waiting {
			cancel()
		}
	}); err != nil {
		t.Fatal(err)
	}
	began := ev.find(Began, "/")
	if began == nil || ev.find(Waiting, "") == nil {
		t.Fatalf("the crawl did not wait for a turn: %+v", ev.all)
	}
	rec, err := c.Ledger.Crawl(t.Context(), began.Crawl)
	if err != nil {
		t.Fatal(err)
	}
	if made := len(s.requests()); rec.State != ledger.Interrupted || rec.Counts.Requests != made {
		t.Errorf("crawl %d: %s, %d requests counted against max_pages; the site served %d", began.Crawl, rec.State, rec.Counts.Requests, made)
	}
}

// A crawl whose host's next turn comes after its deadline leaves the
// URLs it had queued there as a crawl at its deadline does: queued, to
// be taken up again, the crawl cut short (interrupted), not done.
func TestCrawlTurnAfterTheDeadlineIsCutShort(t *testing.T) {
	c, _ := crawler(t)
	s := newSite(t)
	s.set("/", page{body: html("Home", "/a", "/b")})
	s.set("/a", page{body: html("A")})
	s.set("/b", page{body: html("B")})
	o := options(s.URL + "/")
	o.Source, o.NoRobots, o.NoSitemaps, o.NoLLMsTxt = "late", true, true, true
	o.Delay, o.Deadline = time.Hour, 30*time.Minute
	var ev events
	sum, err := c.Crawl(t.Context(), o, ev.add)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stored != 1 || sum.Skipped[ReasonDeadline] != 2 {
		t.Fatalf("the crawl: %+v", sum)
	}
	rec, err := c.Ledger.Crawl(t.Context(), ev.find(Began, "/").Crawl)
	if err != nil {
		t.Fatal(err)
	}
	if rec.State != ledger.Interrupted {
		t.Errorf("the crawl's record: %s, its URLs left queued; want it interrupted, to be taken up again", rec.State)
	}
}

// TestCrawlCutShortAtItsDoor: a crawl stopped before its start URL was
// queued (Ctrl-C while its robots.txt was asked for) has nothing in its
// ledger to take up; the same crawl again crawls the site from its start
// URL, as the crawl it resumes would have.
func TestCrawlCutShortAtItsDoor(t *testing.T) {
	c, _ := crawler(t)
	s, pages := bookSite(t, 2, 3)
	ctx, cancel := context.WithCancel(t.Context())
	var once sync.Once
	door := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" && ctx.Err() == nil {
			once.Do(cancel)
			<-r.Context().Done()
			return
		}
		s.serve(w, r)
	}))
	t.Cleanup(door.Close)
	o := options(door.URL + "/")
	o.Source = "book"
	var first events
	if _, err := c.Crawl(ctx, o, first.add); err == nil {
		t.Fatal("a crawl stopped at its door did not fail")
	}
	id := first.find(Began, "/").Crawl
	if rec, err := c.Ledger.Crawl(t.Context(), id); err != nil || rec.State != ledger.Interrupted {
		t.Fatalf("crawl %d stopped at its door: %+v, %v; want interrupted", id, rec, err)
	}
	var second events
	sum, err := c.Crawl(t.Context(), o, second.add)
	if err != nil {
		t.Fatalf("the crawl again: %v", err)
	}
	if b := second.find(Began, "/"); b == nil || b.Crawl != id {
		t.Errorf("the crawl again began as %+v: want crawl %d taken up", b, id)
	}
	if sum.Stored != pages {
		t.Errorf("the crawl again stored %d pages, want the site's %d", sum.Stored, pages)
	}
}

// TestCrawlResumedKeepsNothingNew: a crawl taken up again whose last
// queued URL fails kept pages in its earlier run: it does not fail as a
// crawl that kept nothing.
func TestCrawlResumedKeepsNothingNew(t *testing.T) {
	c, _ := crawler(t)
	s, _ := bookSite(t, 1, 1)
	o := options(s.URL + "/")
	o.Source = "book"
	start, _ := Normalize(o.Start)
	rec, _, err := c.Ledger.Begin(t.Context(), ledger.Crawl{Key: key(o), Start: start, Source: o.Source}, 0)
	if err != nil {
		t.Fatal(err)
	}
	counts := ledger.Counts{Requests: 1, Stored: 1}
	if err := c.Ledger.Write(t.Context(), rec.ID, []ledger.Entry{{URL: start, Fate: ledger.Stored}, {URL: s.URL + "/gone", Fate: ledger.Queued, Depth: 1}}, counts, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Ledger.Finish(t.Context(), rec.ID, ledger.Interrupted, counts); err != nil {
		t.Fatal(err)
	}
	sum, err := c.Crawl(t.Context(), o, nil)
	if err != nil {
		t.Fatalf("the crawl taken up: %v; want no error: its first run kept a page", err)
	}
	if sum.Failed != 1 {
		t.Errorf("the crawl taken up: %+v; want /gone failed", sum)
	}
	if got, err := c.Ledger.Crawl(t.Context(), rec.ID); err != nil || got.State != ledger.Done || got.Counts.Stored != 1 || got.Counts.Failed != 1 {
		t.Errorf("the crawl's record: %+v, %v", got, err)
	}
}

// TestCrawlResumedRefusedAtItsDoor: a crawl taken up again whose start
// URL its robots.txt refuses for now (a 503) is not done: what it had
// queued is kept, and crawled when the site lets it.
func TestCrawlResumedRefusedAtItsDoor(t *testing.T) {
	c, _ := crawler(t)
	s, pages := bookSite(t, 2, 3)
	o := options(s.URL + "/")
	o.Source = "book"
	ctx, cancel := context.WithCancel(t.Context())
	var first events
	sum, err := c.Crawl(ctx, o, func(ev Event) {
		first.add(ev)
		if ev.Kind == Stored {
			cancel()
		}
	})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	id := first.find(Began, "/").Crawl
	// Its robots.txt, kept in the ledger, expires; the site answers 503.
	u, _ := url.Parse(s.URL)
	expire := func() {
		t.Helper()
		if err := c.Ledger.PutRobots(t.Context(), ledger.Robots{Origin: "http://" + u.Host, Status: "parsed", HTTPStatus: 200, Until: time.Now().Add(-time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	expire()
	s.mu.Lock()
	s.robots = "503"
	s.mu.Unlock()
	if _, err := c.Crawl(t.Context(), o, nil); !errors.Is(err, ErrStartRefused) {
		t.Fatalf("the crawl taken up, robots.txt a 503: %v; want it refused", err)
	}
	if rec, err := c.Ledger.Crawl(t.Context(), id); err != nil || !rec.State.Resumable() {
		t.Fatalf("crawl %d refused at its door: %+v, %v; want it kept to resume", id, rec, err)
	}
	// The 503 is kept for its hour; past it, robots.txt answers.
	expire()
	s.mu.Lock()
	s.robots = "User-agent: *\nAllow: /\n"
	s.mu.Unlock()
	var third events
	sum3, err := c.Crawl(t.Context(), o, third.add)
	if err != nil {
		t.Fatal(err)
	}
	if b := third.find(Began, "/"); b == nil || b.Crawl != id || b.Resumed == nil {
		t.Errorf("the crawl once robots.txt answers began as %+v: want crawl %d taken up", b, id)
	}
	if sum.Stored+sum3.Stored != pages {
		t.Errorf("stored %d then %d pages, want %d in all", sum.Stored, sum3.Stored, pages)
	}
}

// TestCrawlResumedCountsARequestOnce: a request the crawl stopped in the
// middle of (Ctrl-C) is made again when the crawl is taken up; it counts
// once against max_pages, so that a crawl of as many pages as the site
// has stores all of them over its two runs.
func TestCrawlResumedCountsARequestOnce(t *testing.T) {
	c, _ := crawler(t)
	s, pages := bookSite(t, 1, 8)
	ctx, cancel := context.WithCancel(t.Context())
	cut := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/s0/p4" && ctx.Err() == nil {
			cancel() // Ctrl-C while the page is asked for
			<-r.Context().Done()
			return
		}
		s.serve(w, r)
	}))
	t.Cleanup(cut.Close)
	o := options(cut.URL + "/")
	o.Source, o.MaxPages, o.NoSitemaps = "book", pages, true
	sum, err := c.Crawl(ctx, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ev events
	sum2, err := c.Crawl(t.Context(), o, ev.add)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stored+sum2.Stored != pages || sum2.Skipped[ReasonLimit] != 0 {
		t.Errorf("stored %d, then %d (%+v); want the site's %d pages in all, none past max_pages", sum.Stored, sum2.Stored, sum2.Skipped, pages)
	}
	id := ev.find(Began, "/").Crawl
	if rec, err := c.Ledger.Crawl(t.Context(), id); err != nil || rec.Counts.Requests != pages {
		t.Errorf("crawl %d's record: %+v, %v; want %d requests, one a page", id, rec, err, pages)
	}
}

// TestCrawlResumedHoldsTurnsItCouldHaveKept: a host's next turn in the
// ledger further ahead than any pace of the crawl (the clock was set back
// since it was written, or the ledger was written by hand) is held no
// longer than the crawl's own pace: the crawl taken up crawls the host,
// rather than skip its URLs for the deadline.
func TestCrawlResumedHoldsTurnsItCouldHaveKept(t *testing.T) {
	c, _ := crawler(t)
	s, _ := bookSite(t, 1, 1)
	o := options(s.URL + "/")
	o.Source, o.MaxCrawlDelay = "book", 0
	start, _ := Normalize(o.Start)
	rec, _, err := c.Ledger.Begin(t.Context(), ledger.Crawl{Key: key(o), Start: start, Source: o.Source}, 0)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(start)
	counts := ledger.Counts{Requests: 1, Stored: 1}
	if err := c.Ledger.Write(t.Context(), rec.ID, []ledger.Entry{{URL: start, Fate: ledger.Stored}, {URL: s.URL + "/s0/", Fate: ledger.Queued, Depth: 1}},
		counts, []ledger.Turn{{Host: polite.HostKey(u), At: time.Now().Add(24 * time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Ledger.Finish(t.Context(), rec.ID, ledger.Interrupted, counts); err != nil {
		t.Fatal(err)
	}
	sum, err := c.Crawl(t.Context(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stored != 2 || sum.Skipped[ReasonDeadline] != 0 {
		t.Errorf("the crawl taken up: %+v; want /s0/ and its page stored, none skipped for the deadline", sum)
	}
}

// TestCrawlResumedKeepsToItsScope: what a crawl taken up had queued is
// queued again as a link found now would be: a URL out of its scope (a
// ledger written by hand, or by a crawl of other settings taken up by
// its ID), or deeper than its max_depth, is skipped, not asked.
func TestCrawlResumedKeepsToItsScope(t *testing.T) {
	c, _ := crawler(t)
	s := newSite(t)
	s.robots = "User-agent: *\nAllow: /\n"
	for _, p := range []string{"/docs/", "/docs/a", "/docs/a/deep", "/private"} {
		s.set(p, page{body: html("Page " + p)})
	}
	o := options(s.URL + "/docs/")
	o.Source, o.MaxDepth = "docs", 1
	start, _ := Normalize(o.Start)
	rec, _, err := c.Ledger.Begin(t.Context(), ledger.Crawl{Key: key(o), Start: start, Source: o.Source}, 0)
	if err != nil {
		t.Fatal(err)
	}
	counts := ledger.Counts{Requests: 1, Stored: 1}
	if err := c.Ledger.Write(t.Context(), rec.ID, []ledger.Entry{
		{URL: start, Fate: ledger.Stored},
		{URL: s.URL + "/docs/a", Fate: ledger.Queued, Depth: 1},
		{URL: s.URL + "/private", Fate: ledger.Queued, Depth: 1},
		{URL: s.URL + "/docs/a/deep", Fate: ledger.Queued, Depth: 2},
		{URL: "http://127.0.0.2/", Fate: ledger.Queued, Depth: 1},
	}, counts, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Ledger.Finish(t.Context(), rec.ID, ledger.Interrupted, counts); err != nil {
		t.Fatal(err)
	}
	var ev events
	if _, err := c.Crawl(t.Context(), o, ev.add); err != nil {
		t.Fatal(err)
	}
	hits := byPath(s)
	if hits["/docs/a"] != 1 || hits["/private"] != 0 || hits["/docs/a/deep"] != 0 {
		t.Errorf("asked %v: want /docs/a alone", hits)
	}
	if e := ev.find(Skipped, "/private"); e == nil || e.Reason != ReasonScope {
		t.Errorf("/private: %+v; want it skipped, out of scope", e)
	}
	if e := ev.find(Skipped, "/docs/a/deep"); e == nil || e.Reason != ReasonLimit {
		t.Errorf("/docs/a/deep: %+v; want it skipped, past max_depth", e)
	}
	if e := ev.find(Skipped, "127.0.0.2/"); e == nil || e.Reason != ReasonScope {
		t.Errorf("another origin: %+v; want it skipped, out of scope", e)
	}
}

// cutAt is s behind a server that stops the crawl of ctx (cancel, as
// Ctrl-C does) the first time path is asked for, while it is asked.
func cutAt(t *testing.T, s *site, ctx context.Context, cancel context.CancelFunc, path string) *httptest.Server {
	cut := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == path && ctx.Err() == nil {
			cancel()
			<-r.Context().Done()
			return
		}
		s.serve(w, r)
	}))
	t.Cleanup(cut.Close)
	return cut
}

// TestCrawlResumedReadsItsLLMsTxt: a crawl stopped while its start page
// was asked for had not read its llms.txt, which is read on the start
// page's turn: taken up, the crawl reads it then, and crawls the pages
// it lists.
func TestCrawlResumedReadsItsLLMsTxt(t *testing.T) {
	c, _ := crawler(t)
	s := newSite(t)
	s.robots = "User-agent: *\nAllow: /\n"
	s.set("/", page{body: html("Home", "/a")})
	s.set("/a", page{body: html("A")})
	s.set("/listed", page{body: html("Listed in llms.txt alone")})
	s.set("/llms.txt", page{body: "# Site\n\n- [Listed](/listed)\n", header: map[string]string{"Content-Type": "text/plain"}})
	ctx, cancel := context.WithCancel(t.Context())
	o := options(cutAt(t, s, ctx, cancel, "/").URL + "/")
	o.Source, o.NoSitemaps = "site", true
	if _, err := c.Crawl(ctx, o, nil); err != nil {
		t.Fatal(err)
	}
	var ev events
	if _, err := c.Crawl(t.Context(), o, ev.add); err != nil {
		t.Fatal(err)
	}
	if ev.find(Stored, "/listed") == nil {
		t.Errorf("the crawl taken up stored %q: want /listed, which llms.txt lists", ev.urls(Stored))
	}
}

// TestCrawlResumedReadsItsSitemaps: a crawl stopped while it read its
// sitemaps reads them when it is taken up, and crawls the pages they
// list.
func TestCrawlResumedReadsItsSitemaps(t *testing.T) {
	c, _ := crawler(t)
	s := newSite(t)
	s.robots = "User-agent: *\nAllow: /\n"
	s.set("/", page{body: html("Home", "/a")})
	s.set("/a", page{body: html("A")})
	s.set("/listed", page{body: html("Listed in the sitemap alone")})
	ctx, cancel := context.WithCancel(t.Context())
	cut := cutAt(t, s, ctx, cancel, "/sitemap.xml")
	s.set("/sitemap.xml", page{body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>` + cut.URL + `/listed</loc></url></urlset>`, header: map[string]string{"Content-Type": "application/xml"}})
	o := options(cut.URL + "/")
	o.Source, o.NoLLMsTxt = "site", true
	if _, err := c.Crawl(ctx, o, nil); err != nil {
		t.Fatal(err)
	}
	var ev events
	if _, err := c.Crawl(t.Context(), o, ev.add); err != nil {
		t.Fatal(err)
	}
	if ev.find(Stored, "/listed") == nil {
		t.Errorf("the crawl taken up stored %q: want /listed, which the sitemap lists", ev.urls(Stored))
	}
}

// TestCrawlResumedReadsNoSeedFileTwice: a crawl stopped while it read
// its second sitemap had read its llms.txt and its first sitemap to
// their end: taken up, it reads the second alone, and crawls the pages
// all three list.
func TestCrawlResumedReadsNoSeedFileTwice(t *testing.T) {
	c, _ := crawler(t)
	s := newSite(t)
	s.set("/", page{body: html("Home")})
	for _, p := range []string{"/fromllms", "/froma", "/fromb"} {
		s.set(p, page{body: html("Listed at " + p)})
	}
	s.set("/llms.txt", page{body: "# Site\n\n- [Listed](/fromllms)\n", header: map[string]string{"Content-Type": "text/plain"}})
	ctx, cancel := context.WithCancel(t.Context())
	cut := cutAt(t, s, ctx, cancel, "/b.xml")
	s.robots = "User-agent: *\nAllow: /\nSitemap: " + cut.URL + "/a.xml\nSitemap: " + cut.URL + "/b.xml\n"
	for name, p := range map[string]string{"/a.xml": "/froma", "/b.xml": "/fromb"} {
		s.set(name, page{body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>` + cut.URL + p + `</loc></url></urlset>`, header: map[string]string{"Content-Type": "application/xml"}})
	}
	o := options(cut.URL + "/")
	o.Source = "site"
	if _, err := c.Crawl(ctx, o, nil); err != nil {
		t.Fatal(err)
	}
	var ev events
	if _, err := c.Crawl(t.Context(), o, ev.add); err != nil {
		t.Fatal(err)
	}
	hits := byPath(s)
	// (The request cut is not served: b.xml is served once, taken up.)
	if hits["/llms.txt"] != 1 || hits["/a.xml"] != 1 || hits["/b.xml"] != 1 {
		t.Errorf("served llms.txt %d times, a.xml %d, b.xml %d: want each once", hits["/llms.txt"], hits["/a.xml"], hits["/b.xml"])
	}
	for _, p := range []string{"/fromllms", "/froma", "/fromb"} {
		if hits[p] != 1 {
			t.Errorf("asked %s %d times: want once, in one run or the other", p, hits[p])
		}
	}
}

// TestCrawlResumedKnowsWhereItsPagesMoved: a page stored under the URL
// it redirected to is that URL's in the crawl taken up too: a page
// found after the resume that names it as its canonical URL is a
// duplicate, as it would have been in one run.
func TestCrawlResumedKnowsWhereItsPagesMoved(t *testing.T) {
	c, _ := crawler(t)
	s := newSite(t)
	s.robots = "User-agent: *\nAllow: /\n"
	s.set("/", page{body: html("Home", "/a", "/c")})
	s.set("/a", page{status: http.StatusMovedPermanently, header: map[string]string{"Location": "/b"}})
	s.set("/b", page{body: html("B")})
	s.set("/c", page{body: `<html><head><title>C</title><link rel="canonical" href="/b"></head><body><main><p>The page C names the page B as its canonical URL, in words enough to be content.</p></main></body></html>`})
	ctx, cancel := context.WithCancel(t.Context())
	o := options(cutAt(t, s, ctx, cancel, "/c").URL + "/")
	o.Source, o.NoSitemaps, o.NoLLMsTxt = "site", true, true
	var first events
	if _, err := c.Crawl(ctx, o, first.add); err != nil {
		t.Fatal(err)
	}
	if first.find(Stored, "/b") == nil {
		t.Fatalf("the first run stored %q: want /b, where /a moved", first.urls(Stored))
	}
	var second events
	if _, err := c.Crawl(t.Context(), o, second.add); err != nil {
		t.Fatal(err)
	}
	if e := second.find(Skipped, "/c"); e == nil || e.Reason != ReasonDup {
		t.Errorf("/c after the resume: %+v, stored %q; want it a duplicate of /b", e, second.urls(Stored))
	}
}

// TestCrawlResumeKeyIsNormalized: a crawl cut short is taken up by the
// same start URL however it is written (the scheme and host in capitals,
// the path left out).
func TestCrawlResumeKeyIsNormalized(t *testing.T) {
	c, _ := crawler(t)
	s, _ := bookSite(t, 3, 5)
	o := options(s.URL + "/")
	o.Source = "book"
	ctx, cancel := context.WithCancel(t.Context())
	var first events
	c.Crawl(ctx, o, func(e Event) {
		first.add(e)
		if e.Kind == Stored {
			cancel()
		}
	})
	cancel()
	id := first.find(Began, "/").Crawl
	o.Start = strings.Replace(strings.ToUpper(s.URL), "HTTP://", "HTTP://", 1)
	var second events
	if _, err := c.Crawl(t.Context(), o, second.add); err != nil {
		t.Fatal(err)
	}
	if b := second.find(Began, "/"); b == nil || b.Crawl != id || b.Resumed == nil {
		t.Errorf("%s after %s/ was cut short began as %+v; want crawl %d taken up", o.Start, s.URL, b, id)
	}
}
