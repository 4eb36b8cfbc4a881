package team

import (
	"context"
	"net/netip"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/pgtest"
	"github.com/heedhq/heed/internal/team/teamtest"
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
func database(t *testing.T) *pgxpool.Pool {
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
	return fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Resolver: teamtest.Resolver{}, Retries: -1})
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
	id, err := Start(context.Background(), pool, FromCrawl(crawl.Options{
		Start: site.PageURL(0), Source: "team", Delay: delay, MaxPages: 1000, MaxDepth: 20, AllowHosts: site.HostPorts(),
	}))
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
