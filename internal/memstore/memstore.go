package memstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/heedhq/heed"
)

// Store is a store of snapshots in memory. The zero value is an empty
// store; it is safe for concurrent use.
type Store struct {
	mu    sync.Mutex
	pages map[string]*heed.Snapshot // by URL
}

// clone is a copy of a snapshot, so that the caller's later changes do
// not reach the store, nor the store's the caller.
func clone(s *heed.Snapshot) *heed.Snapshot {
	c := *s
	c.Tags = slices.Clone(s.Tags)
	c.Notes = slices.Clone(s.Notes)
	c.Via = slices.Clone(s.Via)
	c.Links = slices.Clone(s.Links)
	return &c
}

// Put stores a snapshot under its URL, replacing the one there; changed
// is false when its Markdown and source were stored already (its
// validators and links are updated all the same).
func (s *Store) Put(_ context.Context, snap *heed.Snapshot) (changed bool, err error) {
	if snap.URL == "" || snap.Source == "" {
		return false, errors.New("memstore: a snapshot needs a URL and a source")
	}
	snap.ID, snap.Hash = heed.IDOf(snap.URL), heed.HashOf(snap.Markdown)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pages == nil {
		s.pages = map[string]*heed.Snapshot{}
	}
	old := s.pages[snap.URL]
	s.pages[snap.URL] = clone(snap)
	return old == nil || old.Hash != snap.Hash || old.Source != snap.Source, nil
}

// Touch records that a page was found unchanged at a time.
func (s *Store) Touch(_ context.Context, url string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pages[url]; p != nil {
		p.FetchedAt = at.UTC()
	}
	return nil
}

// Links are the links the source's page at url was stored with.
func (s *Store) Links(_ context.Context, source, url string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pages[url]; p != nil && p.Source == source {
		return slices.Clone(p.Links)
	}
	return nil
}

// Validators are what the source's page at url was stored with.
func (s *Store) Validators(_ context.Context, source, url string) (etag, lastModified string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pages[url]
	if p == nil || p.Source != source {
		return "", "", false
	}
	return p.ETag, p.LastModified, true
}

// Hash is the content hash of the source's page at url, or "".
func (s *Store) Hash(_ context.Context, source, url string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pages[url]; p != nil && p.Source == source {
		return p.Hash
	}
	return ""
}

// HasValidators reports whether the source has any page stored.
func (s *Store) HasValidators(_ context.Context, source string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pages {
		if p.Source == source {
			return true
		}
	}
	return false
}

// Get is the snapshot of a URL, or of an ID; heed.ErrNotFound if none.
func (s *Store) Get(_ context.Context, urlOrID string) (*heed.Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pages[urlOrID]; p != nil {
		return clone(p), nil
	}
	for _, p := range s.pages {
		if p.ID == urlOrID {
			return clone(p), nil
		}
	}
	return nil, fmt.Errorf("%w: %s", heed.ErrNotFound, urlOrID)
}

// List is the snapshots of a source (every source for ""), by source
// and URL.
func (s *Store) List(_ context.Context, source string) ([]heed.Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []heed.Entry
	for _, p := range s.pages {
		if source == "" || p.Source == source {
			out = append(out, heed.Entry{ID: p.ID, Source: p.Source, URL: p.URL, Title: p.Title, FetchedAt: p.FetchedAt})
		}
	}
	slices.SortFunc(out, func(a, b heed.Entry) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), strings.Compare(a.URL, b.URL))
	})
	return out, nil
}

// Sources counts the snapshots of each source.
func (s *Store) Sources(context.Context) (map[string]int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, p := range s.pages {
		out[p.Source]++
	}
	return out, nil
}

// Remove forgets a source's snapshots and says how many there were.
func (s *Store) Remove(_ context.Context, source string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for u, p := range s.pages {
		if p.Source == source {
			delete(s.pages, u)
			n++
		}
	}
	return n, nil
}

// Search finds the snapshots whose title or Markdown hold every word of
// the query (quotes and a trailing * are read as plain words), case
// folded, best first: the most occurrences, a title's counting five
// times.
func (s *Store) Search(_ context.Context, q heed.Query) ([]heed.Hit, error) {
	if len(q.Text) > heed.MaxQuery {
		return nil, heed.ErrQueryTooLong
	}
	words := strings.FieldsFunc(strings.ToLower(q.Text), func(r rune) bool { return r == ' ' || r == '"' || r == '*' })
	if len(words) == 0 {
		return nil, fmt.Errorf("%w in %q", heed.ErrEmptyQuery, q.Text)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var hits []heed.Hit
	for _, p := range s.pages {
		if q.Source != "" && p.Source != q.Source {
			continue
		}
		title, body := strings.ToLower(p.Title), strings.ToLower(p.Markdown)
		score := 0
		for _, w := range words {
			n := 5*strings.Count(title, w) + strings.Count(body, w)
			if n == 0 {
				score = 0
				break
			}
			score += n
		}
		if score > 0 {
			hits = append(hits, heed.Hit{ID: p.ID, URL: p.URL, Title: p.Title, Source: p.Source, Snippet: snippet(p.Markdown, words[0]), Score: float64(score)})
		}
	}
	slices.SortFunc(hits, func(a, b heed.Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.URL, b.URL))
	})
	return hits[:min(len(hits), limit)], nil
}

// snippet is the line of text where word first occurs, cut to 200 bytes.
func snippet(text, word string) string {
	for l := range strings.Lines(text) {
		if strings.Contains(strings.ToLower(l), word) {
			return heed.Clip(strings.TrimSpace(l), 200)
		}
	}
	return ""
}
