package crawl

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/heedhq/heed/internal/wait"
)

// Schedule spaces requests to each host: one at a time, and a delay between
// the end of one and the start of the next. One Schedule can serve many
// crawls at once (the MCP server shares one), so that two crawls of one
// host do not double its load. The zero value is not usable; use
// NewSchedule. A Schedule is safe for concurrent use.
type Schedule struct {
	mu    sync.Mutex
	hosts map[string]*slot
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
}

type slot struct {
	busy chan struct{} // holds a token while a request to the host is out
	next time.Time     // no request before this
}

// NewSchedule returns an empty schedule.
func NewSchedule() *Schedule {
	return &Schedule{hosts: map[string]*slot{}, now: time.Now, sleep: wait.Sleep}
}

// errPastDeadline is returned when the wait for a host would end after the
// crawl's deadline.
var errPastDeadline = errors.New("the next request to this host would come after the deadline")

// Acquire waits until the host may be asked again: until no other request
// to it is out and its delay has passed. It never sleeps past ctx's
// deadline. The caller must call release when its request is done, with
// the delay to keep before the next one.
func (s *Schedule) Acquire(ctx context.Context, host string) (release func(delay time.Duration), err error) {
	s.mu.Lock()
	sl, ok := s.hosts[host]
	if !ok {
		sl = &slot{busy: make(chan struct{}, 1)}
		s.hosts[host] = sl
	}
	s.mu.Unlock()
	select {
	case sl.busy <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	s.mu.Lock()
	wait := sl.next.Sub(s.now())
	s.mu.Unlock()
	if wait > 0 {
		if deadline, ok := ctx.Deadline(); ok && s.now().Add(wait).After(deadline) {
			<-sl.busy
			return nil, errPastDeadline
		}
		if err := s.sleep(ctx, wait); err != nil {
			<-sl.busy
			return nil, err
		}
	}
	return func(delay time.Duration) {
		s.mu.Lock()
		sl.next = s.now().Add(delay)
		s.mu.Unlock()
		<-sl.busy
	}, nil
}
