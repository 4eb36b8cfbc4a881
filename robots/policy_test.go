package robots

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// files is a loader over a map of robots.txt URL to (status, body), which
// counts how often each URL was loaded.
type files struct {
	mu    sync.Mutex
	files map[string]string // "200 body" or "503"
	loads map[string]int
}

func (f *files) load(_ context.Context, robotsURL string) (Outcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.loads == nil {
		f.loads = map[string]int{}
	}
	f.loads[robotsURL]++
	spec, ok := f.files[robotsURL]
	if !ok {
		return OutcomeOf(404, nil, nil), nil
	}
	var status int
	fmt.Sscanf(spec, "%d", &status)
	_, body, _ := strings.Cut(spec, " ")
	return OutcomeOf(status, []byte(body), nil), nil
}

func (f *files) count(u string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.loads[u]
}

// clock is a settable time source.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestCacheDecides(t *testing.T) {
	f := &files{files: map[string]string{
		"https://a.example/robots.txt":     "200 User-agent: *\nDisallow: /private/\nCrawl-delay: 2\nContent-Signal: ai-input=no\n",
		"https://down.example/robots.txt":  "503",
		"http://a.example:8080/robots.txt": "200 User-agent: *\nDisallow: /\n",
	}}
	c := NewCache(f.load, CacheConfig{})
	ctx := t.Context()
	tests := []struct {
		url  string
		want bool
	}{
		{"https://a.example/private/x", false},
		{"https://A.example/public", true},
		{"https://a.example:443/private/", false},
		{"https://down.example/anything", false},
		{"https://down.example/robots.txt", true},
		{"https://missing.example/anything", true},
		{"http://a.example:8080/x", false},
	}
	for _, tt := range tests {
		d, err := c.Allowed(ctx, "heed/0.1", tt.url)
		if err != nil || d.Allowed != tt.want {
			t.Errorf("Allowed(%q) got %s, %v, want %v", tt.url, d, err, tt.want)
		}
	}
	if n := f.count("https://a.example/robots.txt"); n != 1 {
		t.Errorf("a.example loaded %d times, want 1", n)
	}
	if d, err := c.CrawlDelay(ctx, "heed", "https://a.example/"); d != 2*time.Second || err != nil {
		t.Errorf("CrawlDelay got %v, %v, want 2s", d, err)
	}
	if s, err := c.ContentSignals(ctx, "heed", "https://a.example/"); !s.Denies(SignalAIInput) || err != nil {
		t.Errorf("ContentSignals got %v, %v, want ai-input=no", s, err)
	}
	if _, err := c.Allowed(ctx, "heed", "ftp://a.example/x"); err == nil {
		t.Errorf("Allowed(ftp URL): no error")
	}
	if n := f.count("https://a.example/robots.txt"); n != 1 {
		t.Errorf("a.example loaded %d times, want 1", n)
	}
}

func TestCacheSharesOneLoad(t *testing.T) {
	var loads atomic.Int32
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	c := NewCache(func(ctx context.Context, u string) (Outcome, error) {
		loads.Add(1)
		started <- struct{}{}
		<-release
		return OutcomeOf(200, []byte("User-agent: *\nDisallow: /x\n"), nil), nil
	}, CacheConfig{})
	var wg sync.WaitGroup
	results := make([]bool, 20)
	for i := range results {
		wg.Go(func() {
			d, err := c.Allowed(t.Context(), "heed", fmt.Sprintf("https://one.example/x/%d", i))
			results[i] = err == nil && !d.Allowed
		})
	}
	<-started
	close(release)
	wg.Wait()
	if n := loads.Load(); n != 1 {
		t.Errorf("%d loads for one origin, want 1", n)
	}
	for i, ok := range results {
		if !ok {
			t.Errorf("lookup %d did not get the shared outcome", i)
		}
	}
}

