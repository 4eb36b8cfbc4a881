// Package mdtext reads what a snapshot's Markdown says, for search: its
// text without link targets (Said), with the characters of unspaced
// scripts set apart (Segment), which is what a full-text index holds
// (Body); and snippets of it around a query's words (Snippet), in plain
// text, without the Markdown's marks. The stash of files and a team's
// database make their snippets with it, alike.
//
// It may not import heed's other packages.
package mdtext
