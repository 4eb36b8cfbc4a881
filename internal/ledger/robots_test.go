package ledger_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/robots"
)

// TestRobotsKeptNoLongerThanItsLifetime: a robots.txt kept in the
// ledger that says it lives longer than robots.txt may be kept (the
// clock was set back since it was read, or the ledger was written by
// hand) is read again, not obeyed for as long as it says.
func TestRobotsKeptNoLongerThanItsLifetime(t *testing.T) {
	l := &ledger.Memory{}
	loads := 0
	load := ledger.RobotsLoader(l, func(ctx context.Context, robotsURL string) (robots.Outcome, []byte, error) {
		loads++
		body := []byte("User-agent: *\nAllow: /\n")
		return robots.OutcomeOf(200, body, nil), body, nil
	})
	for _, kept := range []ledger.Robots{
		{Origin: "https://a.example", Status: "parsed", HTTPStatus: 200, Body: []byte("User-agent: *\nDisallow: /\n"), Until: time.Now().Add(robots.ParsedLifetime + time.Hour)},
		{Origin: "https://b.example", Status: "unreachable", HTTPStatus: 503, Until: time.Now().Add(robots.UnreachableLifetime + time.Hour)},
	} {
		if err := l.PutRobots(t.Context(), kept); err != nil {
			t.Fatal(err)
		}
		loads = 0
		o, err := load(t.Context(), kept.Origin+"/robots.txt")
		if err != nil || loads != 1 || !o.Allowed("heed", kept.Origin+"/page").Allowed {
			t.Errorf("%s kept %s longer than its lifetime: %+v, %v, loaded %d times; want it loaded again", kept.Origin, kept.Status, o, err, loads)
		}
	}
	// Within its lifetime, what is kept is obeyed.
	if err := l.PutRobots(t.Context(), ledger.Robots{Origin: "https://c.example", Status: "unreachable", HTTPStatus: 503, Until: time.Now().Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	loads = 0
	if o, err := load(t.Context(), "https://c.example/robots.txt"); err != nil || loads != 0 || o.Allowed("heed", "https://c.example/page").Allowed {
		t.Errorf("a 503 kept a minute: %+v, %v, loaded %d times; want it kept", o, err, loads)
	}
}

// TestRobotsKeptWhenTheSiteAnswered: robots.txt's outcome is kept for
// the next crawl when the site gave it (a file, a 404, a 503), not when
// there was no answer at all (the network down), which is asked again.
func TestRobotsKeptWhenTheSiteAnswered(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		body   string
		err    error
		kept   bool
	}{
		{"a file", 200, "User-agent: *\nDisallow: /x\n", nil, true},
		{"a 404", 404, "", nil, true},
		{"a 503", 503, "", nil, false},
		{"no answer", 0, "", errors.New("connection refused"), false},
	} {
		l := &ledger.Memory{}
		loads := 0
		load := ledger.RobotsLoader(l, func(ctx context.Context, robotsURL string) (robots.Outcome, []byte, error) {
			loads++
			return robots.OutcomeOf(c.status, []byte(c.body), c.err), []byte(c.body), nil
		})
		first, err := load(t.Context(), "https://a.example/robots.txt")
		if err != nil {
			t.Fatal(err)
		}
		again, err := load(t.Context(), "https://a.example/robots.txt")
		if err != nil || c.kept != (loads == 1) || again.Status != first.Status || again.Allowed("heed", "https://a.example/x").Allowed != first.Allowed("heed", "https://a.example/x").Allowed {
			t.Errorf("%s: loaded %d times, %v then %v (%v); want it kept: %v", c.name, loads, first, again, err, c.kept)
		}
	}
}
