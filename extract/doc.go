// Package extract turns an HTML page into a [Document]: its title,
// description, language, canonical URL and dates, its main content as
// Markdown, every link on the page, and its robots directives. It never
// touches the network.
//
// The main content is the part of the page a reader came for. Every element
// is scored by the paragraphs it holds (their length and commas), weighted
// by what its class and id say it is and discounted by how much of its text
// is links; semantic markup (main, article, role=main, articleBody) is a
// strong hint. Navigation, headers and footers of the page, sidebars,
// cookie banners, share buttons, related links, comment sections, reviews,
// photo captions and credits (not the photo), and text hidden from view
// (by attribute, style or class, such as sr-only, judged as on a desktop:
// "md:hidden" hides, "hidden md:block" shows) are left out; so are teasers
// of other stories beside an article (other article elements that are
// mostly links, or that sit in a box of their own, each titled by a link
// to its story), and the parts of a main that are mostly links when links
// are much of it (a product grid, a tag cloud). An article element that
// wraps the site's header and footer is read as the page. An id
// named after the heading its element opens with, as documentation
// generators name sections ("related-topics" for "Related topics"), says
// what the section is about, not that it is chrome. In an article,
// lists of links and of headlines, the dateline on a line of its own at
// its head, and a leading heading that repeats the title are left out too. The quality is
// measured on a development set of 181 pages (testdata/extract-dev) by
// TestQuality.
//
// The Markdown has ATX headings, nested lists, GFM tables, fenced code
// blocks with the language of their language-*, lang-* or highlight-*
// class, blockquotes, images and links made absolute. Links to anything
// but http, https and mailto are dropped, their text kept. No raw HTML is
// ever written, and the same page always gives the same Markdown.
//
// # Security Considerations
//
// Input is read up to [MaxInputBytes]. Pages are read by heed's tree
// builder (internal/htmltree), in time linear in their length: elements
// nest 512 deep at most (deeper ones become children of the deepest), and
// a tree holds at most 2^20 nodes, the rest of a page that would make more
// being left out. Scripts, styles, templates, embedded objects and hidden
// elements never reach the output.
//
// The Markdown is at most [MaxGrowth] (4) times as long as the input, in
// bytes, whatever the input. Text is written once, a character at most
// three bytes for each byte it was read from (a byte of a legacy encoding
// can be three bytes of UTF-8; an escaped ASCII character is two). Each
// element adds a few bytes of marks of its own, never once per line, per
// cell or per level of nesting: a table's header and delimiter rows have
// every column, and its other rows their own cells only (GFM reads a
// short row as filled with empty cells); a code block's language, which
// a wrapper's class gives every block in it, is 24 characters at most.
// What is written once per line or once per link, the prefixes and
// indentation of quotes and lists and the base URL put before relative
// links, adds at most as many bytes as the input has characters, all
// together: past that, a quote or a list is written without them, and a
// link as the page wrote it (a relative link stays relative). So does
// the work of resolving: each relative link resolved reads the base URL
// (all of it for a relative path, its scheme and host for an absolute
// one), and the bytes read are at most the input's length in characters;
// past that, relative links are written as the page wrote them. Pages
// people read use a small part of either budget (a quarter changes no
// page of the development set). The same holds for [Document.Links]:
// what resolving them adds is at most the input's length in characters,
// and so is the base URL they read; links past either are left out.
//
// Every string of a [Document] is valid UTF-8: bytes that are none in a
// page taken as UTF-8 (declared so, or sniffed from its first kilobyte)
// become U+FFFD.
//
// It depends on no net/http, nor on fetch.
package extract
