package team

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawl/crawltest"
	"github.com/heedhq/heed/internal/pgstore"
)

// knownDrift are the conformance cases in which the team's crawl does
// not do what the crawl on one machine does, each with how it differs:
// they are skipped, saying so, until the team's crawl is made to
// conform and its entry removed.
var knownDrift = map[string]string{}

// TestConformance runs the conformance suite against the team's crawl:
// a database of its own and a worker a case.
func TestConformance(t *testing.T) {
	crawltest.Run(t, crawltest.Backend{Crawl: crawlTeam, KnownDrift: knownDrift})
}

// crawlTeam starts a crawl with o in a new database, works it with one
// worker to its end, and says what came of it: the events the worker
// told, and the snapshots in the database. With runs above 1 it does so
// again in the same database, each crawl with a worker of its own, and
// says what came of the last.
func crawlTeam(t *testing.T, o crawl.Options, runs int, before func(int)) crawltest.Result {
	pool := database(t)
	var res crawltest.Result
	for run := range runs {
		before(run)
		res.Events = crawlTeamOnce(t, pool, o)
		res.Runs = append(res.Runs, res.Events)
	}
	rows, err := pool.Query(context.Background(), `SELECT url, title, markdown, author, coalesce(published, 'epoch') FROM heed_snapshot`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	res.Snapshots = map[string]crawltest.Snapshot{}
	for rows.Next() {
		var u string
		var s crawltest.Snapshot
		if err := rows.Scan(&u, &s.Title, &s.Markdown, &s.Author, &s.Published); err != nil {
			t.Fatal(err)
		}
		if s.Published.Unix() == 0 {
			s.Published = time.Time{}
		}
		res.Snapshots[u] = s
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	st, err := pgstore.Open(context.Background(), pool.Config().ConnString())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res.Histories = map[string][]heed.PageVersion{}
	for u := range res.Snapshots {
		h, err := st.History(context.Background(), u)
		if err != nil {
			t.Fatalf("%s: history: %v", u, err)
		}
		res.Histories[u] = h.Versions
	}
	return res
}

// crawlTeamOnce starts a crawl with o in pool and works it with a worker
// of its own to its end: the events are those the worker told.
func crawlTeamOnce(t *testing.T, pool *pgxpool.Pool, o crawl.Options) []crawl.Event {
	var mu sync.Mutex
	var events []crawl.Event
	w := &Worker{Pool: pool, HTTP: loopbackClient(), Hosts: 8, Slice: 2 * time.Second, LeaseTTL: 5 * time.Second,
		Event: func(e crawl.Event) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, e)
		}}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx) }()
	// The worker is stopped before the events are read: it tells of a
	// URL once its commit is done, a moment after the crawl is seen
	// done.
	stop := sync.OnceValue(func() error { cancel(); return <-ran })
	t.Cleanup(func() { stop() })
	id, err := Start(context.Background(), pool, o.Options)
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, pool, id, time.Minute)
	if err := stop(); err != nil {
		t.Fatalf("worker: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	return events
}
