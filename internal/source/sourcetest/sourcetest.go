package sourcetest

import (
	"context"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/internal/source"
	"github.com/heedhq/heed/internal/stash"
	"github.com/heedhq/heed/robots"
)

// Env is a source.Env for tests, with what it said and how long it slept.
type Env struct {
	*source.Env
	// Stash is the Env's store, and Dir its directory.
	Stash *stash.Stash
	Dir   string

	mu       sync.Mutex
	warnings []string
	waits    []time.Duration
	now      time.Time
}

// Start is the time the test clock starts at.
var Start = time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)

// offline resolves every host name to a documentation address, which the
// guarded client refuses before connecting: a test that strays from
// loopback fails instead of reaching out.
type offline struct{}

func (offline) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("192.0.2.1")}, nil
}

// NewEnv returns an Env with a client allowed to reach 127.0.0.1 only,
// robots.txt asked through it, a fresh stash, and a fake clock that advances by what is slept.
func NewEnv(tb testing.TB) *Env {
	tb.Helper()
	st, err := stash.Open(context.Background(), tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	e := &Env{now: Start, Stash: st, Dir: st.Dir()}
	client := fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Resolver: offline{}, Retries: -1})
	e.Env = &source.Env{
		Client:  polite.New(client, polite.NewSchedule(), 0),
		Store:   st,
		Allowed: source.RobotsAllowed(robots.NewCache(client.LoadRobots, robots.CacheConfig{}), "heed"),
		Warn: func(msg string) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.warnings = append(e.warnings, msg)
		},
		Clock: func() time.Time {
			e.mu.Lock()
			defer e.mu.Unlock()
			return e.now
		},
		Sleep: func(ctx context.Context, d time.Duration) error {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.waits = append(e.waits, d)
			e.now = e.now.Add(d)
			return ctx.Err()
		},
	}
	return e
}

// Warnings returns what the Env was told to say.
func (e *Env) Warnings() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.warnings...)
}

// Waits returns how long the Env slept, each time.
func (e *Env) Waits() []time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]time.Duration(nil), e.waits...)
}
