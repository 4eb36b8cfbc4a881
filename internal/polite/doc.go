// Package polite holds heed's politeness as a layer: the per-host
// schedule of turns, and the Client that every request of every source
// goes through. A request takes its host's turn (one at a time per host,
// keyed by HostKey), the next waits for the delay or for the host's
// Retry-After, and a redirect to another origin waits for that host's
// turn. robots.txt is loaded through it too, as one more request.
//
// It may not import internal/crawl, internal/source, internal/stash or
// internal/ingest.
package polite
