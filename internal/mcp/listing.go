package mcp

import (
	"cmp"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"time"
)

// A listing is a list a result was cut from, kept so that a cursor reads
// the rest of that one list, not a list made anew: a crawl's skipped
// URLs (a group for each reason), web_grep's matches, stash_search's hits,
// stash_sources' sources. It answers one tool's call with some arguments
// (args), and a cursor is refused for another tool or other arguments.
type listing struct {
	id     [listingIDLen]byte
	tool   string
	args   string
	head   any // what the result says besides the list (a crawl's summary)
	groups []group
	bytes  int
	read   time.Time
}

// A group is one list of a listing.
type group struct {
	name  string
	items any // []Skip, []Match, []Hit or []Source
	kept  int // len(items)
	count int // how many there were, though fewer may be kept
}

// Bounds of what listings keep: a listing holds at most maxListItems
// items and maxListBytes; all listings together at most listingsSize
// listings and listingsBytes, each for listingTTL from when it was last
// read, as the page cache keeps pages.
const (
	maxListItems  = 10_000
	maxListBytes  = 8 << 20
	listingsSize  = 32
	listingsBytes = 32 << 20
	listingTTL    = pageCacheTTL
	listingIDLen  = 12
	itemOverhead  = 64 // what an item costs besides its strings
	noGroup       = 0xff
)

// listings keeps the listings of results lately cut.
type listings struct {
	mu    sync.Mutex
	held  map[[listingIDLen]byte]*listing
	order [][listingIDLen]byte // least lately read first
	bytes int
	now   func() time.Time
}

func newListings() *listings {
	return &listings{held: map[[listingIDLen]byte]*listing{}, now: time.Now}
}

// newListingID draws a listing's id: random, so that a cursor names one
// listing only, and no other can be guessed from it.
func newListingID() (id [listingIDLen]byte) {
	rand.Read(id[:])
	return id
}

// put keeps a listing, under its id, and returns its cursor at the start
// of group g (noGroup: none chosen).
func (ls *listings) put(l *listing, g int) cursor {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	now := ls.now()
	ls.expire(now)
	l.read = now
	ls.held[l.id] = l
	ls.order = append(ls.order, l.id)
	ls.bytes += l.bytes
	for len(ls.order) > 1 && (len(ls.order) > listingsSize || ls.bytes > listingsBytes) {
		ls.remove(ls.order[0])
	}
	return cursor{id: l.id, group: g}
}

// get is the listing a cursor names, if it is still held; it is kept for
// listingTTL from now.
func (ls *listings) get(id [listingIDLen]byte) *listing {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	now := ls.now()
	ls.expire(now)
	l := ls.held[id]
	if l == nil {
		return nil
	}
	l.read = now
	ls.order = slices.DeleteFunc(ls.order, func(k [listingIDLen]byte) bool { return k == id })
	ls.order = append(ls.order, id)
	return l
}

func (ls *listings) expire(now time.Time) {
	for len(ls.order) > 0 && now.Sub(ls.held[ls.order[0]].read) > listingTTL {
		ls.remove(ls.order[0])
	}
}

func (ls *listings) remove(id [listingIDLen]byte) {
	l, ok := ls.held[id]
	if !ok {
		return
	}
	ls.bytes -= l.bytes
	delete(ls.held, id)
	ls.order = slices.DeleteFunc(ls.order, func(k [listingIDLen]byte) bool { return k == id })
}

// A cursor is a place in a listing: its id, a group of it (noGroup for
// none chosen yet) and how many of the group's items come before.
type cursor struct {
	id     [listingIDLen]byte
	group  int
	offset int
}

// cursorVersion is the first byte of every cursor, so that a cursor of
// another form is refused as one.
const cursorVersion = 1

// maxCursorLen bounds a cursor's text: longer is none heed gave.
const maxCursorLen = 40

// String is the cursor as an agent passes it: opaque, URL-safe, at most
// maxCursorLen characters.
func (c cursor) String() string {
	b := make([]byte, 0, 2+listingIDLen+binary.MaxVarintLen64)
	b = append(b, cursorVersion)
	b = append(b, c.id[:]...)
	b = append(b, byte(c.group))
	b = binary.AppendUvarint(b, uint64(c.offset))
	return base64.RawURLEncoding.EncodeToString(b)
}

