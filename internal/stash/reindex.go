package stash

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/atomicfile"
)

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
	if err := s.dropVersions(ctx); err != nil {
		return int(n), err
	}
	// Only the snapshots' files went; what else a person keeps in the
	// source's folder stays, and only folders left empty are removed.
	s.removeEmptyDirs(sourceDir(source))
	if old := safeName(source); old != sourceDir(source) {
		// The folder of a source whose name ends in ".md", as an older
		// heed named it.
		s.removeEmptyDirs(old)
	}
	return int(n), nil
}

// removeEmptyDirs removes the folder dir, within the stash, and the
// folders under it that hold nothing. A symbolic link is no folder: what
// it leads to is left alone.
func (s *Stash) removeEmptyDirs(dir string) {
	if fi, err := s.root.Lstat(dir); err != nil || !fi.IsDir() {
		return
	}
	f, err := s.root.Open(dir)
	if err != nil {
		return
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() {
			s.removeEmptyDirs(filepath.Join(dir, e.Name()))
		}
	}
	s.root.Remove(dir) // fails, as it should, if anything is left
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
	if err := s.root.WriteFile(reindexMarker, nil, 0o644); err != nil {
		return 0, fmt.Errorf("stash: %w", err)
	}
	// The links a crawl follows are crawl state, kept in the index and not
	// in the files: carry over what the old index knew.
	links, err := s.allLinks(ctx)
	if err != nil {
		return 0, err
	}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO fts(fts) VALUES ('delete-all'); DELETE FROM docs; DELETE FROM versions;`); err != nil {
		return 0, fmt.Errorf("stash: %w", err)
	}
	n := 0
	var bad, damaged []string
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
		pg, err := s.readPage(path)
		if err != nil || pg.URL == "" {
			bad = append(bad, path)
			return nil
		}
		// A URL with two files (an older heed's move, cut short, left the
		// old one) is indexed at its newest, by when it was fetched.
		at, again := fetched[pg.URL]
		if again && pg.FetchedAt.Before(at) {
			return nil
		}
		fetched[pg.URL] = pg.FetchedAt
		rel, _ := filepath.Rel(s.dir, path)
		if _, unreadable := pastOf(pg); len(unreadable) > 0 {
			damaged = append(damaged, filepath.ToSlash(rel))
		}
		if err := s.restore(ctx, pg, filepath.ToSlash(rel), synced); err != nil {
			return err
		}
		if l := links[pg.URL]; l != "" {
			if _, err := s.db.ExecContext(ctx, `UPDATE docs SET links = ? WHERE url = ?`, l, pg.URL); err != nil {
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
	if len(bad) == 0 && len(damaged) == 0 {
		// The texts no entry names go, but only where every file was
		// read whole: a file skipped, or an entry that cannot be read,
		// may name a text still.
		if err := s.dropVersions(ctx); err != nil {
			return n, err
		}
	}
	s.root.Remove(reindexMarker)
	var errs []error
	switch len(damaged) {
	case 0:
	case 1:
		errs = append(errs, fmt.Errorf("%w: %s (heed history shows them)", ErrDamagedHistory, damaged[0]))
	default:
		errs = append(errs, fmt.Errorf("%w: %d files, such as %s (heed history shows them)", ErrDamagedHistory, len(damaged), damaged[0]))
	}
	if len(bad) > 0 {
		if len(bad) == 1 {
			errs = append(errs, fmt.Errorf("%w: 1 file was skipped: %s", errNotSnapshots, bad[0]))
		} else {
			errs = append(errs, fmt.Errorf("%w: %d files were skipped, such as %s", errNotSnapshots, len(bad), bad[0]))
		}
	}
	return n, errors.Join(errs...)
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

// ErrDamagedHistory is wrapped by Reindex's error when the histories of
// some snapshots hold entries that cannot be read: they are kept, as
// they are, and the snapshots indexed with the entries that can.
var ErrDamagedHistory = errors.New("stash: reindex: some histories hold entries that cannot be read")

// errNotSnapshots is wrapped by Reindex's error when some Markdown files
// of the stash are not snapshots (a person's own notes, say).
var errNotSnapshots = errors.New("stash: reindex: some files are not snapshots")
