package robots

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Status is what fetching an origin's robots.txt came to.
type Status uint8

const (
	// Parsed: the server answered 2xx; the rules of its body apply.
	Parsed Status = iota + 1
	// Unavailable: the server answered 4xx other than 429, or redirected
	// too often; everything is allowed (RFC 9309 §2.3.1.3).
	Unavailable
	// Unreachable: the server answered 5xx or 429, or could not be reached
	// at all; everything is disallowed (RFC 9309 §2.3.1.4).
	Unreachable
)

// String returns "parsed", "unavailable" or "unreachable".
func (s Status) String() string {
	switch s {
	case Parsed:
		return "parsed"
	case Unavailable:
		return "unavailable"
	case Unreachable:
		return "unreachable"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// MarshalText writes the status as its String.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// How long each outcome may be cached (DESIGN: robots fetch outcome).
const (
	ParsedLifetime      = 24 * time.Hour
	UnavailableLifetime = 24 * time.Hour
	UnreachableLifetime = time.Hour
)

// MaxRedirects is how many redirects a robots.txt fetch follows
// (RFC 9309 §2.3.1.2). A loader that gives up after it returns an error
// wrapping ErrTooManyRedirects.
const MaxRedirects = 5

// ErrTooManyRedirects tells OutcomeOf that a robots.txt fetch gave up after
// MaxRedirects redirects, which makes robots.txt unavailable.
var ErrTooManyRedirects = errors.New("robots: too many redirects")

// Outcome is what fetching an origin's robots.txt came to, as plain data:
// what the crawl may do follows from it alone, and it says how long it
// may be cached.
type Outcome struct {
	Status Status `json:"status"`
	// HTTPStatus is the status of the final response, or 0 when there was
	// none.
	HTTPStatus int `json:"http_status,omitempty"`
	// Cause says why robots.txt is unavailable or unreachable when the
	// status code alone does not: a network error, a timeout, too many
	// redirects.
	Cause string `json:"cause,omitempty"`
	// Robots is the parsed file when Status is Parsed.
	Robots   *Robots       `json:"-"`
	Lifetime time.Duration `json:"lifetime"`
}

// OutcomeOf maps the result of fetching robots.txt to an outcome: status is
// the HTTP status of the final response (0 if there was none), body its
// body, and err the error that ended the fetch, if any.
//
//	2xx                                  parsed: the rules of body, for 24 h
//	4xx but 429; ErrTooManyRedirects     unavailable: allow all, for 24 h
//	5xx, 429, other status, any error    unreachable: disallow all, for 1 h
//
// Parse reads at most MaxBytes of body, to its last whole line.
func OutcomeOf(status int, body []byte, err error) Outcome {
	switch {
	case errors.Is(err, ErrTooManyRedirects):
		return Outcome{Status: Unavailable, HTTPStatus: status, Cause: err.Error(), Lifetime: UnavailableLifetime}
	case err != nil:
		return Outcome{Status: Unreachable, HTTPStatus: status, Cause: err.Error(), Lifetime: UnreachableLifetime}
	case 200 <= status && status <= 299:
		return Outcome{Status: Parsed, HTTPStatus: status, Robots: Parse(body), Lifetime: ParsedLifetime}
	case status == 429:
		return Outcome{Status: Unreachable, HTTPStatus: status, Cause: "rate limited", Lifetime: UnreachableLifetime}
	case 400 <= status && status <= 499:
		return Outcome{Status: Unavailable, HTTPStatus: status, Lifetime: UnavailableLifetime}
	case 500 <= status && status <= 599:
		return Outcome{Status: Unreachable, HTTPStatus: status, Lifetime: UnreachableLifetime}
	}
	return Outcome{Status: Unreachable, HTTPStatus: status, Cause: "unexpected status", Lifetime: UnreachableLifetime}
}

// Allowed decides whether the agent may fetch rawURL under this outcome:
// a parsed file decides by its rules, unavailable allows everything, and
// unreachable disallows everything but /robots.txt itself.
func (o Outcome) Allowed(agent, rawURL string) Decision {
	switch o.Status {
	case Parsed:
		if o.Robots != nil {
			return o.Robots.Allowed(agent, rawURL)
		}
		return (&Robots{}).Allowed(agent, rawURL)
	case Unavailable:
		return Decision{Allowed: true, Reason: ReasonUnavailable, HTTPStatus: o.HTTPStatus, Cause: o.Cause}
	}
	if target, ok := matchTarget(rawURL); ok && isRobotsTxt(target) {
		return Decision{Allowed: true, Reason: ReasonRobotsTxt}
	}
	return Decision{Allowed: false, Reason: ReasonUnreachable, HTTPStatus: o.HTTPStatus, Cause: o.Cause}
}

// CrawlDelay returns the Crawl-delay that applies to the agent, if the
// outcome is a parsed file that states one.
func (o Outcome) CrawlDelay(agent string) (time.Duration, bool) {
	if o.Status != Parsed || o.Robots == nil {
		return 0, false
	}
	return o.Robots.CrawlDelay(agent)
}

// ContentSignals returns the Content-Signal values that apply to the agent,
// if the outcome is a parsed file that states any.
func (o Outcome) ContentSignals(agent string) Signals {
	if o.Status != Parsed || o.Robots == nil {
		return nil
	}
	return o.Robots.ContentSignals(agent)
}

// String describes the outcome in a few words, such as
// "unreachable (HTTP 503)".
func (o Outcome) String() string {
	if o.Status == Parsed {
		return fmt.Sprintf("parsed (HTTP %d)", o.HTTPStatus)
	}
	return fmt.Sprintf("%s (%s)", o.Status, fetchDetail(o.HTTPStatus, o.Cause))
}

// Origin returns the origin of an absolute http or https URL, as
// "scheme://host[:port]" with the scheme and host lower-cased and a
// default port dropped.
func Origin(rawURL string) (string, error) {
	// The scheme and authority alone are read: the path is the rules'
	// business, taken as written (a stray "%" in it is no error here).
	if i := strings.Index(rawURL, "://"); i >= 0 {
		if end := strings.IndexAny(rawURL[i+3:], "/?#"); end >= 0 {
			rawURL = rawURL[:i+3+end]
		}
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("robots: %w", err)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("robots: %q is not an http or https URL", rawURL)
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if host == "" {
		return "", fmt.Errorf("robots: %q has no host", rawURL)
	}
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, nil
}

// URL returns the robots.txt URL that governs rawURL: "/robots.txt" at the
// root of its origin.
func URL(rawURL string) (string, error) {
	origin, err := Origin(rawURL)
	if err != nil {
		return "", err
	}
	return origin + "/robots.txt", nil
}
