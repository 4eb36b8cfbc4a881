package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Batch makes files written in place last: those written unsynced
// (WriteUnsynced), and the names of all (WriteUnsyncedDir's too). Commit
// syncs them together: where the system syncs a whole file system in one
// call (Linux's syncfs), a batch of files costs one such call instead of
// one or two for each file.
//
// A Batch is not safe for concurrent use.
type Batch struct {
	files  map[string]bool // written unsynced
	dirs   map[string]bool // renamed into
	failed error           // a sync's failure, which is for good
}

// Add adds the file at path, just written in place; synced says whether
// its content was synced (WriteUnsyncedDir) or not (WriteUnsynced).
func (b *Batch) Add(path string, synced bool) {
	if b.dirs == nil {
		b.files, b.dirs = map[string]bool{}, map[string]bool{}
	}
	if !synced {
		b.files[path] = true
	}
	b.dirs[filepath.Dir(path)] = true
}

// Pending reports whether the batch holds anything to sync.
func (b *Batch) Pending() bool { return len(b.dirs) > 0 }

// Commit syncs the batch: its unsynced files, then the directories of
// all. A file or directory removed since holds nothing to keep. A Commit
// that fails fails for good, and so does every later one: the system
// reports a failure to write a file back once, so a later sync that
// succeeds does not mean the data lasts. What the batch held is to be
// settled as after a crash.
func (b *Batch) Commit() error {
	if b.failed != nil {
		return b.failed
	}
	if err := b.commit(); err != nil {
		b.failed = fmt.Errorf("%w: %w", ErrFailed, err)
		return b.failed
	}
	return nil
}

// ErrFailed is wrapped by the error of a Batch's Commit that failed, and
// of every later one.
var ErrFailed = errors.New("a sync of written files failed, and their writer must start again")

func (b *Batch) commit() error {
	if len(b.files)+len(b.dirs) > 2 {
		// More than one file's own syncs: sync the file systems instead.
		dirs := make([]string, 0, len(b.dirs))
		for d := range b.dirs {
			dirs = append(dirs, d)
		}
		done, err := SyncFS(dirs...)
		if err != nil {
			return err
		}
		if done {
			clear(b.files)
			clear(b.dirs)
			return nil
		}
	}
	for f := range b.files {
		if err := syncFile(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		delete(b.files, f)
	}
	for d := range b.dirs {
		if err := SyncDir(d); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		delete(b.dirs, d)
	}
	return nil
}
