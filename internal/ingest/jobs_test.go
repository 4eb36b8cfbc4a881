package ingest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ledger"
)

// jobSite is a site of a home page linking to n pages, whose page
// /p{hold} answers only once release is closed (or its request ends).
type jobSite struct {
	*httptest.Server
	mu      sync.Mutex
	asked   map[string]int
	held    chan struct{} // closed when /p{hold} is asked for
	release chan struct{}
}

func newJobSite(t *testing.T, n, hold int) *jobSite {
	js := &jobSite{asked: map[string]int{}, held: make(chan struct{}), release: make(chan struct{})}
	var heldOnce sync.Once
	js.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		js.mu.Lock()
		js.asked[r.URL.Path]++
		js.mu.Unlock()
		if r.URL.Path == fmt.Sprintf("/p%d", hold) {
			heldOnce.Do(func() { close(js.held) })
			select {
			case <-js.release:
			case <-r.Context().Done():
				return
			}
		}
		fmt.Fprintf(w, `<html><head><title>Page %s</title></head><body><main><p>The page %s, with words enough to be content of its own.</p>`, r.URL.Path, r.URL.Path)
		if r.URL.Path == "/" {
			for i := range n {
				fmt.Fprintf(w, `<a href="/p%d">p%d</a> `, i, i)
			}
		}
		fmt.Fprint(w, `</main></body></html>`)
	}))
	t.Cleanup(js.Close)
	return js
}

func (js *jobSite) count(path string) int {
	js.mu.Lock()
	defer js.mu.Unlock()
	return js.asked[path]
}

func jobService(t *testing.T, dir string) *Service {
	svc := New(Config{HTTP: fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}), StashDir: dir, Delay: -1})
	t.Cleanup(func() { svc.Close() })
	return svc
}

// startHeld starts a crawl job of js, and returns its ID once the crawl
// asks for js's held page.
func startHeld(t *testing.T, svc *Service, js *jobSite) int64 {
	t.Helper()
	id, err := svc.StartCrawl(t.Context(), jobRequest(js.URL+"/"), nil)
	if err != nil {
		t.Fatal(err)
	}
	<-js.held
	return id
}

func jobRequest(start string) CrawlRequest {
	req := CrawlRequest{Options: crawlopt.Defaults(), By: ledger.ByAgent}
	req.Start, req.Delay = start, 0
	return req
}

