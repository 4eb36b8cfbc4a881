package stash

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
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
					s.Search(ctx, Query{Text: "body"})
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
