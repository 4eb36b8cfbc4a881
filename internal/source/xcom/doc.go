// Package xcom is the source kind of X (Twitter) profiles, as one
// snapshot at x/<user>. With a bearer token it reads the X API v2; without
// one, a feed of the user's posts made from a URL template; with neither,
// it leaves the URL to the next kind after one warning.
//
// The token is a secret: it is sent to the API's origin only, and is
// never written to a snapshot, a message or an error.
//
// It may not import internal/stash, internal/ingest, internal/cli or
// internal/mcp.
package xcom
