package fetch

import (
	"context"
	"errors"
	"fmt"

	"github.com/heedhq/heed/robots"
)

// LoadRobots fetches the robots.txt at robotsURL and maps what came of it to
// an outcome, as a robots.Loader: its request carries only User-Agent and
// Accept: text/plain, follows up to five redirects (across origins too;
// the body counts for the origin asked about), and reads at most
// robots.MaxBytes. Any status is an outcome (see robots.OutcomeOf), and so
// are network errors, timeouts and too many redirects (unreachable,
// unreachable and unavailable). Only a URL that the client refuses to
// fetch at all, such as one whose address the network guard refuses, is
// an error: it must never read as "allow all".
func (c *Client) LoadRobots(ctx context.Context, robotsURL string) (robots.Outcome, error) {
	o, _, err := c.loadRobots(ctx, robotsURL, false)
	return o, err
}

// LoadRobotsFile is LoadRobots, with the body that was read (nil for an
// outcome without one), for a cache that keeps the file itself; and it
// makes one request, never retried (a 5xx is unreachable at once), for a
// caller that gives it one turn of its host.
func (c *Client) LoadRobotsFile(ctx context.Context, robotsURL string) (robots.Outcome, []byte, error) {
	return c.loadRobots(ctx, robotsURL, true)
}

func (c *Client) loadRobots(ctx context.Context, robotsURL string, once bool) (robots.Outcome, []byte, error) {
	req := RobotsRequest(robotsURL)
	req.NoRetry = once
	resp, err := c.Get(ctx, req)
	return RobotsOutcome(ctx, resp, err)
}

// RobotsRequest is the request LoadRobotsFile makes for the robots.txt at
// robotsURL, for a caller that makes it hop by hop, each on its host's
// turn, and reads what came of it with RobotsOutcome.
func RobotsRequest(robotsURL string) Request {
	return Request{
		URL:          robotsURL,
		Accept:       "text/plain",
		MaxBytes:     robots.MaxBytes,
		Truncate:     true,
		MaxRedirects: robots.MaxRedirects,
		NoRetry:      true,
		robots:       true,
	}
}

// RobotsOutcome maps what came of a RobotsRequest to an outcome, with the
// body that was read, as LoadRobots does.
func RobotsOutcome(ctx context.Context, resp *Response, err error) (robots.Outcome, []byte, error) {
	switch {
	case err == nil:
		return robots.OutcomeOf(resp.Status, resp.Body, nil), resp.Body, nil
	case errors.Is(err, ErrRefused), errors.Is(err, ErrInvalidURL):
		return robots.Outcome{}, nil, err
	case ctx.Err() != nil:
		// The caller gave up; that says nothing about the origin.
		return robots.Outcome{}, nil, err
	case errors.Is(err, ErrTooManyRedirects):
		return robots.OutcomeOf(0, nil, fmt.Errorf("%w: %w", robots.ErrTooManyRedirects, err)), nil, nil
	}
	return robots.OutcomeOf(0, nil, err), nil, nil
}

var _ robots.Loader = (*Client)(nil).LoadRobots
