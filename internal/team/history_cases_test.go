package team

import (
	"context"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/team/teamtest"
)

// TestOverlappingCrawlsRemoveNothing: two crawls of one source that
// overlap (a crawl started while another runs, as TestCrawlsShareURLs has
// them) mark no page removed that is there and linked, though a URL the
// one crawl ended after the other began stays the first's in the shared
// frontier.
func TestOverlappingCrawlsRemoveNothing(t *testing.T) {
	pool := database(t)
	site := teamtest.Start(t, 60, 2, time.Millisecond)
	opts := crawlopt.Defaults()
	opts.Start, opts.Source, opts.Delay = site.PageURL(0), "shared", 10*time.Millisecond
	opts.MaxPages, opts.MaxDepth = 1000, 20
	opts.AllowHosts, opts.WholeSite = site.HostPorts(), true
	opts.NoSitemaps, opts.NoLLMsTxt = true, true
	first, err := Start(context.Background(), pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	startWorkers(t, pool, 2, nil)
	for {
		p, err := CrawlProgress(context.Background(), pool, first)
		if err != nil {
			t.Fatal(err)
		}
		if p.Stored >= 10 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	second, err := Start(context.Background(), pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, pool, first, time.Minute)
	waitDone(t, pool, second, time.Minute)
	rows, err := pool.Query(context.Background(), `SELECT s.url, h.removed FROM heed_snapshot s JOIN heed_history h ON h.url = s.url WHERE h.removed <> '' ORDER BY s.url`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var u, why string
		if err := rows.Scan(&u, &why); err != nil {
			t.Fatal(err)
		}
		if n < 5 {
			t.Errorf("%s, there and linked, was marked removed (%s)", u, why)
		}
		n++
	}
	if n > 0 {
		var now int
		if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM heed_snapshot WHERE removed IS NOT NULL`).Scan(&now); err != nil {
			t.Fatal(err)
		}
		t.Errorf("%d pages of %d marked removed by two crawls of their source at once; %d removed still, out of search", n, site.N, now)
	}
}
