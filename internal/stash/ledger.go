package stash

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/heedhq/heed/internal/ledger"
)

// The stash keeps its crawls' ledger (ledger.Ledger) in a database of
// its own beside the index: the index is rebuilt from the files (heed
// reindex), the ledger is not in them; and a crawl's frontier is written
// as it goes, page by page, which must not wait on the index's batches.
const ledgerFile = ".heed/crawls.db"

const ledgerSchema = `
CREATE TABLE IF NOT EXISTS crawls (
	id INTEGER PRIMARY KEY,
	key TEXT NOT NULL,
	start TEXT NOT NULL,
	source TEXT NOT NULL,
	state TEXT NOT NULL,
	began INTEGER NOT NULL, -- Unix nanoseconds
	ended INTEGER NOT NULL DEFAULT 0,
	counts TEXT NOT NULL DEFAULT '{}',
	resumed INTEGER NOT NULL DEFAULT 0,
	options TEXT NOT NULL DEFAULT '', -- as JSON, as the crawl last ran
	started_by TEXT NOT NULL DEFAULT '' -- ledger.Crawl.By
);
CREATE INDEX IF NOT EXISTS crawls_key ON crawls(key, id);
CREATE TABLE IF NOT EXISTS frontier (
	crawl INTEGER NOT NULL,
	url TEXT NOT NULL,
	fate TEXT NOT NULL,
	depth INTEGER NOT NULL,
	lastmod TEXT NOT NULL DEFAULT '',
	via TEXT NOT NULL DEFAULT '',
	hash TEXT NOT NULL DEFAULT '',
	seq INTEGER NOT NULL, -- when the URL was met, last queued, or kept
	PRIMARY KEY (crawl, url)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS frontier_seq ON frontier(crawl, seq);
CREATE TABLE IF NOT EXISTS turns (
	host TEXT PRIMARY KEY,
	at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS robots (
	origin TEXT PRIMARY KEY,
	status TEXT NOT NULL,
	http_status INTEGER NOT NULL,
	cause TEXT NOT NULL,
	body BLOB NOT NULL,
	until INTEGER NOT NULL
) WITHOUT ROWID;
`

// crawlsDB is the ledger's database, opened when first asked.
type crawlsDB struct {
	once   sync.Once
	db     *sql.DB
	err    error
	mu     sync.Mutex     // serializes writes, and guards what follows
	seq    int64          // the last entry's
	active map[int64]bool // the crawls this Stash runs
	noBy   bool           // read-only, made without the started_by column
}

var _ ledger.Ledger = (*Stash)(nil)

