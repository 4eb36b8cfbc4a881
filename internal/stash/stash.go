// Package stash keeps snapshots: one Markdown file with YAML frontmatter
// per page, laid out by source and URL path, and a full-text index of them
// in an embedded SQLite database (pure Go, so heed needs no cgo).
//
// The files are the truth. Every change is recorded in the index as
// pending before the file is touched and settled after, so that after any
// interruption Open finds the pending rows and makes the index agree with
// the files again; Reindex rebuilds the whole index from the files.
package stash

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/atomicfile"
)

// Stash is a stash directory and its index. It is safe for concurrent
// use; writes are serialized.
type Stash struct {
	dir string
	db  *sql.DB
	mu  sync.Mutex // serializes writes

	// lock is the writer lock's file: one process writes a stash at a
	// time. A Stash that could not take it can be read but not written.
	lock   *os.File
	writer bool

	// moves says whether the index has the column old_path: a reader of
	// a stash that no writer has upgraded yet goes without it.
	moves bool

	// batch is how many snapshots' full-text entries Put may leave
	// waiting, to write them in one transaction; waiting are they.
	batch   int
	waiting []*heed.Snapshot
	flusher *time.Timer // flushes waiting maxWait after the first came
	closed  bool

	// Put writes files outside mu, so that several pages' files are
	// written at once: writing holds the URLs whose files are being
	// written, and idle is signalled when one is done. files are the
	// files written since the last index commit, synced before the next.
	writing   map[string]bool // URLs and paths
	idle      *sync.Cond
	files     atomicfile.Batch
	exclusive int // Removes, Reindexes and Closes waiting for the writes to end

	stmtMu      sync.Mutex
	stmts       map[string]*sql.Stmt // the statements a crawl runs per page, prepared once
	stmtsClosed bool                 // Close closed them: none is prepared again
}

// maxWait is how long a batch's first entry waits to be indexed at most:
// a search finds a crawl's pages soon after they are stored.
var maxWait = time.Second

const schema = `
CREATE TABLE IF NOT EXISTS docs (
	rowid INTEGER PRIMARY KEY,
	id TEXT NOT NULL UNIQUE,
	url TEXT NOT NULL UNIQUE,
	source TEXT NOT NULL,
	path TEXT NOT NULL,
	title TEXT NOT NULL DEFAULT '',
	description TEXT NOT NULL DEFAULT '',
	fetched_at TEXT NOT NULL DEFAULT '',
	tags TEXT NOT NULL DEFAULT '',
	hash TEXT NOT NULL DEFAULT '',
	etag TEXT NOT NULL DEFAULT '',
	last_modified TEXT NOT NULL DEFAULT '',
	links TEXT NOT NULL DEFAULT '', -- newline-separated: crawl state
	state TEXT NOT NULL DEFAULT 'ok', -- ok, creating, writing, removing
	old_path TEXT NOT NULL DEFAULT '' -- while a move is pending: the file the page leaves
);
CREATE INDEX IF NOT EXISTS docs_source ON docs(source);
CREATE INDEX IF NOT EXISTS docs_path_nocase ON docs(path COLLATE NOCASE);
` + ftsSchema

// ftsSchema is the full-text index: contentless, as the text is in the
// snapshots' files, and search reads it from there for snippets.
// Keeping a second copy of every page in the index cost a fifth of
// indexing's time, and doubled the index.
const ftsSchema = `
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(title, body, content = '', contentless_delete = 1, tokenize = 'porter unicode61 remove_diacritics 2');
INSERT INTO fts(fts, rank) VALUES ('rank', 'bm25(5.0, 1.0)');
`

// indexFile is where the index lives inside the stash directory.
const indexFile = ".heed/index.db"