func TestCacheLifetime(t *testing.T) {
	f := &files{files: map[string]string{
		"https://ok.example/robots.txt":   "200 User-agent: *\nDisallow: /x\n",
		"https://down.example/robots.txt": "500",
	}}
	clk := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c := NewCache(f.load, CacheConfig{Now: clk.Now})
	ctx := t.Context()
	look := func() {
		for _, u := range []string{"https://ok.example/a", "https://down.example/a"} {
			if _, err := c.Allowed(ctx, "heed", u); err != nil {
				t.Fatal(err)
			}
		}
	}
	look()
	clk.Advance(time.Hour - time.Second)
	look()
	if a, b := f.count("https://ok.example/robots.txt"), f.count("https://down.example/robots.txt"); a != 1 || b != 1 {
		t.Fatalf("within an hour: loads %d, %d, want 1, 1", a, b)
	}
	clk.Advance(time.Second)
	look()
	if a, b := f.count("https://ok.example/robots.txt"), f.count("https://down.example/robots.txt"); a != 1 || b != 2 {
		t.Fatalf("after an hour: loads %d, %d, want 1, 2 (unreachable lives an hour)", a, b)
	}
	clk.Advance(23 * time.Hour)
	look()
	if a := f.count("https://ok.example/robots.txt"); a != 2 {
		t.Fatalf("after a day: parsed file loaded %d times, want 2", a)
	}
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	f := &files{}
	c := NewCache(f.load, CacheConfig{Size: 2})
	ctx := t.Context()
	for _, host := range []string{"a", "b", "a", "c", "a", "b"} {
		if _, err := c.Allowed(ctx, "heed", "https://"+host+".example/"); err != nil {
			t.Fatal(err)
		}
	}
	// a b → a is used again → c evicts b → a still held → b evicts c.
	for host, want := range map[string]int{"a": 1, "b": 2, "c": 1} {
		if got := f.count("https://" + host + ".example/robots.txt"); got != want {
			t.Errorf("%s loaded %d times, want %d", host, got, want)
		}
	}
	if got := len(c.entries); got != 2 {
		t.Errorf("cache holds %d origins, want 2", got)
	}
}

func TestCacheDoesNotCacheErrors(t *testing.T) {
	refused := errors.New("fetch: destination 10.0.0.1 is not public")
	calls := 0
	c := NewCache(func(context.Context, string) (Outcome, error) {
		calls++
		if calls == 1 {
			return Outcome{}, refused
		}
		return OutcomeOf(404, nil, nil), nil
	}, CacheConfig{})
	if _, err := c.Allowed(t.Context(), "heed", "https://x.example/"); !errors.Is(err, refused) {
		t.Fatalf("first lookup: got %v, want the loader's error", err)
	}
	if d, err := c.Allowed(t.Context(), "heed", "https://x.example/"); err != nil || !d.Allowed {
		t.Fatalf("second lookup: got %v, %v, want a fresh load that allows", d, err)
	}
	if calls != 2 {
		t.Errorf("loader called %d times, want 2", calls)
	}
}

func TestCacheCancelledLoaderDoesNotFailOthers(t *testing.T) {
	loading := make(chan struct{})
	var calls atomic.Int32
	c := NewCache(func(ctx context.Context, u string) (Outcome, error) {
		if calls.Add(1) == 1 {
			close(loading)
			<-ctx.Done()
			return Outcome{}, ctx.Err()
		}
		return OutcomeOf(200, []byte("User-agent: *\nDisallow: /\n"), nil), nil
	}, CacheConfig{})
	first, cancel := context.WithCancel(t.Context())
	firstErr := make(chan error, 1)
	go func() {
		_, err := c.Allowed(first, "heed", "https://x.example/a")
		firstErr <- err
	}()
	<-loading
	second := make(chan Decision, 1)
	go func() {
		d, err := c.Allowed(t.Context(), "heed", "https://x.example/a")
		if err != nil {
			t.Errorf("second lookup: %v", err)
		}
		second <- d
	}()
	cancel()
	if err := <-firstErr; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled lookup: got %v, want context.Canceled", err)
	}
	if d := <-second; d.Allowed || d.Reason != ReasonRule {
		t.Errorf("second lookup: got %s, want disallowed by the rule", d)
	}
}

// TestCacheCancelledLoadNotCached follows the Loader contract: a loader
// turns a cancelled request into an "unreachable" outcome, which must not
// be cached for an hour on behalf of a caller that gave up.
func TestCacheCancelledLoadNotCached(t *testing.T) {
	var calls atomic.Int32
	c := NewCache(func(ctx context.Context, u string) (Outcome, error) {
		if calls.Add(1) == 1 {
			<-ctx.Done()
			return OutcomeOf(0, nil, ctx.Err()), nil
		}
		return OutcomeOf(404, nil, nil), nil
	}, CacheConfig{})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	if _, err := c.Allowed(ctx, "heed", "https://x.example/a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timed-out lookup: got %v, want the deadline", err)
	}
	d, err := c.Allowed(t.Context(), "heed", "https://x.example/a")
	if err != nil || !d.Allowed || d.Reason != ReasonUnavailable || calls.Load() != 2 {
		t.Errorf("next lookup: got %s, %v after %d loads, want a fresh load (unavailable, allowed)", d, err, calls.Load())
	}
}

