package crawl

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

func TestGlobBounds(t *testing.T) {
	many := make([]string, MaxGlobs+1)
	for i := range many {
		many[i] = fmt.Sprintf("/p%d/", i)
	}
	for _, c := range []struct {
		globs []string
		want  string
	}{
		{many, "at most 32"},
		{[]string{"/" + strings.Repeat("a", maxGlobLen)}, "longer than"},
		{[]string{"/a*b*c*d*e*f*g*h*i*"}, "9 wildcards"},
		{[]string{"/**a**a**a**a**a**a**a**a**b"}, "9 wildcards"},
	} {
		if _, err := globs(c.globs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("globs(%.60q): %v, want an error saying %q", c.globs, err, c.want)
		}
	}
	if _, err := globs([]string{"/docs/**", "/guide/*/intro", "/a?c"}); err != nil {
		t.Errorf("ordinary globs refused: %v", err)
	}
}
