// Package docset builds and reads the documentation development set: pages
// of Debian's documentation packages, one set of pages per generator
// (DocBook, Sphinx, MkDocs, rustdoc, RDoc, AsciiDoc, Doxygen, gtk-doc,
// javadoc), each with a truth derived mechanically from the generator's
// own markup: the text of its content region less the navigation inside
// it, its headings, its code blocks with their languages, and the links
// of the page's navigation, which an extraction must not keep.
//
// The pages are the packages' text and are not kept in git: the set is
// rebuilt from the installed packages by
//
//	go run ./internal/docset/cmd/docset extract/testdata/docs
//
// It may not import extract: the truth is the generator's markup, never
// heed's reading of it. (It shares internal/extractdev's reading of
// gzipped pages.)
package docset
