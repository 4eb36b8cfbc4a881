// Package teamtest serves a site of many hosts on one server, for tests
// and benchmarks of a team's crawl: every request is logged with its
// host, and what a polite crawl must have done is checked from the log.
//
// It may not import internal/team, internal/ingest, internal/cli or
// internal/mcp: it knows the site, not the crawler.
package teamtest
