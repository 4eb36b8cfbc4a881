// Package historytest is the suite every store's history passes: the
// stash, a team's database and the store in memory keep a page's
// versions alike.
//
// It may not import internal/stash, internal/pgstore or internal/memstore:
// each store's tests run it.
package historytest