// TestCacheOriginsLoadConcurrently checks that one slow robots.txt does not
// hold up another origin: the slow load finishes only after the fast one.
func TestCacheOriginsLoadConcurrently(t *testing.T) {
	fastDone := make(chan struct{})
	c := NewCache(func(ctx context.Context, u string) (Outcome, error) {
		if strings.Contains(u, "slow") {
			select {
			case <-fastDone:
			case <-ctx.Done():
				return Outcome{}, ctx.Err()
			}
		}
		return OutcomeOf(404, nil, nil), nil
	}, CacheConfig{})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	slow := make(chan error, 1)
	go func() {
		_, err := c.Allowed(ctx, "heed", "https://slow.example/")
		slow <- err
	}()
	if _, err := c.Allowed(ctx, "heed", "https://fast.example/"); err != nil {
		t.Fatalf("fast origin: %v", err)
	}
	close(fastDone)
	if err := <-slow; err != nil {
		t.Errorf("slow origin: %v (held up by the fast one?)", err)
	}
}

func TestCacheKeepsLoadsUnderWay(t *testing.T) {
	release := make(chan struct{})
	var loads atomic.Int32
	c := NewCache(func(ctx context.Context, u string) (Outcome, error) {
		loads.Add(1)
		if strings.Contains(u, "slow") {
			<-release
		}
		return OutcomeOf(404, nil, nil), nil
	}, CacheConfig{Size: 1})
	var wg sync.WaitGroup
	wg.Go(func() { c.Allowed(t.Context(), "heed", "https://slow.example/") })
	for loads.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	// Another origin pushes the cache over its size while slow loads; a
	// second lookup of slow must still join the load under way.
	c.Allowed(t.Context(), "heed", "https://other.example/")
	wg.Go(func() { c.Allowed(t.Context(), "heed", "https://slow.example/") })
	time.Sleep(10 * time.Millisecond) // let the second lookup find the entry
	close(release)
	wg.Wait()
	if n := loads.Load(); n != 2 {
		t.Errorf("%d loads, want 2 (one per origin)", n)
	}
}

func TestCacheHitWithCancelledContext(t *testing.T) {
	c := NewCache((&files{}).load, CacheConfig{})
	if _, err := c.Allowed(t.Context(), "heed", "https://x.example/"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for range 50 {
		if _, err := c.Allowed(ctx, "heed", "https://x.example/"); err != nil {
			t.Fatalf("cached outcome with a cancelled context: %v", err)
		}
	}
}

func TestCacheLoaderPanicLeavesNoEntry(t *testing.T) {
	c := NewCache(func(context.Context, string) (Outcome, error) { panic("boom") }, CacheConfig{})
	func() {
		defer func() {
			if recover() == nil {
				t.Errorf("loader panic was swallowed")
			}
		}()
		c.Allowed(t.Context(), "heed", "https://x.example/")
	}()
	if len(c.entries) != 0 {
		t.Errorf("a failed load stayed in the cache")
	}
}

func TestOff(t *testing.T) {
	var p Policy = Off{}
	d, err := p.Allowed(t.Context(), "heed", "https://x.example/private")
	if err != nil || !d.Allowed || d.Reason != ReasonOff {
		t.Errorf("Off.Allowed got %s, %v", d, err)
	}
	if delay, err := p.CrawlDelay(t.Context(), "heed", "https://x.example/"); delay != 0 || err != nil {
		t.Errorf("Off.CrawlDelay got %v, %v", delay, err)
	}
	if s, err := p.ContentSignals(t.Context(), "heed", "https://x.example/"); s != nil || err != nil {
		t.Errorf("Off.ContentSignals got %v, %v", s, err)
	}
	if p.String() == "" || NewCache(nil, CacheConfig{}).String() == "" || p.String() == NewCache(nil, CacheConfig{}).String() {
		t.Errorf("policies do not describe themselves")
	}
}
