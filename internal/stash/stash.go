package stash

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/atomicfile"
	"github.com/heedhq/heed/internal/history"
)

// Stash is a stash directory and its index. It is safe for concurrent
// use; writes are serialized.
type Stash struct {
	dir string
	db  *sql.DB
	// root is dir, through which every file of the stash is read and
	// written: no symbolic link planted in the stash leads a read or a
	// write out of it.
	root *os.Root
	mu   sync.Mutex // serializes writes

	// lock is the writer lock's file: one process writes a stash at a
	// time. A Stash that could not take it can be read but not written.
	lock   *os.File
	writer bool

	// moves says whether the index has the column old_path: a reader of
	// a stash that no writer has upgraded yet goes without it.
	moves bool
	// histories says whether the index has the table versions and the
	// columns removed and version (indexHistory).
	histories bool
	// retention is how much of each page's history Put keeps.
	retention history.Retention

	// pending is how many rows were pending when a reader opened the
	// stash (OpenRead).
	pending int

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

	crawls crawlsDB // the crawls' ledger
	kept   keptDB   // the texts of past versions

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
	old_path TEXT NOT NULL DEFAULT '', -- while a move is pending: the file the page leaves
	removed TEXT NOT NULL DEFAULT '', -- when the page was found gone
	version INTEGER NOT NULL DEFAULT 0 -- the number of its history's last entry
);
CREATE INDEX IF NOT EXISTS docs_source ON docs(source);
CREATE INDEX IF NOT EXISTS docs_path_nocase ON docs(path COLLATE NOCASE);
` + historySchema + ftsSchema

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

// lockName is where the writer lock's file is inside the stash directory.
const lockName = ".heed/lock"

// Open opens (creating if needed) the stash in dir, and settles whatever
// an interruption left pending.
func Open(ctx context.Context, dir string) (*Stash, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("stash: %w", err)
	}
	root, err := openRoot(dir)
	if err != nil {
		return nil, err
	}
	if err := notLinked(root, ".heed", indexFile, lockName); err != nil {
		root.Close()
		return nil, err
	}
	if err := root.MkdirAll(".heed", 0o755); err != nil {
		root.Close()
		return nil, fmt.Errorf("stash: %w", err)
	}
	dsn := "file:" + filepath.Join(dir, indexFile) + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=cache_size(-16384)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("stash: open index: %w", err)
	}
	db.SetMaxOpenConns(1) // one writer; SQLite serializes anyway
	// The schema is written only where it is missing: opening a stash to
	// read it must not wait for another process's write.
	complete, err := hasTables(ctx, db)
	if err != nil {
		db.Close()
		root.Close()
		return nil, fmt.Errorf("stash: index: %w", err)
	}
	if !complete {
		if _, err := db.ExecContext(ctx, schema); err != nil {
			db.Close()
			root.Close()
			return nil, fmt.Errorf("stash: index schema: %w", err)
		}
	}
	s, err := newStash(ctx, dir, db, root)
	if err != nil {
		return nil, err
	}
	// Only the writer settles pending rows: another process's pending
	// rows are writes under way, not leftovers of a crash.
	if f, err := root.OpenFile(lockName, os.O_CREATE|os.O_RDWR, 0o644); err == nil {
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
		if err := s.indexHistory(ctx); err != nil {
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
		if _, err := root.Stat(reindexMarker); err == nil {
			// A reindex was interrupted: finish it.
			if _, err := s.Reindex(ctx); err != nil && !errors.Is(err, errNotSnapshots) && !errors.Is(err, ErrDamagedHistory) {
				s.Close()
				return nil, err
			}
		}
	}
	return s, nil
}

// OpenRead opens the stash in dir to read it, and writes nothing: not
// the index's schema, not its lock file, not what an interruption left
// pending (the next Open settles that), so that a stash on a full disk or
// a read-only file system can still be searched and read. Pending rows
// are left out of searches and lists, as another process's writes under
// way are. The Stash is not Writable. A directory without an index is a
// *MissingError.
func OpenRead(ctx context.Context, dir string) (*Stash, error) {
	if err := Check(dir); err != nil {
		return nil, err
	}
	root, err := openRoot(dir)
	if err != nil {
		return nil, err
	}
	if err := notLinked(root, ".heed", indexFile); err != nil {
		root.Close()
		return nil, err
	}
	path := filepath.Join(dir, indexFile)
	db, err := openIndexRead(ctx, path, "")
	if err != nil {
		// An index in WAL mode is read with its shared-memory file, which
		// a reader makes where it is missing: on a full disk or a
		// read-only file system it cannot. What the index holds is then
		// read as it is on disk, no writer being able to change it.
		var ierr error
		if db, ierr = openIndexRead(ctx, path, "&immutable=1"); ierr != nil {
			root.Close()
			return nil, fmt.Errorf("stash: open index to read: %w", err)
		}
	}
	s, err := newStash(ctx, dir, db, root)
	if err != nil {
		return nil, err
	}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM docs WHERE state != 'ok'`).Scan(&s.pending); err != nil {
		s.Close()
		return nil, fmt.Errorf("stash: index: %w", err)
	}
	return s, nil
}

