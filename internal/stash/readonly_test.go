package stash

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed"
)

// smallDisk mounts a tmpfs of size bytes for the test and returns its
// root; remount makes it read-only or writable again. The test is skipped
// where that cannot be done (not root).
func smallDisk(t *testing.T, size int) (dir string, remount func(opts string)) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system (tmpfs) to fill needs root")
	}
	dir = t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mounting a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("unmounting %s: %v: %s", dir, err, out)
		}
	})
	return dir, func(opts string) {
		t.Helper()
		if out, err := exec.Command("mount", "-o", "remount,"+opts, dir).CombinedOutput(); err != nil {
			t.Fatalf("remounting %s %s: %v: %s", dir, opts, err, out)
		}
	}
}

// noise is n bytes of text that does not compress, in words search can
// find beside it.
func noise(n int) string {
	b := make([]byte, n*3/4)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// tree is every file under dir with its size and time, to tell whether
// anything was written.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files[p] = fmt.Sprintf("%d %s", info.Size(), info.ModTime().Format(time.RFC3339Nano))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestOpenReadFullDisk fills the disk under a stash, as a crawl that runs
// out of room does, and reads what it holds: opening to read writes
// nothing (not the write-ahead log, not what the interruption left
// pending), so searches, lists and reads answer from what is there. Then
// the same on the file system made read-only, and on one whose index was
// closed cleanly (no write-ahead log or shared-memory file to read with).
func TestOpenReadFullDisk(t *testing.T) {
	dir, remount := smallDisk(t, 2<<20)
	st, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	stored := 0
	var putErr error
	for i := range 100 {
		s := snap(fmt.Sprintf("https://docs.example.com/p%d", i), fmt.Sprintf("Harbour page %d", i), "Lighthouse keepers log the tides.\n\n"+noise(60<<10))
		if _, putErr = st.Put(t.Context(), s); putErr != nil {
			break
		}
		stored++
	}
	if putErr == nil {
		t.Fatal("100 pages of 60 KB fitted in 2 MB: the disk never filled")
	}
	if stored == 0 {
		t.Fatalf("not one page fitted: %v", putErr)
	}
	t.Logf("%d pages stored before the disk was full: %v", stored, putErr)
	st.Close() // may fail too: the disk is full

	// Opening to write wants to settle what the full disk left, and cannot.
	if w, err := Open(t.Context(), dir); err == nil {
		w.Close()
		t.Log("the stash still opens to write on a full disk")
	}

	check := func(name string) {
		t.Helper()
		before := tree(t, dir)
		r, err := OpenRead(t.Context(), dir)
		if err != nil {
			t.Fatalf("%s: opening to read: %v", name, err)
		}
		if r.Writable() {
			t.Errorf("%s: a stash opened to read says it is writable", name)
		}
		hits, err := r.Search(t.Context(), heed.Query{Text: "lighthouse keepers", Limit: 200})
		if err != nil || len(hits) < stored-1 {
			t.Errorf("%s: search found %d of %d pages: %v", name, len(hits), stored, err)
		}
		for _, h := range hits[:min(len(hits), 3)] {
			if !strings.Contains(h.Snippet, "Lighthouse") && !strings.Contains(h.Snippet, "lighthouse") {
				t.Errorf("%s: a hit's snippet does not say what it found: %q", name, h.Snippet)
			}
		}
		entries, err := r.List(t.Context(), "docs")
		if err != nil || len(entries) < stored-1 {
			t.Errorf("%s: list has %d of %d pages: %v", name, len(entries), stored, err)
		}
		got, err := r.Get(t.Context(), "https://docs.example.com/p0")
		if err != nil || got.Title != "Harbour page 0" {
			t.Errorf("%s: reading a page: %+v, %v", name, got, err)
		}
		if _, err := r.Put(t.Context(), snap("https://docs.example.com/new", "New", "new")); err == nil {
			t.Errorf("%s: a stash opened to read took a write", name)
		}
		if err := r.Close(); err != nil {
			t.Errorf("%s: closing: %v", name, err)
		}
		after := tree(t, dir)
		// The shared-memory index beside a write-ahead log is how readers
		// and writers agree on what to read: a reader marks it, in
		// memory the file already has.
		shm := filepath.Join(dir, indexFile+"-shm")
		delete(before, shm)
		delete(after, shm)
		for p, was := range before {
			if now, ok := after[p]; !ok || now != was {
				t.Errorf("%s: reading changed %s: %q, was %q", name, p, now, was)
			}
		}
		for p := range after {
			if _, ok := before[p]; !ok {
				t.Errorf("%s: reading made %s", name, p)
			}
		}
	}
	check("full disk")
	remount("ro")
	check("read-only")

	// With room again, a writer settles and closes cleanly, leaving no
	// log or shared memory beside the index: a reader on a read-only
	// file system reads the index as it is.
	remount("rw,size=16m")
	w, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatalf("opening to write with room again: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{indexFile + "-wal", indexFile + "-shm"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Fatalf("%s is left after a clean close", f)
		}
	}
	remount("ro")
	check("read-only, closed cleanly")
}
