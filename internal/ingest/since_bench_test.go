package ingest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/stash"
)

// linkedStash is a stash of n pages that each link to 200 others, as
// crawled pages do (the index keeps their links, the crawl's state), all
// stored a month ago, and the first ten of them changed now.
func linkedStash(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	st, err := stash.Open(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	var links []string
	for j := range 200 {
		links = append(links, fmt.Sprintf("https://tides.example/a/rather/long/path/to/another/page/%05d", j))
	}
	month := time.Now().AddDate(0, 0, -30)
	for i := range n {
		u := fmt.Sprintf("https://tides.example/%05d", i)
		if _, err := st.Put(context.Background(), &heed.Snapshot{Source: "tides", URL: u, Title: "Tides", FetchedAt: month, Markdown: "# Tides\n\nThe tide turns at noon.\n", Links: links}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 10 {
		u := fmt.Sprintf("https://tides.example/%05d", i)
		if _, err := st.Put(context.Background(), &heed.Snapshot{Source: "tides", URL: u, Title: "Tides", FetchedAt: time.Now(), Markdown: "# Tides\n\nThe tide turns at dusk.\n", Links: links}); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkSinceStored is web_fetch's comparison of a page with the
// stash's copy (SinceStored), in stashes of 1,000 and 10,000 pages. It
// reads one page, yet its time grows with the stash: a call that finds
// the stash not open opens it to read, and opening counts the pages
// pending in the index, a scan of every row, links and all.
//
//	go test -run '^$' -bench SinceStored -benchtime 50x ./internal/ingest
func BenchmarkSinceStored(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := linkedStash(b, n)
			svc := New(Config{HTTP: fetch.New(fetch.Config{}), Agent: "heed/0.1", StashDir: dir})
			defer svc.Close()
			for b.Loop() {
				c, err := svc.SinceStored(context.Background(), "https://tides.example/00017", "# Tides\n\nThe tide turns at dusk.\n")
				if err != nil || c == nil || c.Change != heed.Changed {
					b.Fatalf("SinceStored: %+v, %v", c, err)
				}
			}
		})
	}
}

// BenchmarkChangesFew is what stash_changes reads of a stash in which
// ten pages changed this week, of 1,000 and 10,000 pages: the ten are
// found by walking every page of the index by URL, so its time grows
// with the stash, not with what changed.
//
//	go test -run '^$' -bench ChangesFew -benchtime 50x ./internal/ingest
func BenchmarkChangesFew(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			dir := linkedStash(b, n)
			svc := New(Config{HTTP: fetch.New(fetch.Config{}), Agent: "heed/0.1", StashDir: dir})
			defer svc.Close()
			release, err := svc.Hold(context.Background()) // as stash_changes holds it
			if err != nil {
				b.Fatal(err)
			}
			defer release()
			for b.Loop() {
				cs, err := svc.Changes(context.Background(), heed.ChangesQuery{Since: time.Now().AddDate(0, 0, -7), Limit: 1001})
				if err != nil || len(cs) != 10 {
					b.Fatalf("Changes: %d, %v", len(cs), err)
				}
			}
		})
	}
}