// Pending is, of a stash opened to read, how many of its pages were
// pending when it was opened: written, or being written or removed, and
// not yet settled in the index, because a writer was at work or was cut
// short (a full disk, a crash). Searches and lists leave them out until a
// writer settles them; Get reads those whose files are whole.
func (s *Stash) Pending() int { return s.pending }

// openIndexRead opens the index at path read-only, and checks that it
// holds heed's tables.
func openIndexRead(ctx context.Context, path, extra string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)&_pragma=cache_size(-16384)"+extra)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	complete, err := hasTables(ctx, db)
	if err == nil && !complete {
		err = errors.New("the index holds no snapshots' tables")
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// hasTables reports whether the index holds the snapshots' tables.
func hasTables(ctx context.Context, db *sql.DB) (bool, error) {
	var tables int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('docs', 'fts')`).Scan(&tables)
	return tables == 2, err
}

// newStash is the Stash of the index db and the folder root of dir; on
// an error both are closed.
func newStash(ctx context.Context, dir string, db *sql.DB, root *os.Root) (*Stash, error) {
	s := &Stash{dir: dir, db: db, root: root, writing: map[string]bool{}}
	s.idle = sync.NewCond(&s.mu)
	err := db.QueryRowContext(ctx, `SELECT count(*) > 0 FROM pragma_table_info('docs') WHERE name = 'old_path'`).Scan(&s.moves)
	if err == nil {
		err = db.QueryRowContext(ctx, `SELECT count(*) > 0 FROM pragma_table_info('docs') WHERE name = 'removed'`).Scan(&s.histories)
	}
	if err != nil {
		db.Close()
		root.Close()
		return nil, fmt.Errorf("stash: index: %w", err)
	}
	return s, nil
}

// openRoot opens the stash's directory as the root of its files.
func openRoot(dir string) (*os.Root, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("stash: %w", err)
	}
	return root, nil
}

// notLinked refuses a stash whose own files (its folder .heed, the
// index, the lock) are symbolic links: the index is opened by its path,
// and must not be written out of the stash; a lock that cannot be taken
// would be taken for another process writing the stash.
func notLinked(root *os.Root, names ...string) error {
	for _, n := range names {
		if fi, err := root.Lstat(n); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("stash: %s is a symbolic link: heed reads and writes no file through a link", filepath.ToSlash(n))
		}
	}
	return nil
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
	var lerr error
	if s.crawls.db != nil {
		lerr = s.crawls.db.Close()
	}
	if s.kept.db != nil {
		lerr = errors.Join(lerr, s.kept.db.Close())
	}
	if s.lock != nil {
		s.lock.Close()
	}
	return errors.Join(ferr, lerr, s.db.Close(), s.root.Close())
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

// MissingError is Check's error for a directory that holds no stash, or
// a stash whose index is gone.
type MissingError struct {
	Dir string
	// Files is set when the directory holds snapshot files but no index:
	// Reindex rebuilds it from them.
	Files bool
}

func (e *MissingError) Error() string {
	if e.Files {
		return fmt.Sprintf("the stash at %s has no index, though its files are there", e.Dir)
	}
	return fmt.Sprintf("no stash at %s", e.Dir)
}

// Check reports, without creating anything, whether dir holds a stash
// with its index: a *MissingError if it does not. Open makes a stash
// wherever it is asked to; a command that only reads one checks first.
// A directory is taken for a stash whose index is gone only if it holds
// a snapshot file (Markdown whose front matter names its url), found
// within the first checkFiles entries: any other directory of Markdown
// is not a stash, and a large tree is not walked to its end.
func Check(dir string) error {
	_, err := os.Stat(filepath.Join(dir, indexFile))
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("stash: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return &MissingError{Dir: dir}
	}
	defer root.Close()
	files, seen := false, 0
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		seen++
		switch {
		case seen > checkFiles:
			return filepath.SkipAll
		case err != nil:
			return nil
		case d.IsDir() && (d.Name() == ".heed" || strings.HasPrefix(d.Name(), ".") && path != dir):
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(d.Name(), ".md") && path != filepath.Join(dir, LogFile):
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return nil
			}
			data, err := readRegular(root, rel)
			if err != nil {
				return nil
			}
			if snap, err := parseFile(path, data); err == nil && snap.URL != "" && snap.Source != "" {
				files = true
				return filepath.SkipAll
			}
		}
		return nil
	})
	return &MissingError{Dir: dir, Files: files}
}

// checkFiles is how many entries of a directory Check looks at, at most.
const checkFiles = 10_000
