// Package memstore keeps snapshots in memory: a store with no files and
// no database, for tests and for work that keeps nothing once it is done.
// It holds what the crawler and the sources ask of a store, and answers
// the reads (Get, List, Sources, Search) plainly: a search matches words
// as substrings, case folded, and ranks by how often they occur.
//
// Its pages' histories are decided by internal/history, as every
// store's are. It may not import internal/stash, internal/pgstore,
// internal/crawl, internal/ingest, internal/cli or internal/mcp.
package memstore
