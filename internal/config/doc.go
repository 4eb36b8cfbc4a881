// Package config reads and writes heed's configuration file: the agent,
// the networks the user allows, and the named sources heed ingests.
//
// The file is YAML. Reading it is strict: an unknown key, a value of the
// wrong type (a respect_robots of "no" is an error, never a guess) or an
// invalid URL, glob or network is an *Error naming the file, line and key.
// Writing it edits the document in place, so that a person's comments and
// order survive heed add.
//
// A source's crawl settings are a crawlopt.Options: an entry is read over
// crawlopt.Defaults, so a key it omits has the default's value and a zero
// it gives is a zero, and an entry written holds the settings that differ
// from the defaults.
//
// It may not import internal/crawl, internal/source, internal/stash,
// internal/ingest, internal/cli or internal/mcp.
package config
