// Package heapfloor keeps the garbage collector from running while the
// heap is still small. A crawl makes a few megabytes of short-lived
// garbage for every page (the parsed HTML above all) while what it keeps
// is a few megabytes more; with the collector's default rule (collect when
// the heap has doubled since the last collection) it would collect every
// few pages, and spend much of the crawl's CPU doing so.
//
// The floor is a reserve: a block of memory that is allocated and never
// written. It counts as live heap, so the collector's goal (twice the live
// heap) is never below twice the reserve; it holds no pointers, so marking
// it costs nothing; and its pages are never touched, so the operating
// system never gives it memory.
//
// It may not import heed's other packages.
package heapfloor
