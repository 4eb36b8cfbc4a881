package ingest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
)

// Search ranks the store's snapshots that match the query. A query
// without a word, or too long, is an Invalid error; a source the store
// does not hold, a NotFound error whose cause is a *NoSourceError.
func (s *Service) Search(ctx context.Context, q heed.Query) ([]heed.Hit, error) {
	st, done, err := s.use(ctx, toRead)
	if err != nil {
		return nil, err
	}
	defer done()
	hits, err := st.Search(ctx, q)
	if errors.Is(err, heed.ErrEmptyQuery) || errors.Is(err, heed.ErrQueryTooLong) {
		return nil, &heed.Error{Kind: heed.Invalid, Op: "search", Err: err}
	}
	if err != nil {
		return nil, &heed.Error{Kind: heed.Internal, Op: "search the stash", Err: err}
	}
	if len(hits) == 0 && q.Source != "" {
		// Nothing matches in a source the store does not hold: say so,
		// rather than that nothing matches.
		if srcs, err := st.Sources(ctx); err == nil && srcs[q.Source] == 0 {
			return nil, noSource(q.Source)
		}
	}
	return hits, nil
}

// Read is the snapshot of a URL (its fragment, if it has one, is no part
// of the page), of an ID, or of the one ID that starts with a prefix of
// at least 4 hex digits; a NotFound error wrapping heed.ErrNotFound if the
// store has none, an Invalid one if several IDs start with the prefix.
func (s *Service) Read(ctx context.Context, urlOrID string) (*heed.Snapshot, error) {
	st, done, err := s.use(ctx, toRead)
	if err != nil {
		return nil, err
	}
	defer done()
	snap, err := st.Get(ctx, urlOrID)
	if errors.Is(err, heed.ErrNotFound) {
		switch n, nerr := crawl.Normalize(urlOrID); {
		case nerr == nil && n != urlOrID:
			// The URL as a crawl writes it: no fragment, the scheme and
			// host in lower case, the path at least "/".
			snap, err = st.Get(ctx, n)
		case isIDPrefix(strings.ToLower(urlOrID)):
			snap, err = s.readPrefix(ctx, st, strings.ToLower(urlOrID))
		}
	}
	var ambiguous *AmbiguousError
	switch {
	case errors.As(err, &ambiguous):
		return nil, &heed.Error{Kind: heed.Invalid, Op: "read", Err: err}
	case errors.Is(err, heed.ErrNotFound):
		return nil, &heed.Error{Kind: heed.NotFound, Op: "read", URL: fetch.Redact(urlOrID), Err: heed.ErrNotFound}
	case err != nil:
		return nil, &heed.Error{Kind: heed.Internal, Op: "read the stash", Err: err}
	}
	return snap, nil
}

// isIDPrefix reports whether s may be the start of an ID (or a whole one
// in capitals): 1 to 12 hex digits. A start that more than one ID has is
// said to be ambiguous, however short.
func isIDPrefix(s string) bool {
	if len(s) < 1 || len(s) > 12 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// AmbiguousError is the cause of a read by an ID's prefix that more than
// one snapshot's ID starts with.
type AmbiguousError struct {
	Prefix string
	Count  int
	IDs    []string // the first few
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%d snapshots' IDs start with %s (%s): give more of the ID", e.Count, e.Prefix, strings.Join(e.IDs, ", "))
}

// readPrefix reads the one snapshot whose ID starts with prefix.
func (s *Service) readPrefix(ctx context.Context, st Store, prefix string) (*heed.Snapshot, error) {
	entries, err := st.List(ctx, "")
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		if strings.HasPrefix(e.ID, prefix) {
			ids = append(ids, e.ID)
		}
	}
	switch len(ids) {
	case 0:
		return nil, heed.ErrNotFound
	case 1:
		return st.Get(ctx, ids[0])
	}
	return nil, &AmbiguousError{Prefix: prefix, Count: len(ids), IDs: ids[:min(len(ids), 5)]}
}

