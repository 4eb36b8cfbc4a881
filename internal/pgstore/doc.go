// Package pgstore keeps a team's stash and crawl state in PostgreSQL,
// beside River's job tables: Migrate creates or upgrades both schemas
// under an advisory lock, and refuses a database whose heed schema is
// newer than it knows. Errors never carry the database
// URL's password (Redact).
//
// It may not import heed's other packages.
package pgstore
