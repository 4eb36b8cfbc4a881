package polite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestScheduleForgetsIdleHosts: a long-running schedule does not keep
// every host it ever saw, but it keeps a host whose delay has not passed,
// and the delay holds.
func TestScheduleForgetsIdleHosts(t *testing.T) {
	s := NewSchedule()
	ctx := t.Context()
	release, err := s.Acquire(ctx, "polite.example")
	if err != nil {
		t.Fatal(err)
	}
	release(time.Hour)
	for i := range 3 * sweepAt {
		release, err := s.Acquire(ctx, fmt.Sprintf("h%d.example", i))
		if err != nil {
			t.Fatal(err)
		}
		release(0)
	}
	s.mu.Lock()
	n := len(s.hosts)
	s.mu.Unlock()
	if n > sweepAt+1 {
		t.Errorf("%d hosts kept after %d idle ones", n, 3*sweepAt)
	}
	short, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if _, err := s.Acquire(short, "polite.example"); !errors.Is(err, errPastDeadline) {
		t.Errorf("a host whose delay had not passed was forgotten: %v", err)
	}
	if _, err := s.Acquire(ctx, strings.Repeat("a", maxHostLen+1)); err == nil {
		t.Errorf("a host name longer than any was taken")
	}
}

// TestScheduleHold: a host held until a time is not asked before it,
// even if never asked in this process; an earlier hold does not shorten
// a later one.
func TestScheduleHold(t *testing.T) {
	s := NewSchedule()
	s.Hold("held.example", time.Now().Add(time.Hour))
	s.Hold("held.example", time.Now().Add(time.Minute))
	short, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if _, err := s.Acquire(short, "held.example"); !errors.Is(err, errPastDeadline) {
		t.Errorf("a host held for an hour was given a turn: %v", err)
	}
	s.Hold("free.example", time.Now().Add(-time.Hour))
	release, err := s.Acquire(short, "free.example")
	if err != nil {
		t.Fatalf("a host held until a time past: %v", err)
	}
	release(0)
}
