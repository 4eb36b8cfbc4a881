// Package document reads a fetched body, or a file, whatever it is: PDF
// documents by package pdf, EPUB books by package epub, Word documents
// (DOCX) by package docx, pages (HTML, Markdown, plain text) by
// extract.Read. What a body is is decided by its Content-Type and by
// what it opens with, never by its URL alone.
package document
