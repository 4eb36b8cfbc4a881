package ingest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/history"
	"github.com/heedhq/heed/internal/textdiff"
)

// History is a page's versions, oldest first: the page named as Read
// names it (a URL, an ID, or an ID's start).
func (s *Service) History(ctx context.Context, urlOrID string) (*heed.History, error) {
	snap, err := s.Read(ctx, urlOrID)
	if err != nil {
		return nil, err
	}
	st, done, err := s.use(ctx, toRead)
	if err != nil {
		return nil, err
	}
	defer done()
	h, err := st.History(ctx, snap.URL)
	if err != nil {
		return nil, storeErr("read the page's history", snap.URL, err)
	}
	return h, nil
}

// VersionText is the Markdown of a page's version n.
func (s *Service) VersionText(ctx context.Context, urlOrID string, n int) (string, error) {
	st, done, err := s.use(ctx, toRead)
	if err != nil {
		return "", err
	}
	defer done()
	text, err := st.VersionText(ctx, urlOrID, n)
	if err != nil {
		return "", storeErr("read a version", urlOrID, err)
	}
	return text, nil
}

// Changes are the pages that became new, changed or removed since a
// time, by URL, from q.After on; a NotFound error whose cause is a
// *NoSourceError when q names a source the store does not hold.
func (s *Service) Changes(ctx context.Context, q heed.ChangesQuery) ([]heed.PageChange, error) {
	st, done, err := s.use(ctx, toRead)
	if err != nil {
		return nil, err
	}
	defer done()
	cs, err := st.Changes(ctx, q)
	if err != nil {
		return nil, &heed.Error{Kind: heed.Internal, Op: "read the stash's changes", Err: err}
	}
	if len(cs) == 0 && q.Source != "" {
		if srcs, err := st.Sources(ctx); err == nil && srcs[q.Source] == 0 {
			return nil, noSource(q.Source)
		}
	}
	return cs, nil
}

// Compared is how a page read now differs from the store's copy of it
// (SinceStored).
type Compared struct {
	ID string
	// Version is the number of the store's copy in the page's history,
	// FetchedAt when it was fetched, and Removed when the page was found
	// gone since (zero while it is there).
	Version   int
	FetchedAt time.Time
	Removed   time.Time
	// Change is heed.Unchanged when the page's Markdown is the copy's,
	// and heed.Changed else, with the words added to the copy and
	// removed from it (textdiff.Count).
	Change       heed.Change
	WordsAdded   int
	WordsRemoved int
}

// SinceStored compares a page read now (its URL, after redirects, and
// its Markdown) with the store's copy of it, and stores nothing: nil when
// the store holds no copy, or there is no store yet. Its work is a read
// of the copy and a bounded comparison (textdiff).
func (s *Service) SinceStored(ctx context.Context, pageURL, markdown string) (*Compared, error) {
	st, done, err := s.use(ctx, toRead)
	var none *NoStashError
	if errors.As(err, &none) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer done()
	snap, err := st.Get(ctx, pageURL)
	if errors.Is(err, heed.ErrNotFound) {
		// The URL as a crawl writes it.
		if n, nerr := crawl.Normalize(pageURL); nerr == nil && n != pageURL {
			snap, err = st.Get(ctx, n)
		}
	}
	if errors.Is(err, heed.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, &heed.Error{Kind: heed.Internal, Op: "read the stash", Err: err}
	}
	c := &Compared{ID: snap.ID, Version: snap.Version, FetchedAt: snap.FetchedAt, Removed: snap.Removed, Change: heed.Unchanged}
	if !snap.Removed.IsZero() || c.Version == 0 {
		// The copy's version is the history's last content: a removal
		// has a number of its own.
		if h, err := st.History(ctx, snap.URL); err == nil {
			if v, _ := history.Current(h.Versions); v.N > 0 {
				c.Version = v.N
			}
		}
	}
	if snap.Markdown != markdown {
		c.Change = heed.Changed
		c.WordsAdded, c.WordsRemoved = textdiff.Count(snap.Markdown, markdown)
	}
	return c, nil
}

// storeErr is a store's error of op on a page: NotFound where the store
// has no such page or version, Internal else.
func storeErr(op, page string, err error) error {
	if errors.Is(err, heed.ErrNotFound) {
		return &heed.Error{Kind: heed.NotFound, Op: op, Err: err}
	}
	return &heed.Error{Kind: heed.Internal, Op: op, Err: fmt.Errorf("%s: %w", page, err)}
}
