package pgstore

import (
	"slices"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/ledger/ledgertest"
)

// The team's tables keep a crawl's ledger as the stash's database does:
// the conformance suite of ledgers, a database of its own a case.
func TestLedger(t *testing.T) {
	ledgertest.Run(t, func(t *testing.T) ledger.Ledger { return openStore(t).Ledger() })
}

// A crawl the team's workers ran reads as its rows say: done once it is
// seeded with no URL queued, its failures by reason counted in all and
// left by reason when given back, its pages kept with their snapshots'
// hashes, a redirect's target seen and a canonical URL claimed.
func TestLedgerOfTeamRows(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	if _, err := s.Put(ctx, &heed.Snapshot{Source: "docs", URL: "https://docs.example/a", Markdown: "# A\n", FetchedAt: at}); err != nil {
		t.Fatal(err)
	}
	var id int64
	err := s.pool.QueryRow(ctx, `
		INSERT INTO heed_crawl (source, start_url, seeded, fetched, stored, new, failed)
		VALUES ('docs', 'https://docs.example/', true, 4, 1, 1, '{"transient": 1, "internal": 2}') RETURNING id`).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO heed_crawl_options (crawl, options) VALUES ($1, '{"start": "https://docs.example/"}')`, id); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `
		INSERT INTO heed_frontier (url, crawl, host, depth, state, reason) VALUES
			('https://docs.example/a', $1, 'docs.example', 0, 'done', 'new'),
			('https://docs.example/b', $1, 'docs.example', 1, 'done', ''),
			('https://docs.example/c', $1, 'docs.example', 1, 'done', 'claimed'),
			('https://docs.example/d', $1, 'docs.example', 1, 'failed', 'transient')`, id); err != nil {
		t.Fatal(err)
	}
	l := s.Ledger()
	c, err := l.Crawl(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if c.State != ledger.Done || c.Counts.Failed != 3 || c.Counts.Requests != 4 || c.Counts.New != 1 || c.Options != `{"start":"https://docs.example/"}` {
		t.Errorf("the team's crawl reads %+v", c)
	}
	// Given back as read, the failures keep their reasons.
	if err := l.Finish(ctx, id, ledger.Done, c.Counts); err != nil {
		t.Fatal(err)
	}
	var failed map[string]int
	if err := s.pool.QueryRow(ctx, `SELECT failed FROM heed_crawl WHERE id = $1`, id).Scan(&failed); err != nil || failed["internal"] != 2 || failed["transient"] != 1 {
		t.Errorf("failures by reason after Finish: %v, %v", failed, err)
	}
	kept, err := l.Kept(ctx, id, 0, 10)
	if err != nil || len(kept) != 1 || kept[0].URL != "https://docs.example/a" || kept[0].Fate != ledger.Stored {
		t.Errorf("kept %+v, %v; want the one page", kept, err)
	}
	// Its entries, as a crawl taken up by its ID would have them.
	if _, err := s.pool.Exec(ctx, `UPDATE heed_crawl SET state = 'interrupted' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	_, entries, err := l.Begin(ctx, ledger.Crawl{}, id)
	if err != nil {
		t.Fatal(err)
	}
	fates := map[string]ledger.Entry{}
	for _, e := range entries {
		fates[e.URL[len("https://docs.example/"):]] = e
	}
	if e := fates["a"]; e.Fate != ledger.Stored || e.Hash != heed.HashOf("# A\n") {
		t.Errorf("the page stored comes back as %+v", e)
	}
	if fates["b"].Fate != ledger.Seen || fates["c"].Fate != ledger.Claimed || fates["d"].Fate != ledger.Failed {
		t.Errorf("entries %+v", fates)
	}
}

// A team's worker ends a URL in the place it was queued in (its seq),
// dating its row (updated_at): Kept lists a crawl's pages in the order
// they were kept, as team.Kept does, so that paging a running crawl by
// the last page given misses none. Here /a, queued first, is kept after
// /b was listed. Pages kept at one time are never split across pages:
// given whole when they are more than the limit, and after the page
// before them when they would end it.
func TestLedgerKeptOfTeamRowsInTheOrderKept(t *testing.T) {
	ctx := t.Context()
	s := openStore(t)
	var id int64
	if err := s.pool.QueryRow(ctx, `INSERT INTO heed_crawl (source, start_url, seeded) VALUES ('docs', 'https://docs.example/', true) RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO heed_crawl_options (crawl, options) VALUES ($1, '{"start": "https://docs.example/"}')`, id); err != nil {
		t.Fatal(err)
	}
	// Queued in this order, on two hosts' turns.
	for _, u := range []string{"https://docs.example/a", "https://other.example/b", "https://docs.example/c", "https://docs.example/d", "https://docs.example/e"} {
		if _, err := s.pool.Exec(ctx, `INSERT INTO heed_frontier (url, crawl, host, depth) VALUES ($1, $2, 'h', 1)`, u, id); err != nil {
			t.Fatal(err)
		}
	}
	// As a worker's commit ends a URL (queueLinks): its state, reason
	// and updated_at, its seq left. Each is dated past KeptSettle, so
	// that no clock is waited for.
	end := func(ago time.Duration, urls ...string) {
		if _, err := s.pool.Exec(ctx, `UPDATE heed_frontier SET state = 'done', reason = 'new', updated_at = date_trunc('second', now()) - make_interval(secs => $2) WHERE url = ANY($1)`, urls, ago.Seconds()); err != nil {
			t.Fatal(err)
		}
	}
	l := s.Ledger()
	end(time.Minute, "https://other.example/b")
	first, err := l.Kept(ctx, id, 0, 10)
	if err != nil || len(first) != 1 {
		t.Fatalf("kept %+v, %v; want /b", first, err)
	}
	end(50*time.Second, "https://docs.example/a")
	next, err := l.Kept(ctx, id, first[0].Seq, 10)
	if err != nil || len(next) != 1 || next[0].URL != "https://docs.example/a" {
		t.Errorf("kept after /b: %+v, %v; want /a, kept after it", next, err)
	}

	// /c and /d, of one time, then /e.
	end(40*time.Second, "https://docs.example/c", "https://docs.example/d")
	end(30*time.Second, "https://docs.example/e")
	var got []string
	var sizes []int
	after := int64(0)
	for range 10 {
		page, err := l.Kept(ctx, id, after, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, k := range page {
			got = append(got, k.URL)
		}
		sizes = append(sizes, len(page))
		after = page[len(page)-1].Seq
	}
	want := []string{"https://other.example/b", "https://docs.example/a", "https://docs.example/c", "https://docs.example/d", "https://docs.example/e"}
	if !slices.Equal(got, want) || !slices.Equal(sizes, []int{1, 1, 2, 1}) {
		t.Errorf("kept a page at a time: %q in pages of %v; want %q in pages of [1 1 2 1]", got, sizes, want)
	}
	if page, err := l.Kept(ctx, id, first[0].Seq, 2); err != nil || len(page) != 1 || page[0].URL != "https://docs.example/a" {
		t.Errorf("two after /b: %+v, %v; want /a alone, /c and /d of one time left whole to the next", page, err)
	}
}
