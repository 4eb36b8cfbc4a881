// Package pdf reads PDF documents as Markdown.
//
// The text is read by PDFium, compiled to WebAssembly and run in this
// process by wazero: the engine a browser uses, without cgo, in a
// sandbox that sees no file system and has at most MaxMemoryBytes of
// memory. It is compiled the first time a document is read, and its
// compiled code is kept in the user's cache directory.
//
// The layout is read back from where the text sits: lines from spans of
// one font, paragraphs from lines at the usual distance, joined across
// line breaks and pages (with words hyphenated at a line's end joined);
// headings from the document's outline where it has one, else from
// size and weight; lists from their markers; code from monospaced
// fonts; links from link annotations. Running headers, footers and page
// numbers are left out. Each page's text follows a marker,
// "<!-- page N -->", so that what is found in it can say its page.
//
// Every document is bounded: MaxInputBytes, MaxPages, MaxChars,
// MaxSpans, MaxMemoryBytes and MaxTime. A document that needs a password is
// refused with ErrEncrypted.
package pdf
