package stash

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/heedhq/heed"
)

// validatorsKnown is the condition on a row whose validators a re-fetch may
// use (Validators, HasValidators).
const validatorsKnown = `state = 'ok' AND links != ''`

// Validators returns the stored ETag and Last-Modified of a URL in a
// source, for a conditional re-fetch. A URL stored under another source
// has none here: that source's copy must not stand for this one's. Nor
// has a page whose links the index does not know (an index rebuilt from
// the files alone, which do not hold them): a "not modified" answer would
// leave the crawl nothing to follow, so such a page is fetched whole.
func (s *Stash) Validators(ctx context.Context, source, url string) (etag, lastModified string, ok bool) {
	q := `SELECT etag, last_modified FROM docs WHERE url = ? AND source = ? AND ` + validatorsKnown
	if s.histories {
		// A page found gone is fetched whole when it is back: a "not
		// modified" would leave it removed.
		q += ` AND removed = ''`
	}
	err := s.queryRow(ctx, q, url, source).Scan(&etag, &lastModified)
	return etag, lastModified, err == nil
}

// Hash returns the content hash of a URL's page in a source, as the
// index holds it, or "".
func (s *Stash) Hash(ctx context.Context, source, url string) string {
	var h string
	if err := s.db.QueryRowContext(ctx, `SELECT hash FROM docs WHERE url = ? AND source = ? AND state = 'ok'`, url, source).Scan(&h); err != nil {
		return ""
	}
	return h
}

// HasValidators reports whether any URL of a source has validators
// (Validators). A first crawl of a source has none to ask for, and need
// not ask for each page.
func (s *Stash) HasValidators(ctx context.Context, source string) bool {
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM docs WHERE source = ? AND `+validatorsKnown+` LIMIT 1`, source).Scan(&one)
	return err == nil
}

// Links returns the links recorded for a URL's page in a source by the
// last crawl.
func (s *Stash) Links(ctx context.Context, source, url string) []string {
	var links string
	if err := s.db.QueryRowContext(ctx, `SELECT links FROM docs WHERE url = ? AND source = ?`, url, source).Scan(&links); err != nil {
		return nil
	}
	var out []string
	for l := range strings.SplitSeq(links, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// joinLinks is how links are kept in the index: each followed by a
// newline, so that a page known to have none ("\n") differs from a page
// whose links are not known ("").
func joinLinks(links []string) string {
	var b strings.Builder
	for _, l := range links {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return "\n"
	}
	return b.String()
}

// Touch records that a URL was found unchanged (a 304) at a time.
func (s *Stash) Touch(ctx context.Context, url string, at time.Time) error {
	if !s.writer {
		return heed.ErrBusy
	}
	_, err := s.db.ExecContext(ctx, `UPDATE docs SET fetched_at = ? WHERE url = ?`, formatTime(at), url)
	return err
}

// Get returns the snapshot with the URL or ID, read from its file.
func (s *Stash) Get(ctx context.Context, urlOrID string) (*heed.Snapshot, error) {
	var url, path, state, oldPath string
	// A snapshot whose index entry waits (a batch, or a write under way)
	// is read from its file all the same, if the file is its; one being
	// moved, from its old file until the new one is written.
	cols := "url, path, state, ''"
	if s.moves {
		cols = "url, path, state, old_path"
	}
	err := s.db.QueryRowContext(ctx, `SELECT `+cols+` FROM docs WHERE (url = ? OR id = ?) AND state != 'removing'`, urlOrID, urlOrID).Scan(&url, &path, &state, &oldPath)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %s", heed.ErrNotFound, urlOrID)
	}
	if err != nil {
		return nil, fmt.Errorf("stash: %w", err)
	}
	snap, err := s.readFile(filepath.Join(s.dir, filepath.FromSlash(path)))
	if (err != nil || snap.URL != url) && state != "ok" && oldPath != "" {
		if old, oerr := s.readFile(filepath.Join(s.dir, filepath.FromSlash(oldPath))); oerr == nil && old.URL == url {
			snap, err, path = old, nil, oldPath
		}
	}
	switch {
	case (err != nil || snap.URL != url) && state != "ok":
		return nil, fmt.Errorf("%w: %s", heed.ErrNotFound, urlOrID) // its first write is under way
	case err != nil:
		return nil, err
	case snap.URL != url:
		// Another URL's snapshot took the file (stashes written before
		// two URLs' names were kept apart, in case too): never answer
		// with it.
		return nil, fmt.Errorf("%w: %s (its file %s holds %s now)", heed.ErrNotFound, urlOrID, path, snap.URL)
	}
	snap.ID, snap.Path = heed.IDOf(snap.URL), path
	return snap, nil
}

// List returns the snapshots of a source (every source for ""), by URL.
func (s *Stash) List(ctx context.Context, source string) ([]heed.Entry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, source, url, title, fetched_at, path FROM docs
		WHERE state = 'ok' AND (? = '' OR source = ?) ORDER BY source, url`, source, source)
	return entries(rows, err)
}

// ListAfter returns at most limit snapshots, of every source, whose IDs
// sort after the ID after ("" for the first), by ID: a page of a listing
// that stays in step whatever is stored or removed before it meanwhile.
// A snapshot whose first write is under way is not listed yet.
func (s *Stash) ListAfter(ctx context.Context, after string, limit int) ([]heed.Entry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, source, url, title, fetched_at, path FROM docs
		WHERE state = 'ok' AND id > ? ORDER BY id LIMIT ?`, after, limit)
	return entries(rows, err)
}

// entries reads the entries a query of List or ListAfter selected.
func entries(rows *sql.Rows, err error) ([]heed.Entry, error) {
	if err != nil {
		return nil, fmt.Errorf("stash: %w", err)
	}
	defer rows.Close()
	var out []heed.Entry
	for rows.Next() {
		var e heed.Entry
		var at string
		if err := rows.Scan(&e.ID, &e.Source, &e.URL, &e.Title, &at, &e.Path); err != nil {
			return nil, fmt.Errorf("stash: %w", err)
		}
		e.FetchedAt = parseTime(at)
		out = append(out, e)
	}
	return out, rows.Err()
}

// Sources returns each source's name and number of snapshots.
func (s *Stash) Sources(ctx context.Context) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT source, count(*) FROM docs WHERE state = 'ok' GROUP BY source`)
	if err != nil {
		return nil, fmt.Errorf("stash: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			return nil, fmt.Errorf("stash: %w", err)
		}
		out[name] = n
	}
	return out, rows.Err()
}
