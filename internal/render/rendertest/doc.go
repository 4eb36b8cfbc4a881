// Package rendertest gives tests a browser to render pages with, or
// skips them when there is none: it fails them instead when the
// environment says a browser is required (HEED_BROWSER=required, as CI
// sets it), so that rendering is tested for real where it must be.
//
// It may not import internal/crawl, internal/team, internal/ingest,
// internal/cli or internal/mcp: the tests of those import it.
package rendertest
