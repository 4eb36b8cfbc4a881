// Package team is heed's crawl on many machines: any number of workers,
// in any number of processes, share one team database (PostgreSQL, with
// River's jobs) and keep every promise a crawl on one machine keeps.
//
// The frontier is a table whose primary key is the normalized URL (the
// seen set). Each host with queued URLs has one River job, unique by
// host among jobs not completed, that any worker may run. The job takes
// the host's lease (fenced by its owner, timed by the database's clock),
// loads robots.txt first when the origin's copy expired (so that it is
// fetched once per origin per lifetime, on the host's turn), then
// fetches the host's queued URLs one at a time for a slice of time, each
// page committed in one transaction (snapshot, the URL's end, its
// out-links with their hosts' jobs, the host's next allowed time), and
// snoozes until the host's next turn. A job whose worker died is rescued
// by River; its lease runs out first, and the next holder waits the
// host's delay after it. Every write is an upsert by URL, so that a job
// run again repeats nothing it committed. A page that needs its scripts
// is rendered in the worker's browser, every request of it made on its
// host's turn: the job's own host on its lease, another host on that
// host's turn in the database (Turns).
//
// It may not import internal/stash, internal/ingest, internal/cli or
// internal/mcp: the service drives it, and it keeps pages in the team's
// database only.
package team
