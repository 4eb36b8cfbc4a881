// Package kinds is the one list of heed's source kinds, in the order
// heed add asks them about a URL: each kind's name, the help that says
// what it takes, and how it is made from the config file and the
// environment. The config file's kinds, its JSON Schema, heed add's help
// and the ingest service's registry are all read from it, so that a new
// kind is a package of its own and a line here.
//
// It imports the kinds and the config file's types; nothing imports it
// but the doors' wiring (the ingest service, the CLI).
//
// It may not import internal/stash, internal/ingest, internal/cli or
// internal/mcp.
package kinds
