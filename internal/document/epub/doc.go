// Package epub reads an EPUB book (EPUB 2 or 3) into one
// [extract.Document]: its chapters as one Markdown, and its title,
// author, language, description and dates from its package metadata.
//
// [Read] finds the package document through META-INF/container.xml and
// reads the XHTML documents of its spine, in spine order, each through
// heed's HTML extraction (extract.ExtractBytes) as a whole: a chapter is
// all content, with no navigation or sidebar to choose it from. The
// spine's linear items come first, then its non-linear ones (notes,
// answers, asides a reader reaches by a link), which are part of the
// book's text. A document the spine lists twice is read once. The
// navigation document and the NCX are tables of contents, not chapters:
// they are never read as content, even where a spine lists them, since
// every entry of theirs is a link inside the book that repeats a
// chapter's heading. A chapter with text but no heading of its own is
// given a level-one heading of the title its table of contents names it
// by. Chapters are joined by a blank line.
//
// Links between parts of the book lead nowhere a reader of the Markdown
// could follow: they are dropped, their text kept, as are the book's own
// images. Links to http and https addresses are kept, and
// [extract.Document.Links] holds each once, in the order the book has
// them. The title is the package's main dc:title, the author its
// dc:creators that are authors (by role, or with none) joined by commas,
// the language its dc:language (else the first chapter's), the
// description its dc:description as plain text, cut to 2000 bytes,
// published its dc:date of publication and modified its
// dcterms:modified.
//
// # Security Considerations
//
// An EPUB is a zip archive made by anyone, and Read treats it as
// hostile. It never touches the file system, and refuses an archive of
// more than [MaxCompressedBytes] or [MaxEntries] entries, and one with an
// entry whose name would leave it (absolute, with a ".." element, a
// backslash or a NUL byte). Entries are inflated through a reader cut at
// [MaxEntryBytes], whatever size their header declares, and no more than
// [MaxInflatedBytes] is inflated from a book in all, so that a zip bomb,
// however its entries lie or share their data, costs no more. XML files
// (the container, the package, the encryption list, the tables of
// contents) are read by encoding/xml, nested at most [MaxXMLDepth] deep,
// without expanding any entity they declare; a manifest lists at most
// [MaxEntries] items and a spine [MaxSpineItems]. A book whose chapters
// META-INF/encryption.xml lists, or that are encrypted zip entries, is
// refused with [ErrEncrypted]; fonts it lists (obfuscated, as books do)
// are never read, and do no harm. Work and memory are linear in the
// input: each chapter is inflated, extracted and let go before the next,
// and its Markdown is at most extract.MaxGrowth times its length; the
// book's Markdown is at most [MaxMarkdownBytes], past which Read stops
// with an error. Every error over a cap wraps [ErrLimit] and names it.
//
// It depends on no net/http, nor on fetch: it reads the bytes it is
// given.
package epub
