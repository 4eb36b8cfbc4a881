package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/jackc/pgx/v5"
)

func openStore(t *testing.T) *Store {
	t.Helper()
	url := database(t)
	if _, err := Migrate(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Open refuses a database Migrate has not made current: heed's schema
// behind, or River's (a migration cut short).
func TestOpenUnmigrated(t *testing.T) {
	url := database(t)
	if _, err := Open(context.Background(), url); err == nil || !strings.Contains(err.Error(), "heed migrate") {
		t.Errorf("an unmigrated database opened: %v", err)
	}
	if _, err := Migrate(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "DELETE FROM river_migration WHERE version = (SELECT max(version) FROM river_migration)"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), url); err == nil || !strings.Contains(err.Error(), "River") {
		t.Errorf("River's schema behind, the database opened: %v", err)
	}
}

// Put keeps a snapshot whole; again with the same content it changes
// nothing but the fetch, the validators and the links; the crawl's reads
// see what was put; Get takes a URL or an ID; Remove takes a source.
func TestStore(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	snap := &heed.Snapshot{Source: "docs", URL: "https://docs.example/a", Title: "Goroutine leaks", Description: "d",
		Author: "The Go Authors", Published: at.Add(-48 * time.Hour), FetchedAt: at, Tags: []string{"go"}, ETag: `"1"`, Notes: []string{"n"}, Via: []string{"markdown"},
		Links: []string{"https://docs.example/b"}, Markdown: "# Goroutine leaks\n\nA goroutine that never ends is a leak of memory."}
	if changed, err := s.Put(ctx, snap); err != nil || !changed {
		t.Fatalf("first Put: %v, %v", changed, err)
	}
	again := *snap
	again.FetchedAt, again.ETag, again.Links = at.Add(time.Hour), `"2"`, []string{"https://docs.example/c"}
	if changed, err := s.Put(ctx, &again); err != nil || changed {
		t.Fatalf("the same content again: changed %v, %v", changed, err)
	}
	got, err := s.Get(ctx, snap.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.URL != snap.URL || got.Title != snap.Title || got.Markdown != snap.Markdown || !got.FetchedAt.Equal(at.Add(time.Hour)) ||
		got.Author != "The Go Authors" || !got.Published.Equal(at.Add(-48*time.Hour)) || !got.Modified.IsZero() ||
		got.ETag != `"2"` || !slices.Equal(got.Links, []string{"https://docs.example/c"}) || !slices.Equal(got.Via, []string{"markdown"}) || got.Hash != heed.HashOf(snap.Markdown) {
		t.Errorf("Get: %+v", got)
	}
	if e, lm, ok := s.Validators(ctx, "docs", snap.URL); !ok || e != `"2"` || lm != "" {
		t.Errorf("Validators: %q %q %v", e, lm, ok)
	}
	if !s.HasValidators(ctx, "docs") || s.HasValidators(ctx, "other") {
		t.Error("HasValidators")
	}
	if s.Hash(ctx, "docs", snap.URL) != got.Hash || s.Hash(ctx, "other", snap.URL) != "" {
		t.Error("Hash")
	}
	if err := s.Touch(ctx, snap.URL, at.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, snap.URL); !got.FetchedAt.Equal(at.Add(2 * time.Hour)) {
		t.Errorf("Touch: fetched at %v", got.FetchedAt)
	}
	changedSnap := *snap
	changedSnap.Markdown += "\n\nMore."
	if changed, err := s.Put(ctx, &changedSnap); err != nil || !changed {
		t.Errorf("new content: changed %v, %v", changed, err)
	}
	s.Put(ctx, &heed.Snapshot{Source: "blog", URL: "https://blog.example/x", Title: "X", FetchedAt: at, Markdown: "Another page."})
	if src, err := s.Sources(ctx); err != nil || src["docs"] != 1 || src["blog"] != 1 {
		t.Errorf("Sources: %v, %v", src, err)
	}
	if l, err := s.List(ctx, "docs"); err != nil || len(l) != 1 || l[0].URL != snap.URL {
		t.Errorf("List: %v, %v", l, err)
	}
	if n, err := s.Remove(ctx, "docs"); err != nil || n != 1 {
		t.Errorf("Remove: %d, %v", n, err)
	}
	if _, err := s.Get(ctx, snap.URL); !errors.Is(err, heed.ErrNotFound) {
		t.Errorf("Get after Remove: %v", err)
	}
}

// Search takes words in any form that stems alike, all required,
// "phrases" and prefixes*, ranks a title's match first, and gives the
// words around the match as plain text with the matches marked.
func TestSearch(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	at := time.Now()
	for _, p := range []heed.Snapshot{
		{Source: "go", URL: "https://go.example/leaks", Title: "Goroutine leaks", Markdown: "# Goroutine leaks\n\nWhen goroutines **leak**, memory grows without end. Cancel the context."},
		{Source: "go", URL: "https://go.example/context", Title: "Contexts", Markdown: "A context carries a deadline. A leaking goroutine holds one forever."},
		{Source: "py", URL: "https://py.example/gc", Title: "Garbage", Markdown: "Python frees memory by reference counting."},
	} {
		p.FetchedAt = at
		if _, err := s.Put(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	urls := func(hits []heed.Hit) []string {
		var out []string
		for _, h := range hits {
			out = append(out, h.URL)
		}
		return out
	}
	for _, tt := range []struct {
		q    heed.Query
		want []string
	}{
		{heed.Query{Text: "goroutine leak"}, []string{"https://go.example/leaks", "https://go.example/context"}},
		{heed.Query{Text: `"cancel the context"`}, []string{"https://go.example/leaks"}},
		{heed.Query{Text: "gorout*"}, []string{"https://go.example/leaks", "https://go.example/context"}},
		{heed.Query{Text: "memory", Source: "py"}, []string{"https://py.example/gc"}},
		{heed.Query{Text: "memory python goroutine"}, nil},
		{heed.Query{Text: "goroutine", Limit: 1}, []string{"https://go.example/leaks"}},
	} {
		hits, err := s.Search(ctx, tt.q)
		if err != nil {
			t.Fatalf("%+v: %v", tt.q, err)
		}
		if got := urls(hits); !slices.Equal(got, tt.want) {
			t.Errorf("%+v: %q, want %q", tt.q, got, tt.want)
		}
	}
	hits, _ := s.Search(ctx, heed.Query{Text: "leak"})
	if len(hits) == 0 {
		t.Fatal("no hit for leak")
	}
	h := hits[0]
	if strings.ContainsAny(h.Snippet, "*#\n") || len(h.Matches) == 0 {
		t.Fatalf("snippet %q, matches %v", h.Snippet, h.Matches)
	}
	for _, m := range h.Matches {
		word := strings.ToLower(string([]rune(h.Snippet)[m.Start:m.End]))
		if !strings.HasPrefix(word, "leak") {
			t.Errorf("match %v is %q in %q", m, word, h.Snippet)
		}
	}
	if _, err := s.Search(ctx, heed.Query{Text: "  "}); !errors.Is(err, heed.ErrEmptyQuery) {
		t.Errorf("an empty query: %v", err)
	}
	if _, err := s.Search(ctx, heed.Query{Text: strings.Repeat("a ", heed.MaxQuery)}); !errors.Is(err, heed.ErrQueryTooLong) {
		t.Errorf("a long query: %v", err)
	}
}

// What review sent: a query or a page with NUL or invalid UTF-8, a page
// of megabytes, a whole word with a prefix star; none is an SQL error.
func TestStoreOddInput(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	var big strings.Builder
	for i := 0; big.Len() < 3<<20; i++ {
		fmt.Fprintf(&big, "word%d ", i)
	}
	for _, p := range []heed.Snapshot{
		{Source: "odd", URL: "https://odd.example/nul", Title: "A\x00B", Markdown: "text with a \x00 and caf\xe9 in it, goroutines"},
		{Source: "odd", URL: "https://odd.example/big", Title: "Big", Markdown: "databases " + big.String()},
	} {
		p.FetchedAt = time.Now()
		if _, err := s.Put(ctx, &p); err != nil {
			t.Fatalf("Put %s: %v", p.URL, err)
		}
	}
	for _, q := range []string{"caf\xe9", "x\x00y", "x\x00*", "goroutine*", "database*", "\xff"} {
		if _, err := s.Search(ctx, heed.Query{Text: q}); err != nil && !errors.Is(err, heed.ErrEmptyQuery) {
			t.Errorf("Search %q: %v", q, err)
		}
	}
	for _, q := range []string{"goroutine*", "database*", "databases"} {
		if hits, _ := s.Search(ctx, heed.Query{Text: q}); len(hits) != 1 {
			t.Errorf("Search %q: %d hits, want 1", q, len(hits))
		}
	}
	if _, err := s.Get(ctx, "\xff"); !errors.Is(err, heed.ErrNotFound) {
		t.Errorf("Get of invalid UTF-8: %v", err)
	}
	if _, err := s.List(ctx, "a\x00"); err != nil {
		t.Errorf("List: %v", err)
	}
}

// No form of a password survives in an error.
func TestRedactForms(t *testing.T) {
	for _, tt := range []struct{ url, pw string }{
		{"host=127.0.0.1 port=1 user=u password = hunter22 sslmode=bogus", "hunter22"},
		{"host=127.0.0.1 user=u password='a secret b' sslmode=bogus", "secret"},
		{"postgres://u:hun@ter22@127.0.0.1:1/db?sslmode=bogus", "ter22"},
		{"postgres://u:s%40cr3t@127.0.0.1:1/db?sslmode=bogus", "s@cr3t"},
		{"postgres://u@127.0.0.1:1/db?password=s3cretpw&sslmode=bogus", "s3cretpw"},
		{"postgres:///db?host=127.0.0.1&port=1&password=p%40ss%2Fw0rd&sslmode=bogus", "p@ss/w0rd"},
		{"postgres://u:first1pw@127.0.0.1:1/db?password=second2pw&sslmode=bogus", "second2pw"},
	} {
		_, err := Migrate(context.Background(), tt.url)
		if err == nil {
			t.Fatalf("%s: no error", RedactString(tt.url, tt.url))
		}
		if strings.Contains(err.Error(), tt.pw) {
			t.Errorf("the password in: %v", err)
		}
		if got := RedactString(tt.url, "x "+tt.url+" y"); strings.Contains(got, tt.pw) {
			t.Errorf("RedactString keeps it: %s", got)
		}
	}
}

// A word that more pages hold than a search ranks: the pages whose
// title holds it are ranked all the same, though they came last, and
// the search still finds the rest.
func TestSearchManyMatches(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	b := &pgx.Batch{}
	for i := range textCandidates + 200 {
		b.Queue(`INSERT INTO heed_snapshot (url, id, source, fetched_at, hash, title, markdown) VALUES ($1, $2, 'many', now(), $3, $4, $5)`,
			fmt.Sprintf("https://many.example/%d", i), fmt.Sprintf("id%d", i), fmt.Sprint(i), fmt.Sprintf("Page %d", i),
			fmt.Sprintf("Page %d speaks of lighthouses and of keepers, as every page here does.", i))
	}
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	late := &heed.Snapshot{Source: "many", URL: "https://many.example/late", Title: "Lighthouses", FetchedAt: time.Now(), Markdown: "The last page, on lighthouses."}
	if _, err := s.Put(ctx, late); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, heed.Query{Text: "lighthouse", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 5 || hits[0].URL != late.URL {
		t.Errorf("hits %+v; want 5, the titled page first", hits)
	}
	if hits, err := s.Search(ctx, heed.Query{Text: "keepers", Limit: 3}); err != nil || len(hits) != 3 {
		t.Errorf("a word in every page's text alone: %v, %v", hits, err)
	}
}
