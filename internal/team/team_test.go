package team

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/pgtest"
	"github.com/heedhq/heed/internal/team/teamtest"
	"github.com/heedhq/heed/internal/testutil"
)

var (
	cluster *pgtest.Cluster
	once    sync.Once
)

func TestMain(m *testing.M) {
	code := m.Run()
	if cluster != nil {
		cluster.Stop()
	}
	os.Exit(code)
}

// database is a new migrated database's pool.
func database(t testing.TB) *pgxpool.Pool {
	t.Helper()
	once.Do(func() { cluster = pgtest.Start(t) })
	if cluster == nil {
		t.Skip("no PostgreSQL")
	}
	url := cluster.Database(t)
	if _, err := pgstore.Migrate(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func loopbackClient() *fetch.Client {
	// Retries as the command line's client has them: a robots.txt that
	// answers 503 must not be asked again on the same turn.
	return fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Resolver: teamtest.Resolver{}, ResetOnClose: true})
}

// startWorkers runs n workers until the test ends.
func startWorkers(t *testing.T, pool *pgxpool.Pool, n int, tune func(*Worker)) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range n {
		w := &Worker{Pool: pool, HTTP: loopbackClient(), Hosts: 8, Slice: 2 * time.Second, LeaseTTL: 5 * time.Second}
		if tune != nil {
			tune(w)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(ctx); err != nil {
				t.Errorf("worker: %v", err)
			}
		}()
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// waitDone waits for the crawl to end, at most limit.
func waitDone(t *testing.T, pool *pgxpool.Pool, id int64, limit time.Duration) *Progress {
	t.Helper()
	end := time.Now().Add(limit)
	for {
		p, err := CrawlProgress(context.Background(), pool, id)
		if err != nil {
			t.Fatal(err)
		}
		if p.Done {
			return p
		}
		if time.Now().After(end) {
			t.Fatalf("the crawl is not done after %v: %+v", limit, p)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Two workers crawl a site of 10 hosts: each page stored once, each host
// asked one request at a time with the delay between them, robots.txt
// once a host, the disallowed pages never.
func TestWorkersCrawl(t *testing.T) {
	pool := database(t)
	site := teamtest.Start(t, 300, 10, 2*time.Millisecond)
	startWorkers(t, pool, 2, nil)
	delay := 30 * time.Millisecond
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = site.PageURL(0), "team", delay
	o.MaxPages, o.MaxDepth = 1000, 20
	o.AllowHosts, o.WholeSite = site.HostPorts(), true
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	p := waitDone(t, pool, id, 2*time.Minute)
	if p.Stored != site.N || p.Skipped[crawl.ReasonRobots] != site.N {
		t.Errorf("stored %d of %d, skipped %v, failed %v", p.Stored, site.N, p.Skipped, p.Failed)
	}
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM heed_snapshot WHERE source = 'team'`).Scan(&n); err != nil || n != site.N {
		t.Errorf("%d snapshots (%v), want %d", n, err, site.N)
	}
	c := site.Checked()
	if c.MinGap < delay || c.MaxInFlight > 1 || len(c.Twice) > 0 || c.Private > 0 || c.Pages != site.N {
		t.Errorf("least gap %v (at %s), most in flight %d, twice %v, private %d, pages %d", c.MinGap, c.MinGapAt, c.MaxInFlight, c.Twice, c.Private, c.Pages)
	}
	for _, h := range site.Names() {
		if c.Robots[h] != 1 {
			t.Errorf("robots.txt of %s asked %d times", h, c.Robots[h])
		}
	}
}

// Three workers, robots.txt's rules: each host's robots.txt is asked
// for once in all; a host's Crawl-delay raises its gap above the crawl's
// delay; a disallowed page gets no request; a host whose robots.txt is
// unreachable (5xx) gets no page request at all; a host that says
// Content-Signal: ai-input=no keeps its pages out.
func TestWorkersRobots(t *testing.T) {
	pool := database(t)
	site := teamtest.Start(t, 150, 5, time.Millisecond)
	site.Down = map[string]bool{teamtest.Host(4): true}
	site.Robots = func(host string) string {
		switch host {
		case teamtest.Host(1):
			return "User-agent: *\nCrawl-delay: 0.25\nDisallow: /private/\n"
		case teamtest.Host(2):
			return "User-agent: *\nDisallow: /p/\n"
		case teamtest.Host(3):
			return "User-agent: *\nContent-Signal: ai-input=no\nAllow: /\n"
		}
		return "User-agent: *\nDisallow: /private/\n"
	}
	startWorkers(t, pool, 3, nil)
	delay := 20 * time.Millisecond
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = site.PageURL(0), "team", delay
	o.MaxPages, o.MaxDepth = 1000, 20
	o.AllowHosts, o.WholeSite = site.HostPorts(), true
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	p := waitDone(t, pool, id, 2*time.Minute)
	// Pages on host 0 and 1 are stored (those reached: a page on host 2,
	// 3 or 4 is a dead end, so its children are never found).
	var stored, onOther int
	if err := pool.QueryRow(context.Background(), `
		SELECT count(*), count(*) FILTER (WHERE url LIKE $1 OR url LIKE $2 OR url LIKE $3) FROM heed_snapshot`,
		"%"+teamtest.Host(2)+"%", "%"+teamtest.Host(3)+"%", "%"+teamtest.Host(4)+"%").Scan(&stored, &onOther); err != nil {
		t.Fatal(err)
	}
	if stored != p.Stored || stored == 0 || onOther != 0 || p.Skipped[crawl.ReasonRobots] == 0 || p.Skipped[crawl.ReasonSignal] == 0 {
		t.Errorf("stored %d (%d of hosts 2 and 3); progress %+v", stored, onOther, p)
	}
	byHost := map[string][]time.Time{}
	ends := map[string][]time.Time{}
	for _, a := range site.Log() {
		host := a.Host[:strings.IndexByte(a.Host, ':')]
		switch {
		case a.Path == "/robots.txt":
		case host == teamtest.Host(2) || host == teamtest.Host(3) || host == teamtest.Host(4) || strings.HasPrefix(a.Path, "/private/"):
			t.Errorf("requested %s%s, which robots.txt keeps from crawlers", host, a.Path)
		}
		byHost[host] = append(byHost[host], a.At)
		ends[host] = append(ends[host], a.End)
	}
	c := site.Checked()
	for _, h := range site.Names() {
		if c.Robots[h] != 1 {
			t.Errorf("robots.txt of %s asked %d times", h, c.Robots[h])
		}
	}
	gap := time.Hour
	at, end := byHost[teamtest.Host(1)], ends[teamtest.Host(1)]
	for i := 1; i < len(at); i++ {
		gap = min(gap, at[i].Sub(end[i-1]))
	}
	if len(at) < 5 || gap < 250*time.Millisecond {
		t.Errorf("host 1 (Crawl-delay: 0.25): %d requests, least gap %v", len(at), gap)
	}
}

// A URL that fails for a cause that may pass (a 503 here; a timeout or a
// network cut alike) is queued again, at most crawl.MaxAttempts requests in
// all: a page that answers the second time is stored, one that never
// does is failed after the last, counted by its reason.
func TestWorkersTryAgain(t *testing.T) {
	pool := database(t)
	var mu sync.Mutex
	asked := map[string]int{}
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked[r.URL.Path]++
		n := asked[r.URL.Path]
		mu.Unlock()
		switch {
		case r.URL.Path == "/robots.txt":
			http.NotFound(w, r)
		case r.URL.Path == "/":
			fmt.Fprint(w, `<html><title>Home</title><main><h1>Home</h1><p>The home page links to a flaky page and a dead one.</p><a href="/flaky">flaky</a> <a href="/dead">dead</a></main></html>`)
		case r.URL.Path == "/flaky" && n > 1:
			fmt.Fprint(w, `<html><title>Flaky</title><main><h1>Flaky</h1><p>This page failed once and then answered.</p></main></html>`)
		default:
			http.Error(w, "busy", http.StatusServiceUnavailable)
		}
	})
	startWorkers(t, pool, 2, nil)
	delay := 30 * time.Millisecond
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = site.URL+"/", "flaky", delay
	o.MaxPages = 100
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	p := waitDone(t, pool, id, time.Minute)
	mu.Lock()
	defer mu.Unlock()
	if p.Stored != 2 || p.Failed["transient"] != 1 || asked["/flaky"] != 2 || asked["/dead"] != crawl.MaxAttempts {
		t.Errorf("progress %+v; /flaky asked %d times, /dead %d", p, asked["/flaky"], asked["/dead"])
	}
	// The crawl's record, read through the team's ledger as any ledger's
	// is, counts its failure by reason too.
	if c, err := pgstore.NewLedger(pool).Crawl(t.Context(), id); err != nil || c.Counts.Failed != 1 || len(c.Counts.Failures) != 1 || c.Counts.Failures["transient"] != 1 {
		t.Errorf("the crawl's record: %+v, %v; want its failure by reason", c.Counts, err)
	}
	log := site.Log()
	for i := 1; i < len(log); i++ {
		if gap := log[i].At.Sub(log[i-1].End); gap < delay {
			t.Errorf("%s asked %v after the last request ended", log[i].Path, gap)
		}
	}
}

// A host that answers 503 with a Retry-After of a minute keeps its next
// turn past the job's time: the URLs after it are not failed for it, nor
// the one that answered 503 tried again on a turn it cannot have; they
// stay queued, and the job lets the host go until its turn.
func TestWorkersRetryAfterPastTheJob(t *testing.T) {
	pool := database(t)
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/":
			fmt.Fprint(w, `<html><title>Home</title><main><h1>Home</h1><p>The home page links to a busy page and another.</p><a href="/busy">busy</a> <a href="/next">next</a></main></html>`)
		case "/busy":
			w.Header().Set("Retry-After", "60")
			http.Error(w, "busy", http.StatusServiceUnavailable)
		default:
			fmt.Fprint(w, `<html><title>Next</title><main><h1>Next</h1><p>The page after the busy one.</p></main></html>`)
		}
	})
	// A job's time (its slice and two leases, and 10 s) is well below the
	// minute the host asks for.
	startWorkers(t, pool, 1, nil)
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay, o.MaxPages = site.URL+"/", "busy", 0, 20
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(site.URL, "http://")
	end := time.Now().Add(time.Minute)
	for {
		// The job has asked for /busy once and let the host go.
		var tried, free bool
		if err := pool.QueryRow(context.Background(), `
			SELECT EXISTS (SELECT 1 FROM heed_frontier WHERE url = $1 AND (attempts > 0 OR state <> 'queued')),
				EXISTS (SELECT 1 FROM heed_host WHERE host = $2 AND lease_owner IS NULL)`,
			site.URL+"/busy", host).Scan(&tried, &free); err != nil {
			t.Fatal(err)
		}
		if tried && free {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the job did not let the host go after /busy")
		}
		time.Sleep(20 * time.Millisecond)
	}
	rows, err := pool.Query(context.Background(), `SELECT url, state, attempts, detail FROM heed_frontier WHERE crawl = $1 AND url <> $2 ORDER BY url`, id, site.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		URL, State string
		Attempts   int
		Detail     string
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
	if err != nil {
		t.Fatal(err)
	}
	want := []row{{site.URL + "/busy", "queued", 1, ""}, {site.URL + "/next", "queued", 0, ""}}
	if len(got) != len(want) || got[0].URL != want[0].URL || got[0].State != want[0].State || got[0].Attempts != want[0].Attempts ||
		got[1].URL != want[1].URL || got[1].State != want[1].State || got[1].Attempts != want[1].Attempts {
		t.Errorf("the frontier: %+v, want /busy queued again once and /next queued", got)
	}
	if p, err := CrawlProgress(context.Background(), pool, id); err != nil || p.Done || len(p.Failed) > 0 {
		t.Errorf("the crawl: %+v, %v", p, err)
	}
}

// A page with a link longer than a team's frontier keeps: the link is
// not followed, the page is stored, and its URL is asked for once.
func TestWorkersLongLink(t *testing.T) {
	pool := database(t)
	long := "/" + strings.Repeat("x", 4000)
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/":
			fmt.Fprintf(w, `<html><title>Home</title><main><h1>Home</h1><p>A page whose one link is too long for the frontier to keep.</p><a href="%s">long</a> <a href="/next">next</a></main></html>`, long)
		case "/next":
			fmt.Fprint(w, `<html><title>Next</title><main><h1>Next</h1><p>The page after the home page.</p></main></html>`)
		default:
			http.NotFound(w, r)
		}
	})
	startWorkers(t, pool, 1, nil)
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = site.URL+"/", "long", 20*time.Millisecond
	o.MaxPages = 20
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	p := waitDone(t, pool, id, time.Minute)
	asked := map[string]int{}
	for _, a := range site.Log() {
		asked[a.Path]++
	}
	if p.Stored != 2 || asked["/"] != 1 || asked[long] != 0 {
		t.Errorf("progress %+v; asked %v", p, asked)
	}
	o = crawlopt.Defaults()
	o.Start, o.Delay = site.URL+long, 0
	if _, err := Start(context.Background(), pool, o); err == nil {
		t.Error("a start URL longer than the frontier keeps was taken")
	}
}

// A Crawl-delay longer than the lease: the worker waits for the host's
// turn before it renews the lease for the request, so every page is
// fetched, as far apart as robots.txt asks.
func TestWorkersCrawlDelayOverLease(t *testing.T) {
	pool := database(t)
	site := teamtest.Start(t, 3, 1, 0)
	site.Robots = func(string) string { return "User-agent: *\nCrawl-delay: 1.2\n" }
	startWorkers(t, pool, 1, func(w *Worker) { w.LeaseTTL = time.Second })
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = site.PageURL(0), "slow", 10*time.Millisecond
	o.MaxPages = 20
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	p := waitDone(t, pool, id, time.Minute)
	c := site.Checked()
	if p.Stored != 3 || c.MinGap < 1200*time.Millisecond {
		t.Errorf("progress %+v; least gap %v", p, c.MinGap)
	}
}

// Crawls of one site: a crawl started while another's URLs wait takes
// them (it is the one followed now); one started beside another as it
// runs fetches again what was fetched before it began, and no page the
// other fetched since; no page is asked for more than once a crawl.
func TestCrawlsShareURLs(t *testing.T) {
	pool := database(t)
	site := teamtest.Start(t, 200, 4, time.Millisecond)
	// No sitemaps: a crawl is done here when its URLs are.
	opts := crawlopt.Defaults()
	opts.Start, opts.Source, opts.Delay = site.PageURL(0), "shared", 10*time.Millisecond
	opts.MaxPages, opts.MaxDepth = 1000, 20
	opts.AllowHosts, opts.WholeSite = site.HostPorts(), true
	opts.NoSitemaps, opts.NoLLMsTxt = true, true
	first, err := Start(context.Background(), pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	// No worker yet: the start URL waits, and a crawl of it again takes
	// it over.
	second, err := Start(context.Background(), pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := CrawlProgress(context.Background(), pool, first); err != nil || !p.Done {
		t.Errorf("the first crawl, its start URL taken: %+v, %v", p, err)
	}
	if state, end := ended(t, pool, first); state != "done" || !end {
		t.Errorf("the first crawl's row, its start URL taken: %s, ended %v", state, end)
	}
	if p, err := CrawlProgress(context.Background(), pool, second); err != nil || p.Queued != 1 {
		t.Errorf("the second crawl: %+v, %v", p, err)
	}
	startWorkers(t, pool, 2, nil)
	for {
		p, err := CrawlProgress(context.Background(), pool, second)
		if err != nil {
			t.Fatal(err)
		}
		if p.Stored >= 30 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A third beside the second, as it runs: it fetches again what was
	// fetched before it began, and nothing fetched since.
	third, err := Start(context.Background(), pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	waitDone(t, pool, second, time.Minute)
	waitDone(t, pool, third, time.Minute)
	firstAt := map[string]time.Time{}
	count := map[string]int{}
	for _, a := range site.Log() {
		if !strings.HasPrefix(a.Path, "/p/") {
			continue
		}
		key := a.Host + a.Path
		if count[key] == 0 {
			firstAt[key] = a.At
		}
		count[key]++
	}
	again := 0
	for key, n := range count {
		switch {
		case n > 2 || n == 2 && firstAt[key].After(began):
			t.Errorf("%s asked %d times, first after the third crawl began", key, n)
		case n == 2:
			again++
		}
	}
	if len(count) != site.N || again < 30 {
		t.Errorf("pages asked %d of %d; %d asked again by the third crawl, want the 30 or more fetched before it", len(count), site.N, again)
	}
	var junk int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM heed_frontier WHERE url = '' OR host = '' OR state = ''`).Scan(&junk); err != nil || junk != 0 {
		t.Errorf("%d rows of nothing in the frontier (%v)", junk, err)
	}
}

// A host whose holder died mid-request: the next holder, here a request
// of heed mcp --db's turns, waits the host's last delay after the dead
// lease's end, when the dead holder's request was over at the latest.
func TestTurnsAfterDeadHolder(t *testing.T) {
	pool := database(t)
	if _, err := pool.Exec(context.Background(), `
		INSERT INTO heed_host (host, next_at, lease_owner, lease_until, delay_ms)
		VALUES ('dead.test', now() - interval '1 minute', 'dead-worker', now() + interval '300 milliseconds', 1200)`); err != nil {
		t.Fatal(err)
	}
	turns := NewTurns(pool, 0)
	began := time.Now()
	release, err := turns.Acquire(context.Background(), "dead.test")
	if err != nil {
		t.Fatal(err)
	}
	release(0)
	if took := time.Since(began); took < 1400*time.Millisecond {
		t.Errorf("the turn came %v after the dead lease's end was near; want its end and the delay (1.5 s)", took)
	}
}

// A crawl started again asks conditionally for what its source stored
// with validators: a page not modified is done as unchanged, its stored
// links followed; a page that changed is stored anew.
func TestWorkersConditional(t *testing.T) {
	pool := database(t)
	var mu sync.Mutex
	version := map[string]string{"/": "1", "/a": "1", "/b": "1"}
	conditional := map[string]int{}
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		v, ok := version[r.URL.Path]
		if r.Header.Get("If-None-Match") != "" {
			conditional[r.URL.Path]++
		}
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		etag := `"` + r.URL.Path + v + `"`
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		links := ""
		if r.URL.Path == "/" {
			links = `<a href="/a">a</a> <a href="/b">b</a>`
		}
		fmt.Fprintf(w, `<html><title>Page %s</title><main><h1>Page %s</h1><p>%s</p>%s</main></html>`,
			r.URL.Path, r.URL.Path, strings.Repeat("Version "+v+" of the page "+r.URL.Path+", with words enough to be kept. ", 5), links)
	})
	startWorkers(t, pool, 2, nil)
	crawlOnce := func() *Progress {
		o := crawlopt.Defaults()
		o.Start, o.Source, o.Delay = site.URL+"/", "cond", 10*time.Millisecond
		o.MaxPages = 100
		id, err := Start(context.Background(), pool, o)
		if err != nil {
			t.Fatal(err)
		}
		return waitDone(t, pool, id, time.Minute)
	}
	if p := crawlOnce(); p.Stored != 3 || p.Unchanged != 0 {
		t.Fatalf("the first crawl: %+v", p)
	}
	mu.Lock()
	version["/b"] = "2"
	mu.Unlock()
	p := crawlOnce()
	mu.Lock()
	defer mu.Unlock()
	if p.Stored != 1 || p.Unchanged != 2 || conditional["/"] != 1 || conditional["/a"] != 1 || conditional["/b"] != 1 {
		t.Errorf("the second crawl: %+v; conditional requests %v", p, conditional)
	}
	var md string
	if err := pool.QueryRow(context.Background(), `SELECT markdown FROM heed_snapshot WHERE url = $1`, site.URL+"/b").Scan(&md); err != nil || !strings.Contains(md, "Version 2") {
		t.Errorf("/b after the second crawl (%v): %s", err, md)
	}
}

// A request beside the workers (heed mcp --db's, a rendered page's) that
// waits for a host a job holds gets it at the job's next request, not at
// the end of the job's slice: the job lets the host go, and comes back
// on its next turn.
func TestTurnsWantedHost(t *testing.T) {
	pool := database(t)
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		var i int
		fmt.Sscanf(r.URL.Path, "/p%d", &i)
		fmt.Fprintf(w, `<html><title>Page %d</title><main><h1>Page %d</h1><p>A page of a long chain, each linking to the next.</p><a href="/p%d">next</a></main></html>`, i, i, i+1)
	})
	startWorkers(t, pool, 1, func(w *Worker) { w.Slice = time.Minute })
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = site.URL+"/p0", "chain", 50*time.Millisecond
	o.MaxPages, o.MaxDepth = 100, 200
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	// The job holds the host.
	for len(site.Log()) < 5 {
		time.Sleep(10 * time.Millisecond)
	}
	turns := NewTurns(pool, 0)
	release, err := turns.Acquire(t.Context(), site.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	release(50 * time.Millisecond)
	p, err := CrawlProgress(context.Background(), pool, id)
	if err != nil {
		t.Fatal(err)
	}
	if p.Done {
		t.Errorf("the host was had only once the crawl was done: %+v", p)
	}
	if p := waitDone(t, pool, id, time.Minute); p.Stored != 100 {
		t.Errorf("the crawl after the request beside it: %+v", p)
	}
	log := site.Log()
	for i := 1; i < len(log); i++ {
		if gap := log[i].At.Sub(log[i-1].End); gap < 50*time.Millisecond {
			t.Errorf("%s asked %v after the last request ended", log[i].Path, gap)
		}
	}
}

