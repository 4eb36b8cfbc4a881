package ingest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/stash"
)

// TestStartCrawlCallerGone: a caller whose context ends before the crawl
// began gets an error and no ID, and the crawl it asked for does not run
// on unseen: it is cancelled, no job of the service runs, and no page is
// stored.
func TestStartCrawlCallerGone(t *testing.T) {
	js := newJobSite(t, 3, 99) // no page held
	svc := jobService(t, t.TempDir())
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	id, err := svc.StartCrawl(ctx, jobRequest(js.URL+"/"), nil)
	if err == nil {
		t.Fatalf("StartCrawl with a context ended: id %d, no error", id)
	}
	if r := svc.Running(); len(r) != 0 {
		t.Errorf("Running() = %v once StartCrawl returned: the crawl runs on unseen", r)
	}
	crawls, _ := svc.Crawls(t.Context(), 10)
	for _, c := range crawls {
		if c.State != ledger.Cancelled || c.Counts.Stored != 0 {
			t.Errorf("a crawl no caller knows of: %+v; want it cancelled, nothing stored", c)
		}
	}
	for _, p := range []string{"/p0", "/p1", "/p2"} {
		if n := js.count(p); n != 0 {
			t.Errorf("%s asked %d times", p, n)
		}
	}
}

// TestFailedAgentCrawlNotTakenUp: heed mcp takes up the agents' crawls
// that were interrupted, not one that failed (its start refused, its
// stash unwritable): nothing says the cause has passed, and it would be
// asked again at every start. heed crawl --resume takes it up.
func TestFailedAgentCrawlNotTakenUp(t *testing.T) {
	dir := t.TempDir()
	st, err := stash.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := st.Begin(t.Context(), ledger.Crawl{Key: "k", Start: "http://127.0.0.1:1/", Source: "docs", By: ledger.ByAgent,
		Options: `{"start":"http://127.0.0.1:1/","max_pages":5,"max_depth":2}`}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Finish(t.Context(), rec.ID, ledger.CrawlFailed, ledger.Counts{Stored: 2}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	svc := jobService(t, dir)
	if ids, err := svc.ResumeCrawls(t.Context(), ledger.ByAgent); len(ids) != 0 || err != nil {
		t.Errorf("ResumeCrawls: %v, %v; want none (the agent's crawl %d failed)", ids, err, rec.ID)
	}
}

// TestTeamCancelStopsTheWorker: a team crawl cancelled while a page is
// in flight asks for no URL of the batch its worker read before the
// cancel (it read up to 32): each is asked whether it still waits.
func TestTeamCancelStopsTheWorker(t *testing.T) {
	svc := teamJobService(t)
	js := newJobSite(t, 6, 2)
	id := startHeld(t, svc, js)
	if err := svc.CancelCrawl(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	st, _ := svc.CrawlStatus(t.Context(), id)
	t.Logf("right after the cancel, with /p2 in flight: state %s, %+v", st.State, st.Counts)
	close(js.release)
	time.Sleep(2 * time.Second)
	for i := 3; i < 6; i++ {
		if n := js.count(fmt.Sprintf("/p%d", i)); n != 0 {
			t.Errorf("/p%d asked %d times after the cancel (the crawl said cancelled)", i, n)
		}
	}
	// The page in flight at the cancel ends as it would, after the
	// crawl's counts were frozen: it may be listed, and no other.
	kept := allKept(t, svc, id, 100)
	st, _ = svc.CrawlStatus(t.Context(), id)
	if n := st.Counts.Stored + st.Counts.Unchanged; len(kept) < n || len(kept) > n+1 {
		t.Errorf("cancelled crawl counts %+v, but lists %d pages kept: %q", st.Counts, len(kept), kept)
	}
}

// TestMapRedirectHeedsRobots: a map follows the start URL's redirects
// as a crawl does, each hop in scope and allowed by robots.txt: a
// Disallow: /docs/secret is not fetched through /docs/'s redirect to it.
func TestMapRedirectHeedsRobots(t *testing.T) {
	asked := map[string]int{}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked[r.URL.Path]++
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /docs/secret\n")
		case "/docs/":
			http.Redirect(w, r, "/docs/secret/", http.StatusFound)
		case "/docs/secret/":
			fmt.Fprint(w, `<html><body><main><p>Secret words enough to be content.</p><a href="/docs/a">a</a></main></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	svc := New(Config{HTTP: fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}), StashDir: t.TempDir(), Delay: -1})
	t.Cleanup(func() { svc.Close() })
	m, err := svc.Map(t.Context(), mapRequest(s.URL+"/docs/"))
	if n := asked["/docs/secret/"]; n != 0 {
		t.Errorf("map asked for /docs/secret/ (robots.txt: Disallow: /docs/secret) %d times through a redirect; map %+v, %v", n, m, err)
	}
	_ = errors.New
}

// TestAgentTakesUpPersonsCrawl: an agent's crawl of a start a person's
// crawl was cut short on takes that crawl up (the same key) and is the
// agent's now: cut short again (heed mcp closed), the next heed mcp
// takes it up.
func TestAgentTakesUpPersonsCrawl(t *testing.T) {
	js := newJobSite(t, 6, 2)
	dir := t.TempDir()
	svc := jobService(t, dir)
	person := jobRequest(js.URL + "/")
	person.By = ""
	id, err := svc.StartCrawl(t.Context(), person, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-js.held
	svc.Close()

	svc = jobService(t, dir)
	id2, err := svc.StartCrawl(t.Context(), jobRequest(js.URL+"/"), nil) // an agent's web_crawl
	if err != nil {
		t.Fatal(err)
	}
	for range 200 {
		if js.count("/p2") >= 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	st, _ := svc.CrawlStatus(t.Context(), id2)
	t.Logf("the agent's crawl: id %d (the person's was %d), by %q", id2, id, st.By)
	svc.Close()
	close(js.release)

	svc = jobService(t, dir)
	ids, err := svc.ResumeCrawls(t.Context(), ledger.ByAgent)
	if !slices.Contains(ids, id2) {
		t.Errorf("after heed mcp restarts, taken up %v, %v: the agent's crawl %d is not", ids, err, id2)
	}
}

// redirectSite: the home page links to /old, which redirects to /new.
func redirectSite(t *testing.T) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<html><head><title>Home</title></head><body><main><p>The home page, with words enough to be content.</p><a href="/old">old</a></main></body></html>`)
		case "/old":
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
		case "/new":
			fmt.Fprint(w, `<html><head><title>New</title></head><body><main><p>The new page, with words enough to be content of its own.</p></main></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// checkKeptRedirect: the crawl lists as many pages as it counts, each
// with its snapshot's ID (what crawl_pages is for).
func checkKeptRedirect(t *testing.T, svc *Service, start string) {
	id, err := svc.StartCrawl(t.Context(), jobRequest(start), nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := svc.WaitCrawl(t.Context(), id, time.Minute)
	if err != nil || st.State != ledger.Done {
		t.Fatalf("%+v %v", st, err)
	}
	pages, _, _ := svc.CrawlKept(t.Context(), id, "", 100)
	for _, p := range pages {
		t.Logf("kept %s id %q title %q", p.URL, p.ID, p.Title)
		if p.ID == "" {
			t.Errorf("page %s listed with no snapshot ID: the agent cannot read it", p.URL)
		}
	}
	if len(pages) != st.Counts.Stored+st.Counts.Unchanged {
		t.Errorf("crawl counts %+v, lists %d pages kept", st.Counts, len(pages))
	}
}

// TestKeptRedirect: a page reached through a redirect is listed under
// the URL it is stored at (/new), with its snapshot's ID and title, once.
func TestKeptRedirect(t *testing.T) {
	checkKeptRedirect(t, jobService(t, t.TempDir()), redirectSite(t).URL+"/")
}

// TestTeamKeptRedirect: on a team's database too, though a commit
// marks done both the URL asked for and the one it redirected to.
func TestTeamKeptRedirect(t *testing.T) {
	svc := teamJobService(t)
	checkKeptRedirect(t, svc, redirectSite(t).URL+"/")
}
