// Package wait sleeps, unless a context ends first.
//
// It may not import heed's other packages.
package wait