// A team's crawl is seeded, as a crawl on one machine is, with what the
// start origin's sitemaps (robots.txt's Sitemap lines, an index and its
// sitemaps) and llms.txt list, in scope, one link from the start; a page
// that names a Markdown alternate is read from it. Every request is on
// its host's turn, and robots.txt is read once.
func TestWorkersSeeds(t *testing.T) {
	pool := database(t)
	var base string
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		page := func(title string, extra string) {
			fmt.Fprintf(w, `<html><head><title>%s</title>%s</head><body><main><h1>%s</h1><p>%s</p></main></body></html>`,
				title, extra, title, strings.Repeat("The page "+title+" says enough to be kept, and then some more. ", 4))
		}
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nDisallow: /private\nSitemap: %s/maps/index.xml\n", base)
		case "/maps/index.xml":
			fmt.Fprintf(w, `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>%s/maps/pages.xml</loc></sitemap></sitemapindex>`, base)
		case "/maps/pages.xml":
			fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%[1]s/s1</loc></url><url><loc>%[1]s/s2</loc></url><url><loc>%[1]s/private</loc></url><url><loc>http://elsewhere.test/x</loc></url></urlset>`, base)
		case "/llms.txt":
			w.Header().Set("Content-Type", "text/markdown")
			fmt.Fprintf(w, "# The site\n\n- [One](%s/l1): the first\n- [Two](/l2): the second\n", base)
		case "/":
			page("Home", "")
		case "/s1":
			page("S1", `<link rel="alternate" type="text/markdown" href="/s1.md">`)
		case "/s1.md":
			w.Header().Set("Content-Type", "text/markdown")
			fmt.Fprint(w, "# S1 in Markdown\n\n"+strings.Repeat("Read from the page's Markdown alternate, not its HTML. ", 4)+"\n")
		case "/s2", "/l1", "/l2":
			page(strings.TrimPrefix(r.URL.Path, "/"), "")
		default:
			http.NotFound(w, r)
		}
	})
	base = site.URL
	startWorkers(t, pool, 2, nil)
	delay := 20 * time.Millisecond
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = base+"/", "seeds", delay
	o.MaxPages, o.MaxDepth = 50, 2
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	// The crawl is done once its seeds were read, queued and fetched.
	if p := waitDone(t, pool, id, time.Minute); p.Stored != 5 {
		t.Errorf("progress %+v; want /, /s1, /s2, /l1 and /l2 stored", p)
	}
	var md string
	var via []string
	if err := pool.QueryRow(context.Background(), `SELECT markdown, via FROM heed_snapshot WHERE url = $1`, base+"/s1").Scan(&md, &via); err != nil ||
		!strings.Contains(md, "Read from the page's Markdown alternate") || !slices.Contains(via, crawl.ViaMarkdownAlternate) {
		t.Errorf("/s1 (%v): via %v\n%s", err, via, md)
	}
	robots := 0
	for i, a := range site.Log() {
		switch a.Path {
		case "/private":
			t.Errorf("requested /private, which robots.txt disallows")
		case "/robots.txt":
			robots++
		}
		if i > 0 {
			if gap := a.At.Sub(site.Log()[i-1].End); gap < delay {
				t.Errorf("%s asked %v after the last request ended", a.Path, gap)
			}
		}
	}
	if robots != 1 {
		t.Errorf("robots.txt asked %d times", robots)
	}

	// Without sitemaps and llms.txt, the start page alone.
	o = crawlopt.Defaults()
	o.Start, o.Source, o.Delay = base+"/", "bare", delay
	o.MaxPages, o.MaxDepth = 50, 2
	o.NoSitemaps, o.NoLLMsTxt = true, true
	id, err = Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	if p := waitDone(t, pool, id, time.Minute); p.Stored+p.Unchanged != 1 {
		t.Errorf("a crawl without seeds: %+v", p)
	}
}

