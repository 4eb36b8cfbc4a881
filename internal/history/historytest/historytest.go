package historytest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/history"
)

// Store is what the suite asks of a store.
type Store interface {
	Put(ctx context.Context, snap *heed.Snapshot) (changed bool, err error)
	MarkRemoved(ctx context.Context, source, url string, at time.Time, why string) (bool, error)
	Get(ctx context.Context, urlOrID string) (*heed.Snapshot, error)
	History(ctx context.Context, urlOrID string) (*heed.History, error)
	VersionText(ctx context.Context, urlOrID string, n int) (string, error)
	Changes(ctx context.Context, q heed.ChangesQuery) ([]heed.PageChange, error)
	Search(ctx context.Context, q heed.Query) ([]heed.Hit, error)
}

// Open opens an empty store that keeps what r retains.
type Open func(t *testing.T, r history.Retention) Store

// t0 is a month ago, so that the default retention keeps every version.
var t0 = time.Now().UTC().Truncate(time.Second).AddDate(0, 0, -30)

func day(n int) time.Time { return t0.AddDate(0, 0, n) }

// put stores text as the page at url of source "docs", fetched on day d.
func put(t *testing.T, s Store, url, text string, d int) *heed.Snapshot {
	t.Helper()
	snap := &heed.Snapshot{Source: "docs", URL: url, Title: "Title of " + url, Markdown: text, FetchedAt: day(d), ETag: `"` + heed.HashOf(text)[:8] + `"`}
	if _, err := s.Put(context.Background(), snap); err != nil {
		t.Fatalf("Put %s: %v", url, err)
	}
	return snap
}