// Open opens (creating if needed) the stash in dir, and settles whatever
// an interruption left pending.
func Open(ctx context.Context, dir string) (*Stash, error) {
	if err := os.MkdirAll(filepath.Join(dir, ".heed"), 0o755); err != nil {
		return nil, fmt.Errorf("stash: %w", err)
	}
	dsn := "file:" + filepath.Join(dir, indexFile) + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=cache_size(-16384)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("stash: open index: %w", err)
	}
	db.SetMaxOpenConns(1) // one writer; SQLite serializes anyway
	// The schema is written only where it is missing: opening a stash to
	// read it must not wait for another process's write.
	var tables int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('docs', 'fts')`).Scan(&tables); err != nil {
		db.Close()
		return nil, fmt.Errorf("stash: index: %w", err)
	}
	if tables < 2 {
		if _, err := db.ExecContext(ctx, schema); err != nil {
			db.Close()
			return nil, fmt.Errorf("stash: index schema: %w", err)
		}
	}
	s := &Stash{dir: dir, db: db, writing: map[string]bool{}}
	s.idle = sync.NewCond(&s.mu)
	if err := db.QueryRowContext(ctx, `SELECT count(*) > 0 FROM pragma_table_info('docs') WHERE name = 'old_path'`).Scan(&s.moves); err != nil {
		db.Close()
		return nil, fmt.Errorf("stash: index: %w", err)
	}
	// Only the writer settles pending rows: another process's pending
	// rows are writes under way, not leftovers of a crash.
	if f, err := os.OpenFile(filepath.Join(dir, ".heed", "lock"), os.O_CREATE|os.O_RDWR, 0o644); err == nil {
		s.lock, s.writer = f, lockFile(f)
	}
	if s.writer {
		// Settling reads a pending move's old path, and asks the index of
		// paths, case folded, whether another row names a file: an older
		// stash has them made first.
		if err := s.indexPaths(ctx); err != nil {
			s.Close()
			return nil, err
		}
		// Writes and removals cut short are settled next: an upgrade
		// reads the rows as they are.
		pending, err := s.settleCount(ctx)
		if err != nil {
			s.Close()
			return nil, err
		}
		if pending > 0 {
			// A write was cut short, and may have left its temporary file.
			s.sweep()
		}
		if err := s.upgrade(ctx); err != nil {
			s.Close()
			return nil, err
		}
		if err := s.upgradePaths(ctx); err != nil {
			s.Close()
			return nil, err
		}
		if _, err := os.Stat(filepath.Join(dir, reindexMarker)); err == nil {
			// A reindex was interrupted: finish it.
			if _, err := s.Reindex(ctx); err != nil && !errors.Is(err, errNotSnapshots) {
				s.Close()
				return nil, err
			}
		}
	}
	return s, nil
}

// indexVersion is the version of what the index holds (SQLite's
// user_version): 1 segments unspaced scripts; 2 keeps no copy of the
// text, and leaves out link targets; 3 compares paths as a
// case-insensitive file system does. A writer that opens an index of an
// older version upgrades it: below 2 the full-text index is rebuilt from
// the files (upgrade), below 3 the rows are checked for files that two
// URLs share (upgradePaths).
const indexVersion = 3

// textVersion is the version below which the full-text index is rebuilt.
const textVersion = 2

// upgrade rebuilds the full-text index of an index older than
// textVersion from the files, in one transaction: another process
// searches the old index until the new one is whole, and an upgrade cut
// short is done again on the next Open. The rows are kept, and what they
// hold of crawls with them (validators, links); a row whose file cannot
// be read as its snapshot goes, as heed reindex would drop it.
func (s *Stash) upgrade(ctx context.Context) error {
	var v int
	if err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("stash: %w", err)
	}
	if v >= textVersion {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("stash: upgrade: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS fts;`+ftsSchema); err != nil {
		return fmt.Errorf("stash: upgrade: %w", err)
	}
	type row struct {
		rowid     int64
		url, path string
	}
	var all []row
	rows, err := tx.QueryContext(ctx, `SELECT rowid, url, path FROM docs WHERE state = 'ok'`)
	if err != nil {
		return fmt.Errorf("stash: upgrade: %w", err)
	}
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.rowid, &r.url, &r.path); err != nil {
			rows.Close()
			return fmt.Errorf("stash: upgrade: %w", err)
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("stash: upgrade: %w", err)
	}
	for _, r := range all {
		snap, err := readFile(filepath.Join(s.dir, filepath.FromSlash(r.path)))
		if err != nil || snap.URL != r.url {
			_, err = tx.ExecContext(ctx, `DELETE FROM docs WHERE rowid = ?`, r.rowid)
		} else {
			title, body := indexed(snap.Title, snap.Markdown)
			_, err = tx.ExecContext(ctx, `INSERT INTO fts (rowid, title, body) VALUES (?, ?, ?)`, r.rowid, title, body)
		}
		if err != nil {
			return fmt.Errorf("stash: upgrade: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, textVersion)); err != nil {
		return fmt.Errorf("stash: upgrade: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("stash: upgrade: %w", err)
	}
	if len(all) == 0 {
		return nil
	}
	return s.Optimize(ctx)
}

// indexPaths gives the index of a stash from before them the column
// old_path, which a pending move records, and the index of the files'
// paths compared as a case-insensitive file system compares them (ASCII
// case folded: heed's names are ASCII), which Put's claim and every
// removal ask: that index replaces docs_path, which told case apart.
func (s *Stash) indexPaths(ctx context.Context) error {
	if !s.moves {
		if _, err := s.db.ExecContext(ctx, `ALTER TABLE docs ADD COLUMN old_path TEXT NOT NULL DEFAULT ''`); err != nil {
			return fmt.Errorf("stash: upgrade: %w", err)
		}
		s.moves = true
	}
	if _, err := s.db.ExecContext(ctx, `CREATE INDEX IF NOT EXISTS docs_path_nocase ON docs(path COLLATE NOCASE); DROP INDEX IF EXISTS docs_path`); err != nil {
		return fmt.Errorf("stash: upgrade: %w", err)
	}
	return nil
}

// upgradePaths checks the rows of a stash from before Put found another
// URL's file of the same name but for case (an index older than version
// 3). A case-insensitive file system gave URLs whose names differ only in
// case one file (/Readme and /README), as an older PathFor gave http://
// and https:// of a page on any file system, and the page written last
// holds it: the rows of the others go, with their full-text entries, as
// a reindex would drop them. They were listed, and found by searches
// with empty snippets, but could not be read; a re-crawl stores them
// anew, each in a file of its own.
func (s *Stash) upgradePaths(ctx context.Context) error {
	var v int
	if err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("stash: %w", err)
	}
	if v >= indexVersion {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("stash: upgrade: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT a.url, a.path FROM docs a
		WHERE EXISTS (SELECT 1 FROM docs b WHERE b.path = a.path COLLATE NOCASE AND b.url != a.url)`)
	if err != nil {
		return fmt.Errorf("stash: upgrade: %w", err)
	}
	var lost []string
	for rows.Next() {
		var url, path string
		if err := rows.Scan(&url, &path); err != nil {
			rows.Close()
			return fmt.Errorf("stash: upgrade: %w", err)
		}
		if snap, err := readFile(filepath.Join(s.dir, filepath.FromSlash(path))); err != nil || snap.URL != url {
			lost = append(lost, url)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("stash: upgrade: %w", err)
	}
	for _, url := range lost {
		if _, err := tx.ExecContext(ctx, `DELETE FROM fts WHERE rowid = (SELECT rowid FROM docs WHERE url = ?); DELETE FROM docs WHERE url = ?`, url, url); err != nil {
			return fmt.Errorf("stash: upgrade: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, indexVersion)); err != nil {
		return fmt.Errorf("stash: upgrade: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("stash: upgrade: %w", err)
	}
	return nil
}

// reindexMarker exists while a reindex is under way.
const reindexMarker = ".heed/reindexing"

// sweep removes temporary files that a killed write left behind.
func (s *Stash) sweep() {
	filepath.WalkDir(s.dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), atomicfile.TempPrefix) && strings.HasSuffix(d.Name(), ".tmp") {
			os.Remove(path)
		}
		return nil
	})
}

// Writable reports whether this Stash holds the writer lock: whether
// Put, Remove and Reindex can work, or fail with heed.ErrBusy because another
// heed process was writing the stash when it was opened.
func (s *Stash) Writable() bool { return s.writer }

// Dir is the stash directory.
func (s *Stash) Dir() string { return s.dir }

// Close closes the index and lets go of the writer lock.
func (s *Stash) Close() error {
	s.mu.Lock()
	s.wait()
	ferr := s.flush(context.Background())
	s.closed = true // a flusher's timer that fired meanwhile finds nothing to do
	s.mu.Unlock()
	s.stmtMu.Lock()
	for _, st := range s.stmts {
		st.Close()
	}
	s.stmts, s.stmtsClosed = nil, true
	s.stmtMu.Unlock()
	if s.lock != nil {
		s.lock.Close()
	}
	return errors.Join(ferr, s.db.Close())
}

// SetBatch lets Put leave up to n snapshots out of the full-text index, to
// index them together in one transaction, which is much cheaper than one
// each: a crawl stores many pages. Until then they are on disk, and their
// index rows pending, so an interruption leaves nothing to lose: the next
// Open indexes them from their files. Flush and Close index what waits.
// n <= 1 indexes each snapshot as it is put.
func (s *Stash) SetBatch(n int) {
	s.mu.Lock()
	s.batch = n
	s.mu.Unlock()
}

// stmt is query prepared, once for the stash's life: a crawl runs the
// same few statements for every page, and preparing them is much of
// their cost.
func (s *Stash) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	s.stmtMu.Lock()
	defer s.stmtMu.Unlock()
	if st, ok := s.stmts[query]; ok {
		return st, nil
	}
	if s.stmtsClosed {
		return nil, errors.New("stash: closed")
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if s.stmts == nil {
		s.stmts = map[string]*sql.Stmt{}
	}
	s.stmts[query] = st
	return st, nil
}

// queryRow runs a prepared query expected to return one row.
func (s *Stash) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := s.stmt(ctx, query)
	if err != nil {
		// Run it unprepared: its error is the row's.
		return s.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// exec runs a prepared statement.
func (s *Stash) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := s.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// Flush indexes the snapshots that Put left waiting.
func (s *Stash) Flush(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flush(ctx)
}

func (s *Stash) flush(ctx context.Context) error {
	if s.flusher != nil {
		s.flusher.Stop()
		s.flusher = nil
	}
	if s.closed {
		return nil
	}
	// On failure the entries stay waiting, for the next flush to retry.
	if err := s.files.Commit(); err != nil {
		return writeErr("syncing", err)
	}
	if len(s.waiting) == 0 {
		return nil
	}
	if err := s.index(ctx, s.waiting...); err != nil {
		return writeErr("indexing", err)
	}
	clear(s.waiting)
	s.waiting = s.waiting[:0]
	return nil
}

// Put stores a snapshot: its file, written atomically, and its index
// entry. The file is PathFor's (or NamedPath's, for a Name), unless
// another URL's snapshot has a file of that name but for case, when the
// name gets a hash of the URL: snap.Path says which. A snapshot whose
// Markdown is unchanged is not rewritten; Put then only records the new
// validators and time, and reports changed false.
func (s *Stash) Put(ctx context.Context, snap *heed.Snapshot) (changed bool, err error) {
	if snap.URL == "" || snap.Source == "" {
		return false, errors.New("stash: a snapshot needs a URL and a source")
	}
	if !s.writer {
		return false, heed.ErrBusy
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	snap.ID = heed.IDOf(snap.URL)
	snap.Hash = heed.HashOf(snap.Markdown)
retry:
	for s.exclusive > 0 || s.writing[snap.URL] {
		s.idle.Wait() // another Put of this URL is writing, or a Remove, Reindex or Close waits to run alone
	}
	if s.closed {
		return false, errClosed
	}
	var oldHash, oldPath, oldState string
	err = s.queryRow(ctx, `SELECT hash, path, state FROM docs WHERE url = ?`, snap.URL).Scan(&oldHash, &oldPath, &oldState)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("stash: %w", err)
	}
	var path string
	if snap.Name != "" {
		path, err = NamedPath(snap.Name)
	} else {
		path, err = PathFor(snap.Source, snap.URL)
	}
	if err == nil {
		path, err = s.claim(ctx, path, snap.URL, oldPath)
	}
	if err != nil {
		return false, err
	}
	snap.Path = path
	// leaving is the file the page leaves, if it moves: the pending row
	// names it, so that should the new file not be written, the page is
	// found at its old one.
	var leaving string
	if oldPath != "" && oldPath != path {
		leaving = oldPath
	}
	// The files this Put writes or removes: no other Put may write them
	// meanwhile (one moving out of the file that this one gets).
	files := []string{writingKey(path)}
	if leaving != "" {
		files = append(files, writingKey(leaving))
	}
	for _, f := range files {
		if s.writing[f] {
			s.idle.Wait()
			goto retry
		}
	}

	switch {
	case oldPath == "":
	case oldHash == snap.Hash && oldPath == path && oldState == "ok":
		_, err := s.exec(ctx, `UPDATE docs SET fetched_at = ?, etag = ?, last_modified = ?, links = ? WHERE url = ?`,
			formatTime(snap.FetchedAt), snap.ETag, snap.LastModified, joinLinks(snap.Links), snap.URL)
		if err != nil {
			return false, writeErr("recording "+path, err)
		}
		return false, nil
	}

	// 1. Record the write as pending: 'creating' a file where there is
	// none, which is written unsynced (writeFile), or 'writing' over one.
	file := filepath.Join(s.dir, filepath.FromSlash(path))
	state := "writing"
	if _, err := os.Lstat(file); errors.Is(err, os.ErrNotExist) {
		state = "creating"
	}
	_, err = s.exec(ctx, `INSERT INTO docs (id, url, source, path, title, description, fetched_at, tags, hash, etag, last_modified, links, state, old_path)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(url) DO UPDATE SET source = excluded.source, path = excluded.path, title = excluded.title,
			description = excluded.description, fetched_at = excluded.fetched_at, tags = excluded.tags,
			hash = excluded.hash, etag = excluded.etag, last_modified = excluded.last_modified,
			links = excluded.links, state = excluded.state, old_path = excluded.old_path`,
		snap.ID, snap.URL, snap.Source, path, snap.Title, snap.Description, formatTime(snap.FetchedAt),
		strings.Join(snap.Tags, ","), snap.Hash, snap.ETag, snap.LastModified, joinLinks(snap.Links), state, leaving)
	if err != nil {
		return false, writeErr("recording "+path, err)
	}
	// 2. Write the file, letting other pages be recorded meanwhile. It is
	// synced, with its directory, before its index entry is settled.
	// An entry of this URL waiting in the batch is an older version: its
	// row is this Put's now, to be settled by this Put alone.
	s.waiting = slices.DeleteFunc(s.waiting, func(w *heed.Snapshot) bool { return w.URL == snap.URL })
	s.writing[snap.URL] = true
	for _, f := range files {
		s.writing[f] = true
	}
	synced := state != "creating"
	err = func() error {
		defer func() { // even should the write panic, nothing waits for it forever
			delete(s.writing, snap.URL)
			for _, f := range files {
				delete(s.writing, f)
			}
			s.idle.Broadcast()
		}()
		return s.unlocked(func() error { return writeFile(file, encode(snap), synced) })
	}()
	if err != nil {
		// The file was not written: the row is made to agree with the
		// files at once (the page at its old file, or none), not left
		// pending until the next Open, with Get not finding the page.
		err = writeErr("writing "+path, err)
		if serr := s.settleRow(context.WithoutCancel(ctx), pending{url: snap.URL, path: path, state: state, oldPath: leaving}); serr != nil {
			err = errors.Join(err, serr)
		}
		return false, err
	}
	s.files.Add(file, synced)
	if s.closed {
		// Closed while the file was written: the row is pending, and the
		// next Open indexes the file.
		return true, nil
	}
	if leaving != "" {
		// The old file goes only once the new one lasts.
		if err := s.files.Commit(); err != nil {
			return false, writeErr("syncing "+path, err)
		}
		s.removeFile(ctx, leaving, snap.URL)
	}
	// 3. Settle the index, now or with a batch. Should this fail, the
	// file is written and the row pending: the next Open indexes the file.
	if s.batch > 1 {
		if s.flusher == nil {
			// However few follow, these wait maxWait at most.
			s.flusher = time.AfterFunc(maxWait, func() { s.Flush(context.Background()) })
		}
		s.waiting = append(s.waiting, &heed.Snapshot{URL: snap.URL, Title: snap.Title, Markdown: snap.Markdown})
		if len(s.waiting) < s.batch {
			return true, nil
		}
		// Another caller's cancelled context must not fail a batch that
		// holds its snapshots too.
		return true, s.flush(context.WithoutCancel(ctx))
	}
	if err := s.files.Commit(); err != nil {
		return false, writeErr("syncing "+path, err)
	}
	if err := s.index(ctx, snap); err != nil {
		return false, writeErr("indexing "+path, err)
	}
	return true, nil
}

// writeFile writes a snapshot's file in place. A file that replaces one
// is synced first, so that a crash of the system leaves the old one or
// the new one. A new file is not: it is synced with the others of its
// batch (s.files), before its index entry is settled, and until then a
// crash of the system may leave a part of it, which Open drops with its
// row ('creating'), as if it had never been written. Tests hold writes
// up.
var writeFile = func(path string, data []byte, sync bool) error {
	if sync {
		return atomicfile.WriteUnsyncedDir(path, data)
	}
	return atomicfile.WriteUnsynced(path, data)
}

// errClosed is returned by a Put after Close.
var errClosed = errors.New("stash: closed")

// unlocked runs f with mu unlocked, and locks it again.
func (s *Stash) unlocked(f func() error) error {
	s.mu.Unlock()
	defer s.mu.Lock()
	return f()
}

// wait waits, with mu held, until no Put is writing a file; Puts that
// come meanwhile wait for the caller, which runs alone until it lets mu
// go.
func (s *Stash) wait() {
	s.exclusive++
	for len(s.writing) > 0 {
		s.idle.Wait()
	}
	s.exclusive--
	s.idle.Broadcast() // the Puts that waited go on once mu is let go
}

// writingKey is a file's key in Stash.writing: its path, case folded,
// as a case-insensitive file system would take it.
func writingKey(path string) string { return strings.ToLower(path) }

// claim is the file that url's snapshot gets, given its preferred file
// (PathFor's or NamedPath's) and oldPath, the file its row names now (""
// if none): the preferred file, unless another URL's row names a file of
// that name but for case (which a case-insensitive file system takes for
// one: /Readme and /README, http:// and https:// of a page, a named
// snapshot where a crawled page is), when a hash of the URL is added to
// the name ("docs/e.com/README~1a2b3c4d5e6f.md"), so that no two URLs
// ever share a file, on any file system. A snapshot that has one of the
// two keeps it, spelled as its row spells it (a reindex where case is
// ignored may have read it in another case). Should the hashed name be
// taken too, which takes a collision of hashes, the snapshot is refused.
func (s *Stash) claim(ctx context.Context, preferred, url, oldPath string) (string, error) {
	hashed := strings.TrimSuffix(preferred, ".md") + "~" + heed.IDOf(url) + ".md"
	taken := func(path string) (bool, error) {
		var one int
		err := s.queryRow(ctx, `SELECT 1 FROM docs WHERE path = ? COLLATE NOCASE AND url != ? AND state != 'removing' LIMIT 1`, path, url).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("stash: %w", err)
		}
		return true, nil
	}
	if !strings.EqualFold(oldPath, hashed) {
		busy, err := taken(preferred)
		if err != nil {
			return "", err
		}
		switch {
		case !busy && strings.EqualFold(oldPath, preferred):
			return oldPath, nil
		case !busy:
			return preferred, nil
		}
	}
	busy, err := taken(hashed)
	if err != nil {
		return "", err
	}
	if busy {
		return "", fmt.Errorf("stash: %s has no file of its own: other URLs' snapshots have %s and %s", url, preferred, hashed)
	}
	if strings.EqualFold(oldPath, hashed) {
		return oldPath, nil
	}
	return hashed, nil
}

// writeErr says which write failed, and, when the error means the stash
// as a whole cannot be written, says so (heed.ErrUnwritable).
func writeErr(what string, err error) error {
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		switch coded.Code() & 0xff {
		case 8, 10, 13: // SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL
			return fmt.Errorf("stash: %s: %w (%w: is the disk full, or read-only?)", what, err, heed.ErrUnwritable)
		}
	}
	for _, e := range []error{syscall.ENOSPC, syscall.EFBIG, syscall.EDQUOT, syscall.EROFS, syscall.EIO, atomicfile.ErrFailed} {
		if errors.Is(err, e) {
			return fmt.Errorf("stash: %s: %w (%w)", what, err, heed.ErrUnwritable)
		}
	}
	return fmt.Errorf("stash: %s: %w", what, err)
}

// index writes snapshots' full-text entries and marks them settled, in
// one transaction.
func (s *Stash) index(ctx context.Context, snaps ...*heed.Snapshot) error {
	// The statements are prepared before the transaction takes the one
	// connection.
	var stmts [3]*sql.Stmt
	for i, q := range []string{
		`DELETE FROM fts WHERE rowid = ?`,
		`INSERT INTO fts (rowid, title, body) VALUES (?, ?, ?)`,
		`UPDATE docs SET state = 'ok', old_path = '' WHERE rowid = ?`,
	} {
		st, err := s.stmt(ctx, q)
		if err != nil {
			return fmt.Errorf("stash: %w", err)
		}
		stmts[i] = st
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("stash: %w", err)
	}
	defer tx.Rollback()
	del, ins, settle := tx.StmtContext(ctx, stmts[0]), tx.StmtContext(ctx, stmts[1]), tx.StmtContext(ctx, stmts[2])
	for _, snap := range snaps {
		var rowid int64
		if err := tx.QueryRowContext(ctx, `SELECT rowid FROM docs WHERE url = ?`, snap.URL).Scan(&rowid); err != nil {
			return fmt.Errorf("stash: %w", err)
		}
		if _, err := del.ExecContext(ctx, rowid); err != nil {
			return fmt.Errorf("stash: %w", err)
		}
		title, body := indexed(snap.Title, snap.Markdown)
		if _, err := ins.ExecContext(ctx, rowid, title, body); err != nil {
			return fmt.Errorf("stash: %w", err)
		}
		if _, err := settle.ExecContext(ctx, rowid); err != nil {
			return fmt.Errorf("stash: %w", err)
		}
	}
	return tx.Commit()
}

// removeFile removes the file at path, which url's row named, unless it
// is not url's snapshot: another row (not itself being removed) names it,
// as in a stash written before two URLs' snapshots were kept apart (the
// same name, or the same but for case on a file system that ignores
// case), or its frontmatter names another URL, or none.
func (s *Stash) removeFile(ctx context.Context, path, url string) error {
	file := filepath.Join(s.dir, filepath.FromSlash(path))
	shared, err := s.shared(ctx, path, file, url)
	if err != nil || shared {
		return err
	}
	if snap, err := readFile(file); err != nil || snap.URL != url {
		return nil
	}
	if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("stash: %w", err)
	}
	return nil
}

// settle makes pending rows agree with the files.
func (s *Stash) settle(ctx context.Context) error {
	_, err := s.settleCount(ctx)
	return err
}

// settleCount settles pending rows and says how many there were.
func (s *Stash) settleCount(ctx context.Context) (int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT url, path, state, old_path FROM docs WHERE state != 'ok'`)
	if err != nil {
		return 0, fmt.Errorf("stash: %w", err)
	}
	var ps []pending
	for rows.Next() {
		var p pending
		if err := rows.Scan(&p.url, &p.path, &p.state, &p.oldPath); err != nil {
			rows.Close()
			return 0, fmt.Errorf("stash: %w", err)
		}
		ps = append(ps, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("stash: %w", err)
	}
	for _, p := range ps {
		if err := s.settleRow(ctx, p); err != nil {
			return 0, err
		}
	}
	return len(ps), nil
}

// pending is a row whose change may not have reached the files: a write
// ('creating' a file or 'writing' over one), of a page that moves out of
// oldPath if that is set, or a removal.
type pending struct{ url, path, state, oldPath string }

// settleRow makes a pending row agree with the files. A moved page whose
// new file is its snapshot is settled there, and its old file goes; one
// whose new file is not (the write failed, or was cut short) stays at
// its old file, which is whole, rather than being dropped and leaving
// that file to no row, for a reindex to take up as the page's.
func (s *Stash) settleRow(ctx context.Context, p pending) error {
	file := filepath.Join(s.dir, filepath.FromSlash(p.path))
	if p.state == "removing" {
		if err := s.removeFile(ctx, p.path, p.url); err != nil {
			return err
		}
		return s.drop(ctx, p.url)
	}
	snap, err := readFile(file)
	if p.state == "creating" && torn(file, snap, err, p.url) {
		// A crash of the system left a part of a new file (writeFile):
		// it was never written.
		if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("stash: %w", err)
		}
		snap, err = nil, os.ErrNotExist
	}
	if err == nil && snap.URL == p.url {
		if p.oldPath != "" {
			// The old file goes once the new one lasts, and before the row
			// is settled, which forgets it.
			s.files.Add(file, false)
			if err := s.files.Commit(); err != nil {
				return writeErr("syncing "+p.path, err)
			}
			if err := s.removeFile(ctx, p.oldPath, p.url); err != nil {
				return err
			}
		}
		return s.restore(ctx, snap, p.path, false)
	}
	if p.oldPath != "" {
		if old, err := readFile(filepath.Join(s.dir, filepath.FromSlash(p.oldPath))); err == nil && old.URL == p.url {
			// The move never reached its new file: the page stays at its
			// old one, as its old file has it. The links the row holds are
			// the new version's: they are forgotten, so that a re-crawl
			// fetches the page whole.
			if _, err := s.db.ExecContext(ctx, `UPDATE docs SET links = '' WHERE url = ?`, p.url); err != nil {
				return fmt.Errorf("stash: %w", err)
			}
			return s.restore(ctx, old, p.oldPath, false)
		}
	}
	// The write never reached the file: the file as it is (or its
	// absence) is the truth.
	if err := s.drop(ctx, p.url); err != nil {
		return err
	}
	if err == nil && snap.URL != "" {
		// Another URL's snapshot, which no row names (this URL claimed
		// the file): indexed, as a reindex would index it, unless its URL
		// has a row. That row names the page's own file, and this is an
		// older copy of it (an older heed's move, cut short, left it).
		var one int
		switch err := s.db.QueryRowContext(ctx, `SELECT 1 FROM docs WHERE url = ?`, snap.URL).Scan(&one); {
		case errors.Is(err, sql.ErrNoRows):
			return s.restore(ctx, snap, p.path, false)
		case err != nil:
			return fmt.Errorf("stash: %w", err)
		}
	}
	return nil
}

// torn reports whether the file at the path of url's pending creation
// (where there was no file) is a part of it, cut short by a crash of the
// system before its sync: a file that is not a snapshot (empty, cut, or
// zeroes), or url's snapshot whose Markdown is not the one its hash
// names. snap and err are what readFile read of it.
func torn(file string, snap *heed.Snapshot, err error, url string) bool {
	if err != nil {
		fi, serr := os.Lstat(file)
		return serr == nil && fi.Mode().IsRegular()
	}
	return snap.URL == url && snap.Hash != heed.HashOf(snap.Markdown)
}

// restore indexes a snapshot read from its file, synced first unless
// synced says it is: a process killed before its batch's sync leaves
// files whole to read, which a crash of the system could still lose.
func (s *Stash) restore(ctx context.Context, snap *heed.Snapshot, path string, synced bool) error {
	snap.ID, snap.Path = heed.IDOf(snap.URL), path
	_, err := s.db.ExecContext(ctx, `INSERT INTO docs (id, url, source, path, title, description, fetched_at, tags, hash, etag, last_modified, state)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'writing')
		ON CONFLICT(url) DO UPDATE SET source = excluded.source, path = excluded.path, title = excluded.title,
			description = excluded.description, fetched_at = excluded.fetched_at, tags = excluded.tags,
			hash = excluded.hash, etag = excluded.etag, last_modified = excluded.last_modified, state = 'writing', old_path = ''`,
		snap.ID, snap.URL, snap.Source, path, snap.Title, snap.Description, formatTime(snap.FetchedAt),
		strings.Join(snap.Tags, ","), heed.HashOf(snap.Markdown), snap.ETag, snap.LastModified)
	if err != nil {
		return fmt.Errorf("stash: %w", err)
	}
	if !synced {
		s.files.Add(filepath.Join(s.dir, filepath.FromSlash(path)), false)
		if err := s.files.Commit(); err != nil {
			return writeErr("syncing "+path, err)
		}
	}
	return s.index(ctx, snap)
}

func (s *Stash) drop(ctx context.Context, url string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("stash: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM fts WHERE rowid = (SELECT rowid FROM docs WHERE url = ?)`, url); err != nil {
		return fmt.Errorf("stash: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM docs WHERE url = ?`, url); err != nil {
		return fmt.Errorf("stash: %w", err)
	}
	return tx.Commit()
}

// shared reports whether another URL's row (not itself being removed)
// names the file at path: by the same name, or by a name the same but for
// case that is the same file here.
func (s *Stash) shared(ctx context.Context, path, file, url string) (bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path FROM docs WHERE path = ? COLLATE NOCASE AND url != ? AND state != 'removing'`, path, url)
	if err != nil {
		return false, fmt.Errorf("stash: %w", err)
	}
	var others []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return false, fmt.Errorf("stash: %w", err)
		}
		others = append(others, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("stash: %w", err)
	}
	if len(others) == 0 {
		return false, nil
	}
	fi, err := os.Stat(file)
	for _, p := range others {
		if p == path {
			return true, nil
		}
		if err != nil {
			continue
		}
		if oi, err := os.Stat(filepath.Join(s.dir, filepath.FromSlash(p))); err == nil && os.SameFile(fi, oi) {
			return true, nil
		}
	}
	return false, nil
}

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
	err := s.queryRow(ctx, `SELECT etag, last_modified FROM docs WHERE url = ? AND source = ? AND `+validatorsKnown, url, source).Scan(&etag, &lastModified)
	return etag, lastModified, err == nil
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
	snap, err := readFile(filepath.Join(s.dir, filepath.FromSlash(path)))
	if (err != nil || snap.URL != url) && state != "ok" && oldPath != "" {
		if old, oerr := readFile(filepath.Join(s.dir, filepath.FromSlash(oldPath))); oerr == nil && old.URL == url {
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

// Remove deletes every snapshot of a source, files and index entries, and
// returns how many it removed.
func (s *Stash) Remove(ctx context.Context, source string) (int, error) {
	if !s.writer {
		return 0, heed.ErrBusy
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wait()
	if err := s.flush(ctx); err != nil {
		return 0, err
	}
	res, err := s.db.ExecContext(ctx, `UPDATE docs SET state = 'removing' WHERE source = ?`, source)
	if err != nil {
		return 0, fmt.Errorf("stash: %w", err)
	}
	n, _ := res.RowsAffected()
	if err := s.settle(ctx); err != nil {
		return 0, err
	}
	// Only the snapshots' files went; what else a person keeps in the
	// source's folder stays, and only folders left empty are removed.
	removeEmptyDirs(filepath.Join(s.dir, sourceDir(source)))
	if old := safeName(source); old != sourceDir(source) {
		// The folder of a source whose name ends in ".md", as an older
		// heed named it.
		removeEmptyDirs(filepath.Join(s.dir, old))
	}
	return int(n), nil
}

// removeEmptyDirs removes dir and the folders under it that hold nothing.
func removeEmptyDirs(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() {
			removeEmptyDirs(filepath.Join(dir, e.Name()))
		}
	}
	os.Remove(dir) // fails, as it should, if anything is left
}

// Reindex rebuilds the index from the files, and returns how many
// snapshots it indexed. Files it cannot read are skipped and counted in
// the error. A URL that two files hold is indexed at the copy fetched
// last.
func (s *Stash) Reindex(ctx context.Context) (int, error) {
	if !s.writer {
		return 0, heed.ErrBusy
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wait()
	s.waiting = s.waiting[:0] // the files are read again, those too
	if err := s.files.Commit(); err != nil {
		return 0, writeErr("syncing", err)
	}
	// The files are synced before they are indexed: at once where the
	// system can, else each as it is read.
	synced, err := atomicfile.SyncFS(s.dir)
	if err != nil {
		return 0, writeErr("syncing", err)
	}
	marker := filepath.Join(s.dir, reindexMarker)
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		return 0, fmt.Errorf("stash: %w", err)
	}
	// The links a crawl follows are crawl state, kept in the index and not
	// in the files: carry over what the old index knew.
	links, err := s.allLinks(ctx)
	if err != nil {
		return 0, err
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO fts(fts) VALUES ('delete-all'); DELETE FROM docs;`); err != nil {
		return 0, fmt.Errorf("stash: %w", err)
	}
	n := 0
	var bad []string
	fetched := map[string]time.Time{}
	err = filepath.WalkDir(s.dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".heed" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".md") || filepath.Dir(path) == filepath.Clean(s.dir) {
			return nil // the stash's own files (index.md, log.md) are no snapshots
		}
		snap, err := readFile(path)
		if err != nil || snap.URL == "" {
			bad = append(bad, path)
			return nil
		}
		// A URL with two files (an older heed's move, cut short, left the
		// old one) is indexed at its newest, by when it was fetched.
		at, again := fetched[snap.URL]
		if again && snap.FetchedAt.Before(at) {
			return nil
		}
		fetched[snap.URL] = snap.FetchedAt
		rel, _ := filepath.Rel(s.dir, path)
		if err := s.restore(ctx, snap, filepath.ToSlash(rel), synced); err != nil {
			return err
		}
		if l := links[snap.URL]; l != "" {
			if _, err := s.db.ExecContext(ctx, `UPDATE docs SET links = ? WHERE url = ?`, l, snap.URL); err != nil {
				return fmt.Errorf("stash: %w", err)
			}
		}
		if !again {
			n++
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("stash: reindex: %w", err)
	}
	if err := s.Optimize(ctx); err != nil {
		return n, err
	}
	os.Remove(marker)
	if len(bad) > 0 {
		return n, fmt.Errorf("%w: %d files were skipped, such as %s", errNotSnapshots, len(bad), bad[0])
	}
	return n, nil
}

// allLinks returns the links the index holds, by URL.
func (s *Stash) allLinks(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT url, links FROM docs WHERE links != ''`)
	if err != nil {
		return nil, fmt.Errorf("stash: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var u, l string
		if err := rows.Scan(&u, &l); err != nil {
			return nil, fmt.Errorf("stash: %w", err)
		}
		out[u] = l
	}
	return out, rows.Err()
}

// errNotSnapshots is wrapped by Reindex's error when some Markdown files
// of the stash are not snapshots (a person's own notes, say).
var errNotSnapshots = errors.New("stash: reindex: some files are not snapshots")

// LogFile is the stash's log of crawls, in its root: what each crawl
// stored and what it skipped, and why. No snapshot is ever written there.
const LogFile = "log.md"

// AppendLog adds an entry (Markdown) to the stash's log.
func (s *Stash) AppendLog(entry string) error {
	if !s.writer {
		return heed.ErrBusy
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	path := filepath.Join(s.dir, LogFile)
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("stash: log: %w", err)
	}
	if len(old) == 0 {
		old = []byte("# heed's log\n\nWhat each crawl into this stash stored, and what it skipped and why.\n")
	}
	data := append(old, []byte("\n"+strings.TrimSpace(entry)+"\n")...)
	if err := atomicfile.Write(path, data); err != nil {
		return fmt.Errorf("stash: log: %w", err)
	}
	return nil
}

// Optimize merges the full-text index into one segment, which makes
// searches faster after many writes. Reindex does it; a crawl that
// stored many pages does too.
func (s *Stash) Optimize(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `INSERT INTO fts(fts) VALUES ('optimize')`); err != nil {
		return fmt.Errorf("stash: optimize: %w", err)
	}
	return nil
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339, s)
	return t
}
