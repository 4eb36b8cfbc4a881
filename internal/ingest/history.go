package ingest

import (
	"context"
	"errors"
	"fmt"

	"github.com/heedhq/heed"
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

// storeErr is a store's error of op on a page: NotFound where the store
// has no such page or version, Internal else.
func storeErr(op, page string, err error) error {
	if errors.Is(err, heed.ErrNotFound) {
		return &heed.Error{Kind: heed.NotFound, Op: op, Err: err}
	}
	return &heed.Error{Kind: heed.Internal, Op: op, Err: fmt.Errorf("%s: %w", page, err)}
}
