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
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
