package stash

import (
	"bytes"
	"compress/flate"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/frontmatter"
	"github.com/heedhq/heed/internal/history"
)

// A page's history lives in its file: the frontmatter's history lists
// its versions, oldest first, one line each (history.Encode), its current
// one last. A file is replaced whole, so the history and the text it
// ends with are never apart. The text of a version that is replaced is
// kept once per content, in .heed/versions.db by its hash, committed and
// synced before the file that replaces it. The index's table versions
// holds each page's entries as its file does, to ask across pages
// (Changes); a reindex rebuilds it from the files.

// versionsFile is the database that keeps the texts of past versions,
// each once by its hash, compressed: a version is one row of a few pages
// of the database rather than a file of its own, and a file system's
// blocks round no text up.
const versionsFile = ".heed/versions.db"

// maxVersionText is the most a kept text may inflate to: what heed
// stores of a page is far below it, and a database edited by hand may
// hold anything.
const maxVersionText = 256 << 20

// historySchema is the index's part for histories. docs.removed is when
// a page was found gone ("" while it is there), docs.version the number
// of its current entry.
const historySchema = `
CREATE TABLE IF NOT EXISTS versions (
	url TEXT NOT NULL,
	n INTEGER NOT NULL,
	at TEXT NOT NULL,
	hash TEXT NOT NULL DEFAULT '',
	size INTEGER NOT NULL DEFAULT 0,
	etag TEXT NOT NULL DEFAULT '',
	last_modified TEXT NOT NULL DEFAULT '',
	removed TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (url, n)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS versions_at ON versions(at);
CREATE INDEX IF NOT EXISTS versions_hash ON versions(hash);
CREATE INDEX IF NOT EXISTS docs_pending ON docs(state) WHERE state != 'ok';
`

// indexHistory gives the index of a stash from before histories its
// table versions and the columns removed and version. A page stored
// before has no entry: its history begins with its file's version, when
// it is next stored or read (pastOf).
func (s *Stash) indexHistory(ctx context.Context) error {
	if s.histories {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("stash: upgrade: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `ALTER TABLE docs ADD COLUMN removed TEXT NOT NULL DEFAULT '';
		ALTER TABLE docs ADD COLUMN version INTEGER NOT NULL DEFAULT 0;`+historySchema); err != nil {
		return fmt.Errorf("stash: upgrade: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("stash: upgrade: %w", err)
	}
	s.histories = true
	return nil
}

// SetRetention sets how much of each page's history the stash keeps
// (history.Retention; the zero value is its default).
func (s *Stash) SetRetention(r history.Retention) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retention = r
}

// pastOf is the history of a page from its file p (nil if it has
// none): its entries, and the lines of it that cannot be read, kept as
// they are. A file written before histories is its first version.
func pastOf(p *page) (vs []heed.PageVersion, unreadable []string) {
	if p == nil {
		return nil, nil
	}
	vs, unreadable = history.DecodeAll(p.history)
	if len(vs) == 0 && len(p.history) == 0 {
		at := p.FetchedAt.UTC().Truncate(time.Second)
		if at.Before(history.Epoch) {
			at = history.Epoch // a file that says no time
		}
		vs = []heed.PageVersion{{N: 1, At: at, Hash: heed.HashOf(p.Markdown), Size: len(p.Markdown), ETag: p.ETag, LastModified: p.LastModified}}
	}
	return vs, unreadable
}

// pastAt is the history of url's page whose file is at path ("" for
// none), and its text: the file's (pastOf). A file that cannot be read
// as the page's (its frontmatter edited by hand, or damaged) is no reason
// to lose its history: the index's entries stand for it, and its text is
// what the file holds past its frontmatter, where that is the text the
// index names (hash).
func (s *Stash) pastAt(ctx context.Context, url, path, hash string) (vs []heed.PageVersion, unreadable []string, text string, ok bool, err error) {
	if path == "" {
		return nil, nil, "", false, nil
	}
	if p, err := s.readPage(s.abs(path)); err == nil && p.URL == url {
		vs, unreadable = pastOf(p)
		return vs, unreadable, p.Markdown, true, nil
	}
	if vs, err = s.indexedVersions(ctx, url); err != nil {
		return nil, nil, "", false, err
	}
	if data, err := readRegular(s.root, path); err == nil {
		if _, body, err := frontmatter.Cut(data); err == nil && heed.HashOf(body) == hash {
			return vs, nil, body, true, nil
		}
	}
	return vs, nil, "", false, nil
}

// encodeHistory is the lines of a file's history: those that cannot be
// read first, as they were, then the entries.
func encodeHistory(vs []heed.PageVersion, unreadable []string) []string {
	lines := append([]string(nil), unreadable...)
	for _, v := range vs {
		lines = append(lines, history.Encode(v))
	}
	return lines
}

// keptDB is the database of kept texts, opened when first asked.
type keptDB struct {
	once sync.Once
	db   *sql.DB
	err  error
}

// versionsDB opens the database of kept texts: to write it, by the
// stash's writer, each commit synced (a text is kept before the file that
// replaces it is written); else to read it, nil when there is none.
func (s *Stash) versionsDB(ctx context.Context) (*sql.DB, error) {
	k := &s.kept
	k.once.Do(func() {
		ctx := context.WithoutCancel(ctx)
		if err := notLinked(s.root, versionsFile); err != nil {
			k.err = err
			return
		}
		path := filepath.Join(s.dir, versionsFile)
		if !s.writer {
			if _, err := s.root.Stat(versionsFile); errors.Is(err, os.ErrNotExist) {
				return
			}
			k.db, k.err = sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
			return
		}
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate")
		if err == nil {
			db.SetMaxOpenConns(1)
			_, err = db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS texts (hash TEXT PRIMARY KEY, data BLOB NOT NULL) WITHOUT ROWID`)
		}
		if err != nil {
			if db != nil {
				db.Close()
			}
			k.err = fmt.Errorf("stash: the kept versions: %w", err)
			return
		}
		k.db = db
	})
	return k.db, k.err
}

