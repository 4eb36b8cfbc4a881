// Package website is the website kind of source: a polite crawl of a
// site, one snapshot a page. It takes any URL, so the registry asks it
// last. The crawl itself is handed in, so that the one that runs it (the
// ingest service) keeps its bookkeeping: the crawl's log, its events.
//
// It imports the source registry and the crawler, nothing above them.
//
// It may not import internal/stash, internal/ingest, internal/cli or
// internal/mcp.
package website
