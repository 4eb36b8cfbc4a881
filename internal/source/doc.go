// Package source is heed's registry of source kinds: websites, feeds,
// Bluesky profiles and X profiles. heed add asks each kind in turn whether
// a URL is its own; heed sync goes straight to the kind a source recorded.
//
// The kinds live in the subpackages website, feed, bluesky and xcom. The
// website crawls a site into a snapshot a page; each of the others turns
// one URL into one snapshot.
//
// It may not import internal/stash, internal/ingest, internal/cli or
// internal/mcp.
package source
