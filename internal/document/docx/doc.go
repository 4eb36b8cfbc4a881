// Package docx reads a Word document (Office Open XML
// WordprocessingML, .docx) into an extract.Document: its body as
// Markdown, its hyperlinks, and its title, description, author,
// language and dates from its core properties (docProps/core.xml), for
// heed to keep as it keeps a page.
//
// The Markdown has ATX headings, known by paragraph style: by the
// outline level (w:outlineLvl) a style or one it is based on gives, as
// localized documents name their heading styles in their own language,
// else by the built-in names (Heading 1 to 9, and Title as a first
// level). Lists are read from w:numPr through numbering.xml, bullet or
// ordered, nested by level and numbered as Word numbers them. Tables
// are GFM tables whose first row is the header: a merged cell's text
// stands in its first cell, and a table inside a cell is flattened into
// the cell's text. Bold and italic runs, line breaks, hyperlinks to the
// web (w:hyperlink through the part's relationships, and HYPERLINK
// fields) and footnotes and endnotes, as Markdown footnotes at the end,
// are kept. Text deleted in tracked changes, field instructions, hidden
// text, drawings and text boxes are left out; inserted text and field
// results are kept. Internal links (to a bookmark) are written as plain
// text. Text is escaped so that a CommonMark reader finds no raw HTML
// in the Markdown, and no link to anything but an http(s) URL.
//
// # Security Considerations
//
// A DOCX is a zip of XML parts, and every cost of reading one is capped;
// over a cap, Read returns an error that wraps ErrLimit and names the
// cap. The file is at most [MaxInputBytes]. Its entries are counted
// before its directory is read (at most [MaxEntries]), and a name that
// is absolute or holds a ".." element, a backslash or a NUL is refused
// (heed never unpacks a package, but only a hostile one names a part
// so). Parts are decompressed through a limit, whatever their headers
// state: [MaxPartBytes] each and [MaxDecompressedBytes] together, and
// all the parts heed reads are read before any is parsed. XML is read
// as a stream of tokens (no entity but XML's own is expanded), nested at
// most [MaxDepth] deep. A style's basedOn chain is followed through 16
// styles at most, so that a chain that loops ends, and list levels past
// the ninth are read as the ninth. An encrypted document (an OLE
// compound file holding an EncryptedPackage stream) is refused with
// ErrEncrypted, and anything else that is no DOCX with ErrNotDOCX.
//
// Work and memory are linear in the parts' size. The Markdown is at
// most [MaxMarkdownBytes], a document whose Markdown would be longer
// being refused, and is a few times the XML it is read from at most:
// text is written once, each byte escaped into two at most, and each
// element adds a few bytes of marks of its own (a table's header and
// delimiter rows have every column, 64 at most, and its other rows
// their own cells only). What is written once per link, the link's
// address, and the address of the document that resolving a relative
// hyperlink reads, cost at most as many bytes as document.xml holds, all
// together: past that, links are written as their text.
//
// It depends on no net/http, nor on fetch.
package docx
