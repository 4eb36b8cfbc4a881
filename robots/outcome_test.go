package robots

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestOutcomeOf(t *testing.T) {
	body := []byte("User-agent: *\nDisallow: /private/\n")
	netErr := errors.New("dial tcp: connection refused")
	tests := []struct {
		status   int
		err      error
		want     Status
		lifetime time.Duration
		private  bool // whether /private/x is allowed
		public   bool // whether /public is allowed
	}{
		{200, nil, Parsed, 24 * time.Hour, false, true},
		{204, nil, Parsed, 24 * time.Hour, false, true},
		{299, nil, Parsed, 24 * time.Hour, false, true},
		{400, nil, Unavailable, 24 * time.Hour, true, true},
		{401, nil, Unavailable, 24 * time.Hour, true, true},
		{403, nil, Unavailable, 24 * time.Hour, true, true},
		{404, nil, Unavailable, 24 * time.Hour, true, true},
		{410, nil, Unavailable, 24 * time.Hour, true, true},
		{429, nil, Unreachable, time.Hour, false, false},
		{500, nil, Unreachable, time.Hour, false, false},
		{503, nil, Unreachable, time.Hour, false, false},
		{599, nil, Unreachable, time.Hour, false, false},
		{304, nil, Unreachable, time.Hour, false, false},
		{0, netErr, Unreachable, time.Hour, false, false},
		{0, fmt.Errorf("get: %w", ErrTooManyRedirects), Unavailable, 24 * time.Hour, true, true},
		{301, fmt.Errorf("get: %w", ErrTooManyRedirects), Unavailable, 24 * time.Hour, true, true},
	}
	for _, tt := range tests {
		o := OutcomeOf(tt.status, body, tt.err)
		if o.Status != tt.want || o.Lifetime != tt.lifetime || o.HTTPStatus != tt.status {
			t.Errorf("OutcomeOf(%d, %v) got %v for %v, want %v for %v", tt.status, tt.err, o, o.Lifetime, tt.want, tt.lifetime)
		}
		if got := o.Allowed("heed", "https://example.com/private/x").Allowed; got != tt.private {
			t.Errorf("OutcomeOf(%d, %v): /private/x allowed %v, want %v", tt.status, tt.err, got, tt.private)
		}
		if got := o.Allowed("heed", "https://example.com/public").Allowed; got != tt.public {
			t.Errorf("OutcomeOf(%d, %v): /public allowed %v, want %v", tt.status, tt.err, got, tt.public)
		}
		if got := o.Allowed("heed", "https://example.com/robots.txt").Allowed; !got {
			t.Errorf("OutcomeOf(%d, %v): /robots.txt refused", tt.status, tt.err)
		}
	}
}

func TestOutcomeExplains(t *testing.T) {
	o := OutcomeOf(503, nil, nil)
	d := o.Allowed("heed", "https://example.com/a")
	want := "disallowed: robots.txt unreachable (HTTP 503), which disallows everything (RFC 9309 §2.3.1.4)"
	if d.Reason != ReasonUnreachable || d.String() != want {
		t.Errorf("503: got %s %q, want unreachable %q", d.Reason, d, want)
	}
	o = OutcomeOf(0, nil, errors.New("i/o timeout"))
	if got, want := o.Allowed("heed", "/a").String(), "disallowed: robots.txt unreachable (i/o timeout), which disallows everything (RFC 9309 §2.3.1.4)"; got != want {
		t.Errorf("timeout: got %q, want %q", got, want)
	}
	o = OutcomeOf(404, nil, nil)
	if got, want := o.Allowed("heed", "/a").String(), "allowed: robots.txt unavailable (HTTP 404), which allows everything (RFC 9309 §2.3.1.3)"; got != want {
		t.Errorf("404: got %q, want %q", got, want)
	}
	if got, want := o.String(), "unavailable (HTTP 404)"; got != want {
		t.Errorf("404 outcome: got %q, want %q", got, want)
	}
}

func TestOutcomeDelayAndSignals(t *testing.T) {
	o := OutcomeOf(200, []byte("User-agent: *\nCrawl-delay: 3\nContent-Signal: ai-input=no\n"), nil)
	if d, ok := o.CrawlDelay("heed"); d != 3*time.Second || !ok {
		t.Errorf("CrawlDelay got %v, %v, want 3s", d, ok)
	}
	if !o.ContentSignals("heed").Denies(SignalAIInput) {
		t.Errorf("ContentSignals: ai-input not denied")
	}
	for _, o := range []Outcome{OutcomeOf(404, nil, nil), OutcomeOf(503, nil, nil)} {
		if d, ok := o.CrawlDelay("heed"); d != 0 || ok {
			t.Errorf("%v: CrawlDelay got %v, %v, want none", o, d, ok)
		}
		if s := o.ContentSignals("heed"); s != nil {
			t.Errorf("%v: ContentSignals got %v, want nil", o, s)
		}
	}
}

func TestOrigin(t *testing.T) {
	tests := []struct {
		in, origin, robots string
	}{
		{"https://Example.COM/a/b?c#d", "https://example.com", "https://example.com/robots.txt"},
		{"HTTP://example.com:80/x", "http://example.com", "http://example.com/robots.txt"},
		{"https://example.com:443", "https://example.com", "https://example.com/robots.txt"},
		{"https://example.com:8443/x", "https://example.com:8443", "https://example.com:8443/robots.txt"},
		{"http://example.com:443/x", "http://example.com:443", "http://example.com:443/robots.txt"},
		{"http://[::1]:8080/x", "http://[::1]:8080", "http://[::1]:8080/robots.txt"},
		{"http://user:pw@example.com/x", "http://example.com", "http://example.com/robots.txt"},
	}
	for _, tt := range tests {
		origin, err := Origin(tt.in)
		if err != nil || origin != tt.origin {
			t.Errorf("Origin(%q) got %q, %v, want %q", tt.in, origin, err, tt.origin)
		}
		u, err := URL(tt.in)
		if err != nil || u != tt.robots {
			t.Errorf("URL(%q) got %q, %v, want %q", tt.in, u, err, tt.robots)
		}
	}
	for _, bad := range []string{"", "/path", "ftp://example.com/x", "mailto:a@example.com", "http://", "http://[::1/x", "example.com/x"} {
		if o, err := Origin(bad); err == nil {
			t.Errorf("Origin(%q) got %q, want an error", bad, o)
		}
	}
}
