// Package bluesky is the source kind of Bluesky profiles: a profile's
// posts, read from the public AppView, as one snapshot at
// bluesky/<handle>.
//
// It may not import internal/stash, internal/ingest, internal/cli or
// internal/mcp.
package bluesky
