package atomicfile

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
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
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return writeIn(root, filepath.Base(path), data, sync)
}

// WriteIn is Write of the file name within root: no symbolic link leads
// the file, its temporary file or the folders made for them out of root
// (os.Root refuses it).
func WriteIn(root *os.Root, name string, data []byte) error {
	if err := writeIn(root, name, data, true); err != nil {
		return err
	}
	if d, err := root.Open(filepath.Dir(name)); err == nil {
		d.Sync() // the file is written: a directory that cannot be synced is no error
		d.Close()
	}
	return nil
}

// WriteUnsyncedDirIn is WriteUnsyncedDir within root, as WriteIn is Write.
func WriteUnsyncedDirIn(root *os.Root, name string, data []byte) error {
	return writeIn(root, name, data, true)
}

// WriteUnsyncedIn is WriteUnsynced within root, as WriteIn is Write.
func WriteUnsyncedIn(root *os.Root, name string, data []byte) error {
	return writeIn(root, name, data, false)
}

func writeIn(root *os.Root, name string, data []byte, sync bool) error {
	dir := filepath.Dir(name)
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var f *os.File
	var tmp string
	var err error
	for range 100 {
		tmp = filepath.Join(dir, TempPrefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+".tmp")
		f, err = root.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		root.Remove(tmp)
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
