package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/history"
)

// A page's history is its rows of heed_history, numbered from 1, its
// last entry where it stands; the texts of its versions are its
// snapshot's Markdown (the current one) and heed_content's (those it
// had before, each distinct text once). What a Put or a removal does
// to a history is history's decision (Record, Remove): the store reads
// the history under its page's row lock, asks, and writes what it
// says.

// PutIn stores a snapshot in tx, a transaction that may do more (a
// team's crawl commits a page with its URL's end), and records its
// content as a version of its page (history.Record), the history cut
// to what r retains: it sets snap's ID, Hash, Version and Change as
// every store's Put does. The text it replaces is kept while a version
// kept has it, and the texts of the versions let go are dropped where
// no version kept has them; a page removed that comes back is a new
// version, in search again. The page's row stays locked until tx ends,
// so that Puts of one URL at once, from any number of workers, number
// its versions one after the other; a Put repeated (a job run again
// after its worker died) finds its content current and adds no
// version. changed is false when the content and source were stored
// already: the fetch time, validators and links are updated all the
// same.
func PutIn(ctx context.Context, tx pgx.Tx, snap *heed.Snapshot, r history.Retention) (changed bool, err error) {
	if snap.URL == "" || snap.Source == "" {
		return false, errors.New("pgstore: a snapshot needs a URL and a source")
	}
	clean(snap)
	v := heed.PageVersion{At: snap.FetchedAt.UTC(), Hash: snap.Hash, Size: len(snap.Markdown), ETag: snap.ETag, LastModified: snap.LastModified}
	p, err := lockPage(ctx, tx, snap.URL)
	if err != nil {
		return false, err
	}
	if p == nil {
		// A new page. A Put of the same URL at once waits for this
		// insert to end, and then finds nothing to insert: it takes the
		// page's lock, as a Put of a page stored does.
		if ok, err := insertPage(ctx, tx, snap, v, " ON CONFLICT DO NOTHING"); err != nil || ok {
			return ok, err
		}
		if p, err = lockPage(ctx, tx, snap.URL); err != nil {
			return false, err
		}
		if p == nil {
			// Nothing at the URL, yet something in the way: another
			// URL's ID the same as its (or the page removed since). The
			// insert says which, as an error of the database's.
			return insertPage(ctx, tx, snap, v, "")
		}
	}
	return putPage(ctx, tx, snap, v, p, r)
}

// insertPage inserts the row of a new page and its first version,
// followed by onConflict; false if it inserted nothing.
func insertPage(ctx context.Context, tx pgx.Tx, snap *heed.Snapshot, v heed.PageVersion, onConflict string) (bool, error) {
	tag, err := tx.Exec(ctx, `
		WITH page AS (
			INSERT INTO heed_snapshot (url, id, source, title, description, fetched_at, tags, hash, etag, last_modified, notes, via, links, markdown, rendered, author, published, modified, version)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, 1)`+onConflict+`
			RETURNING url
		)
		INSERT INTO heed_history (url, n, at, hash, size, etag, last_modified)
		SELECT url, 1, $6, $8, $19, $9, $10 FROM page`, append(rowArgs(snap), v.Size)...)
	if err != nil || tag.RowsAffected() == 0 {
		return false, err
	}
	snap.Version, snap.Change, snap.Removed = 1, heed.New, time.Time{}
	return true, nil
}

// clean makes a snapshot's texts ones Postgres takes (Clean), and sets
// its ID and hash.
func clean(snap *heed.Snapshot) {
	// Postgres's text holds valid UTF-8 without NUL: a page's text that
	// has either is stored as the stash reads it, made valid.
	for _, f := range []*string{&snap.URL, &snap.Source, &snap.Title, &snap.Author, &snap.Description, &snap.ETag, &snap.LastModified, &snap.Markdown} {
		*f = Clean(*f)
	}
	for _, a := range [][]string{snap.Tags, snap.Notes, snap.Via, snap.Links} {
		for i := range a {
			a[i] = Clean(a[i])
		}
	}
	snap.ID = heed.IDOf(snap.URL)
	snap.Hash = heed.HashOf(snap.Markdown)
}

// rowArgs are a snapshot's columns, in the order of heed_snapshot's
// INSERT: url, id, source, title, description, fetched_at, tags, hash,
// etag, last_modified, notes, via, links, markdown, rendered, author,
// published, modified.
func rowArgs(snap *heed.Snapshot) []any {
	return []any{snap.URL, snap.ID, snap.Source, snap.Title, snap.Description, snap.FetchedAt.UTC(), nz(snap.Tags), snap.Hash,
		snap.ETag, snap.LastModified, nz(snap.Notes), nz(snap.Via), nz(snap.Links), snap.Markdown, snap.Rendered,
		snap.Author, nullTime(snap.Published), nullTime(snap.Modified)}
}