// A page whose canonical URL the crawl stored is that page again: it is
// skipped as a duplicate, saying so.
func TestWorkersCanonical(t *testing.T) {
	pool := database(t)
	var base string
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		page := func(title, head, body string) {
			fmt.Fprintf(w, `<html><head><title>%s</title>%s</head><body><main><h1>%s</h1><p>%s</p>%s</main></body></html>`,
				title, head, title, strings.Repeat("The page "+title+" says enough to be kept. ", 5), body)
		}
		switch r.URL.Path {
		case "/":
			page("Home", "", `<a href="/c">c</a> <a href="/z?utm=x">z</a>`)
		case "/c":
			page("C", "", "")
		case "/z":
			page("Z", `<link rel="canonical" href="`+base+`/c">`, "")
		default:
			http.NotFound(w, r)
		}
	})
	base = site.URL
	startWorkers(t, pool, 1, nil)
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = base+"/", "canon", 10*time.Millisecond
	o.MaxPages = 20
	o.NoSitemaps, o.NoLLMsTxt = true, true
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	p := waitDone(t, pool, id, time.Minute)
	var detail string
	if err := pool.QueryRow(context.Background(), `SELECT detail FROM heed_frontier WHERE url LIKE '%/z%'`).Scan(&detail); err != nil {
		t.Fatal(err)
	}
	if p.Stored != 2 || p.Skipped[crawl.ReasonDup] != 1 || !strings.Contains(detail, "its canonical URL "+base+"/c is stored already") {
		t.Errorf("progress %+v; /z: %q", p, detail)
	}
}