// keepVersion keeps text, a version being replaced, under its hash,
// compressed, committed and synced before its replacement is written:
// once per content, however many versions or pages have it.
func (s *Stash) keepVersion(text string) error {
	db, err := s.versionsDB(context.Background())
	if err != nil {
		return writeErr("keeping a version", err)
	}
	var buf bytes.Buffer
	zw, _ := flate.NewWriter(&buf, flate.DefaultCompression) // the level is valid
	zw.Write([]byte(text))
	zw.Close()
	if _, err := db.Exec(`INSERT INTO texts (hash, data) VALUES (?, ?) ON CONFLICT DO NOTHING`, heed.HashOf(text), buf.Bytes()); err != nil {
		return writeErr("keeping a version", err)
	}
	return nil
}

// readVersion is the kept text of hash, checked against it.
func (s *Stash) readVersion(ctx context.Context, hash string) (string, error) {
	if !history.IsHash(hash) {
		return "", fmt.Errorf("%w: %q is no content hash", heed.ErrNotFound, hash)
	}
	db, err := s.versionsDB(ctx)
	if err != nil {
		return "", err
	}
	if db == nil {
		return "", heed.ErrNotFound
	}
	var data []byte
	err = db.QueryRowContext(ctx, `SELECT data FROM texts WHERE hash = ?`, hash).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return "", heed.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("stash: the kept versions: %w", err)
	}
	text, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(data)), maxVersionText+1))
	if err != nil || len(text) > maxVersionText || heed.HashOf(string(text)) != hash {
		return "", fmt.Errorf("stash: the kept text of %.12s is damaged: it does not read back as the text of its hash", hash)
	}
	return string(text), nil
}

// writeVersions records a page's entries in the index, as its file holds
// them, in tx.
func writeVersions(ctx context.Context, tx *sql.Tx, url string, vs []heed.PageVersion) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM versions WHERE url = ?`, url); err != nil {
		return err
	}
	for _, v := range vs {
		if _, err := tx.ExecContext(ctx, `INSERT INTO versions (url, n, at, hash, size, etag, last_modified, removed) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			url, v.N, versionTime(v.At), v.Hash, v.Size, v.ETag, v.LastModified, v.Removed); err != nil {
			return err
		}
	}
	return nil
}

// currentVersion is docs.version of a page with history vs: the number
// of its current content, its removal's before it where it is removed.
func currentVersion(vs []heed.PageVersion) int {
	v, _ := history.Current(vs)
	return v.N
}

