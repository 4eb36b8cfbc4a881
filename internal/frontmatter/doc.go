// Package frontmatter writes and reads the YAML frontmatter of heed's
// Markdown: a block between "---" lines before the body.
//
// It may not import heed's other packages.
package frontmatter
