package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/heedhq/heed"
)

// Retention is how much of each page's history a store keeps. A page's
// current version (or its removal) is always kept.
type Retention struct {
	// Versions is the most entries a page keeps, its current one
	// included; 0 means DefaultVersions, negative no limit.
	Versions int `json:"versions" yaml:"versions"`
	// MaxAge lets go of versions replaced longer ago than this; 0 means
	// DefaultMaxAge, negative no limit.
	MaxAge time.Duration `json:"max_age" yaml:"max_age"`
}

// The default retention: enough to follow a page over a year of
// re-crawls, a few megabytes for a thousand pages that change weekly.
const (
	DefaultVersions = 30
	DefaultMaxAge   = 365 * 24 * time.Hour
)

// Filled is r with its defaults.
func (r Retention) Filled() Retention {
	if r.Versions == 0 {
		r.Versions = DefaultVersions
	}
	if r.MaxAge == 0 {
		r.MaxAge = DefaultMaxAge
	}
	return r
}

// Append adds v to a page's history vs (oldest first), numbered after
// the last, and applies the retention at now. It returns the history
// kept and the entries let go, whose contents a store may drop where no
// version it keeps has them.
func Append(vs []heed.PageVersion, v heed.PageVersion, r Retention, now time.Time) (kept, dropped []heed.PageVersion) {
	// A server's validators are kept as it sent them, within a bound: a
	// megabyte's ETag is no page's history.
	v.ETag, v.LastModified = heed.Clip(v.ETag, maxValidator), heed.Clip(v.LastModified, maxValidator)
	v.At = v.At.UTC()
	if v.At.Before(Epoch) {
		v.At = Epoch
	}
	v.N = 1
	if len(vs) > 0 {
		v.N = vs[len(vs)-1].N + 1
	}
	all := append(vs[:len(vs):len(vs)], v)
	return Prune(all, r, now)
}

// Record is what storing a page's content, as version v (its time, hash,
// size and validators), does to its history vs: New for a page without
// a version, or one that was removed; Changed for one whose last content
// differs; Unchanged for one whose does not, when the history is kept
// as it is. It returns the history kept and the entries the retention
// let go (Append).
func Record(vs []heed.PageVersion, v heed.PageVersion, r Retention, now time.Time) (kept, dropped []heed.PageVersion, c heed.Change) {
	switch {
	case len(vs) == 0 || vs[len(vs)-1].Removed != "":
		c = heed.New
	case vs[len(vs)-1].Hash == v.Hash:
		return vs, nil, heed.Unchanged
	default:
		c = heed.Changed
	}
	kept, dropped = Append(vs, v, r, now)
	return kept, dropped, c
}

// Remove is what finding a page gone at a time, why, does to its history
// vs: a removal added, unless it has no version or is removed already
// (ok false).
func Remove(vs []heed.PageVersion, at time.Time, why string, r Retention) (kept, dropped []heed.PageVersion, ok bool) {
	if len(vs) == 0 || vs[len(vs)-1].Removed != "" {
		return vs, nil, false
	}
	kept, dropped = Append(vs, heed.PageVersion{At: at, Removed: why}, r, at)
	return kept, dropped, true
}

// maxValidator is the most bytes of an ETag or a Last-Modified a
// version keeps.
const maxValidator = 256

// Prune applies the retention at now to a history, oldest first: it
// returns the entries kept and those let go. An entry replaced (by the
// next one) longer ago than MaxAge goes, and the oldest go while there
// are more than Versions; the last entry stays.
func Prune(vs []heed.PageVersion, r Retention, now time.Time) (kept, dropped []heed.PageVersion) {
	r = r.Filled()
	first := 0
	if r.Versions > 0 && len(vs) > r.Versions {
		first = len(vs) - r.Versions
	}
	if r.MaxAge > 0 {
		for first < len(vs)-1 && now.Sub(vs[first+1].At) > r.MaxAge {
			first++
		}
	}
	return vs[first:], vs[:first]
}

