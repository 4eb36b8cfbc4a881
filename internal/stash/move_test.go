package stash

// Tests of a page that moves to another file (its source changed; a name
// that PathFor now escapes; one of two names that an older heed told apart
// by case only), killed or failing at each step: the page is found, at its
// old file or at its new one, and no copy of it is left that no row names.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heedhq/heed"
)

// moveKinds are the moves tested: between sources (as a page that another
// source crawls too), out of a name that PathFor now escapes (/con), and
// out of the name of a pair that an older heed told apart by case only.
var moveKinds = []string{"source", "con", "case"}

// movingStash writes in dir a stash whose page of the URL it returns
// moves to another file when it is put again, changed, in the source it
// returns, and returns the path it moves out of.
func movingStash(t *testing.T, dir, kind string) (url, source, oldPath string) {
	t.Helper()
	s := open(t, dir)
	defer s.Close()
	ctx := t.Context()
	x := snap("https://e.com/page", "X", "version one of X")
	switch kind {
	case "source":
		x.Source = "alpha"
		if _, err := s.Put(ctx, x); err != nil {
			t.Fatal(err)
		}
		return x.URL, "beta", x.Path
	case "con":
		// At con.md, as an older heed named it, before device names were
		// escaped.
		x.URL = "https://e.com/con"
		if _, err := s.Put(ctx, x); err != nil {
			t.Fatal(err)
		}
		olderName(t, s, x, "docs/e.com/con.md")
	case "case":
		// At Readme.md beside readme.md, each its page's, where case is
		// told apart: the first to be put again moves to a name of its own.
		x.URL = "https://e.com/Readme"
		y := snap("https://e.com/readme", "Y", "page Y")
		for _, p := range []*heed.Snapshot{x, y} {
			if _, err := s.Put(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		olderName(t, s, y, "docs/e.com/readme.md")
	}
	asOlderHeed(t, s)
	return x.URL, "docs", x.Path
}

// olderName moves p's file to path, and its row with it, as an older
// heed named it.
func olderName(t *testing.T, s *Stash, p *heed.Snapshot, path string) {
	t.Helper()
	if err := os.Rename(filepath.Join(s.dir, filepath.FromSlash(p.Path)), filepath.Join(s.dir, filepath.FromSlash(path))); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(t.Context(), `UPDATE docs SET path = ? WHERE url = ?`, path, p.URL); err != nil {
		t.Fatal(err)
	}
	p.Path = path
}

const moveChildEnv = "HEED_STASHTEST_MOVE_CHILD"

// moveChild puts version two of a page that moves, holding its file's
// write before the file is written (HEED_STASHTEST_WHEN=before) or
// after (=after), says "ready" and waits to be killed.
func moveChild(dir string) {
	s, err := Open(context.Background(), dir)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(3)
	}
	ready := make(chan struct{})
	orig := writeFile
	writeFile = func(root *os.Root, path string, data []byte, sync bool) error {
		if !strings.Contains(string(data), "version two") {
			return orig(root, path, data, sync)
		}
		if os.Getenv("HEED_STASHTEST_WHEN") == "after" {
			if err := orig(root, path, data, sync); err != nil {
				return err
			}
		}
		close(ready)
		select {}
	}
	x := snap(os.Getenv("HEED_STASHTEST_URL"), "X", "version two of X")
	x.Source = os.Getenv("HEED_STASHTEST_SOURCE")
	go s.Put(context.Background(), x)
	<-ready
	fmt.Println("ready")
	select {}
}

// TestKillDuringMove: a process killed while it moves a page, before its
// new file is written or after, leaves the page found after the next
// Open (the old version or the new), and no file that no row names: not
// the old file, which a reindex then took for the page (it walks
// %63on.md before con.md), bringing the old version back.
func TestKillDuringMove(t *testing.T) {
	for _, kind := range moveKinds {
		for _, when := range []string{"before", "after"} {
			t.Run(kind+"/"+when, func(t *testing.T) {
				dir := t.TempDir()
				u, source, oldPath := movingStash(t, dir, kind)
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), moveChildEnv+"="+dir, "HEED_STASHTEST_URL="+u,
					"HEED_STASHTEST_SOURCE="+source, "HEED_STASHTEST_WHEN="+when)
				stdout, _ := cmd.StdoutPipe()
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				line, _ := bufio.NewReader(stdout).ReadString('\n')
				cmd.Process.Signal(syscall.SIGKILL)
				cmd.Wait()
				if strings.TrimSpace(line) != "ready" {
					t.Fatalf("child: %q", line)
				}
				want := "version one of X"
				if when == "after" {
					want = "version two of X"
				}
				_, orphans := checkAgree(t, dir)
				if len(orphans) > 0 {
					t.Errorf("after the kill and Open, files that no row names: %v", orphans)
				}
				s := open(t, dir)
				got, err := s.Get(t.Context(), u)
				if err != nil || got.Markdown != want {
					t.Fatalf("after the kill and Open, Get %s = %+v, %v; want %q", u, got, err, want)
				}
				if when == "before" && got.Path != oldPath {
					t.Errorf("the page's row names %s, not its old file %s", got.Path, oldPath)
				}
				if _, err := s.Reindex(t.Context()); err != nil {
					t.Fatal(err)
				}
				if got, err := s.Get(t.Context(), u); err != nil || got.Markdown != want {
					t.Errorf("after Reindex, Get %s = %+v, %v; want %q", u, got, err, want)
				}
			})
		}
	}
}

