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
	return write(path, data, true)
}

// WriteUnsynced is Write without syncs, for a file that replaces none: a
// reader, or a crash of the process, sees no file or the whole new one,
// but a crash of the system before a Batch's Commit (or a sync of the
// file and its directory) may leave no file, or a part of the new one.
// Its reader must know a part when it sees one.
func WriteUnsynced(path string, data []byte) error {
	return write(path, data, false)
}

func write(path string, data []byte, sync bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, TempPrefix+"*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// syncFile syncs the file at path.
func syncFile(path string) error { return syncPath(path, os.O_WRONLY) }

// SyncDir syncs a directory, so that the names renamed into it last.
func SyncDir(dir string) error { return syncPath(dir, os.O_RDONLY) }

// syncPath opens path with flag and syncs it.
func syncPath(path string, flag int) error {
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
