package team

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/team/teamtest"
)

// sameCounts reports whether two reports of a crawl say the same of its
// URLs.
func sameCounts(a, b *Progress) bool {
	return a.Stored == b.Stored && a.Unchanged == b.Unchanged && a.Queued == b.Queued && a.Fetched == b.Fetched &&
		maps.Equal(a.Skipped, b.Skipped) && maps.Equal(a.Failed, b.Failed) && a.Done == b.Done && a.State == b.State
}

// ended reads a crawl's row: its state, and whether it has its end.
func ended(t *testing.T, pool *pgxpool.Pool, id int64) (string, bool) {
	t.Helper()
	var state string
	var end bool
	if err := pool.QueryRow(context.Background(), `SELECT state, ended_at IS NOT NULL FROM heed_crawl WHERE id = $1`, id).Scan(&state, &end); err != nil {
		t.Fatal(err)
	}
	return state, end
}

// A crawl's record is frozen when it ends: a later crawl of the same
// site, which takes every URL of it over (each ended before it began, so
// each is fetched again), leaves the first crawl's counts as they were,
// in its progress and in the team's status.
func TestCrawlRecordKeepsItsCounts(t *testing.T) {
	pool := database(t)
	site := teamtest.Start(t, 20, 2, 0)
	startWorkers(t, pool, 2, nil)
	opts := crawlopt.Defaults()
	opts.Start, opts.Source, opts.Delay, opts.MaxPages, opts.MaxDepth = site.PageURL(0), "record", 5*time.Millisecond, 100, 20
	opts.AllowHosts, opts.WholeSite, opts.NoSitemaps, opts.NoLLMsTxt = site.HostPorts(), true, true, true
	first, err := Start(context.Background(), pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	p1 := waitDone(t, pool, first, time.Minute)
	if p1.Stored != site.N || p1.Skipped[crawl.ReasonRobots] != site.N || p1.Fetched != site.N || p1.State != "done" || p1.Ended == nil {
		t.Fatalf("the first crawl: %+v", p1)
	}
	// The transaction that ended its last URL ended it.
	if state, end := ended(t, pool, first); state != "done" || !end {
		t.Errorf("the first crawl's row: %s, ended %v", state, end)
	}
	second, err := Start(context.Background(), pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	if p2 := waitDone(t, pool, second, time.Minute); p2.Unchanged != site.N || p2.Stored != 0 || p2.Skipped[crawl.ReasonRobots] != site.N {
		t.Errorf("the second crawl: %+v", p2)
	}
	again, err := CrawlProgress(context.Background(), pool, first)
	if err != nil {
		t.Fatal(err)
	}
	if !sameCounts(p1, again) {
		t.Errorf("the first crawl's counts changed after it ended:\nat its end  %+v\nafter       %+v", p1, again)
	}
	l := pgstore.NewLedger(pool)
	crawls, err := l.Crawls(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	st, err := TeamStatus(context.Background(), pool, l, crawls)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Crawls) != 2 || st.Crawls[1].ID != first || !sameCounts(p1, st.Crawls[1]) {
		t.Errorf("the team's status of the first crawl: %+v", st.Crawls)
	}
}

// A crawl past its deadline is done: each host's URLs left are skipped
// (deadline) as its job comes to them, counted in the crawl's row, and
// the last of them ends it; nothing of it may go on. Its record is then
// frozen like any other's.
func TestCrawlPastItsDeadlineIsDone(t *testing.T) {
	pool := database(t)
	site := teamtest.Start(t, 120, 3, 0)
	startWorkers(t, pool, 2, nil)
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay, o.MaxPages, o.MaxDepth = site.PageURL(0), "late", 20*time.Millisecond, 1000, 20
	o.AllowHosts, o.WholeSite, o.NoSitemaps, o.NoLLMsTxt = site.HostPorts(), true, true, true
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	for {
		p, err := CrawlProgress(context.Background(), pool, id)
		if err != nil {
			t.Fatal(err)
		}
		if p.Done {
			t.Fatalf("the crawl ended before its deadline came: %+v", p)
		}
		if p.Stored >= 6 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := pool.Exec(context.Background(), `UPDATE heed_crawl SET deadline_at = now() WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	p := waitDone(t, pool, id, time.Minute)
	if p.State != "done" || p.Skipped[crawl.ReasonDeadline] == 0 || p.Stored == 0 || p.Stored+p.Skipped[crawl.ReasonDeadline] > site.N || p.Queued != 0 {
		t.Errorf("the crawl past its deadline: %+v", p)
	}
	if state, end := ended(t, pool, id); state != "done" || !end {
		t.Errorf("its row: %s, ended %v", state, end)
	}
	var left int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM heed_frontier WHERE crawl = $1 AND state = 'queued'`, id).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d URLs of it queued (%v)", left, err)
	}
	again, err := CrawlProgress(context.Background(), pool, id)
	if err != nil || !sameCounts(p, again) {
		t.Errorf("read again: %+v, %v", again, err)
	}
}

// A crawl's row, which each of its requests and each URL's end update,
// holds its state and counts and no more: its options, however many
// hosts and globs they name, and the seed files it read to their end are
// kept beside it, so that a page has room for many versions of the row
// (an update that finds none there grows the row's table and index).
// A worker reads the options from there, and a seed job the files.
func TestCrawlRowHoldsItsCounts(t *testing.T) {
	pool := database(t)
	site := seedFilesSite(t)
	base := site.URL
	startWorkers(t, pool, 1, nil)
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay, o.MaxPages, o.MaxDepth = base+"/", "wide", 10*time.Millisecond, 20, 1
	for i := range 60 {
		o.AllowHosts = append(o.AllowHosts, fmt.Sprintf("docs-%02d.example.com:8443", i))
	}
	o.Exclude = []string{"/private/**", "/drafts/**", "/old/**"}
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	if p := waitDone(t, pool, id, time.Minute); p.Stored != 3 {
		t.Errorf("progress %+v; want /, /s1 and /l1 stored", p)
	}
	var width int
	var files []string
	if err := pool.QueryRow(context.Background(), `
		SELECT pg_column_size(c.*), (SELECT array_agg(s.url ORDER BY s.url) FROM heed_seed_file s WHERE s.crawl = c.id)
		FROM heed_crawl c WHERE c.id = $1`, id).Scan(&width, &files); err != nil {
		t.Fatal(err)
	}
	if width > 512 {
		t.Errorf("the crawl's row is %d bytes wide; want at most 512", width)
	}
	if want := []string{base + "/llms.txt", base + "/maps/pages.xml"}; fmt.Sprint(files) != fmt.Sprint(want) {
		t.Errorf("the seed files read: %v; want %v", files, want)
	}
}

// BenchmarkCommit ends a URL in one transaction as a worker's commit
// does: its snapshot stored, its three links queued (one skipped at
// queue time), its host's next turn set, and the URL counted in its
// crawl's row, which stays running (its start URL waits).
func BenchmarkCommit(b *testing.B) {
	ctx := context.Background()
	pool := database(b)
	w := &Worker{Pool: pool, HTTP: loopbackClient()}
	w.fill()
	var err error
	if w.inserter, err = NewInserter(pool); err != nil {
		b.Fatal(err)
	}
	const host = "bench.test"
	o := crawlopt.Defaults()
	o.Start, o.Source, o.MaxPages, o.NoSitemaps, o.NoLLMsTxt = "http://"+host+"/", "bench", 1<<30, true, true
	id, err := Start(ctx, pool, o)
	if err != nil {
		b.Fatal(err)
	}
	c, err := w.crawl(ctx, id)
	if err != nil {
		b.Fatal(err)
	}
	s := &slice{w: w, host: host, owner: "bench", turns: newHeld(host)}
	if _, ok, err := takeLease(ctx, pool, host, s.owner, time.Hour); err != nil || !ok {
		b.Fatalf("the host's lease: %v, %v", ok, err)
	}
	for i := 0; b.Loop(); i++ {
		u := fmt.Sprintf("http://%s/p/%d", host, i)
		res := &result{Result: &crawl.Result{Kind: crawl.Stored, Snapshot: &heed.Snapshot{
			Source: "bench", URL: u, Title: "Page", FetchedAt: time.Now(), Markdown: fmt.Sprintf("# Page %d\n\nA page of the benchmark.", i),
		}}, links: []queued{
			{url: u + "/a", host: host, depth: 1, state: "queued"},
			{url: u + "/b", host: host, depth: 1, state: "queued"},
			{url: u + "/private", host: host, depth: 1, state: "skipped", reason: crawl.ReasonRobots, detail: "disallowed"},
		}}
		if err := s.commitTx(ctx, item{url: u, c: c}, res, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCrawlProgress reads where a crawl of 50,000 URLs stands, one
// of them queued: its row, and its URLs queued.
func BenchmarkCrawlProgress(b *testing.B) {
	ctx := context.Background()
	pool := database(b)
	if _, err := pool.Exec(ctx, `
		INSERT INTO heed_crawl (id, source, start_url, stored, skipped) VALUES (1, 'bench', 'http://bench.test/p/0', 40000, '{"robots": 9999}');
		INSERT INTO heed_frontier (url, crawl, host, depth, state, reason)
		SELECT 'http://bench.test/p/' || i, 1, 'bench.test', 1,
			CASE WHEN i = 0 THEN 'queued' WHEN i <= 40000 THEN 'done' ELSE 'skipped' END,
			CASE WHEN i > 40000 THEN 'robots' ELSE '' END
		FROM generate_series(0, 49999) AS i;
		ANALYZE heed_frontier`); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		p, err := CrawlProgress(ctx, pool, 1)
		if err != nil || p.Queued != 1 || p.Stored != 40000 {
			b.Fatalf("%+v, %v", p, err)
		}
	}
}

// A URL taken over by a newer crawl while it is fetched (the newer
// crawl's transaction done while the page's commit begins) is ended for
// the newer crawl, and so are its links queued: the crawl that lost it
// may have ended, and gets no URL after its end.
func TestCommitOfAURLTakenOverAsItCommits(t *testing.T) {
	ctx := context.Background()
	pool := database(t)
	w := &Worker{Pool: pool, HTTP: loopbackClient()}
	w.fill()
	var err error
	if w.inserter, err = NewInserter(pool); err != nil {
		t.Fatal(err)
	}
	const host = "taken.test"
	o := crawlopt.Defaults()
	o.Start, o.Source, o.NoSitemaps, o.NoLLMsTxt = "http://"+host+"/", "taken", true, true
	first, err := Start(ctx, pool, o)
	if err != nil {
		t.Fatal(err)
	}
	s := &slice{w: w, host: host, owner: ownerName("test"), turns: newHeld(host)}
	if _, ok, err := takeLease(ctx, pool, host, s.owner, time.Hour); err != nil || !ok {
		t.Fatalf("the host's lease: %v, %v", ok, err)
	}
	items, err := s.next(ctx)
	if err != nil || len(items) != 1 || items[0].c.id != first {
		t.Fatalf("the host's queue: %+v, %v", items, err)
	}
	// A newer crawl takes the start URL over, and the first crawl, with
	// no URL left, ends, in a transaction that is done only once the
	// page's commit has begun.
	var second int64
	if err := pool.QueryRow(ctx, `INSERT INTO heed_crawl (source, start_url, max_pages) VALUES ('taken', $1, 500) RETURNING id`, o.Start).Scan(&second); err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `UPDATE heed_frontier SET crawl = $2 WHERE url = $1`, o.Start, second); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE heed_crawl SET state = 'done', ended_at = now() WHERE id = $1`, first); err != nil {
		t.Fatal(err)
	}
	link := "http://" + host + "/next"
	committed := make(chan error, 1)
	go func() {
		committed <- s.commit(ctx, items[0], &result{Result: &crawl.Result{Kind: crawl.Stored, Snapshot: &heed.Snapshot{
			Source: "taken", URL: o.Start, Title: "Home", FetchedAt: time.Now(), Markdown: "# Home\n\nThe home page.",
		}}, links: []queued{{url: link, host: host, depth: 1, state: "queued"}}}, 0)
	}()
	// The commit waits for the start URL's row.
	for {
		var waiting bool
		if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%heed_frontier%')`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		select {
		case err := <-committed:
			t.Fatalf("the commit did not wait for the newer crawl's transaction: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-committed; err != nil {
		t.Fatal(err)
	}
	var owner int64
	if err := pool.QueryRow(ctx, `SELECT crawl FROM heed_frontier WHERE url = $1`, link).Scan(&owner); err != nil {
		t.Fatal(err)
	}
	if owner != second {
		t.Errorf("the page's link was queued for crawl %d, want %d, the crawl that holds the page (crawl %d ended)", owner, second, first)
	}
	p, err := CrawlProgress(ctx, pool, second)
	if err != nil || p.Stored != 1 {
		t.Errorf("the newer crawl: %+v, %v", p, err)
	}
}
