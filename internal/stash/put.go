package stash

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/atomicfile"
	"github.com/heedhq/heed/internal/history"
)

// Put stores a snapshot: its file, written atomically, and its index
// entry. The file is PathFor's (or NamedPath's, for a Name), unless
// another URL's snapshot has a file of that name but for case, when the
// name gets a hash of the URL: snap.Path says which. A snapshot whose
// Markdown is unchanged is not rewritten; Put then only records the new
// validators and time, and reports changed false.
func (s *Stash) Put(ctx context.Context, snap *heed.Snapshot) (changed bool, err error) {
	return s.put(ctx, snap, nil)
}

// put is Put, or, with rm, MarkRemoved's rewrite of a page's file with a
// removal in its history. The history the file holds is its old file's
// with the new entry (history.Record, history.Remove), and the text of
// the version it replaces is kept (keepVersion) before the file is
// written.
func (s *Stash) put(ctx context.Context, snap *heed.Snapshot, rm *removal) (changed bool, err error) {
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
	var oldHash, oldPath, oldState, oldRemoved string
	var oldVersion int
	err = s.queryRow(ctx, `SELECT hash, path, state, removed, version FROM docs WHERE url = ?`, snap.URL).Scan(&oldHash, &oldPath, &oldState, &oldRemoved, &oldVersion)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("stash: %w", err)
	}
	if rm != nil && (oldPath != rm.path || oldHash != rm.hash || oldRemoved != "") {
		return false, nil // rewritten meanwhile: removed by another call, or stored anew
	}
	var path string
	switch {
	case rm != nil:
		path = rm.path
	case snap.Name != "":
		path, err = NamedPath(snap.Name)
	default:
		path, err = PathFor(snap.Source, snap.URL)
	}
	if err == nil && rm == nil {
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
	case rm == nil && oldHash == snap.Hash && oldPath == path && oldState == "ok" && oldRemoved == "":
		_, err := s.exec(ctx, `UPDATE docs SET fetched_at = ?, etag = ?, last_modified = ?, links = ? WHERE url = ?`,
			formatTime(snap.FetchedAt), snap.ETag, snap.LastModified, joinLinks(snap.Links), snap.URL)
		if err != nil {
			return false, writeErr("recording "+path, err)
		}
		snap.Version, snap.Change = max(oldVersion, 1), heed.Unchanged
		return false, nil
	}

	// The page's history: its old file's, and this version or removal.
	past, unreadable, oldText, haveOld, err := s.pastAt(ctx, snap.URL, oldPath, oldHash)
	if err != nil {
		return false, err
	}
	var kept []heed.PageVersion
	keep, keeping := "", false // the text of the version replaced, to keep
	if rm != nil {
		var ok bool
		if kept, _, ok = history.Remove(past, rm.at, rm.why, s.retention); !ok {
			return false, nil
		}
		snap.Change = heed.Removed
	} else {
		at := snap.FetchedAt
		if at.IsZero() {
			at = time.Now()
		}
		v := heed.PageVersion{At: at.UTC(), Hash: snap.Hash, Size: len(snap.Markdown), ETag: snap.ETag, LastModified: snap.LastModified}
		kept, _, snap.Change = history.Record(past, v, s.retention, time.Now())
		snap.Removed = time.Time{}
		if haveOld && snap.Change != heed.Unchanged && heed.HashOf(oldText) != snap.Hash {
			keep, keeping = oldText, true
		}
	}
	snap.Version = currentVersion(kept)
	lines := encodeHistory(kept, unreadable)

	// 1. Record the write as pending: 'creating' a file where there is
	// none, which is written unsynced (writeFile), or 'writing' over one.
	file := s.abs(path)
	state := "writing"
	if _, err := s.root.Lstat(s.rel(file)); errors.Is(err, os.ErrNotExist) {
		state = "creating"
	}
	links := joinLinks(snap.Links)
	if rm != nil {
		links = rm.links
	}
	if err := s.pend(ctx, snap, path, state, leaving, links, kept); err != nil {
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
		return s.unlocked(func() error {
			if keeping {
				if err := s.keepVersion(keep); err != nil {
					return err
				}
			}
			return writeFile(s.root, s.rel(file), encode(snap, lines), synced)
		})
	}()
	if err != nil {
		// The file was not written: the row is made to agree with the
		// files at once (the page at its old file, or none), not left
		// pending until the next Open, with Get not finding the page.
		err = writeErr("writing "+path, s.throughLink(filepath.FromSlash(path), err))
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

// pend records a write of snap to path as pending (state 'creating' or
// 'writing', leaving the file it moves out of), with the page's history
// vs, in one transaction.
func (s *Stash) pend(ctx context.Context, snap *heed.Snapshot, path, state, leaving, links string, vs []heed.PageVersion) error {
	upsert, err := s.stmt(ctx, `INSERT INTO docs (id, url, source, path, title, description, fetched_at, tags, hash, etag, last_modified, links, state, old_path, removed, version)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(url) DO UPDATE SET source = excluded.source, path = excluded.path, title = excluded.title,
			description = excluded.description, fetched_at = excluded.fetched_at, tags = excluded.tags,
			hash = excluded.hash, etag = excluded.etag, last_modified = excluded.last_modified,
			links = excluded.links, state = excluded.state, old_path = excluded.old_path,
			removed = excluded.removed, version = excluded.version`)
	if err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.StmtContext(ctx, upsert).ExecContext(ctx, snap.ID, snap.URL, snap.Source, path, snap.Title, snap.Description, formatTime(snap.FetchedAt),
		strings.Join(snap.Tags, ","), snap.Hash, snap.ETag, snap.LastModified, links, state, leaving,
		removedOf(vs), currentVersion(vs)); err != nil {
		return err
	}
	if err := writeVersions(ctx, tx, snap.URL, vs); err != nil {
		return err
	}
	return tx.Commit()
}

// writeFile writes a snapshot's file in place. A file that replaces one
// is synced first, so that a crash of the system leaves the old one or
// the new one. A new file is not: it is synced with the others of its
// batch (s.files), before its index entry is settled, and until then a
// crash of the system may leave a part of it, which Open drops with its
// row ('creating'), as if it had never been written. Tests hold writes
// up. The file is name within root, the stash's directory.
var writeFile = func(root *os.Root, name string, data []byte, sync bool) error {
	if sync {
		return atomicfile.WriteUnsyncedDirIn(root, name, data)
	}
	return atomicfile.WriteUnsyncedIn(root, name, data)
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

// throughLink says, of a write of the file name that failed, which of its
// folders (or itself) is a symbolic link that leads out of the stash, if
// one is: the stash's root refuses a write through one. A link that the
// root follows, to elsewhere in the stash, is not what failed.
func (s *Stash) throughLink(name string, err error) error {
	link := ""
	for p := name; p != "." && p != string(filepath.Separator); p = filepath.Dir(p) {
		if fi, lerr := s.root.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if _, serr := s.root.Stat(p); serr != nil {
				link = p
			}
		}
	}
	if link == "" {
		return err
	}
	return fmt.Errorf("%s is a symbolic link, and heed writes nothing through one: %w", filepath.ToSlash(link), err)
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
	if snap, err := s.readFile(file); err != nil || snap.URL != url {
		return nil
	}
	if err := s.root.Remove(s.rel(file)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("stash: %w", err)
	}
	return nil
}
