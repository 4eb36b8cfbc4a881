package ledger

import (
	"context"
	"time"

	"github.com/heedhq/heed/robots"
)

// RobotsLoader is a robots.txt loader that reads an origin's robots.txt
// from the ledger while the copy kept there lives, and else loads it
// with load and keeps it there for its lifetime: a crawl taken up again,
// or the next crawl of the site, does not ask for it again. An
// unreachable robots.txt (a 5xx, a 429, no answer at all) is not kept
// beyond the process that met it: a command's own cache disallows the
// site for the outcome's hour, but one passing failure of the server's
// does not lock the user's next command out of the site for as long. A copy that says it lives longer than
// its kind may be kept (the clock was set back since it was read, the
// ledger written by hand) is loaded again.
func RobotsLoader(l Ledger, load func(ctx context.Context, robotsURL string) (robots.Outcome, []byte, error)) robots.Loader {
	return func(ctx context.Context, robotsURL string) (robots.Outcome, error) {
		origin, oerr := robots.Origin(robotsURL)
		if kept, ok, err := l.Robots(ctx, origin); oerr == nil && err == nil && ok {
			if o := kept.Outcome(); o.Lifetime <= lifetime(o.Status) {
				return o, nil
			}
		}
		o, body, err := load(ctx, robotsURL)
		if oerr != nil || err != nil || o.Status == robots.Unreachable {
			return o, err
		}
		kept := Robots{Origin: origin, Status: o.Status.String(), HTTPStatus: o.HTTPStatus, Cause: o.Cause, Until: time.Now().Add(o.Lifetime)}
		if o.Status == robots.Parsed {
			kept.Body = body
		}
		_ = l.PutRobots(context.WithoutCancel(ctx), kept) // unkept, it is asked for again next time
		return o, nil
	}
}

// Outcome is a robots.txt outcome as kept, for the rest of its life.
func (r Robots) Outcome() robots.Outcome {
	var o robots.Outcome
	switch r.Status {
	case robots.Parsed.String():
		o = robots.OutcomeOf(r.HTTPStatus, r.Body, nil)
	case robots.Unavailable.String():
		o = robots.Outcome{Status: robots.Unavailable, HTTPStatus: r.HTTPStatus, Cause: r.Cause}
	default:
		o = robots.Outcome{Status: robots.Unreachable, HTTPStatus: r.HTTPStatus, Cause: r.Cause}
	}
	o.Lifetime = max(time.Until(r.Until), 0)
	return o
}

// lifetime is how long an outcome of a status may be kept
// (robots.OutcomeOf).
func lifetime(s robots.Status) time.Duration {
	switch s {
	case robots.Parsed:
		return robots.ParsedLifetime
	case robots.Unavailable:
		return robots.UnavailableLifetime
	}
	return robots.UnreachableLifetime
}