// Sitemaps that take longer to read than a seed job's run (a host's
// Crawl-delay, many files) are read over several runs: each run queues
// what it read and notes which sitemaps it read to its end, and the
// next goes on from there. Every page they list is crawled, and no
// sitemap of pages is asked for twice.
func TestWorkersSeedsResume(t *testing.T) {
	pool := database(t)
	var base string
	const maps = 10
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nCrawl-delay: 1\nSitemap: %s/maps/index.xml\n", base)
		case r.URL.Path == "/maps/index.xml":
			fmt.Fprint(w, `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
			for i := range maps {
				fmt.Fprintf(w, `<sitemap><loc>%s/maps/m%d.xml</loc></sitemap>`, base, i)
			}
			fmt.Fprint(w, `</sitemapindex>`)
		case strings.HasPrefix(r.URL.Path, "/maps/m"):
			var i int
			fmt.Sscanf(r.URL.Path, "/maps/m%d.xml", &i)
			fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/s%d</loc></url></urlset>`, base, i)
		default:
			fmt.Fprintf(w, `<html><head><title>%s</title></head><body><main><h1>%s</h1><p>The page %s has words enough to be kept as a page of the site.</p></main></body></html>`, r.URL.Path, r.URL.Path, r.URL.Path)
		}
	})
	base = site.URL
	// A run has 1 s + 2 × 1 s + 10 s, less a quarter (under 10 s): 12
	// requests 1 s apart take longer.
	startWorkers(t, pool, 1, func(w *Worker) { w.Slice = time.Second; w.LeaseTTL = time.Second })
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = base+"/", "resume", 100*time.Millisecond
	o.MaxPages, o.MaxDepth = 100, 2
	o.NoLLMsTxt = true
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	p := waitDone(t, pool, id, 3*time.Minute)
	asked := map[string]int{}
	for _, a := range site.Log() {
		asked[a.Path]++
	}
	if p.Stored != maps+1 {
		t.Errorf("progress %+v; want the start page and the %d pages the sitemaps list", p, maps)
	}
	for i := range maps {
		if n := asked[fmt.Sprintf("/maps/m%d.xml", i)]; n != 1 {
			t.Errorf("/maps/m%d.xml asked %d times", i, n)
		}
	}
}