// allKept pages through what a crawl kept, limit at a time.
func allKept(t *testing.T, svc *Service, id int64, limit int) []string {
	t.Helper()
	var urls []string
	after := ""
	for range 100 {
		pages, next, err := svc.CrawlKept(t.Context(), id, after, limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(pages) > limit {
			t.Fatalf("%d pages given, limit %d", len(pages), limit)
		}
		if len(pages) == 0 {
			return urls
		}
		for _, p := range pages {
			if p.ID == "" || p.Title == "" || p.FetchedAt.IsZero() {
				t.Errorf("a page kept without its snapshot's ID, title and time: %+v", p)
			}
			urls = append(urls, p.URL)
		}
		after = next
	}
	t.Fatal("CrawlKept never ran out")
	return nil
}

// TestCrawlJob: a crawl started as a job returns its ID while it runs;
// it goes on, is followed to its end, and lists every page it kept once,
// in pages.
func TestCrawlJob(t *testing.T) {
	js := newJobSite(t, 6, 3)
	svc := jobService(t, t.TempDir())
	id := startHeld(t, svc, js)
	st, err := svc.WaitCrawl(t.Context(), id, time.Millisecond)
	if err != nil || st.State != ledger.Running || st.By != ledger.ByAgent {
		t.Fatalf("while a page is held: %+v, %v; want it running, by an agent", st, err)
	}
	close(js.release)
	st, err = svc.WaitCrawl(t.Context(), id, time.Minute)
	if err != nil || st.State != ledger.Done || st.Counts.Stored != 7 {
		t.Fatalf("at its end: %+v, %v; want it done, 7 pages stored", st, err)
	}
	if info, ok := svc.CrawlJob(id); !ok || !info.Ended || info.Err != nil || info.Result == nil || info.Result.Stored != 7 || info.Scope == "" {
		t.Errorf("what the job told: %+v, %v; want it ended, 7 stored, its scope said", info, ok)
	}
	if _, ok := svc.CrawlJob(id + 99); ok {
		t.Error("CrawlJob of no job: ok")
	}
	got := allKept(t, svc, id, 3)
	slices.Sort(got)
	want := []string{js.URL + "/"}
	for i := range 6 {
		want = append(want, fmt.Sprintf("%s/p%d", js.URL, i))
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("kept %q, want %q", got, want)
	}
	// A crawl that cannot begin fails StartCrawl, and leaves no job.
	bad := jobRequest("ftp://example.com/")
	if id, err := svc.StartCrawl(t.Context(), bad, nil); err == nil || heed.KindOf(err) != heed.Invalid || len(svc.Running()) != 0 {
		t.Errorf("StartCrawl of an ftp URL: %d, %v; running %v", id, err, svc.Running())
	}
	if _, _, err := svc.CrawlKept(t.Context(), id+99, "", 10); err == nil {
		t.Error("CrawlKept of no crawl: no error")
	}
	for _, bad := range []string{"x", "s-1", "s", "t1.2", "s99999999999999999999", "s1e3"} {
		if _, _, err := svc.CrawlKept(t.Context(), id, bad, 10); err == nil {
			t.Errorf("CrawlKept after cursor %q: no error", bad)
		}
	}
}

// TestCrawlJobCancelled: a crawl cancelled stops at once, asks for no
// page after, ends cancelled, and is not taken up again.
func TestCrawlJobCancelled(t *testing.T) {
	js := newJobSite(t, 6, 2)
	dir := t.TempDir()
	svc := jobService(t, dir)
	id := startHeld(t, svc, js)
	if err := svc.CancelCrawl(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	close(js.release)
	st, err := svc.CrawlStatus(t.Context(), id)
	if err != nil || st.State != ledger.Cancelled {
		t.Fatalf("cancelled: %+v, %v; want it cancelled", st, err)
	}
	for i := 3; i < 6; i++ {
		if n := js.count(fmt.Sprintf("/p%d", i)); n != 0 {
			t.Errorf("/p%d asked %d times after the cancel", i, n)
		}
	}
	if err := svc.CancelCrawl(t.Context(), id); err == nil {
		t.Error("cancelling a crawl that ended: no error")
	}
	svc.Close()
	again := jobService(t, dir)
	if ids, err := again.ResumeCrawls(t.Context(), ledger.ByAgent); err != nil || len(ids) != 0 {
		t.Errorf("after a restart, crawls taken up: %v, %v; want none (it was cancelled)", ids, err)
	}
}

// TestCrawlJobResumedAfterClose: a crawl job the service's close cut
// short is taken up by the next service, and every page is asked for
// once, but the one in flight at the close.
func TestCrawlJobResumedAfterClose(t *testing.T) {
	js := newJobSite(t, 6, 2)
	dir := t.TempDir()
	svc := jobService(t, dir)
	id := startHeld(t, svc, js)
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	close(js.release)
	again := jobService(t, dir)
	if st, err := again.CrawlStatus(t.Context(), id); err != nil || st.State != ledger.Interrupted {
		t.Fatalf("after the close: %+v, %v; want it interrupted", st, err)
	}
	ids, err := again.ResumeCrawls(t.Context(), ledger.ByAgent)
	if err != nil || !slices.Equal(ids, []int64{id}) {
		t.Fatalf("taken up: %v, %v; want [%d]", ids, err, id)
	}
	st, err := again.WaitCrawl(t.Context(), id, time.Minute)
	if err != nil || st.State != ledger.Done || st.Counts.Stored != 7 {
		t.Fatalf("at its end: %+v, %v; want it done, 7 stored over its two runs", st, err)
	}
	for _, p := range []string{"/", "/p0", "/p1", "/p3", "/p4", "/p5"} {
		if n := js.count(p); n != 1 {
			t.Errorf("%s asked %d times, want once", p, n)
		}
	}
	if n := js.count("/p2"); n != 2 {
		t.Errorf("/p2, in flight at the close, asked %d times, want twice", n)
	}
	if got := allKept(t, again, id, 100); len(got) != 7 {
		t.Errorf("kept %d pages over both runs, want 7: %q", len(got), got)
	}
}

// TestTeamCrawlJob: with a team's database, a crawl job is queued for
// the team's workers, followed by its ID to its end, lists what it kept,
// and one cancelled stops and ends cancelled.
func TestTeamCrawlJob(t *testing.T) {
	svc := teamJobService(t)

	js := newJobSite(t, 6, 3)
	id := startHeld(t, svc, js)
	if st, err := svc.WaitCrawl(t.Context(), id, time.Millisecond); err != nil || st.State != ledger.Running {
		t.Fatalf("while a page is held: %+v, %v; want it running", st, err)
	}
	close(js.release)
	st, err := svc.WaitCrawl(t.Context(), id, time.Minute)
	if err != nil || st.State != ledger.Done || st.Counts.Stored != 7 {
		t.Fatalf("at its end: %+v, %v; want it done, 7 pages stored", st, err)
	}
	if got := allKept(t, svc, id, 3); len(got) != 7 || len(slices.Compact(slices.Sorted(slices.Values(got)))) != 7 {
		t.Errorf("kept %q: want the 7 pages, each once", got)
	}
	for _, bad := range []string{"s1", "t", "t1", "t-1.2", "t1.x", "t9223372036854775807.0"} {
		if _, _, err := svc.CrawlKept(t.Context(), id, bad, 10); err == nil {
			t.Errorf("CrawlKept after cursor %q: no error", bad)
		}
	}

	js2 := newJobSite(t, 6, 2)
	id2 := startHeld(t, svc, js2)
	if err := svc.CancelCrawl(t.Context(), id2); err != nil {
		t.Fatal(err)
	}
	close(js2.release)
	st, err = svc.WaitCrawl(t.Context(), id2, time.Minute)
	if err != nil || st.State != ledger.Cancelled || st.Counts.Skipped["cancelled"] == 0 {
		t.Fatalf("cancelled: %+v, %v; want it cancelled, its URLs left skipped as cancelled", st, err)
	}
	for i := 3; i < 6; i++ {
		if n := js2.count(fmt.Sprintf("/p%d", i)); n != 0 {
			t.Errorf("/p%d asked %d times after the cancel", i, n)
		}
	}
	if err := svc.CancelCrawl(t.Context(), id2); err == nil {
		t.Error("cancelling a crawl that ended: no error")
	}
	if err := svc.CancelCrawl(t.Context(), id2+100); err == nil {
		t.Error("cancelling no crawl: no error")
	}
}

// teamJobService is a service onto a team's database of its own, with a
// worker of the team's crawls running until the test ends.
func teamJobService(t *testing.T) *Service {
	db := teamDatabase(t)
	client := fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	svc := New(Config{HTTP: client, DB: db, Delay: -1})
	t.Cleanup(func() { svc.Close() })
	worker := New(Config{HTTP: client, DB: db, Delay: -1})
	wctx, stop := context.WithCancel(t.Context())
	worked := make(chan error, 1)
	go func() { worked <- worker.Work(wctx, WorkerConfig{}) }()
	t.Cleanup(func() {
		stop()
		<-worked
		worker.Close()
	})
	return svc
}
