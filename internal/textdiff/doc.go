// Package textdiff compares two versions of a page's Markdown: by line,
// as a unified diff (Lines); by word, as a diff marked inline (Words);
// and as the number of words added and removed (Count).
//
// Its work is bounded, however hostile the texts: it reads them a few
// times over, and searches for the least changes (Myers' algorithm,
// whose cost is the product of the texts' length and the number of
// changes) within a budget of some four million steps plus 48 for each
// line or word, and never more than 64 million, under half a second.
// Past the budget, or past 128 changes in one part of a text, it settles
// for a larger change there than the least, which is still exact: it
// turns the old text into the new. Memory is linear in the texts.
//
// It may not import heed's other packages.
package textdiff