// versionTimeFormat is how the index's versions keep a time: to the
// nanosecond, of one width, so that its text sorts as the time does (a
// change a moment after a time asked about is a change since).
const versionTimeFormat = "2006-01-02T15:04:05.000000000Z07:00"

// versionTime is t as the index's versions keep it.
func versionTime(t time.Time) string { return t.UTC().Format(versionTimeFormat) }

// removedOf is docs.removed of a page with history vs.
func removedOf(vs []heed.PageVersion) string {
	if len(vs) > 0 && vs[len(vs)-1].Removed != "" {
		return formatTime(vs[len(vs)-1].At)
	}
	return ""
}

// MarkRemoved records that the source's page at url was found gone at a
// time, and why: a removal added to its history, its file rewritten with
// it (it keeps the page's last text), and the page left out of search.
func (s *Stash) MarkRemoved(ctx context.Context, source, url string, at time.Time, why string) (bool, error) {
	if !s.writer {
		return false, heed.ErrBusy
	}
	p, err := s.current(ctx, url)
	if err != nil || p == nil || p.Source != source || !p.Removed.IsZero() {
		return false, err
	}
	p.Removed = at.UTC().Truncate(time.Second)
	snap := p.Snapshot
	snap.Name = "" // the file it has
	// Its links (the crawl's to follow) are kept as the index has them.
	var links string
	if err := s.db.QueryRowContext(ctx, `SELECT links FROM docs WHERE url = ?`, url).Scan(&links); err != nil {
		return false, fmt.Errorf("stash: %w", err)
	}
	return s.put(ctx, snap, &removal{at: p.Removed, why: why, path: p.Path, hash: heed.HashOf(p.Markdown), links: links})
}

// removal is what MarkRemoved asks of put: a removal entry, at the
// page's file as it was read (path, and its content's hash): a Put
// meanwhile wins.
type removal struct {
	at                time.Time
	why               string
	path, hash, links string
}

// current is the page at url as its file has it, or nil.
func (s *Stash) current(ctx context.Context, urlOrID string) (*page, error) {
	var url, p string
	err := s.db.QueryRowContext(ctx, `SELECT url, path FROM docs WHERE (url = ? OR id = ?) AND state != 'removing'`, urlOrID, urlOrID).Scan(&url, &p)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("stash: %w", err)
	}
	pg, err := s.readPage(s.abs(p))
	if err != nil || pg.URL != url {
		return nil, err
	}
	pg.Path = p
	return pg, nil
}

// History is a page's versions, read from its file; lines of its history
// that cannot be read are returned as they are (Unreadable).
func (s *Stash) History(ctx context.Context, urlOrID string) (*heed.History, error) {
	p, err := s.current(ctx, urlOrID)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("%w: %s", heed.ErrNotFound, urlOrID)
	}
	vs, bad := pastOf(p)
	return &heed.History{ID: heed.IDOf(p.URL), URL: p.URL, Source: p.Source, Title: p.Title, Versions: vs, Unreadable: bad}, nil
}

// VersionText is the Markdown of a page's version n: its file's, for
// its current content, else the kept text of its hash.
func (s *Stash) VersionText(ctx context.Context, urlOrID string, n int) (string, error) {
	p, err := s.current(ctx, urlOrID)
	if err != nil {
		return "", err
	}
	if p == nil {
		return "", fmt.Errorf("%w: %s", heed.ErrNotFound, urlOrID)
	}
	vs, _ := pastOf(p)
	v, ok := history.Find(vs, n)
	if !ok || v.Removed != "" {
		return "", fmt.Errorf("%w: %s has no version %d", heed.ErrNotFound, p.URL, n)
	}
	if v.Hash == heed.HashOf(p.Markdown) {
		return p.Markdown, nil
	}
	text, err := s.readVersion(ctx, v.Hash)
	if errors.Is(err, heed.ErrNotFound) {
		return "", fmt.Errorf("%w: the text of version %d of %s is not kept", heed.ErrNotFound, n, p.URL)
	}
	return text, err
}

// changesBatch is how many pages Changes asks the index of at a time.
const changesBatch = 500

