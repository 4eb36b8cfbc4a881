// Package ledgertest is the one suite every ledger.Ledger passes: the
// stash's in SQLite and the one in memory alike.
package ledgertest
