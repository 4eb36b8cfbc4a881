// Package teambench measures a team's crawl over PostgreSQL and River:
// pages a second against the ceiling (hosts ÷ delay) for 1, 2 and 4
// workers on a site of 50 host names, and search latency on a team
// database of 50,000 snapshots.
//
//	go -C bench test ./team -run '^$' -bench . -benchtime 1x
//
// It needs PostgreSQL's server binaries (Debian's postgresql-15).
package teambench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/history"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/pgtest"
	"github.com/heedhq/heed/internal/team"
	"github.com/heedhq/heed/internal/team/teamtest"
)

var cluster *pgtest.Cluster

func TestMain(m *testing.M) {
	code := m.Run()
	if cluster != nil {
		cluster.Stop()
	}
	os.Exit(code)
}

var once sync.Once

func database(b *testing.B) (string, *pgxpool.Pool) {
	b.Helper()
	once.Do(func() { cluster = pgtest.Start(b) })
	if cluster == nil {
		b.Skip("no PostgreSQL")
	}
	url := cluster.Database(b)
	if _, err := pgstore.Migrate(context.Background(), url); err != nil {
		b.Fatal(err)
	}
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return url, pool
}

// BenchmarkTeamCrawl crawls 50 hosts of 100 pages each at a 100 ms
// delay with 1, 2 and 4 workers (each its own River client and
// connections, as a process of its own has): pages a second, and what
// share of the ceiling (500 a second) that is.
func BenchmarkTeamCrawl(b *testing.B) {
	const hosts, delay = 50, 100 * time.Millisecond
	for _, workers := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			var pages int
			var took time.Duration
			for b.Loop() {
				_, pool := database(b)
				site := teamtest.Start(b, 100*hosts, hosts, time.Millisecond)
				ctx, cancel := context.WithCancel(context.Background())
				var wg sync.WaitGroup
				for range workers {
					w := &team.Worker{Pool: pool, HTTP: fetch.New(fetch.Config{
						AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Resolver: teamtest.Resolver{}, Retries: -1,
					}), Hosts: 64 / workers, Slice: 5 * time.Second, LeaseTTL: 10 * time.Second}
					wg.Go(func() { w.Run(ctx) })
				}
				began := time.Now()
				o := crawlopt.Defaults()
				o.Start, o.Source, o.Delay = site.PageURL(0), "bench", delay
				o.MaxPages, o.MaxDepth, o.AllowHosts, o.WholeSite = 2*site.N, 30, site.HostPorts(), true
				id, err := team.Start(ctx, pool, o)
				if err != nil {
					b.Fatal(err)
				}
				for {
					p, err := team.CrawlProgress(ctx, pool, id)
					if err != nil {
						b.Fatal(err)
					}
					if p.Done {
						pages += p.Stored
						break
					}
					time.Sleep(20 * time.Millisecond)
				}
				took += time.Since(began)
				cancel()
				wg.Wait()
				if c := site.Checked(); c.MinGap < delay || c.MaxInFlight > 1 {
					b.Fatalf("least gap %v, most in flight %d", c.MinGap, c.MaxInFlight)
				}
			}
			perSec := float64(pages) / took.Seconds()
			b.ReportMetric(perSec, "pages/s")
			b.ReportMetric(100*perSec/(hosts/delay.Seconds()), "%ceiling")
		})
	}
}

// BenchmarkTeamSearch searches a team database of 50,000 snapshots: the
// median and the 95th percentile of a search's time, over queries of one
// and two words, rare ones and some that nearly every page holds (each
// of 20 words is a twentieth of a quarter of every page's words).
func BenchmarkTeamSearch(b *testing.B) {
	url, _ := database(b)
	st, err := pgstore.Open(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const n = 50_000
	words := []string{"goroutine", "channel", "vacuum", "index", "lighthouse", "reef", "lens", "beam", "compiler", "kernel",
		"schema", "replica", "partition", "cursor", "planner", "buffer", "socket", "thread", "mutex", "heap"}
	r := rand.New(rand.NewPCG(1, 2))
	text := func(k int) string {
		var s []byte
		for i := range k {
			if i > 0 {
				s = append(s, ' ')
			}
			if r.IntN(4) == 0 {
				s = append(s, words[r.IntN(len(words))]...)
			} else {
				s = fmt.Appendf(s, "w%d", r.IntN(20000))
			}
		}
		return string(s)
	}
	ctx := context.Background()
	for i := 0; i < n; i += 1000 {
		err := pgx.BeginFunc(ctx, st.Pool(), func(tx pgx.Tx) error {
			for j := i; j < i+1000; j++ {
				snap := &heed.Snapshot{Source: fmt.Sprintf("s%d", j%20), URL: fmt.Sprintf("https://site%d.example/page/%d", j%20, j),
					Title: text(5), FetchedAt: time.Now(), Markdown: "# " + text(5) + "\n\n" + text(400)}
				if _, err := pgstore.PutIn(ctx, tx, snap, history.Retention{}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := st.Optimize(ctx); err != nil {
		b.Fatal(err)
	}
	queries := []string{"goroutine", "vacuum index", "w123", "lighthouse beam", "w77 w88", "kernel mutex heap", "planner"}
	var times []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		began := time.Now()
		hits, err := st.Search(ctx, heed.Query{Text: queries[i%len(queries)], Limit: 10})
		if err != nil {
			b.Fatal(err)
		}
		if len(hits) == 0 && queries[i%len(queries)] != "w77 w88" {
			b.Fatalf("no hits for %q", queries[i%len(queries)])
		}
		times = append(times, time.Since(began))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(times[len(times)*95/100].Microseconds())/1000, "p95-ms")
}
