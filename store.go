package heed

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Snapshot is one page, feed or profile as a store keeps it: its
// Markdown and what is known of it.
type Snapshot struct {
	ID          string `json:"id"`
	Source      string `json:"source"`
	URL         string `json:"url"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	// Author, Published and Modified are who wrote the page and when, as
	// it says (a document's information, a page's metadata); empty when
	// it does not.
	Author    string    `json:"author,omitempty"`
	Published time.Time `json:"published,omitzero"`
	Modified  time.Time `json:"modified,omitzero"`
	FetchedAt time.Time `json:"fetched_at"`
	Tags      []string  `json:"tags,omitempty"`
	// Hash is the SHA-256 of Markdown, hex: unchanged content is not
	// rewritten.
	Hash         string `json:"hash"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	// Notes say what the page's directives or signals said, for a reader.
	Notes []string `json:"notes,omitempty"`
	// Via says how the page was found and read, where not by a link and
	// from its HTML: "llms.txt" (the site's /llms.txt lists it),
	// "markdown" (the server answered with Markdown),
	// "markdown-alternate" (the page's own Markdown alternate, read in its
	// place), "llms-full.txt" (it is a site's /llms-full.txt).
	Via []string `json:"via,omitempty"`
	// Rendered says the page's Markdown is of the page as a browser
	// rendered it, its scripts run: its static HTML held next to nothing.
	Rendered bool   `json:"rendered,omitempty"`
	Markdown string `json:"-"`
	// Path is where a store keeps it: for a stash of files, the file's
	// path relative to the stash directory; empty for a store of rows.
	Path string `json:"path"`
	// Name, if set, is where the snapshot wants to live instead of
	// SOURCE/HOST/PATH.md: a path relative to the stash without ".md",
	// such as "feeds/example.com-feed".
	Name string `json:"-"`
	// Links are the page's links that a crawl follows, kept by the store
	// (crawl state, not part of the page), so that a re-crawl that finds
	// the page unchanged still follows them.
	Links []string `json:"-"`
}

// Entry is a snapshot as listed, without its content.
type Entry struct {
	ID        string    `json:"id"`
	Source    string    `json:"source"`
	URL       string    `json:"url"`
	Title     string    `json:"title"`
	FetchedAt time.Time `json:"fetched_at"`
	Path      string    `json:"path"`
}

// Query is a full-text search.
type Query struct {
	// Text is what to look for: words (all must match, in any form that
	// stems alike), "quoted phrases", and a trailing * for a prefix.
	Text   string
	Source string // only this source, if set
	Limit  int    // 0 means 10
}

// Hit is one search result, best first.
type Hit struct {
	ID     string `json:"id"`
	URL    string `json:"url"`
	Title  string `json:"title"`
	Source string `json:"source"`
	// Snippet is the words around the first match, as plain text (no
	// Markdown marks), and Matches where in it the query's words are.
	Snippet string `json:"snippet"`
	Matches []Span `json:"matches,omitempty"`
	// Page is the page of a document (a PDF) the snippet is from; 0 for
	// a page of the web.
	Page  int     `json:"page,omitempty"`
	Score float64 `json:"score"` // higher is better
	Path  string  `json:"path"`
}

// Where is where a hit is, as a line says it: its URL, and for a page of
// a document its page ("https://example.com/a.pdf, page 3").
func (h Hit) Where() string {
	if h.Page == 0 {
		return h.URL
	}
	return h.URL + ", page " + strconv.Itoa(h.Page)
}

// Span is a part of a text, from Start up to End, counted in Unicode code
// points.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// MaxQuery is the longest query a store's search takes, in bytes.
const MaxQuery = 1000

// Errors a store returns, whatever keeps its snapshots.
var (
	// ErrNotFound is returned when no snapshot has the URL or ID asked for.
	ErrNotFound = errors.New("not found")
	// ErrEmptyQuery is returned for a query without a word to look for.
	ErrEmptyQuery = errors.New("nothing to search for")
	// ErrQueryTooLong is returned for a query longer than MaxQuery.
	ErrQueryTooLong = fmt.Errorf("a query may be at most %d bytes long", MaxQuery)
	// ErrBusy is returned by a write to a store that another heed process
	// is writing.
	ErrBusy = errors.New("another heed process is writing the stash; try again when it is done")
	// ErrUnwritable is wrapped by the errors of writes that fail for the
	// store as a whole (a full disk, a read-only file system, a lost
	// database): every later write would fail too.
	ErrUnwritable = errors.New("the stash cannot be written")
)

// IDOf is the ID of the snapshot of a URL: 12 hex digits of its SHA-256,
// the same in every store.
func IDOf(url string) string {
	h := sha256.Sum256([]byte(url))
	return hex.EncodeToString(h[:6])
}

// HashOf is the content hash of a snapshot's Markdown: its SHA-256, hex.
func HashOf(markdown string) string {
	h := sha256.Sum256([]byte(markdown))
	return hex.EncodeToString(h[:])
}
