package heed

import (
	"fmt"
	"unicode/utf8"
)

// Kind classifies an error for callers that must decide what to do with
// it: the CLI picks its exit code by it, the MCP server its message.
type Kind uint8

const (
	// Other is an error that fits no other kind.
	Other Kind = iota
	// Invalid: the input is malformed (a bad URL, a bad value).
	Invalid
	// Blocked: a policy refused the request (the network guard,
	// robots.txt, a page's directives).
	Blocked
	// NotFound: what was asked for does not exist.
	NotFound
	// TooLarge: a body, a header or a file went past its cap.
	TooLarge
	// Transient: it may work later (a timeout, a 5xx, a 429, a dropped
	// connection).
	Transient
	// Internal: a bug or an environment failure in heed itself.
	Internal
)

var kindNames = [...]string{
	Other:     "other",
	Invalid:   "invalid",
	Blocked:   "blocked",
	NotFound:  "not found",
	TooLarge:  "too large",
	Transient: "transient",
	Internal:  "internal",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Error records what heed was doing, to which URL, and what kind of
// failure it met. It names no flag or setting: what a user or an agent
// can do about it is each door's to say, from the kind and the cause.
type Error struct {
	Kind Kind
	Op   string // what heed was doing, such as "get"
	URL  string // the URL it was doing it to, if any; Error shows at most 256 bytes of it
	Err  error  // the cause: a typed one (fetch.RefusedError, fetch.StatusError...) where a caller must decide
}

func (e *Error) Error() string {
	s := e.Op
	if e.URL != "" {
		s += " " + Clip(e.URL, 256)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the Kind of the first error in err's tree that says
// one: an *Error, or an error with a Kind method (a cause that knows its
// kind, such as an HTTP status); Other if none does.
func KindOf(err error) Kind {
	switch e := err.(type) {
	case nil:
		return Other
	case *Error:
		return e.Kind
	case interface{ Kind() Kind }:
		return e.Kind()
	case interface{ Unwrap() error }:
		return KindOf(e.Unwrap())
	case interface{ Unwrap() []error }:
		for _, inner := range e.Unwrap() {
			if k := KindOf(inner); k != Other {
				return k
			}
		}
	}
	return Other
}

// Count is n of a noun, for what heed says: "1 snapshot", "2 snapshots".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Clip is s cut to at most n bytes, at a character boundary, saying how
// long it was when it was cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes in all)", s[:cut], len(s))
}
