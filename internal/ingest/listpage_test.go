package ingest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/stash"
)

// putter is what these tests write snapshots with: the stash of files
// or a team's database, beside the service that reads them.
type putter interface {
	Put(context.Context, *heed.Snapshot) (bool, error)
	Close() error
}

// backends are the two stores a service reads: a stash in a directory
// of its own, and, where PostgreSQL is installed, a team's database.
// Each opens a service onto its store and a writer beside it.
func backends(t *testing.T) map[string]func(t *testing.T) (*Service, func() putter) {
	return map[string]func(t *testing.T) (*Service, func() putter){
		"stash": func(t *testing.T) (*Service, func() putter) {
			dir := t.TempDir()
			svc := New(Config{StashDir: dir})
			t.Cleanup(func() { svc.Close() })
			return svc, func() putter {
				st, err := stash.Open(context.Background(), dir)
				if err != nil {
					t.Fatal(err)
				}
				return st
			}
		},
		"team": func(t *testing.T) (*Service, func() putter) {
			url := teamDatabase(t)
			svc := New(Config{DB: url})
			t.Cleanup(func() { svc.Close() })
			return svc, func() putter {
				db, err := pgstore.Open(context.Background(), url)
				if err != nil {
					t.Fatal(err)
				}
				return db
			}
		},
	}
}

// put stores a page of each URL.
func put(t *testing.T, open func() putter, urls ...string) {
	t.Helper()
	w := open()
	defer w.Close()
	for _, u := range urls {
		snap := &heed.Snapshot{Source: "docs", URL: u, Title: "Page " + u, FetchedAt: time.Now().UTC(), Markdown: "# " + u + "\n\nThe page at " + u + "."}
		if _, err := w.Put(context.Background(), snap); err != nil {
			t.Fatal(err)
		}
	}
}

// pages reads a listing from cursor to its end, n at a time.
func pages(t *testing.T, svc *Service, cursor string, n int) (ids []string, count int) {
	t.Helper()
	for {
		entries, next, err := svc.ListPage(context.Background(), cursor, n)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) > n || next != "" && len(entries) != n {
			t.Fatalf("a page of %d entries, next %q; asked %d", len(entries), next, n)
		}
		for _, e := range entries {
			ids = append(ids, e.ID)
		}
		count++
		if next == "" {
			return ids, count
		}
		cursor = next
	}
}

func urlsOf(prefix string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("https://docs.example/%s/%d", prefix, i))
	}
	return out
}

func idsOf(urls []string) []string {
	var out []string
	for _, u := range urls {
		out = append(out, heed.IDOf(u))
	}
	return out
}

// ListPage lists every snapshot once, by ID, in pages of the size asked,
// alike on both backends; a listing read while pages are stored goes on
// where it was, listing the new pages whose IDs come after it.
func TestListPage(t *testing.T) {
	for name, backend := range backends(t) {
		t.Run(name, func(t *testing.T) {
			svc, open := backend(t)
			first := urlsOf("a", 25)
			put(t, open, first...)
			ids, count := pages(t, svc, "", 10)
			want := slices.Sorted(slices.Values(idsOf(first)))
			if !slices.Equal(ids, want) || count != 3 {
				t.Fatalf("%d pages listed %q; want 3 pages of %q", count, ids, want)
			}
			if ids, count := pages(t, svc, "", 25); len(ids) != 25 || count != 1 {
				t.Errorf("a page of 25 of 25: %d pages, %d listed; want one page, and no cursor", count, len(ids))
			}

			// A listing that stored pages come in the middle of.
			page, cursor, err := svc.ListPage(context.Background(), "", 10)
			if err != nil {
				t.Fatal(err)
			}
			more := urlsOf("b", 25)
			put(t, open, more...)
			rest, _ := pages(t, svc, cursor, 10)
			var after []string
			for _, id := range slices.Sorted(slices.Values(append(idsOf(first), idsOf(more)...))) {
				if id > cursor {
					after = append(after, id)
				}
			}
			if !slices.Equal(rest, after) {
				t.Errorf("after cursor %s, with 25 pages stored meanwhile, listed %q; want %q", cursor, rest, after)
			}
			for _, e := range page {
				if slices.Contains(rest, e.ID) {
					t.Errorf("%s listed twice", e.ID)
				}
				if e.Source != "docs" || !strings.HasPrefix(e.URL, "https://docs.example/a/") || e.Title != "Page "+e.URL || e.ID != heed.IDOf(e.URL) {
					t.Errorf("entry %+v", e)
				}
			}
			// The last page names no next, and so does a cursor past every ID.
			if entries, next, err := svc.ListPage(context.Background(), "ffffffffffff", 10); err != nil || len(entries) != 0 || next != "" {
				t.Errorf("after the last ID: %v, %q, %v", entries, next, err)
			}
		})
	}
}

// A cursor ListPage did not give is refused as such, whatever it holds,
// before the store is read.
func TestListPageBadCursor(t *testing.T) {
	svc := New(Config{StashDir: t.TempDir()})
	defer svc.Close()
	for _, c := range []string{"x", "../../etc/passwd", "ABCDEF012345", "abcdef0123456", "abcdef01234", strings.Repeat("a", 1<<20), "abcdef01234\x00", "abcdef01234g"} {
		_, _, err := svc.ListPage(context.Background(), c, 10)
		if !errors.Is(err, ErrCursor) || heed.KindOf(err) != heed.Invalid {
			t.Errorf("cursor %.40q: %v; want an Invalid error wrapping ErrCursor", c, err)
		}
	}
	// A stash not made yet has nothing to list, and says so.
	var none *NoStashError
	if _, _, err := svc.ListPage(context.Background(), "", 10); !errors.As(err, &none) || none.Files {
		t.Errorf("no stash: %v", err)
	}
}
