package polite

import (
	"context"
	"errors"
	"net/url"
	"strings"
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
	busy  chan struct{} // holds a token while a request to the host is out
	next  time.Time     // no request before this
	users int           // callers waiting for or holding the slot
}

// maxHostLen is the longest host (with its port) a Schedule takes.
const maxHostLen = 300

// sweepAt is how many hosts a Schedule holds before it forgets those no
// one waits for whose delay has passed.
const sweepAt = 1024

// NewSchedule returns an empty schedule.
func NewSchedule() *Schedule {
	return &Schedule{hosts: map[string]*slot{}, now: time.Now, sleep: wait.Sleep}
}

// ErrHostTooLong is returned by Acquire for a host (with its port)
// longer than any a request may name, 300 bytes.
var ErrHostTooLong = errors.New("the host name is too long")

// errPastDeadline is returned when the wait for a host would end after the
// crawl's deadline.
var errPastDeadline = errors.New("the next request to this host would come after the deadline")

// Acquire waits until the host may be asked again: until no other request
// to it is out and its delay has passed. It never sleeps past ctx's
// deadline. The caller must call release when its request is done, with
// the delay to keep before the next one.
func (s *Schedule) Acquire(ctx context.Context, host string) (release func(delay time.Duration), err error) {
	if len(host) > maxHostLen {
		return nil, ErrHostTooLong
	}
	s.mu.Lock()
	sl, ok := s.hosts[host]
	if !ok {
		if len(s.hosts) >= sweepAt {
			s.sweep()
		}
		sl = &slot{busy: make(chan struct{}, 1)}
		s.hosts[strings.Clone(host)] = sl // not a piece of a long URL
	}
	sl.users++
	s.mu.Unlock()
	leave := func() {
		s.mu.Lock()
		sl.users--
		s.mu.Unlock()
	}
	select {
	case sl.busy <- struct{}{}:
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
	s.mu.Lock()
	wait := sl.next.Sub(s.now())
	s.mu.Unlock()
	if wait > 0 {
		if deadline, ok := ctx.Deadline(); ok && s.now().Add(wait).After(deadline) {
			<-sl.busy
			leave()
			return nil, errPastDeadline
		}
		if hook, ok := ctx.Value(waitKey{}).(func(string, time.Duration)); ok {
			hook(host, wait)
		}
		if err := s.sleep(ctx, wait); err != nil {
			<-sl.busy
			leave()
			return nil, err
		}
	}
	return func(delay time.Duration) {
		s.mu.Lock()
		sl.next = s.now().Add(delay)
		sl.users--
		s.mu.Unlock()
		<-sl.busy
	}, nil
}

type waitKey struct{}

// WithWaiting is ctx carrying a function that Schedule.Acquire calls
// with the host and how long it is about to wait for the host's turn,
// so that the work waiting can say why it is silent.
func WithWaiting(ctx context.Context, hook func(host string, wait time.Duration)) context.Context {
	return context.WithValue(ctx, waitKey{}, hook)
}

// sweep forgets the hosts no one waits for or holds whose delay has
// passed: a long-running Schedule (the MCP server's) does not grow with
// every host it ever saw. s.mu is held.
func (s *Schedule) sweep() {
	now := s.now()
	for h, sl := range s.hosts {
		if sl.users == 0 && !sl.next.After(now) {
			delete(s.hosts, h)
		}
	}
}

// HostKey is u's host as heed schedules it, the one key of a host's
// turns: lower case, without a trailing dot or the scheme's default port.
// A crawl writes its URLs' hosts so (crawl.Normalize).
func HostKey(u *url.URL) string {
	host, port := strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), u.Port()
	if u.Scheme == "http" && port == "80" || u.Scheme == "https" && port == "443" {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return host
}

// Hold keeps the host from being asked before until: a crawl taken up
// again keeps the turn it had recorded for the host.
func (s *Schedule) Hold(host string, until time.Time) {
	if len(host) > maxHostLen {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sl, ok := s.hosts[host]
	if !ok {
		if len(s.hosts) >= sweepAt {
			s.sweep()
		}
		sl = &slot{busy: make(chan struct{}, 1)}
		s.hosts[strings.Clone(host)] = sl
	}
	if until.After(sl.next) {
		sl.next = until
	}
}
