package stash

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/atomicfile"
)

// reindexMarker exists while a reindex is under way.
const reindexMarker = ".heed/reindexing"

// sweep removes temporary files that a killed write left behind.
func (s *Stash) sweep() {
	filepath.WalkDir(s.dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), atomicfile.TempPrefix) && strings.HasSuffix(d.Name(), ".tmp") {
			s.root.Remove(s.rel(path))
		}
		return nil
	})
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
	pg, err := s.readPage(file)
	var snap *heed.Snapshot
	if err == nil {
		snap = pg.Snapshot
	}
	if p.state == "creating" && s.torn(file, snap, err, p.url) {
		// A crash of the system left a part of a new file (writeFile):
		// it was never written.
		if err := s.root.Remove(s.rel(file)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("stash: %w", err)
		}
		snap, pg, err = nil, nil, os.ErrNotExist
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
		return s.restore(ctx, pg, p.path, false)
	}
	if p.oldPath != "" {
		if old, err := s.readPage(filepath.Join(s.dir, filepath.FromSlash(p.oldPath))); err == nil && old.URL == p.url {
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
			return s.restore(ctx, pg, p.path, false)
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
func (s *Stash) torn(file string, snap *heed.Snapshot, err error, url string) bool {
	if err != nil {
		fi, serr := s.root.Lstat(s.rel(file))
		return serr == nil && fi.Mode().IsRegular()
	}
	return snap.URL == url && snap.Hash != heed.HashOf(snap.Markdown)
}

// restore indexes a snapshot read from its file, synced first unless
// synced says it is: a process killed before its batch's sync leaves
// files whole to read, which a crash of the system could still lose.
func (s *Stash) restore(ctx context.Context, p *page, path string, synced bool) error {
	snap := p.Snapshot
	snap.ID, snap.Path = heed.IDOf(snap.URL), path
	vs, _ := pastOf(p)
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("stash: %w", err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `INSERT INTO docs (id, url, source, path, title, description, fetched_at, tags, hash, etag, last_modified, state, removed, version)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'writing', ?, ?)
		ON CONFLICT(url) DO UPDATE SET source = excluded.source, path = excluded.path, title = excluded.title,
			description = excluded.description, fetched_at = excluded.fetched_at, tags = excluded.tags,
			hash = excluded.hash, etag = excluded.etag, last_modified = excluded.last_modified, state = 'writing', old_path = '',
			removed = excluded.removed, version = excluded.version`,
		snap.ID, snap.URL, snap.Source, path, snap.Title, snap.Description, formatTime(snap.FetchedAt),
		strings.Join(snap.Tags, ","), heed.HashOf(snap.Markdown), snap.ETag, snap.LastModified, removedOf(vs), currentVersion(vs))
	if err == nil {
		err = writeVersions(ctx, tx, snap.URL, vs)
	}
	if err == nil {
		err = tx.Commit()
	}
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
	if _, err := tx.ExecContext(ctx, `DELETE FROM docs WHERE url = ?; DELETE FROM versions WHERE url = ?`, url, url); err != nil {
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
	fi, err := s.root.Stat(s.rel(file))
	for _, p := range others {
		if p == path {
			return true, nil
		}
		if err != nil {
			continue
		}
		if oi, err := s.root.Stat(filepath.FromSlash(p)); err == nil && os.SameFile(fi, oi) {
			return true, nil
		}
	}
	return false, nil
}
