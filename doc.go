// Package heed holds the vocabulary that heed's packages share: its
// version and the user agent every request carries, the kinds of error
// (Error, Kind), and what a store keeps and returns (Snapshot, Entry,
// Query, Hit) with the errors every store returns alike.
//
// It depends on no third-party package, nor on heed's other packages:
// every package of heed may import it.
package heed
