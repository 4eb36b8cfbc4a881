// Package ingest is heed's one ingest service, beneath both doors: the
// command line (internal/cli) and the MCP server (internal/mcp) turn what
// they are asked into its requests and show its results. It fetches a
// page, crawls, reads sources of every kind into the store, searches,
// reads, lists and removes, and keeps the bookkeeping: the crawl's log,
// the skipped URLs, the index's optimization. Every request it makes goes
// through one polite client, and robots.txt through one cache.
//
// Its errors carry kinds and typed causes (a refusal, a status, a robots
// decision, a setting), never a door's words: each door has one table
// from them to what it shows.
//
// It may not import internal/cli or internal/mcp: the doors call it,
// never the other way.
package ingest
