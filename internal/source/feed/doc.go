// Package feed is the source kind of RSS, Atom, RDF and JSON feeds: one
// snapshot per feed, at feeds/<host-path-slug>, its items as sections.
//
// A feed a person subscribes to is fetched without consulting robots.txt,
// as feed readers do; every request still goes through heed's guarded
// client.
//
// It may not import internal/stash, internal/ingest, internal/cli or
// internal/mcp.
package feed
