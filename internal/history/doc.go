// Package history holds what every store decides alike of a page's
// versions: how a new one is numbered and what the retention lets go
// (Append), what became of a page since a time (Since), and how a
// version is written as a line of text (Encode, Decode); and what every
// door reads alike, the time a question of what changed asks about
// (ParseSince).
package history
