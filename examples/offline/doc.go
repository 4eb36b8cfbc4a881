// Command offline runs heed's main job on a machine without internet: it
// serves a small example site (embedded in this program) on a loopback
// address, crawls it politely into a fresh stash, and searches it.
//
//	go run ./examples/offline
package main
