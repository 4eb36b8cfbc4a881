package stash

import (
	"context"
	"testing"
	"time"

	"github.com/heedhq/heed"
)

// TestChangesWithinTheSecondAfterSince shows what the team's database
// no longer misses (history.Append keeps a version's time whole) but
// the stash still does: a page changed within the second after the
// time asked about. The stash keeps its versions' times in whole
// seconds, so a version fetched at 10:41:05.3 is dated 10:41:05, before
// a since of 10:41:05.2, and heed changes (or stash_changes) leaves it
// out; the stash must round its side so that nothing since is missed.
func TestChangesWithinTheSecondAfterSince(t *testing.T) {
	s := openStash(t, t.TempDir())
	ctx := context.Background()
	u := "https://e.com/docs/tides"
	day := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	changedAt := time.Date(2026, 12, 1, 10, 41, 5, 300_000_000, time.UTC)
	for _, v := range []struct {
		text string
		at   time.Time
	}{{"# Tides\n\nnoon\n", day}, {"# Tides\n\ndusk\n", changedAt}} {
		if _, err := s.Put(ctx, &heed.Snapshot{Source: "docs", URL: u, Markdown: v.text, FetchedAt: v.at}); err != nil {
			t.Fatal(err)
		}
	}
	since := changedAt.Add(-100 * time.Millisecond)
	cs, err := s.Changes(ctx, heed.ChangesQuery{Since: since})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].Change != heed.Changed {
		t.Errorf("changes since %s of a page changed at %s: %+v; want it changed", since.Format(time.RFC3339Nano), changedAt.Format(time.RFC3339Nano), cs)
	}
}