// parseCursor reads a cursor an agent passed, or says why it is none
// heed gave.
func parseCursor(s string) (cursor, error) {
	bad := fmt.Errorf("cursor %q is not one heed gave: pass next_cursor (or skipped_cursor) as a result gave it", cutTo(s, maxCursorLen))
	if len(s) > maxCursorLen {
		return cursor{}, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 3+listingIDLen || b[0] != cursorVersion {
		return cursor{}, bad
	}
	var c cursor
	copy(c.id[:], b[1:1+listingIDLen])
	c.group = int(b[1+listingIDLen])
	off, n := binary.Uvarint(b[2+listingIDLen:])
	if n <= 0 || 2+listingIDLen+n != len(b) || off > maxListItems {
		return cursor{}, bad
	}
	c.offset = int(off)
	return c, nil
}

// open finds the listing a cursor continues for a call of tool with
// args, or says why it cannot be read: no longer held, another tool's,
// other arguments', or a place not in it.
func (ls *listings) open(raw, tool, args, same string) (*listing, cursor, error) {
	c, err := parseCursor(raw)
	if err != nil {
		return nil, c, err
	}
	l := ls.get(c.id)
	switch {
	case l == nil:
		return nil, c, fmt.Errorf("the list cursor %q goes on with is no longer held: heed keeps a result's list for %v after it was last read, and only so many; call %s again without cursor", raw, listingTTL, tool)
	case l.tool != tool:
		return nil, c, fmt.Errorf("cursor %q goes on with a list of %s, not of %s: pass it to %s", raw, l.tool, tool, l.tool)
	case l.args != args:
		return nil, c, fmt.Errorf("cursor %q goes on with the list of a call of %s with other arguments: give %s as the call that gave it did", raw, tool, same)
	case c.group != noGroup && c.group >= len(l.groups),
		c.group != noGroup && c.offset > l.groups[c.group].kept,
		c.group == noGroup && c.offset != 0:
		return nil, c, fmt.Errorf("cursor %q is not one heed gave: pass next_cursor (or skipped_cursor) as a result gave it", raw)
	}
	return l, c, nil
}

// itemsOf is a group's items, as their type.
func itemsOf[T any](g group) []T {
	items, _ := g.items.([]T)
	return items
}

// A listPage is the items of a list a result shows, from the offset
// given, and the cursor to the rest ("" when none remain).
type listPage[T any] struct {
	lines []string
	shown []T
	from  int
	next  string
}

// widestCursor is as long as a cursor can be, to measure a result that
// will hold one.
var widestCursor = cursor{group: noGroup - 1, offset: maxListItems}.String()

// pageOf shows the items of a list from offset that fit a result of
// budget characters. base measures the result with no item shown,
// holding a cursor and the note of a cut list if cut; show gives an
// item's line and element, its strings cut to max characters (see
// fitItems); keep, called when items remain, holds the list if it is not
// held yet and returns the cursor to the item given.
func pageOf[T any](budget int, items []T, offset int, base func(cut bool) int, show func(T, int) (string, T), keep func(next int) cursor) listPage[T] {
	p := listPage[T]{from: offset}
	// The note's numbers, measured with no item listed, take a few
	// digits more once items are.
	const digits = 32
	p.lines, p.shown = fitItems(budget-base(true)-digits, items[offset:], show)
	if next := offset + len(p.shown); next < len(items) {
		p.next = keep(next).String()
	}
	return p
}

// listed is what a result holds of the page p of a list of of items,
// after head's notes: the items shown (an empty list, never nil), the
// cursor to the rest, and the notes. A result cut to its budget holds a
// cursor (the widest one, when it is measured with none yet) and the
// note that says which items it shows and how call gives the rest.
func (p listPage[T]) listed(cut bool, budget, of int, what, call string, notes []string) (shown []T, next string, withNotes []string) {
	shown, next, withNotes = p.shown, p.next, slices.Clip(notes)
	if shown == nil {
		shown = []T{}
	}
	if cut {
		next = cmp.Or(p.next, widestCursor)
		withNotes = append(withNotes, cutNote(budget, p.from, len(p.shown), of, what, call, next))
	}
	return shown, next, withNotes
}

// cutNote is the note of a list cut to its budget: which of its items it
// shows, and how to ask for the rest.
func cutNote(budget, from, shown, of int, what, call, next string) string {
	return fmt.Sprintf("%d to %d of the %d %s are listed, as many as max_chars %d allows; for the rest, call %s and cursor %q (next_cursor)", from+1, from+shown, of, what, budget, call, next)
}

// at is the cursor to the item given of its group.
func (c cursor) at(offset int) cursor {
	c.offset = offset
	return c
}
