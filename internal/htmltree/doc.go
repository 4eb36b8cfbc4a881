// Package htmltree reads an HTML page into golang.org/x/net/html's node
// tree several times faster than html.Parse, for reading a page's text
// rather than rendering it.
//
// It builds the tree the way the HTML standard's tree construction does
// for what pages are made of: implied html, head and body, void and raw
// text elements, end tags implied by the start of another element (a
// paragraph by a block, a list item by the next, table rows and cells by
// the next), end tags that match no open element ignored, tables with
// their implied bodies and rows and with stray content put before them,
// and SVG and MathML left by the HTML elements that end them. It leaves
// out what changes formatting rather than text: the adoption agency's
// reparenting of misnested formatting elements (an end tag closes its
// element and what is open inside it) and the reopening of formatting
// elements in the next block. Names, attribute values and text are
// substrings of the page, and nodes are allocated in blocks.
//
// Open elements nest at most 512 deep; elements deeper than that become
// children of the deepest, so that a page of 100,000 nested elements is
// read in linear time and its tree is shallow enough to walk. A tree holds
// at most MaxNodes nodes. Time is linear in the page's length.
//
// It may not import heed's other packages. It depends on no net/http.
package htmltree
