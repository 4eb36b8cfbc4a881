// Package cli is heed's command line, one of the two doors onto the
// ingest service: it turns flags into the service's requests and prints
// its results, with the exit code and hint its one table (errors.go) has
// for each kind of error. cmd/heed calls Run; tests call it too.
//
// It may not import internal/stash: the stash is the ingest service's.
package cli
