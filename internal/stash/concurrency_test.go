package stash

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedhq/heed"
)

// withTimeout fails the test if f has not returned within d: a deadlock.
func withTimeout(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatal("deadlock: timed out")
	}
}

// Writers, readers, reindexing and removal at once: no deadlock on the one
// connection, and nothing left pending.
func TestConcurrentWritesSettle(t *testing.T) {
	defer func(d time.Duration) { maxWait = d }(maxWait)
	maxWait = time.Millisecond
	s := open(t, t.TempDir())
	s.SetBatch(4)
	ctx := t.Context()
	withTimeout(t, 60*time.Second, func() {
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := range 60 {
					u := fmt.Sprintf("https://e.com/%d/%d", w, i%20)
					c := ctx
					if i%7 == 0 {
						cc, cancel := context.WithCancel(ctx)
						cancel()
						c = cc
					}
					s.Put(c, snap(u, "T", fmt.Sprintf("body %d %d", w, i)))
					s.Validators(ctx, "docs", u)
					s.Search(ctx, heed.Query{Text: "body"})
				}
			})
		}
		wg.Go(func() {
			for range 5 {
				s.Reindex(ctx)
				s.Remove(ctx, "none")
				time.Sleep(2 * time.Millisecond)
			}
		})
		wg.Wait()
	})
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	n, _ := s.settleCount(ctx)
	if n != 0 {
		t.Errorf("%d rows pending after flush", n)
	}
}

// Close while Puts, Validators and the flush timer are running: no hang
// or panic, and writes after Close fail.
func TestCloseDuringWrites(t *testing.T) {
	defer func(d time.Duration) { maxWait = d }(maxWait)
	maxWait = time.Millisecond
	for round := range 20 {
		s, err := Open(t.Context(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		s.SetBatch(3)
		ctx := context.Background()
		withTimeout(t, 20*time.Second, func() {
			var wg sync.WaitGroup
			for w := range 3 {
				wg.Go(func() {
					for i := range 30 {
						u := fmt.Sprintf("https://e.com/%d/%d", w, i)
						s.Put(ctx, snap(u, "T", "body"))
						s.Validators(ctx, "docs", u)
					}
				})
			}
			time.Sleep(time.Duration(round) * time.Millisecond)
			s.Close()
			wg.Wait()
		})
		// Use after Close fails; it does not hang or panic.
		withTimeout(t, 5*time.Second, func() {
			if _, err := s.Put(ctx, snap("https://e.com/after", "T", "x")); err == nil {
				t.Errorf("Put after Close succeeded")
			}
			s.Validators(ctx, "docs", "https://e.com/after")
			s.Close()
		})
	}
}

// holdWrites makes the writes of files that hold text wait until the
// returned release is called; started is closed when the first of them
// begins.
func holdWrites(t *testing.T, text string) (started <-chan struct{}, release func()) {
	t.Helper()
	started, release, restore := holdWritesOf(text, nil)
	t.Cleanup(func() { release(); restore() })
	return started, release
}

// holdWritesOf is holdWrites without a test (for a child process): once
// released, the held writes fail with fail if it is not nil. restore puts
// the real writes back.
func holdWritesOf(text string, fail error) (started <-chan struct{}, release, restore func()) {
	start, hold := make(chan struct{}), make(chan struct{})
	var once, first sync.Once
	orig := writeFile
	writeFile = func(root *os.Root, path string, data []byte, sync bool) error {
		if strings.Contains(string(data), text) {
			first.Do(func() { close(start) })
			<-hold
			if fail != nil {
				return fail
			}
		}
		return orig(root, path, data, sync)
	}
	release = func() { once.Do(func() { close(hold) }) }
	return start, release, func() { writeFile = orig }
}

// A page's file is written while other pages are put: a Put does not wait
// for another's file, and both are stored.
func TestPutsWriteFilesAtOnce(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := t.Context()
	started, release := holdWrites(t, "https://e.com/slow")
	slow := make(chan error)
	go func() {
		_, err := s.Put(ctx, snap("https://e.com/slow", "Slow", "the slow page"))
		slow <- err
	}()
	<-started
	withTimeout(t, 10*time.Second, func() {
		if _, err := s.Put(ctx, snap("https://e.com/fast", "Fast", "the fast page")); err != nil {
			t.Error(err)
		}
	})
	release()
	if err := <-slow; err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"https://e.com/slow", "https://e.com/fast"} {
		if got, err := s.Get(ctx, u); err != nil || !strings.Contains(got.Markdown, "page") {
			t.Errorf("Get(%s): %v, %+v", u, err, got)
		}
	}
	if hits, err := s.Search(ctx, heed.Query{Text: "slow"}); err != nil || len(hits) != 1 {
		t.Errorf("search: %v, %d hits", err, len(hits))
	}
}

// Two Puts of one URL write its file one after the other, in the order
// they came: the later one's Markdown is what stays.
func TestPutsOfOneURLInOrder(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := t.Context()
	const u = "https://e.com/page"
	started, release := holdWrites(t, u)
	first := make(chan error)
	go func() {
		_, err := s.Put(ctx, snap(u, "T", "the first version"))
		first <- err
	}()
	<-started
	second := make(chan error)
	go func() {
		_, err := s.Put(ctx, snap(u, "T", "the second version"))
		second <- err
	}()
	select {
	case err := <-second:
		t.Fatalf("the second Put returned (%v) while the first was writing", err)
	case <-time.After(100 * time.Millisecond):
	}
	release()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, u)
	if err != nil || !strings.Contains(got.Markdown, "second version") {
		t.Errorf("Get: %v, %q", err, got.Markdown)
	}
}

// Close waits for a file being written, and indexes it: opened again,
// the stash finds the page with nothing pending.
func TestCloseWaitsForWrites(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	s.SetBatch(64)
	ctx := context.Background()
	started, release := holdWrites(t, "https://e.com/slow")
	put := make(chan error)
	go func() {
		_, err := s.Put(ctx, snap("https://e.com/slow", "Slow", "the slow page"))
		put <- err
	}()
	<-started
	closed := make(chan error)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while a file was being written", err)
	case <-time.After(100 * time.Millisecond):
	}
	release()
	if err := <-put; err != nil {
		t.Fatal(err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	s = open(t, dir)
	if n, _ := s.settleCount(ctx); n != 0 {
		t.Errorf("%d rows pending", n)
	}
	if hits, err := s.Search(ctx, heed.Query{Text: "slow"}); err != nil || len(hits) != 1 {
		t.Errorf("search: %v, %d hits", err, len(hits))
	}
}
