// Package frontmatter writes and reads the YAML frontmatter of heed's
// Markdown: a block between "---" lines before the body; a snapshot's
// fields as a stash's file holds them (Writer.Snapshot).
//
// It may not import heed's other packages.
package frontmatter