// Changes are the pages that became new, changed or removed since a
// time, by URL: the index's versions since the time name them (by the
// index of their times: a few changes in a large stash cost a few rows
// read), and each page's entries say what became of it
// (history.ChangeOf).
func (s *Stash) Changes(ctx context.Context, q heed.ChangesQuery) ([]heed.PageChange, error) {
	if !s.histories {
		return nil, nil // a stash no heed with histories has written
	}
	var out []heed.PageChange
	after := q.After
	for {
		// A batch of the URLs with a version since, each with its page
		// where the index holds it (a page removed from the stash, or
		// being removed, has none), in one query.
		rows, err := s.db.QueryContext(ctx, `SELECT v.url, coalesce(d.id, ''), coalesce(d.source, ''), coalesce(d.title, ''), d.url IS NOT NULL AND d.state != 'removing'
			FROM (SELECT DISTINCT url FROM versions INDEXED BY versions_at WHERE at > ? AND url > ? ORDER BY url LIMIT ?) v
			LEFT JOIN docs d ON d.url = v.url
			ORDER BY v.url`, versionTime(q.Since), after, changesBatch)
		if err != nil {
			return nil, fmt.Errorf("stash: %w", err)
		}
		var hs []*heed.History
		n, last := 0, ""
		for rows.Next() {
			h := &heed.History{}
			var held bool
			if err := rows.Scan(&h.URL, &h.ID, &h.Source, &h.Title, &held); err != nil {
				rows.Close()
				return nil, fmt.Errorf("stash: %w", err)
			}
			n, last = n+1, h.URL
			if held && (q.Source == "" || h.Source == q.Source) {
				hs = append(hs, h)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("stash: %w", err)
		}
		for _, h := range hs {
			vs, err := s.indexedVersions(ctx, h.URL)
			if err != nil {
				return nil, err
			}
			h.Versions = vs
			if c, ok := history.ChangeOf(h, q.Since); ok {
				out = append(out, c)
				if q.Limit > 0 && len(out) == q.Limit {
					return out, nil
				}
			}
		}
		if n < changesBatch {
			return out, nil
		}
		after = last
	}
}

// indexedVersions are a page's entries as the index holds them.
func (s *Stash) indexedVersions(ctx context.Context, url string) ([]heed.PageVersion, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT n, at, hash, size, etag, last_modified, removed FROM versions WHERE url = ? ORDER BY n`, url)
	if err != nil {
		return nil, fmt.Errorf("stash: %w", err)
	}
	defer rows.Close()
	var vs []heed.PageVersion
	for rows.Next() {
		var v heed.PageVersion
		var at string
		if err := rows.Scan(&v.N, &at, &v.Hash, &v.Size, &v.ETag, &v.LastModified, &v.Removed); err != nil {
			return nil, fmt.Errorf("stash: %w", err)
		}
		v.At, _ = time.Parse(versionTimeFormat, at)
		vs = append(vs, v)
	}
	return vs, rows.Err()
}

// dropVersions removes the kept texts that no entry of the index names:
// those the retention let go, and those of pages removed from the stash.
// It runs alone, no write under way.
func (s *Stash) dropVersions(ctx context.Context) error {
	if !s.histories {
		return nil
	}
	if _, err := s.root.Stat(versionsFile); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	db, err := s.versionsDB(ctx)
	if err != nil || db == nil {
		return err
	}
	rows, err := db.QueryContext(ctx, `SELECT hash FROM texts`)
	if err != nil {
		return fmt.Errorf("stash: the kept versions: %w", err)
	}
	hashes, err := collect(rows)
	if err != nil {
		return fmt.Errorf("stash: the kept versions: %w", err)
	}
	for _, h := range hashes {
		var one int
		err := s.db.QueryRowContext(ctx, `SELECT 1 FROM versions WHERE hash = ? LIMIT 1`, h).Scan(&one)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if _, err := db.ExecContext(ctx, `DELETE FROM texts WHERE hash = ?`, h); err != nil {
				return fmt.Errorf("stash: the kept versions: %w", err)
			}
		case err != nil:
			return fmt.Errorf("stash: %w", err)
		}
	}
	return nil
}

// collect reads rows of one text column.
func collect(rows *sql.Rows) ([]string, error) {
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