// TestFailedMoveKeepsPage: a move whose new file cannot be written (a
// full disk) leaves the page at its old file, which is whole: Get reads
// it at once and after the next Open, and its links are forgotten, so
// that a re-crawl fetches it whole and moves it then.
func TestFailedMoveKeepsPage(t *testing.T) {
	for _, kind := range moveKinds {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			u, source, oldPath := movingStash(t, dir, kind)
			s := open(t, dir)
			ctx := t.Context()
			x := snap(u, "X", "version two of X")
			x.Source, x.Links, x.ETag = source, []string{"https://e.com/next"}, `"2"`
			_, release, restore := holdWritesOf("version two", syscall.ENOSPC)
			release()
			_, err := s.Put(ctx, x)
			restore()
			if err == nil {
				t.Fatal("the failing write reported no error")
			}
			for _, reopen := range []bool{false, true} {
				if reopen {
					s.Close()
					s = open(t, dir)
				}
				got, err := s.Get(ctx, u)
				if err != nil || got.Markdown != "version one of X" || got.Path != oldPath {
					t.Errorf("after the failed move (reopened %v), Get %s = %+v, %v; want version one at %s", reopen, u, got, err, oldPath)
				}
				if _, _, ok := s.Validators(ctx, source, u); ok {
					t.Errorf("after the failed move (reopened %v), the page has validators: a re-crawl would find it unchanged", reopen)
				}
			}
			if _, err := s.Put(ctx, x); err != nil {
				t.Fatal(err)
			}
			if got, err := s.Get(ctx, u); err != nil || got.Markdown != x.Markdown || got.Path == oldPath {
				t.Errorf("put again: %+v, %v", got, err)
			}
			s.Close()
			if _, orphans := checkAgree(t, dir); len(orphans) > 0 {
				t.Errorf("files that no row names: %v", orphans)
			}
		})
	}
}

// TestGetDuringMove: while a moved page's new file is being written, Get
// reads the page from its old file.
func TestGetDuringMove(t *testing.T) {
	dir := t.TempDir()
	u, source, oldPath := movingStash(t, dir, "source")
	s := open(t, dir)
	ctx := t.Context()
	started, release, restore := holdWritesOf("version two", nil)
	defer restore()
	put := make(chan error)
	go func() {
		x := snap(u, "X", "version two of X")
		x.Source = source
		_, err := s.Put(ctx, x)
		put <- err
	}()
	<-started
	got, err := s.Get(ctx, u)
	release()
	if err != nil || got.Markdown != "version one of X" || got.Path != oldPath {
		t.Errorf("Get during the move = %+v, %v; want version one at %s", got, err, oldPath)
	}
	if err := <-put; err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, u); err != nil || got.Markdown != "version two of X" {
		t.Errorf("Get after the move = %+v, %v", got, err)
	}
}

// putWaits runs put, and reports whether it waits (in Put, on the
// condition that a file it needs is being written) rather than runs to
// its end; it tells which from the goroutines' stacks, so it needs no
// timing. done gets put's error once it ends.
func putWaits(t *testing.T, put func() error) (waits bool, done <-chan error) {
	t.Helper()
	ch := make(chan error, 1)
	go func() { ch <- put() }()
	buf := make([]byte, 1<<20)
	for {
		select {
		case err := <-ch:
			ch <- err
			return false, ch
		default:
		}
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			if strings.Contains(g, "sync.(*Cond).Wait") && strings.Contains(g, "stash.(*Stash).Put") {
				return true, ch
			}
		}
		runtime.Gosched()
	}
}