// nz is a, or an empty list for nil: the columns of lists are NOT NULL.
func nz(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}

// page is a stored page as a write finds it, its row locked.
type page struct {
	source, hash string
	versions     []heed.PageVersion
}

// lockPage locks the row of the page at url until tx ends and reads its
// history; nil if there is no page at url.
func lockPage(ctx context.Context, tx pgx.Tx, url string) (*page, error) {
	var p page
	err := tx.QueryRow(ctx, `SELECT source, hash FROM heed_snapshot WHERE url = $1 FOR UPDATE`, url).Scan(&p.source, &p.hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// Read in a statement of its own, after the lock: it sees what the
	// write that held the lock before wrote.
	p.versions, err = versions(ctx, tx, url)
	return &p, err
}

// putPage stores a snapshot of a page stored, as version v.
func putPage(ctx context.Context, tx pgx.Tx, snap *heed.Snapshot, v heed.PageVersion, p *page, r history.Retention) (bool, error) {
	kept, dropped, c := history.Record(p.versions, v, r, time.Now())
	snap.Version, snap.Change, snap.Removed = kept[len(kept)-1].N, c, time.Time{}
	b := &pgx.Batch{}
	if c == heed.Unchanged && p.source == snap.Source {
		// The same content: its fetch, validators and links are news.
		b.Queue(`UPDATE heed_snapshot SET fetched_at = $2, etag = $3, last_modified = $4, links = $5 WHERE url = $1`,
			snap.URL, snap.FetchedAt.UTC(), snap.ETag, snap.LastModified, nz(snap.Links))
		return false, tx.SendBatch(ctx, b).Close()
	}
	// The text replaced goes to heed_content, where a version kept has
	// it, before the row takes the new one.
	save := p.hash != snap.Hash && slices.ContainsFunc(kept, func(k heed.PageVersion) bool { return k.Hash == p.hash })
	gone := hashes(dropped)
	lock := gone
	if save {
		lock = append(lock, p.hash)
	}
	queueLockContents(b, lock)
	if save {
		b.Queue(`INSERT INTO heed_content (hash, markdown) SELECT hash, markdown FROM heed_snapshot WHERE url = $1 ON CONFLICT (hash) DO NOTHING`, snap.URL)
	}
	b.Queue(`
		UPDATE heed_snapshot SET
			source = $3, title = $4, description = $5, fetched_at = $6, tags = $7, hash = $8,
			etag = $9, last_modified = $10, notes = $11, via = $12, links = $13, markdown = $14, rendered = $15,
			author = $16, published = $17, modified = $18, removed = NULL, version = $19
		WHERE url = $1 AND id = $2`, append(rowArgs(snap), snap.Version)...)
	if c != heed.Unchanged {
		queueEntry(b, snap.URL, kept[len(kept)-1])
	}
	queueDrop(b, snap.URL, dropped, gone)
	return true, tx.SendBatch(ctx, b).Close()
}

// MarkRemovedIn records in tx that the source's page at url was found
// gone at a time, why ("404", "410", or "unreached": a complete crawl
// of its source no longer reached it): a removal ends its history
// (history.Remove), cut to what r retains, and the page leaves search
// until it comes back (a Put of it); its last text is kept. removed is
// false, and nothing is written, when the source has no page at url or
// the page is removed already. A team's crawl that finds a stored
// page gone calls it in the transaction that ends the page's URL; the
// page's row stays locked until tx ends, as PutIn's.
func MarkRemovedIn(ctx context.Context, tx pgx.Tx, source, url string, at time.Time, why string, r history.Retention) (removed bool, err error) {
	source, url, why = Clean(source), Clean(url), heed.Clip(Clean(why), maxWhy)
	p, err := lockPage(ctx, tx, url)
	if err != nil || p == nil || p.source != source {
		return false, err
	}
	at = at.UTC()
	kept, dropped, ok := history.Remove(p.versions, at, why, r)
	if !ok {
		return false, nil
	}
	b := &pgx.Batch{}
	gone := hashes(dropped)
	queueLockContents(b, gone)
	b.Queue(`UPDATE heed_snapshot SET removed = $2 WHERE url = $1`, url, at)
	queueEntry(b, url, kept[len(kept)-1])
	queueDrop(b, url, dropped, gone)
	return true, tx.SendBatch(ctx, b).Close()
}

// maxWhy is the longest reason for a removal a history keeps, in bytes.
const maxWhy = 200

// hashes are the distinct content hashes of versions (of no removal).
func hashes(vs []heed.PageVersion) []string {
	var out []string
	for _, v := range vs {
		if v.Hash != "" && !slices.Contains(out, v.Hash) {
			out = append(out, v.Hash)
		}
	}
	return out
}

// queueEntry adds a page's history entry v.
func queueEntry(b *pgx.Batch, url string, v heed.PageVersion) {
	b.Queue(`INSERT INTO heed_history (url, n, at, hash, size, etag, last_modified, removed) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		url, v.N, v.At, v.Hash, v.Size, v.ETag, v.LastModified, v.Removed)
}

// queueLockContents locks the texts of hashes, in order, until the
// transaction ends. A write that drops a text locks it before it looks
// for a version that has it, and a write that keeps one (a page's text
// replaced) locks it before it adds it: the one waits for the other,
// and then sees the version the other committed, or adds the text the
// other dropped again.
func queueLockContents(b *pgx.Batch, hashes []string) {
	if len(hashes) > 0 {
		b.Queue(`SELECT hash FROM heed_content WHERE hash = ANY($1) ORDER BY hash FOR UPDATE`, hashes)
	}
}

// queueDrop deletes a page's history entries let go, and the texts
// (gone, locked by queueLockContents) that no version kept has.
func queueDrop(b *pgx.Batch, url string, dropped []heed.PageVersion, gone []string) {
	if len(dropped) == 0 {
		return
	}
	ns := make([]int32, len(dropped))
	for i, d := range dropped {
		ns[i] = int32(d.N)
	}
	b.Queue(`DELETE FROM heed_history WHERE url = $1 AND n = ANY($2)`, url, ns)
	if len(gone) > 0 {
		b.Queue(`DELETE FROM heed_content c WHERE c.hash = ANY($1) AND NOT EXISTS (SELECT 1 FROM heed_history h WHERE h.hash = c.hash)`, gone)
	}
}

// querier runs a query: a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// versions is the history of the page at url, oldest first.
func versions(ctx context.Context, db querier, url string) ([]heed.PageVersion, error) {
	rows, err := db.Query(ctx, `SELECT n, at, hash, size, etag, last_modified, removed FROM heed_history WHERE url = $1 ORDER BY n`, url)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (heed.PageVersion, error) {
		var v heed.PageVersion
		err := row.Scan(&v.N, &v.At, &v.Hash, &v.Size, &v.ETag, &v.LastModified, &v.Removed)
		v.At = v.At.UTC()
		return v, err
	})
}

// MarkRemoved records that the source's page at url was found gone at a
// time, why (MarkRemovedIn), in a transaction of its own; false if the
// source has no page at url, or it is removed already.
func (s *Store) MarkRemoved(ctx context.Context, source, url string, at time.Time, why string) (removed bool, err error) {
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		removed, err = MarkRemovedIn(ctx, tx, source, url, at, why, s.Retention)
		return err
	})
	return removed, s.fail(err)
}

// History is the history of the page of a URL or an ID, oldest first;
// heed.ErrNotFound if there is none.
func (s *Store) History(ctx context.Context, urlOrID string) (*heed.History, error) {
	var h *heed.History
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var err error
		if h, err = pageOf(ctx, tx, urlOrID); err != nil {
			return err
		}
		h.Versions, err = versions(ctx, tx, h.URL)
		return err
	})
	if errors.Is(err, heed.ErrNotFound) {
		return nil, err
	}
	return h, s.fail(err)
}

// pageOf is the page of a URL or an ID, without its versions;
// heed.ErrNotFound if there is none. A URL is taken before an ID.
func pageOf(ctx context.Context, db interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}, urlOrID string) (*heed.History, error) {
	urlOrID = Clean(urlOrID)
	var h heed.History
	err := db.QueryRow(ctx, `SELECT id, url, source, title FROM heed_snapshot WHERE url = $1 OR id = $1 ORDER BY url = $1 DESC LIMIT 1`, urlOrID).
		Scan(&h.ID, &h.URL, &h.Source, &h.Title)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("%w: %s", heed.ErrNotFound, urlOrID)
	}
	return &h, err
}

// VersionText is the Markdown of version n of the page of a URL or an
// ID; heed.ErrNotFound if the page has no such version kept (a number
// it never had, one the retention let go, or a removal), or its text is
// not kept.
func (s *Store) VersionText(ctx context.Context, urlOrID string, n int) (string, error) {
	h, err := pageOf(ctx, s.pool, urlOrID)
	if errors.Is(err, heed.ErrNotFound) {
		return "", err
	}
	if err != nil {
		return "", s.fail(err)
	}
	if n < 1 || n > math.MaxInt32 {
		return "", fmt.Errorf("%w: %s has no version %d", heed.ErrNotFound, h.URL, n)
	}
	var removed string
	var text *string
	err = s.pool.QueryRow(ctx, `
		SELECT h.removed, coalesce(c.markdown, CASE WHEN s.hash = h.hash THEN s.markdown END)
		FROM heed_history h JOIN heed_snapshot s ON s.url = h.url
		LEFT JOIN heed_content c ON c.hash = h.hash
		WHERE h.url = $1 AND h.n = $2`, h.URL, n).Scan(&removed, &text)
	switch {
	case errors.Is(err, pgx.ErrNoRows) || err == nil && removed != "":
		return "", fmt.Errorf("%w: %s has no version %d", heed.ErrNotFound, h.URL, n)
	case err != nil:
		return "", s.fail(err)
	case text == nil:
		return "", fmt.Errorf("%w: the text of version %d of %s is not kept", heed.ErrNotFound, n, h.URL)
	}
	return *text, nil
}

// How many pages Changes decides at a time: at first as many as it
// asks for (changesBatch at most), twice as many each time after, up to
// maxChangesBatch, so that a query of every change reads the entries
// since its time a few times, not once every few pages.
const (
	changesBatch    = 200
	maxChangesBatch = 5000
)

// Changes are the pages that became new, changed or removed since a
// time (history.ChangeOf), by URL (byte by byte, as Go sorts strings),
// after q.After, at most q.Limit of them (0: every one). The pages with
// an entry since the time are found in the database, a batch at a time,
// and decided as every store decides: a page with entries since may
// come to nothing (new and removed since), so that a part reads batches
// until it holds Limit pages or none is left.
func (s *Store) Changes(ctx context.Context, q heed.ChangesQuery) ([]heed.PageChange, error) {
	source, after := Clean(q.Source), Clean(q.After)
	var out []heed.PageChange
	batch := changesBatch
	if q.Limit > 0 {
		batch = min(q.Limit, changesBatch)
	}
	for ; ; batch = min(2*batch, maxChangesBatch) {
		rows, err := s.pool.Query(ctx, `
			SELECT s.id, s.url, s.source, s.title FROM heed_snapshot s
			WHERE s.url COLLATE "C" > $1 AND ($2 = '' OR s.source = $2)
				AND s.url IN (SELECT url FROM heed_history WHERE at > $3)
			ORDER BY s.url COLLATE "C" LIMIT $4`, after, source, q.Since, batch)
		if err != nil {
			return nil, s.fail(err)
		}
		pages, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*heed.History, error) {
			var h heed.History
			return &h, row.Scan(&h.ID, &h.URL, &h.Source, &h.Title)
		})
		if err != nil {
			return nil, s.fail(err)
		}
		if len(pages) == 0 {
			return out, nil
		}
		urls := make([]string, len(pages))
		for i, p := range pages {
			urls[i] = p.URL
		}
		byURL, err := s.versionsOf(ctx, urls)
		if err != nil {
			return nil, s.fail(err)
		}
		for _, p := range pages {
			p.Versions = byURL[p.URL]
			if c, ok := history.ChangeOf(p, q.Since); ok {
				out = append(out, c)
				if q.Limit > 0 && len(out) == q.Limit {
					return out, nil
				}
			}
		}
		if len(pages) < batch {
			return out, nil
		}
		after = pages[len(pages)-1].URL
	}
}

// versionsOf are the histories of the pages at urls, by URL.
func (s *Store) versionsOf(ctx context.Context, urls []string) (map[string][]heed.PageVersion, error) {
	rows, err := s.pool.Query(ctx, `SELECT url, n, at, hash, size, etag, last_modified, removed FROM heed_history WHERE url = ANY($1) ORDER BY url, n`, urls)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]heed.PageVersion{}
	for rows.Next() {
		var u string
		var v heed.PageVersion
		if err := rows.Scan(&u, &v.N, &v.At, &v.Hash, &v.Size, &v.ETag, &v.LastModified, &v.Removed); err != nil {
			return nil, err
		}
		v.At = v.At.UTC()
		out[u] = append(out[u], v)
	}
	return out, rows.Err()
}