// A seed job resumed from a run of an earlier heed, which noted the
// llms.txt it read as "/llms.txt", does not read it again: the seed
// files are noted by their URLs now, as on one machine.
func TestWorkersSeedsNotedByAnEarlierHeed(t *testing.T) {
	pool := database(t)
	site := seedFilesSite(t)
	base := site.URL
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay, o.MaxPages, o.MaxDepth = base+"/", "noted", 10*time.Millisecond, 20, 1
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(context.Background(), `INSERT INTO heed_seed_file (crawl, url) VALUES ($1, '/llms.txt')`, id); err != nil {
		t.Fatal(err)
	}
	startWorkers(t, pool, 1, nil)
	if p := waitDone(t, pool, id, time.Minute); p.Stored != 2 {
		t.Errorf("progress %+v; want / and /s1 stored", p)
	}
	for _, a := range site.Log() {
		if a.Path == "/llms.txt" {
			t.Error("llms.txt read again")
		}
	}
}

// stranger makes a role that may connect to the team's database and
// has no privilege on heed's tables, as any role may be where CONNECT is
// PUBLIC's, and connects as it; the connection closes with the test.
func stranger(t *testing.T, pool *pgxpool.Pool, name string) *pgx.Conn {
	t.Helper()
	if _, err := pool.Exec(t.Context(), "CREATE ROLE "+name+" LOGIN PASSWORD 'pw'"); err != nil {
		t.Fatal(err)
	}
	cfg := pool.Config().ConnConfig.Copy()
	cfg.User, cfg.Password = name, "pw"
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// A role with no privilege on heed's tables or River's can still send
// any notification (NOTIFY needs none): it sends River's control
// notifications, to pause every queue and to cancel every job by its
// id, and asks its leader to resign, for as long as the crawl runs. The
// workers take no order from them: the crawl completes, each page
// stored, and no job is cancelled.
func TestWorkersIgnoreNotifications(t *testing.T) {
	pool := database(t)
	ctx := context.Background()
	intruder := stranger(t, pool, "intruder")
	var schema string
	if err := intruder.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	if _, err := intruder.Exec(ctx, "SELECT count(*) FROM river_job"); err == nil {
		t.Fatal("the intruder may read river_job: the test needs a role without privileges")
	}
	stop := make(chan struct{})
	sent := make(chan int, 1)
	var once sync.Once
	halt := func() int { once.Do(func() { close(stop) }); n := <-sent; sent <- n; return n }
	defer halt()
	go func() {
		n := 0
		defer func() { sent <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			_, err := intruder.Exec(ctx, `SELECT pg_notify($1 || '.river_control', '{"action":"pause","queue":"*"}'),
				pg_notify($1 || '.river_leadership', '{"action":"request_resign"}'),
				pg_notify($1 || '.river_control', json_build_object('action', 'cancel', 'queue', $2::text, 'job_id', id)::text)
				FROM generate_series(1, 100) AS id`, schema, Queue)
			if err != nil {
				t.Errorf("notify: %v", err)
				return
			}
			n++
		}
	}()
	site := teamtest.Start(t, 200, 5, time.Millisecond)
	startWorkers(t, pool, 2, nil)
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = site.PageURL(0), "team", 10*time.Millisecond
	o.MaxPages, o.MaxDepth = 1000, 20
	o.AllowHosts = site.HostPorts()
	id, err := Start(ctx, pool, o)
	if err != nil {
		t.Fatal(err)
	}
	p := waitDone(t, pool, id, 2*time.Minute)
	if n := halt(); n == 0 {
		t.Fatal("no notification was sent")
	}
	if p.Stored != site.N {
		t.Errorf("stored %d of %d, skipped %v, failed %v", p.Stored, site.N, p.Skipped, p.Failed)
	}
	var cancelled int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM river_job WHERE state = 'cancelled'").Scan(&cancelled); err != nil || cancelled != 0 {
		t.Errorf("%d jobs cancelled (%v)", cancelled, err)
	}
}