// TestPutWaitsForMoveOutOfItsFile: while a page moves out of a file, a
// Put of another URL that gets that file (the name now free), or a name
// of it that differs only in case (one file where case is ignored),
// waits until the move has removed it: else its file could be written
// where the move then removes the old one. It fails without the lock on
// the old path during a move, and, for the case variant, without case
// folded keys (writingKey).
func TestPutWaitsForMoveOutOfItsFile(t *testing.T) {
	for _, other := range []string{"http://e.com/Readme", "https://e.com/readme"} {
		t.Run(other, func(t *testing.T) {
			s := open(t, t.TempDir())
			ctx := t.Context()
			x := snap("https://e.com/Readme", "X", "version one of X")
			if _, err := s.Put(ctx, x); err != nil {
				t.Fatal(err)
			}
			oldPath := x.Path
			started, release, restore := holdWritesOf("version two", nil)
			defer restore()
			moved := make(chan error)
			go func() {
				x := snap(x.URL, "X", "version two of X")
				x.Source = "other"
				_, err := s.Put(ctx, x)
				moved <- err
			}()
			<-started
			y := snap(other, "Y", "page Y")
			waits, done := putWaits(t, func() error { _, err := s.Put(ctx, y); return err })
			release()
			if err := <-moved; err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if !waits {
				t.Errorf("the Put of %s, at %s, ran while %s moved out of %s", y.URL, y.Path, x.URL, oldPath)
			}
			if !strings.EqualFold(y.Path, oldPath) {
				t.Errorf("%s is at %s, not the file %s left", y.URL, y.Path, oldPath)
			}
			for _, p := range []*heed.Snapshot{x, y} {
				if got, err := s.Get(ctx, p.URL); err != nil || got.URL != p.URL {
					t.Errorf("Get %s = %+v, %v", p.URL, got, err)
				}
			}
		})
	}
}

// TestSettleLeavesStaleCopy: a page's file may hold an older copy of
// another URL's page (an older heed's move, killed after writing the new
// file, left it with no row). A write there that fails, or is cut short,
// settles its own row, and leaves the other URL's row at its own file:
// it does not point it at the older copy.
func TestSettleLeavesStaleCopy(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	z := snap("https://e.com/z", "Z", "version two of Z")
	if _, err := s.Put(ctx, z); err != nil {
		t.Fatal(err)
	}
	stale := *z
	stale.Markdown = "version one of Z"
	if err := os.WriteFile(filepath.Join(dir, "docs/e.com/x.md"), encode(&stale, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	_, release, restore := holdWritesOf("page X", syscall.ENOSPC)
	release()
	x := snap("https://e.com/x", "X", "page X")
	_, err := s.Put(ctx, x)
	restore()
	if err == nil || x.Path != "docs/e.com/x.md" {
		t.Fatalf("the failing write at %s reported %v", x.Path, err)
	}
	for _, reopen := range []bool{false, true} {
		if reopen {
			s.Close()
			s = open(t, dir)
		}
		if got, err := s.Get(ctx, z.URL); err != nil || got.Markdown != z.Markdown || got.Path != z.Path {
			t.Errorf("after a failed write over its older copy (reopened %v), Get %s = %+v, %v; want %q at %s", reopen, z.URL, got, err, z.Markdown, z.Path)
		}
		if _, err := s.Get(ctx, x.URL); err == nil {
			t.Errorf("the page whose write failed is found (reopened %v)", reopen)
		}
	}
}

// TestReindexKeepsNewestCopy: a stash may hold two files of one URL (an
// older heed's move, killed after writing the new file, left the old one
// with no row). A reindex indexes the page's newest copy, by the time it
// was fetched, whichever file it walks last, and counts the page once.
func TestReindexKeepsNewestCopy(t *testing.T) {
	for _, staleLast := range []bool{true, false} {
		t.Run(fmt.Sprint("staleLast=", staleLast), func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir)
			ctx := t.Context()
			x := snap("https://e.com/con", "X", "version two of X") // at %63on.md
			if _, err := s.Put(ctx, x); err != nil {
				t.Fatal(err)
			}
			stale := *x
			stale.Markdown, stale.FetchedAt = "version one of X", x.FetchedAt.Add(-time.Hour)
			at := "docs/e.com/con.md" // walked after %63on.md
			if !staleLast {
				at = "docs/e.com/%23old.md"
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(at)), encode(&stale, nil), 0o644); err != nil {
				t.Fatal(err)
			}
			if n, err := s.Reindex(ctx); err != nil || n != 1 {
				t.Errorf("Reindex: %d, %v; want 1", n, err)
			}
			if got, err := s.Get(ctx, x.URL); err != nil || got.Markdown != x.Markdown || got.Path != x.Path {
				t.Errorf("after Reindex, Get %s = %+v, %v; want %q at %s", x.URL, got, err, x.Markdown, x.Path)
			}
		})
	}
}
