// Package pgtest starts a throwaway PostgreSQL cluster for tests: a new
// data directory in a temporary directory, a server on a free loopback
// port that trusts local connections, stopped and removed when the tests
// end. The server runs as the invoking user, or, when that is root (which
// PostgreSQL refuses), as the postgres user through runuser. Tests that
// need a database skip, saying why, when no PostgreSQL binaries are
// installed, unless HEED_POSTGRES=required.
//
// It may not import heed's other packages.
package pgtest
