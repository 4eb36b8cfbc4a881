// Package stash keeps snapshots: one Markdown file with YAML frontmatter
// per page, laid out by source and URL path, and a full-text index of them
// in an embedded SQLite database (pure Go, so heed needs no cgo).
//
// The files are the truth. Every change is recorded in the index as
// pending before the file is touched and settled after, so that after any
// interruption Open finds the pending rows and makes the index agree with
// the files again; Reindex rebuilds the whole index from the files.
//
// It may not import internal/crawl, internal/source, internal/ingest or
// fetch: a store knows nothing of what writes it.
package stash