// A role with no privilege may still NOTIFY River's insert channel:
// payloads it cannot parse, that name another queue, or of Postgres's
// greatest size, sent as fast as it can. The workers, which listen to
// no channel, log nothing for them (River's listener logged an error
// for each payload it could not parse), and crawl as before.
func TestWorkersIgnoreInsertNoise(t *testing.T) {
	pool := database(t)
	ctx := context.Background()
	noisy := stranger(t, pool, "noisy")
	var logged bytes.Buffer
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(b []byte) (int, error) {
		logMu.Lock()
		defer logMu.Unlock()
		return logged.Write(b)
	}), &slog.HandlerOptions{Level: slog.LevelWarn}))
	stop := make(chan struct{})
	sent := make(chan int, 1)
	var once sync.Once
	halt := func() int { once.Do(func() { close(stop) }); n := <-sent; sent <- n; return n }
	defer halt()
	go func() {
		n := 0
		defer func() { sent <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			_, err := noisy.Exec(ctx, `SELECT pg_notify(current_schema() || '.river_insert', p)
				FROM unnest(ARRAY['not json', '{"queue":"other"}', '{"queue":'||repeat('"', 7900)]) AS p, generate_series(1, 50)`)
			if err != nil {
				t.Errorf("notify: %v", err)
				return
			}
			n++
		}
	}()
	site := teamtest.Start(t, 50, 2, time.Millisecond)
	startWorkers(t, pool, 1, func(w *Worker) { w.Logger = logger })
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = site.PageURL(0), "team", 10*time.Millisecond
	o.MaxPages, o.MaxDepth = 1000, 20
	o.AllowHosts = site.HostPorts()
	id, err := Start(ctx, pool, o)
	if err != nil {
		t.Fatal(err)
	}
	p := waitDone(t, pool, id, 2*time.Minute)
	if n := halt(); n == 0 {
		t.Fatal("no notification was sent")
	}
	if p.Stored != site.N {
		t.Errorf("stored %d of %d, skipped %v, failed %v", p.Stored, site.N, p.Skipped, p.Failed)
	}
	logMu.Lock()
	defer logMu.Unlock()
	if logged.Len() > 0 {
		t.Errorf("the workers logged %d bytes for a stranger's notifications: %.300s", logged.Len(), logged.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// Any role may LISTEN to any channel, and keep a transaction open so
// that Postgres's notification queue, shared by every database of the
// server, fills (8 GB) and every NOTIFY fails at its commit after it: a
// commit of the team's that sent River's insert notification would fail
// with it. The team sends none: a stranger listening to River's channels
// while a crawl is started and runs hears nothing.
func TestWorkersSendNoNotifications(t *testing.T) {
	pool := database(t)
	ctx := context.Background()
	listener := stranger(t, pool, "listener")
	var schema string
	if err := listener.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	for _, topic := range []string{"river_insert", "river_control", "river_leadership", "river_job_control"} {
		if _, err := listener.Exec(ctx, `LISTEN "`+schema+"."+topic+`"`); err != nil {
			t.Fatal(err)
		}
	}
	site := teamtest.Start(t, 20, 2, time.Millisecond)
	startWorkers(t, pool, 1, nil)
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = site.PageURL(0), "team", 10*time.Millisecond
	o.MaxPages, o.MaxDepth = 1000, 20
	o.AllowHosts = site.HostPorts()
	id, err := Start(ctx, pool, o)
	if err != nil {
		t.Fatal(err)
	}
	if p := waitDone(t, pool, id, 2*time.Minute); p.Stored != site.N {
		t.Errorf("stored %d of %d, skipped %v, failed %v", p.Stored, site.N, p.Skipped, p.Failed)
	}
	wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if n, err := listener.WaitForNotification(wctx); err == nil {
		t.Errorf("the team sent a notification: %q %q", n.Channel, n.Payload)
	}
}

// seedFilesSite is a site of pages whose robots.txt names a sitemap
// listing /s1, with an llms.txt listing /l1: seed files a crawl reads to
// their end.
func seedFilesSite(t *testing.T) *testutil.Arrivals {
	var base string
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nSitemap: %s/maps/pages.xml\n", base)
		case "/maps/pages.xml":
			fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/s1</loc></url></urlset>`, base)
		case "/llms.txt":
			w.Header().Set("Content-Type", "text/markdown")
			fmt.Fprintf(w, "# The site\n\n- [One](%s/l1): the first\n", base)
		case "/sitemap.xml":
			http.NotFound(w, r)
		default:
			fmt.Fprintf(w, `<html><head><title>%s</title></head><body><main><h1>%s</h1><p>The page %s has words enough to be kept as a page of the site.</p></main></body></html>`, r.URL.Path, r.URL.Path, r.URL.Path)
		}
	})
	base = site.URL
	return site
}
