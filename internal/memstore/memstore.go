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
	"github.com/heedhq/heed/internal/history"
)

// Store is a store of snapshots in memory. The zero value is an empty
// store; it is safe for concurrent use.
type Store struct {
	// Retention is how much of each page's history the store keeps.
	Retention history.Retention

	mu       sync.Mutex
	pages    map[string]*heed.Snapshot     // by URL
	versions map[string][]heed.PageVersion // each page's history, by URL
	contents map[string]string             // the Markdown of every version kept, by hash
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
		s.versions = map[string][]heed.PageVersion{}
		s.contents = map[string]string{}
	}
	old := s.pages[snap.URL]
	v := heed.PageVersion{At: snap.FetchedAt.UTC(), Hash: snap.Hash, Size: len(snap.Markdown), ETag: snap.ETag, LastModified: snap.LastModified}
	kept, dropped, c := history.Record(s.versions[snap.URL], v, s.Retention, time.Now())
	s.versions[snap.URL] = kept
	s.contents[snap.Hash] = snap.Markdown
	s.forget(dropped)
	snap.Version, snap.Change, snap.Removed = kept[len(kept)-1].N, c, time.Time{}
	s.pages[snap.URL] = clone(snap)
	return old == nil || c != heed.Unchanged || old.Source != snap.Source, nil
}

// forget drops the contents of versions let go that no version kept has.
func (s *Store) forget(dropped []heed.PageVersion) {
	for _, d := range dropped {
		if d.Hash == "" {
			continue
		}
		used := false
		for _, vs := range s.versions {
			if slices.ContainsFunc(vs, func(v heed.PageVersion) bool { return v.Hash == d.Hash }) {
				used = true
				break
			}
		}
		if !used {
			delete(s.contents, d.Hash)
		}
	}
}

// MarkRemoved records that the source's page at url was found gone.
func (s *Store) MarkRemoved(_ context.Context, source, url string, at time.Time, why string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pages[url]
	if p == nil || p.Source != source {
		return false, nil
	}
	kept, dropped, ok := history.Remove(s.versions[url], at.UTC(), why, s.Retention)
	if !ok {
		return false, nil
	}
	s.versions[url] = kept
	s.forget(dropped)
	p.Removed = at.UTC()
	return true, nil
}

// page is the page of a URL or an ID, or nil.
func (s *Store) page(urlOrID string) *heed.Snapshot {
	if p := s.pages[urlOrID]; p != nil {
		return p
	}
	for _, p := range s.pages {
		if p.ID == urlOrID {
			return p
		}
	}
	return nil
}

// History is a page's versions, oldest first.
func (s *Store) History(_ context.Context, urlOrID string) (*heed.History, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.page(urlOrID)
	if p == nil {
		return nil, fmt.Errorf("%w: %s", heed.ErrNotFound, urlOrID)
	}
	return &heed.History{ID: p.ID, URL: p.URL, Source: p.Source, Title: p.Title, Versions: slices.Clone(s.versions[p.URL])}, nil
}

// VersionText is the Markdown of a page's version n.
func (s *Store) VersionText(_ context.Context, urlOrID string, n int) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.page(urlOrID)
	if p == nil {
		return "", fmt.Errorf("%w: %s", heed.ErrNotFound, urlOrID)
	}
	v, ok := history.Find(s.versions[p.URL], n)
	if !ok || v.Removed != "" {
		return "", fmt.Errorf("%w: %s has no version %d", heed.ErrNotFound, p.URL, n)
	}
	text, ok := s.contents[v.Hash]
	if !ok {
		return "", fmt.Errorf("%w: the text of version %d of %s is not kept", heed.ErrNotFound, n, p.URL)
	}
	return text, nil
}

// Changes are the pages that became new, changed or removed since a
// time, by URL.
func (s *Store) Changes(_ context.Context, q heed.ChangesQuery) ([]heed.PageChange, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []heed.PageChange
	for u, p := range s.pages {
		if (q.Source != "" && p.Source != q.Source) || u <= q.After {
			continue
		}
		h := &heed.History{ID: p.ID, URL: u, Source: p.Source, Title: p.Title, Versions: s.versions[u]}
		if c, ok := history.ChangeOf(h, q.Since); ok {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b heed.PageChange) int { return strings.Compare(a.URL, b.URL) })
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
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
	if p == nil || p.Source != source || !p.Removed.IsZero() {
		return "", "", false // a page found gone is fetched whole when it is back
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
			vs := s.versions[u]
			delete(s.versions, u)
			s.forget(vs)
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
		if (q.Source != "" && p.Source != q.Source) || (!p.Removed.IsZero() && !q.Removed) {
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