// ledgerDB opens the ledger's database: to write it, by the stash's
// writer, which marks the crawls left running as interrupted (no other
// process can run them: the writer lock is this one's); else to read it,
// nil when there is none.
func (s *Stash) ledgerDB(ctx context.Context) (*sql.DB, error) {
	l := &s.crawls
	l.once.Do(func() {
		// Opened once for the Stash's life, not for the call that came
		// first: a call cancelled does not leave it unopened.
		ctx := context.WithoutCancel(ctx)
		if err := notLinked(s.root, ledgerFile); err != nil {
			l.err = err
			return
		}
		path := filepath.Join(s.dir, ledgerFile)
		if !s.writer {
			if _, err := s.root.Stat(ledgerFile); errors.Is(err, os.ErrNotExist) {
				return
			}
			defer func() {
				if l.db != nil {
					_, err := l.db.ExecContext(ctx, `SELECT started_by FROM crawls LIMIT 0`)
					l.noBy = err != nil
				}
			}()
			if l.db, l.err = openLedgerRead(ctx, path, ""); l.err != nil {
				// As the index (OpenRead): a ledger in WAL mode is read with
				// its shared-memory file, which a reader cannot make on a
				// read-only file system or a full disk; it is then read as
				// it is on disk.
				if db, err := openLedgerRead(ctx, path, "&immutable=1"); err == nil {
					l.db, l.err = db, nil
				}
			}
			return
		}
		// The ledger's writes are many and small (a few pages each): its
		// log is put back into the database every 64 pages and kept to
		// 256 KB, so that it takes no room a full disk would miss.
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=wal_autocheckpoint(64)&_pragma=journal_size_limit(262144)&_txlock=immediate")
		if err == nil {
			db.SetMaxOpenConns(1)
			_, err = db.ExecContext(ctx, ledgerSchema)
		}
		if err == nil {
			err = addStartedBy(ctx, db)
		}
		if err == nil {
			_, err = db.ExecContext(ctx, `UPDATE crawls SET state = ? WHERE state = ?`, ledger.Interrupted, ledger.Running)
		}
		if err == nil {
			err = db.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM frontier`).Scan(&l.seq)
		}
		if err != nil {
			if db != nil {
				db.Close()
			}
			l.err = fmt.Errorf("stash: the crawls' ledger: %w", err)
			return
		}
		l.db, l.active = db, map[int64]bool{}
	})
	return l.db, l.err
}

// addStartedBy adds the started_by column to a ledger an earlier heed
// made without it.
func addStartedBy(ctx context.Context, db *sql.DB) error {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('crawls') WHERE name = 'started_by'`).Scan(&n); err != nil || n > 0 {
		return err
	}
	_, err := db.ExecContext(ctx, `ALTER TABLE crawls ADD COLUMN started_by TEXT NOT NULL DEFAULT ''`)
	return err
}

// openLedgerRead opens the ledger's database at path read-only, and
// reads its crawls' table.
func openLedgerRead(ctx context.Context, path, extra string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)"+extra)
	if err != nil {
		return nil, err
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM crawls WHERE id = 0`).Scan(&n); err != nil {
		db.Close()
		return nil, fmt.Errorf("stash: the crawls' ledger: %w", err)
	}
	return db, nil
}

// writableLedger is the ledger's database, to write.
func (s *Stash) writableLedger(ctx context.Context) (*sql.DB, error) {
	if !s.writer {
		return nil, fmt.Errorf("stash: the crawls' ledger: %w", errBusy)
	}
	return s.ledgerDB(ctx)
}

var errBusy = errors.New("another heed process writes the stash")

func (s *Stash) Begin(ctx context.Context, c ledger.Crawl, resume int64) (ledger.Crawl, []ledger.Entry, error) {
	db, err := s.writableLedger(ctx)
	if err != nil {
		return ledger.Crawl{}, nil, err
	}
	l := &s.crawls
	l.mu.Lock()
	defer l.mu.Unlock()
	var found *ledger.Crawl
	if resume != 0 {
		got, err := s.crawlRow(ctx, db, `SELECT `+s.crawlColumns()+` FROM crawls WHERE id = ?`, resume)
		if err != nil {
			return ledger.Crawl{}, nil, err
		}
		if state := stateOf(got, l.active); !state.Resumable() {
			return ledger.Crawl{}, nil, fmt.Errorf("crawl %d is %s: %w", resume, state, ledger.ErrNotResumable)
		}
		found = &got
	} else {
		rows, err := db.QueryContext(ctx, `SELECT `+s.crawlColumns()+` FROM crawls WHERE key = ? AND state IN (?, ?, ?) ORDER BY id DESC`, c.Key, ledger.Interrupted, ledger.CrawlFailed, ledger.Running)
		if err != nil {
			return ledger.Crawl{}, nil, err
		}
		for rows.Next() {
			got, err := scanCrawl(rows)
			if err != nil {
				rows.Close()
				return ledger.Crawl{}, nil, err
			}
			if stateOf(got, l.active).Resumable() {
				found = &got
				break
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return ledger.Crawl{}, nil, err
		}
	}
	if found == nil {
		c.State, c.Began, c.Ended, c.Resumed = ledger.Running, time.Now().UTC(), time.Time{}, 0
		counts, _ := json.Marshal(c.Counts)
		res, err := db.ExecContext(ctx, `INSERT INTO crawls (key, start, source, state, began, counts, options, started_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			c.Key, c.Start, c.Source, c.State, c.Began.UnixNano(), string(counts), c.Options, c.By)
		if err != nil {
			return ledger.Crawl{}, nil, fmt.Errorf("stash: record a crawl: %w", err)
		}
		if c.ID, err = res.LastInsertId(); err != nil {
			return ledger.Crawl{}, nil, err
		}
		l.active[c.ID] = true
		return c, nil, nil
	}
	options, by := c.Options, c.By
	c = *found
	if options != "" {
		c.Options = options
	}
	// The crawl is whoever takes it up's now (an agent's crawl a person
	// takes up is not taken up by heed mcp again, nor the reverse).
	c.By = by
	if _, err := db.ExecContext(ctx, `UPDATE crawls SET state = ?, resumed = resumed + 1, options = ?, started_by = ? WHERE id = ?`, ledger.Running, c.Options, c.By, c.ID); err != nil {
		return ledger.Crawl{}, nil, err
	}
	c.State = ledger.Running
	c.Resumed++
	// The URLs ended first, in any order; then those queued, in the order
	// they were queued.
	rows, err := db.QueryContext(ctx, `SELECT url, fate, depth, lastmod, via, hash FROM frontier WHERE crawl = ? ORDER BY fate = 'queued', seq`, c.ID)
	if err != nil {
		return ledger.Crawl{}, nil, err
	}
	defer rows.Close()
	var entries []ledger.Entry
	for rows.Next() {
		var e ledger.Entry
		var via string
		if err := rows.Scan(&e.URL, &e.Fate, &e.Depth, &e.LastMod, &via, &e.Hash); err != nil {
			return ledger.Crawl{}, nil, err
		}
		if via != "" {
			e.Via = strings.Split(via, "\n")
		}
		entries = append(entries, e)
	}
	if err := rows.Err(); err != nil {
		return ledger.Crawl{}, nil, err
	}
	l.active[c.ID] = true
	return c, entries, nil
}

// stateOf is a crawl's state as this Stash, the stash's writer, knows
// it: one it runs is running, whatever the row says; one the row says is
// running that it does not run is interrupted, as no other process can
// run it (the writer lock is this one's): its end could not be recorded
// (a full disk).
func stateOf(c ledger.Crawl, active map[int64]bool) ledger.State {
	switch {
	case active[c.ID]:
		return ledger.Running
	case c.State == ledger.Running:
		return ledger.Interrupted
	}
	return c.State
}

func (s *Stash) Write(ctx context.Context, id int64, entries []ledger.Entry, counts ledger.Counts, turns []ledger.Turn) error {
	db, err := s.writableLedger(ctx)
	if err != nil {
		return err
	}
	l := &s.crawls
	l.mu.Lock()
	defer l.mu.Unlock()
	cj, err := json.Marshal(counts)
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("stash: the crawls' ledger: %w", err)
	}
	defer tx.Rollback()
	seq := l.seq
	err = execEach(ctx, tx, `
		INSERT INTO frontier (crawl, url, fate, depth, lastmod, via, hash, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (crawl, url) DO UPDATE SET fate = excluded.fate, depth = excluded.depth, lastmod = excluded.lastmod,
			via = excluded.via, hash = excluded.hash,
			seq = CASE WHEN excluded.fate = 'queued' OR excluded.fate IN ('stored', 'unchanged') AND frontier.fate NOT IN ('stored', 'unchanged')
				THEN excluded.seq ELSE frontier.seq END`,
		len(entries), func(i int) []any {
			e := entries[i]
			seq++
			return []any{id, e.URL, e.Fate, e.Depth, e.LastMod, strings.Join(e.Via, "\n"), e.Hash, seq}
		})
	if err == nil {
		err = execEach(ctx, tx, `INSERT INTO turns (host, at) VALUES (?, ?) ON CONFLICT (host) DO UPDATE SET at = max(at, excluded.at)`,
			len(turns), func(i int) []any { return []any{turns[i].Host, turns[i].At.UnixNano()} })
	}
	if err != nil {
		return fmt.Errorf("stash: the crawls' ledger: %w", err)
	}
	if _, err = tx.ExecContext(ctx, `UPDATE crawls SET counts = ? WHERE id = ? AND state = ?`, string(cj), id, ledger.Running); err != nil {
		return fmt.Errorf("stash: the crawls' ledger: %w", err)
	}
	if err = tx.Commit(); err != nil {
		return fmt.Errorf("stash: the crawls' ledger: %w", err)
	}
	l.seq = seq
	return nil
}

