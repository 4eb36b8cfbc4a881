// Package crawltest is the conformance suite of heed's crawl engines:
// one body of cases, run against each backend (the crawl on one
// machine, the team's over PostgreSQL), so that the same loopback site
// comes to the same events, the same requests counted against
// max_pages, the same duplicates and the same skips with the same
// reasons, whichever engine crawls it. It owns the sites and what must
// come of them; each engine's tests give it an adapter (Backend).
//
// It may not import internal/team, internal/stash, internal/ingest,
// internal/cli or internal/mcp: it knows the sites and the outcomes,
// and each adapter knows its engine.
package crawltest