// Since says what became of a page with history vs (oldest first) since
// a time: New if it had no version then (none yet, or it was removed)
// and has one now; Changed if it had one, and has had another since;
// Removed if it had one and is removed now. ok is false when nothing
// became of it: no entry since, or a page both new and removed since.
// from and to are the versions' numbers then and now (from is 0 for a
// new page), at when the last entry was found.
func Since(vs []heed.PageVersion, since time.Time) (c heed.Change, from, to int, at time.Time, ok bool) {
	if len(vs) == 0 {
		return "", 0, 0, time.Time{}, false
	}
	last := vs[len(vs)-1]
	if !last.At.After(since) {
		return "", 0, 0, time.Time{}, false
	}
	// then is the entry current at since: the last one found by then.
	var then *heed.PageVersion
	for i := range vs {
		if vs[i].At.After(since) {
			break
		}
		then = &vs[i]
	}
	had := then != nil && then.Removed == ""
	if then == nil && vs[0].N > 1 {
		// The entry the page had then was let go (the retention): the
		// page had one, the one numbered before the first kept, taken
		// for a version (its removal would have been kept beside it
		// only as long).
		had, from = true, vs[0].N-1
	}
	has := last.Removed == ""
	if had && then != nil {
		from = then.N
	}
	switch {
	case !had && has:
		c = heed.New
	case had && has:
		c = heed.Changed
	case had && !has:
		c = heed.Removed
	default:
		return "", 0, 0, time.Time{}, false
	}
	return c, from, last.N, last.At, true
}

// Current is the content of a page's history now: its last entry that
// is a version, and whether the page is removed.
func Current(vs []heed.PageVersion) (v heed.PageVersion, removed bool) {
	if len(vs) == 0 {
		return heed.PageVersion{}, false
	}
	last := vs[len(vs)-1]
	if last.Removed == "" {
		return last, false
	}
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].Removed == "" {
			return vs[i], true
		}
	}
	return heed.PageVersion{}, true
}

// Find is the entry numbered n, if the history keeps it.
func Find(vs []heed.PageVersion, n int) (heed.PageVersion, bool) {
	for _, v := range vs {
		if v.N == n {
			return v, true
		}
	}
	return heed.PageVersion{}, false
}

// Encode writes a version as one line of text (JSON), as a store of
// text keeps it.
func Encode(v heed.PageVersion) string {
	v.At = v.At.UTC()
	b, _ := json.Marshal(v) // a Version always marshals
	return string(b)
}

// MaxVersion is the largest number a version may have: a history read
// with a larger one (edited by hand) cannot be numbered after.
const MaxVersion = 1 << 40

// Epoch is the time of a version whose time is not known (a page a heed
// from before histories stored, whose file says no time): before any
// time a user asks about.
var Epoch = time.Unix(0, 0).UTC()

// ErrEntry is wrapped by Decode's error.
var ErrEntry = errors.New("history: an entry cannot be read")

// Decode reads a version Encode wrote.
func Decode(s string) (heed.PageVersion, error) {
	var v heed.PageVersion
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return v, fmt.Errorf("%w: %v", ErrEntry, err)
	}
	switch {
	case v.N < 1 || v.N > MaxVersion:
		return v, fmt.Errorf("%w: its number is %d", ErrEntry, v.N)
	case v.At.Before(Epoch):
		// Encode writes times since the epoch, and reads back only what
		// it writes.
		return v, fmt.Errorf("%w: its time %s is not one heed writes", ErrEntry, v.At.Format(time.RFC3339Nano))
	case v.Removed == "" && !IsHash(v.Hash):
		return v, fmt.Errorf("%w: %q is no content hash", ErrEntry, v.Hash)
	case v.Size < 0:
		return v, fmt.Errorf("%w: its size is %d", ErrEntry, v.Size)
	}
	return v, nil
}

// DecodeAll reads a history written by Encode, oldest first: the
// entries it cannot read (or whose numbers do not rise) are returned
// apart, as they are.
func DecodeAll(lines []string) (vs []heed.PageVersion, unreadable []string) {
	for _, l := range lines {
		v, err := Decode(l)
		if err != nil || (len(vs) > 0 && v.N <= vs[len(vs)-1].N) {
			unreadable = append(unreadable, l)
			continue
		}
		vs = append(vs, v)
	}
	return vs, unreadable
}

// IsHash reports whether s is a content hash (heed.HashOf): 64 lower
// hex digits. A hash names a file of versions: nothing else may.
func IsHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ChangeOf is what became of the page of history h since a time (Since),
// and whether anything did.
func ChangeOf(h *heed.History, since time.Time) (heed.PageChange, bool) {
	c, from, to, at, ok := Since(h.Versions, since)
	if !ok {
		return heed.PageChange{}, false
	}
	return heed.PageChange{ID: h.ID, URL: h.URL, Source: h.Source, Title: h.Title, Change: c, At: at, From: from, To: to}, true
}
