// Package ledger holds what a crawl keeps beyond the process that runs
// it: the record of each crawl (its start, its state, its counts), its
// frontier (each URL it queued and what the URL came to), and what it
// learned of the hosts it asked (their robots.txt, their next turns). A
// crawl cut short (Ctrl-C, kill -9, a power cut) is taken up again from
// its ledger: what it had queued is asked, what it had ended is not.
//
// It holds types and the interface only; the stash keeps a ledger in its
// own SQLite database, a team's database (pgstore.Ledger) in the team's
// tables, and Memory one in memory for tests. It may not
// import internal/crawl, internal/stash, internal/ingest, internal/team,
// internal/cli or internal/mcp: every crawl's backend depends on it.
package ledger
