// Package crawl crawls a site politely into a store: breadth-first
// within a scope, heeding robots.txt and Crawl-delay per host, each page's
// own robots directives and the site's content signals, and saying what it
// skipped and why.
//
// It may not import internal/stash, internal/source, internal/ingest,
// internal/cli or internal/mcp: it is handed its store, its frontier and
// its client.
package crawl
