package stash

import (
	"context"
	"fmt"
	"path/filepath"
)

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
		snap, err := s.readFile(filepath.Join(s.dir, filepath.FromSlash(r.path)))
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
		if snap, err := s.readFile(filepath.Join(s.dir, filepath.FromSlash(path))); err != nil || snap.URL != url {
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
