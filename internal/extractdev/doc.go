// Package extractdev reads the main-content development set kept in
// extract/testdata/extract-dev, and scores extractions against it the way
// its README defines: word-level precision, recall and F1 per page.
package extractdev
