// Package atomicfile writes files so that a reader, or a crash, sees the
// old file or the new one, never a part.
package atomicfile

import (
	"os"
	"path/filepath"
)

// TempPrefix starts the names of the temporary files Write makes beside
// its target; a crash can leave one behind, to be swept.
const TempPrefix = ".heed-"

// Write writes data to path: to a temporary file in the same directory,
// synced, then renamed over path, and the directory synced.
func Write(path string, data []byte) error {
	if err := WriteUnsyncedDir(path, data); err != nil {
		return err
	}
	SyncDir(filepath.Dir(path)) // the file is written: a directory that cannot be synced is no error
	return nil
}

// WriteUnsyncedDir is Write without the directory's sync: a crash may
// leave the old file, or none, until SyncDir syncs the directory, but
// never a part. A writer of many files syncs each directory once for all.
func WriteUnsyncedDir(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, TempPrefix+"*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename, there is nothing to remove
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// SyncDir syncs a directory, so that the names renamed into it last.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	d.Close()
	return err
}