// Sources counts the snapshots of each source.
func (s *Service) Sources(ctx context.Context) (map[string]int, error) {
	st, done, err := s.use(ctx, toRead)
	if err != nil {
		return nil, err
	}
	defer done()
	srcs, err := st.Sources(ctx)
	if err != nil {
		return nil, &heed.Error{Kind: heed.Internal, Op: "list the stash's sources", Err: err}
	}
	return srcs, nil
}

// NoSourceError is the cause of a call naming a source the store does
// not hold.
type NoSourceError struct {
	Name string
}

func (e *NoSourceError) Error() string {
	return fmt.Sprintf("no source %q in the stash", heed.Clip(e.Name, 256))
}

// List is a source's snapshots, by URL; a NotFound error whose cause is
// a *NoSourceError if it has none.
func (s *Service) List(ctx context.Context, source string) ([]heed.Entry, error) {
	st, done, err := s.use(ctx, toRead)
	if err != nil {
		return nil, err
	}
	defer done()
	entries, err := st.List(ctx, source)
	if err != nil {
		return nil, &heed.Error{Kind: heed.Internal, Op: "list the stash", Err: err}
	}
	if len(entries) == 0 {
		return nil, noSource(source)
	}
	return entries, nil
}

// MaxListPage is the most snapshots one ListPage lists.
const MaxListPage = 1000

// ErrCursor is the cause of a ListPage whose cursor is not one a
// ListPage gave.
var ErrCursor = errors.New("the cursor is not one heed gave")

// ListPage is a page of the store's snapshots, of every source, by ID: at
// most n (at most MaxListPage) from the one after cursor ("" for the
// first page), and the cursor of the next page, "" when this page is the
// last. A cursor is the ID of the last snapshot of its page, so a
// listing stays in step whatever is stored or removed meanwhile: no
// snapshot is listed twice, none stored throughout is left out, and one
// stored while the pages are read is listed if its ID comes after the
// page read then. A cursor that is not an ID is an Invalid error
// wrapping ErrCursor.
func (s *Service) ListPage(ctx context.Context, cursor string, n int) ([]heed.Entry, string, error) {
	if cursor != "" && !ValidID(cursor) {
		return nil, "", &heed.Error{Kind: heed.Invalid, Op: "list", Err: ErrCursor}
	}
	n = min(max(n, 1), MaxListPage)
	st, done, err := s.use(ctx, toRead)
	if err != nil {
		return nil, "", err
	}
	defer done()
	// One more than the page, to know whether another follows it.
	entries, err := st.ListAfter(ctx, cursor, n+1)
	if err != nil {
		return nil, "", &heed.Error{Kind: heed.Internal, Op: "list the stash", Err: err}
	}
	if len(entries) <= n {
		return entries, "", nil
	}
	entries = entries[:n]
	return entries, entries[n-1].ID, nil
}

// ValidID reports whether s is a snapshot's ID as heed.IDOf makes it: 12
// lower-case hex digits.
func ValidID(s string) bool {
	return len(s) == 12 && isIDPrefix(s)
}

// Remove forgets a source's snapshots, and says how many there were, in
// the store's log too; a
// NotFound error whose cause is a *NoSourceError if it had none.
func (s *Service) Remove(ctx context.Context, source string) (int, error) {
	st, done, err := s.use(ctx, toChange)
	if err != nil {
		return 0, err
	}
	defer done()
	n, err := st.Remove(ctx, source)
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, noSource(source)
	}
	if lerr := st.AppendLog(fmt.Sprintf("## %s: removed source %s\n\n%s removed\n", time.Now().UTC().Format(time.RFC3339), source, heed.Count(n, "snapshot"))); lerr != nil {
		s.warn(lerr.Error())
	}
	return n, nil
}

// Reindex rebuilds the store's index from what it keeps, and says how
// many snapshots it indexed (also when it fails part way).
func (s *Service) Reindex(ctx context.Context) (int, error) {
	st, done, err := s.use(ctx, toReindex)
	if err != nil {
		return 0, err
	}
	defer done()
	return st.Reindex(ctx)
}

func noSource(name string) error {
	return &heed.Error{Kind: heed.NotFound, Op: "source", Err: &NoSourceError{Name: name}}
}
