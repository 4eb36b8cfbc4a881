// Package pgstore keeps a team's stash and crawl state in PostgreSQL,
// beside River's job tables: Migrate creates or upgrades both schemas
// under an advisory lock, and refuses a database whose heed schema is
// newer than it knows. Errors never carry the database
// URL's password (Redact). A search's snippets are the stash's
// (internal/mdtext). Each page's history is decided as every store
// decides it (internal/history), under the page's row lock, so that any
// number of workers may put one page at once. Ledger is the team's
// crawl state, in the same tables, as a crawl's ledger (ledger.Ledger).
//
// It may not import internal/stash, internal/crawl, internal/team,
// internal/ingest, internal/cli or internal/mcp: it is a store, beneath
// what reads and writes it.
package pgstore
