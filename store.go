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
	// Version is the number of this content in the page's history, and
	// Change what the Put that stored it found (new, changed, or
	// unchanged): both set by a store's Put.
	Version int    `json:"version,omitempty"`
	Change  Change `json:"change,omitempty"`
	// Removed is when the page was found gone (an HTTP 404 or 410, or a
	// complete crawl of its source no longer reaching it); zero while it
	// is there. A store keeps a removed page's last version, out of
	// search by default.
	Removed time.Time `json:"removed,omitzero"`
}

// Change is what became of a page: between two crawls, or since a time.
type Change string

// The changes of a page.
const (
	New       Change = "new"       // there was no version of it before
	Changed   Change = "changed"   // its content differs from the one before
	Unchanged Change = "unchanged" // its content is the one before
	Removed   Change = "removed"   // it was found gone
)

// PageVersion is one entry of a page's history: a content it had from At
// on, or, with Removed set, its removal. A store keeps each distinct
// content once, whatever number of versions or pages have it.
type PageVersion struct {
	// N numbers a page's versions from 1, removals included; a number is
	// never given twice, even once the retention let its version go.
	N            int       `json:"n"`
	At           time.Time `json:"at"`
	Hash         string    `json:"hash,omitempty"` // heed.HashOf its Markdown; "" of a removal
	Size         int       `json:"size"`           // bytes of Markdown
	ETag         string    `json:"etag,omitempty"`
	LastModified string    `json:"last_modified,omitempty"`
	// Removed, of a removal, says why: "404", "410" (the HTTP status),
	// "moved" (it redirects to another page of its site), or "unreached"
	// (a complete crawl of its source no longer reached it).
	Removed string `json:"removed,omitempty"`
}

// History is a page's versions, oldest first.
type History struct {
	ID       string        `json:"id"`
	URL      string        `json:"url"`
	Source   string        `json:"source"`
	Title    string        `json:"title"`
	Versions []PageVersion `json:"versions"`
	// Unreadable are entries of the history a store kept but cannot read
	// (a file edited by hand, or damaged), as they are: kept, not dropped.
	Unreadable []string `json:"unreadable,omitempty"`
}

// PageChange is what became of one page since a time.
type PageChange struct {
	ID     string    `json:"id"`
	URL    string    `json:"url"`
	Source string    `json:"source"`
	Title  string    `json:"title"`
	Change Change    `json:"change"`
	At     time.Time `json:"at"` // when its last version (or removal) was found
	// From is the version it had at the time asked about (0 for a new
	// page), To the one it has now.
	From int `json:"from,omitempty"`
	To   int `json:"to"`
}

// ChangesQuery asks what became of pages since a time.
type ChangesQuery struct {
	Since  time.Time
	Source string // only this source, if set
	// After is a cursor: the URL of the last page of the previous part
	// ("" for the first); Limit the most pages a part holds (0: every).
	After string
	Limit int
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
	// Removed finds pages found gone too, which a search leaves out by
	// default.
	Removed bool
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
