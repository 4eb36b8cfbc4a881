package source

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
)

// RateLimiter makes an API's requests, heeding its rate-limit headers:
// when the last answer said no requests remain, the next waits for the
// reset; a 429 is waited out and asked again. Waits go through the Env's
// clock and never exceed its MaxWait.
type RateLimiter struct {
	Env *Env
	// Service names the API in messages, such as "the Bluesky AppView".
	Service string
	// Remaining and Reset are the headers' names: the requests left in the
	// window, and the Unix time in seconds the window resets.
	Remaining, Reset string

	remaining int // -1: unknown
	reset     time.Time
}

// maxAttempts is how often one request is tried when it keeps answering
// 429.
const maxAttempts = 3

// ErrRateLimited is wrapped by the error of a request whose rate limit
// would take longer than Env.MaxWait to lift.
var ErrRateLimited = errors.New("rate limited")

// Get makes a request, waiting for the rate limit as it asks. Any status
// but 429 is returned as a response.
func (l *RateLimiter) Get(ctx context.Context, req fetch.Request) (*fetch.Response, error) {
	req.NoRetry = true // the waits are ours
	for attempt := 1; ; attempt++ {
		if l.remaining == 0 {
			if err := l.wait(ctx, l.reset, "no requests remain"); err != nil {
				return nil, err
			}
		}
		resp, err := l.Env.Client.Get(ctx, req)
		if err != nil {
			return nil, err
		}
		l.note(resp.Header)
		if resp.Status != http.StatusTooManyRequests {
			return resp, nil
		}
		if attempt == maxAttempts {
			return nil, &heed.Error{Kind: heed.Transient, Op: "get", URL: req.URL,
				Err: fmt.Errorf("%w: %s answered 429 Too Many Requests %d times", ErrRateLimited, l.Service, attempt)}
		}
		until := l.reset
		if d, ok := fetch.RetryAfter(resp.Header.Get("Retry-After"), l.Env.Now()); ok {
			until = l.Env.Now().Add(d)
		}
		if until.IsZero() || !until.After(l.Env.Now()) {
			until = l.Env.Now().Add(time.Duration(attempt) * time.Second)
		}
		if err := l.wait(ctx, until, "429 Too Many Requests"); err != nil {
			return nil, err
		}
		l.remaining = -1
	}
}

// note reads the rate-limit headers of an answer.
func (l *RateLimiter) note(h http.Header) {
	l.remaining = -1
	if v, err := strconv.Atoi(strings.TrimSpace(h.Get(l.Remaining))); err == nil {
		l.remaining = v
	}
	l.reset = time.Time{}
	if v, err := strconv.ParseInt(strings.TrimSpace(h.Get(l.Reset)), 10, 64); err == nil && v > 0 {
		l.reset = time.Unix(v, 0)
	}
}

// wait sleeps until a time, saying why, unless that is past MaxWait.
func (l *RateLimiter) wait(ctx context.Context, until time.Time, why string) error {
	d := until.Sub(l.Env.Now())
	if d <= 0 {
		return nil
	}
	maxWait := l.Env.MaxWait
	if maxWait <= 0 {
		maxWait = DefaultMaxWait
	}
	if d > maxWait {
		return &heed.Error{Kind: heed.Transient, Op: "get", Err: fmt.Errorf("%w: %s (%s) until %s, longer than heed waits (%s); try again then",
			ErrRateLimited, l.Service, why, until.UTC().Format(time.RFC3339), maxWait)}
	}
	if r := d % time.Second; r != 0 {
		d += time.Second - r // wait whole seconds, never less than asked
	}
	l.Env.Warnf("%s: %s; waiting %s for the rate limit to reset", l.Service, why, d)
	return l.Env.sleep(ctx, d)
}