// Run runs the suite.
func Run(t *testing.T, open Open) {
	ctx := context.Background()
	const a, b = "# Alpha\n\nThe first text of the page, about zebras.\n", "# Alpha\n\nThe second text of the page, about yaks.\n"
	const u = "https://example.com/docs/page"

	t.Run("versions", func(t *testing.T) {
		s := open(t, history.Retention{})
		if snap := put(t, s, u, a, 0); snap.Version != 1 || snap.Change != heed.New {
			t.Fatalf("first Put: version %d, %q; want 1, new", snap.Version, snap.Change)
		}
		if snap := put(t, s, u, a, 1); snap.Version != 1 || snap.Change != heed.Unchanged {
			t.Fatalf("same content: version %d, %q; want 1, unchanged", snap.Version, snap.Change)
		}
		if snap := put(t, s, u, b, 2); snap.Version != 2 || snap.Change != heed.Changed {
			t.Fatalf("new content: version %d, %q; want 2, changed", snap.Version, snap.Change)
		}
		// A page that flips back is a new version, of a content kept once.
		if snap := put(t, s, u, a, 3); snap.Version != 3 || snap.Change != heed.Changed {
			t.Fatalf("back to the first content: version %d, %q; want 3, changed", snap.Version, snap.Change)
		}
		h, err := s.History(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Versions) != 3 || h.URL != u || h.ID != heed.IDOf(u) || h.Source != "docs" {
			t.Fatalf("history: %+v", h)
		}
		for i, want := range []string{a, b, a} {
			v := h.Versions[i]
			if v.N != i+1 || v.Hash != heed.HashOf(want) || v.Size != len(want) || !v.At.Equal(day([]int{0, 2, 3}[i])) || v.Removed != "" {
				t.Errorf("version %d: %+v", i+1, v)
			}
			if v.ETag != `"`+heed.HashOf(want)[:8]+`"` {
				t.Errorf("version %d's ETag: %q", i+1, v.ETag)
			}
			text, err := s.VersionText(ctx, u, i+1)
			if err != nil || text != want {
				t.Errorf("VersionText(%d) = %q, %v; want %q", i+1, text, err, want)
			}
		}
		// By ID too.
		if text, err := s.VersionText(ctx, heed.IDOf(u), 2); err != nil || text != b {
			t.Errorf("VersionText by ID = %q, %v", text, err)
		}
		if _, err := s.VersionText(ctx, u, 4); !errors.Is(err, heed.ErrNotFound) {
			t.Errorf("a version that is not: %v, want ErrNotFound", err)
		}
		if _, err := s.History(ctx, "https://example.com/none"); !errors.Is(err, heed.ErrNotFound) {
			t.Errorf("history of no page: %v, want ErrNotFound", err)
		}
	})

	t.Run("removed", func(t *testing.T) {
		s := open(t, history.Retention{})
		put(t, s, u, a, 0)
		other := "https://example.com/docs/other"
		put(t, s, other, "# Other\n\nAbout zebras as well.\n", 0)
		if ok, err := s.MarkRemoved(ctx, "docs", u, day(1), "404"); err != nil || !ok {
			t.Fatalf("MarkRemoved = %v, %v", ok, err)
		}
		if ok, err := s.MarkRemoved(ctx, "docs", u, day(2), "404"); err != nil || ok {
			t.Fatalf("MarkRemoved of a page removed already = %v, %v; want false", ok, err)
		}
		if ok, err := s.MarkRemoved(ctx, "blog", other, day(2), "404"); err != nil || ok {
			t.Fatalf("MarkRemoved of another source's page = %v, %v; want false", ok, err)
		}
		if ok, err := s.MarkRemoved(ctx, "docs", "https://example.com/never", day(2), "404"); err != nil || ok {
			t.Fatalf("MarkRemoved of a page never stored = %v, %v; want false", ok, err)
		}
		h, err := s.History(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Versions) != 2 || h.Versions[1].Removed != "404" || h.Versions[1].N != 2 || !h.Versions[1].At.Equal(day(1)) {
			t.Fatalf("history after removal: %+v", h.Versions)
		}
		for _, c := range []struct {
			url     string
			removed bool
		}{{u, true}, {other, false}} {
			snap, err := s.Get(ctx, c.url)
			if err != nil || snap.Removed.IsZero() == c.removed || snap.Removed.IsZero() != c.removed && c.removed && !snap.Removed.Equal(day(1)) {
				t.Fatalf("Get(%s) after the removal: %+v, %v; want removed %v (at day 1)", c.url, snap, err, c.removed)
			}
		}
		hits, err := s.Search(ctx, heed.Query{Text: "zebras"})
		if err != nil || len(hits) != 1 || hits[0].URL != other {
			t.Fatalf("search leaves a removed page out: %+v, %v", hits, err)
		}
		hits, err = s.Search(ctx, heed.Query{Text: "zebras", Removed: true})
		if err != nil || len(hits) != 2 {
			t.Fatalf("search with Removed finds it: %+v, %v", hits, err)
		}
		// Its last text is still read.
		if text, err := s.VersionText(ctx, u, 1); err != nil || text != a {
			t.Fatalf("the removed page's text: %q, %v", text, err)
		}
		// It comes back: a new version, in search again.
		if snap := put(t, s, u, a, 5); snap.Version != 3 || snap.Change != heed.New {
			t.Fatalf("back: version %d, %q; want 3, new", snap.Version, snap.Change)
		}
		hits, err = s.Search(ctx, heed.Query{Text: "zebras"})
		if err != nil || len(hits) != 2 {
			t.Fatalf("a page back is found: %+v, %v", hits, err)
		}
		if snap, err := s.Get(ctx, u); err != nil || !snap.Removed.IsZero() {
			t.Fatalf("Get after its return: %+v, %v; want it no longer removed", snap, err)
		}
	})

	t.Run("changes", func(t *testing.T) {
		s := open(t, history.Retention{})
		p := func(n string) string { return "https://example.com/docs/" + n }
		put(t, s, p("same"), "same\n", 0)
		put(t, s, p("changed"), "one\n", 0)
		put(t, s, p("removed"), "here\n", 0)
		put(t, s, p("gone-new"), "brief\n", 6)
		put(t, s, p("changed"), "two\n", 7)
		put(t, s, p("new"), "fresh\n", 8)
		put(t, s, p("same"), "same\n", 8)
		if _, err := s.MarkRemoved(ctx, "docs", p("removed"), day(9), "unreached"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.MarkRemoved(ctx, "docs", p("gone-new"), day(9), "410"); err != nil {
			t.Fatal(err)
		}
		cs, err := s.Changes(ctx, heed.ChangesQuery{Since: day(5)})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range cs {
			got = append(got, strings.TrimPrefix(c.URL, "https://example.com/docs/")+" "+string(c.Change))
		}
		want := []string{"changed changed", "new new", "removed removed"}
		if !slices.Equal(got, want) {
			t.Fatalf("changes since day 5: %q, want %q", got, want)
		}
		if cs[0].From != 1 || cs[0].To != 2 || !cs[0].At.Equal(day(7)) || cs[0].Source != "docs" || cs[0].ID != heed.IDOf(p("changed")) {
			t.Errorf("the changed page: %+v", cs[0])
		}
		// Paged by URL.
		first, err := s.Changes(ctx, heed.ChangesQuery{Since: day(5), Limit: 2})
		if err != nil || len(first) != 2 {
			t.Fatalf("first part: %+v, %v", first, err)
		}
		rest, err := s.Changes(ctx, heed.ChangesQuery{Since: day(5), After: first[1].URL, Limit: 2})
		if err != nil || len(rest) != 1 || rest[0].URL != p("removed") {
			t.Fatalf("second part: %+v, %v", rest, err)
		}
		if cs, _ := s.Changes(ctx, heed.ChangesQuery{Since: day(5), Source: "blog"}); len(cs) != 0 {
			t.Fatalf("another source's changes: %+v", cs)
		}
		if cs, _ := s.Changes(ctx, heed.ChangesQuery{Since: day(10)}); len(cs) != 0 {
			t.Fatalf("changes since the last: %+v", cs)
		}
	})

	t.Run("retention", func(t *testing.T) {
		s := open(t, history.Retention{Versions: 3, MaxAge: -1})
		texts := []string{"v1\n", "v2\n", "v3\n", "v4\n", "v5\n"}
		for i, text := range texts {
			put(t, s, u, text, i)
		}
		h, err := s.History(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Versions) != 3 || h.Versions[0].N != 3 || h.Versions[2].N != 5 {
			t.Fatalf("kept %+v, want versions 3 to 5", h.Versions)
		}
		if _, err := s.VersionText(ctx, u, 1); !errors.Is(err, heed.ErrNotFound) {
			t.Errorf("a version let go: %v, want ErrNotFound", err)
		}
		if text, err := s.VersionText(ctx, u, 3); err != nil || text != texts[2] {
			t.Errorf("version 3: %q, %v", text, err)
		}
	})
}