// execEach runs query in tx n times, with the arguments args gives each.
func execEach(ctx context.Context, tx *sql.Tx, query string, n int, args func(i int) []any) error {
	if n == 0 {
		return nil
	}
	st, err := tx.PrepareContext(ctx, query)
	if err != nil {
		return err
	}
	defer st.Close()
	for i := range n {
		if _, err := st.ExecContext(ctx, args(i)...); err != nil {
			return err
		}
	}
	return nil
}

func (s *Stash) Finish(ctx context.Context, id int64, state ledger.State, counts ledger.Counts) error {
	db, err := s.writableLedger(ctx)
	if err != nil {
		return err
	}
	l := &s.crawls
	l.mu.Lock()
	defer l.mu.Unlock()
	cj, err := json.Marshal(counts)
	if err != nil {
		return err
	}
	// The crawl runs no more, whether its end is recorded or not.
	delete(l.active, id)
	res, err := db.ExecContext(ctx, `UPDATE crawls SET state = ?, ended = ?, counts = ? WHERE id = ? AND state = ?`,
		state, time.Now().UnixNano(), string(cj), id, ledger.Running)
	if err != nil {
		return fmt.Errorf("stash: the crawls' ledger: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("crawl %d: %w", id, ledger.ErrNoCrawl)
	}
	if !state.Resumable() {
		// A crawl that ended is not resumed: of its frontier, only the
		// pages it kept are (ledger.Kept), and only for the last
		// keptCrawls crawls that ended.
		if _, err := db.ExecContext(ctx, `DELETE FROM frontier WHERE crawl = ? AND fate NOT IN ('stored', 'unchanged')`, id); err != nil {
			return fmt.Errorf("stash: the crawls' ledger: %w", err)
		}
		if _, err := db.ExecContext(ctx, `DELETE FROM frontier WHERE crawl IN (
			SELECT id FROM crawls WHERE state IN (?, ?) ORDER BY id DESC LIMIT -1 OFFSET ?)`, ledger.Done, ledger.Cancelled, keptCrawls); err != nil {
			return fmt.Errorf("stash: the crawls' ledger: %w", err)
		}
	}
	return nil
}

// keptCrawls is how many of the crawls that ended keep the list of the
// pages they kept: a crawl of 1,000 pages keeps some 100 KB.
const keptCrawls = 50

// crawlColumns are the columns scanCrawl reads. A ledger an earlier heed
// made, read by a reader before any writer added started_by to it, has
// none: its crawls were all started at the command line.
func (s *Stash) crawlColumns() string {
	by := "started_by"
	if s.crawls.noBy {
		by = "''"
	}
	return `id, key, start, source, state, began, ended, counts, resumed, options, ` + by
}

type scanner interface{ Scan(dest ...any) error }

func scanCrawl(r scanner) (ledger.Crawl, error) {
	var c ledger.Crawl
	var began, ended int64
	var counts string
	if err := r.Scan(&c.ID, &c.Key, &c.Start, &c.Source, &c.State, &began, &ended, &counts, &c.Resumed, &c.Options, &c.By); err != nil {
		return ledger.Crawl{}, err
	}
	c.Began = time.Unix(0, began).UTC()
	if ended != 0 {
		c.Ended = time.Unix(0, ended).UTC()
	}
	if err := json.Unmarshal([]byte(counts), &c.Counts); err != nil {
		return ledger.Crawl{}, fmt.Errorf("crawl %d: its counts: %w", c.ID, err)
	}
	return c, nil
}

func (s *Stash) crawlRow(ctx context.Context, db *sql.DB, query string, args ...any) (ledger.Crawl, error) {
	c, err := scanCrawl(db.QueryRowContext(ctx, query, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return ledger.Crawl{}, fmt.Errorf("crawl %d: %w", args[0], ledger.ErrNoCrawl)
	}
	return c, err
}

func (s *Stash) Crawls(ctx context.Context, limit int) ([]ledger.Crawl, error) {
	db, err := s.ledgerDB(ctx)
	if err != nil || db == nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT `+s.crawlColumns()+` FROM crawls ORDER BY id DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("stash: the crawls' ledger: %w", err)
	}
	defer rows.Close()
	var out []ledger.Crawl
	for rows.Next() {
		c, err := scanCrawl(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close() // seen waits on a write, which waits for the writer's one connection
	for i := range out {
		out[i] = s.seen(out[i])
	}
	return out, nil
}

func (s *Stash) Crawl(ctx context.Context, id int64) (ledger.Crawl, error) {
	db, err := s.ledgerDB(ctx)
	if err != nil {
		return ledger.Crawl{}, err
	}
	if db == nil {
		return ledger.Crawl{}, fmt.Errorf("crawl %d: %w", id, ledger.ErrNoCrawl)
	}
	c, err := s.crawlRow(ctx, db, `SELECT `+s.crawlColumns()+` FROM crawls WHERE id = ?`, id)
	if err != nil {
		return ledger.Crawl{}, err
	}
	return s.seen(c), nil
}

// seen is a crawl as this Stash sees it: to the writer, as it knows it
// (stateOf); to a reader, one recorded as running while no process
// writes the stash was left by a process that died.
func (s *Stash) seen(c ledger.Crawl) ledger.Crawl {
	switch {
	case c.State != ledger.Running:
	case s.writer:
		s.crawls.mu.Lock()
		c.State = stateOf(c, s.crawls.active)
		s.crawls.mu.Unlock()
	case !s.writerAlive():
		c.State = ledger.Interrupted
	}
	return c
}

// writerAlive reports whether a process holds the stash's writer lock.
func (s *Stash) writerAlive() bool {
	f, err := s.root.OpenFile(lockName, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close() // closing the file lets go of a lock taken here
	return !lockFile(f)
}

func (s *Stash) Kept(ctx context.Context, id, after int64, limit int) ([]ledger.Kept, error) {
	db, err := s.ledgerDB(ctx)
	if err != nil {
		return nil, err
	}
	if db == nil {
		return nil, fmt.Errorf("crawl %d: %w", id, ledger.ErrNoCrawl)
	}
	if _, err := s.crawlRow(ctx, db, `SELECT `+s.crawlColumns()+` FROM crawls WHERE id = ?`, id); err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT url, fate, seq FROM frontier WHERE crawl = ? AND seq > ? AND fate IN ('stored', 'unchanged') ORDER BY seq LIMIT ?`, id, after, max(limit, 0))
	if err != nil {
		return nil, fmt.Errorf("stash: the crawls' ledger: %w", err)
	}
	defer rows.Close()
	var out []ledger.Kept
	for rows.Next() {
		var k ledger.Kept
		if err := rows.Scan(&k.URL, &k.Fate, &k.Seq); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

func (s *Stash) Turns(ctx context.Context) ([]ledger.Turn, error) {
	db, err := s.ledgerDB(ctx)
	if err != nil || db == nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT host, at FROM turns WHERE at > ?`, time.Now().UnixNano())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ledger.Turn
	for rows.Next() {
		var t ledger.Turn
		var at int64
		if err := rows.Scan(&t.Host, &at); err != nil {
			return nil, err
		}
		t.At = time.Unix(0, at)
		out = append(out, t)
	}
	return out, rows.Err()
}

func (s *Stash) Robots(ctx context.Context, origin string) (ledger.Robots, bool, error) {
	db, err := s.ledgerDB(ctx)
	if err != nil || db == nil {
		return ledger.Robots{}, false, err
	}
	r := ledger.Robots{Origin: origin}
	var until int64
	err = db.QueryRowContext(ctx, `SELECT status, http_status, cause, body, until FROM robots WHERE origin = ? AND until > ?`, origin, time.Now().UnixNano()).
		Scan(&r.Status, &r.HTTPStatus, &r.Cause, &r.Body, &until)
	if errors.Is(err, sql.ErrNoRows) {
		return ledger.Robots{}, false, nil
	}
	if err != nil {
		return ledger.Robots{}, false, err
	}
	r.Until = time.Unix(0, until)
	return r, true, nil
}

func (s *Stash) PutRobots(ctx context.Context, r ledger.Robots) error {
	db, err := s.writableLedger(ctx)
	if err != nil {
		return err
	}
	s.crawls.mu.Lock()
	defer s.crawls.mu.Unlock()
	if r.Body == nil {
		r.Body = []byte{}
	}
	_, err = db.ExecContext(ctx, `
		INSERT INTO robots (origin, status, http_status, cause, body, until) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (origin) DO UPDATE SET status = excluded.status, http_status = excluded.http_status,
			cause = excluded.cause, body = excluded.body, until = excluded.until`,
		r.Origin, r.Status, r.HTTPStatus, r.Cause, r.Body, r.Until.UnixNano())
	return err
}
