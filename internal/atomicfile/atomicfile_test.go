package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// temps lists the temporary files left under dir.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	var left []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), TempPrefix) {
			left = append(left, path)
		}
		return nil
	})
	return left
}

func TestBatchCommit(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		filepath.Join(dir, "a", "1.md"):      "one",
		filepath.Join(dir, "a", "2.md"):      "two",
		filepath.Join(dir, "b", "c", "3.md"): "three",
	}
	var b Batch
	if b.Pending() {
		t.Fatal("an empty batch is pending")
	}
	for path, data := range files {
		if err := WriteUnsynced(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		b.Add(path, false)
	}
	// One written synced, replacing a file: its directory is the batch's.
	replaced := filepath.Join(dir, "a", "1.md")
	if err := WriteUnsyncedDir(replaced, []byte("one, again")); err != nil {
		t.Fatal(err)
	}
	b.Add(replaced, true)
	files[replaced] = "one, again"
	if !b.Pending() {
		t.Fatal("a batch of written files is not pending")
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if b.Pending() {
		t.Error("a committed batch is still pending")
	}
	for path, want := range files {
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", path, got, err, want)
		}
	}
	if left := temps(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A file, or its directory, removed before the commit holds nothing to
// keep: the commit goes on with the rest.
func TestBatchCommitAfterRemoval(t *testing.T) {
	for _, n := range []int{1, 3} { // one file's own syncs, and a batch's
		dir := t.TempDir()
		var b Batch
		for i := range n {
			path := filepath.Join(dir, "gone", string(rune('a'+i))+".md")
			if err := WriteUnsynced(path, []byte("x")); err != nil {
				t.Fatal(err)
			}
			b.Add(path, false)
		}
		if err := os.RemoveAll(filepath.Join(dir, "gone")); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(); err != nil {
			t.Errorf("%d files: %v", n, err)
		}
		if b.Pending() {
			t.Errorf("%d files: still pending", n)
		}
	}
}

// A write that fails leaves neither its target nor a temporary file.
func TestWriteFailureLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "taken")
	if err := os.MkdirAll(filepath.Join(target, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, write := range map[string]func(string, []byte) error{"Write": Write, "WriteUnsyncedDir": WriteUnsyncedDir, "WriteUnsynced": WriteUnsynced} {
		if err := write(target, []byte("x")); err == nil {
			t.Errorf("%s over a directory that holds a file: no error", name)
		}
		if left := temps(t, dir); len(left) > 0 {
			t.Errorf("%s left temporary files: %v", name, left)
		}
	}
}

// A sync that fails fails for good: the system reports a failure to write
// a file back once, so a later Commit that found nothing wrong would say
// that lost data lasts.
func TestBatchFailureIsFinal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dir")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b Batch
	b.Add(dir, false) // no file to open for writing: its sync fails
	if err := b.Commit(); err == nil {
		t.Fatal("a sync that fails: no error")
	}
	// Gone now, it would hold nothing to sync.
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); !errors.Is(err, ErrFailed) {
		t.Errorf("the Commit after a failed one: %v, want ErrFailed", err)
	}
}
