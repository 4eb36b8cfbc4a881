package crawl

import (
	"context"
	"errors"

	"github.com/heedhq/heed"
)

// Keeper is where a crawl keeps the pages its URLs come to, and what it
// knows of those it kept: the backend's part in settling a URL's end
// (Engine.Settle). One machine's keeps them in its store and in memory;
// a team's in the transaction that commits the URL.
type Keeper interface {
	// Claim makes canonical URL cn, which the page of it names, the
	// crawl's: taken is true, and cn is left as it was, when a page of
	// this crawl is kept under it already (stored, or claimed by another
	// page).
	Claim(ctx context.Context, cn string, it Item) (taken bool, err error)
	// Twin is the URL of a page this crawl kept with the content hash,
	// "" when there is none; the page of final is noted as kept, its
	// content the crawl's where no other page had it. A hash of "" is a
	// page too small to be taken for another.
	Twin(ctx context.Context, final, hash string) (string, error)
	// Put stores snap: changed is false when the store held it so
	// already.
	Put(ctx context.Context, snap *heed.Snapshot) (changed bool, err error)
	// Remove marks removed the page the store holds at rawURL, for why:
	// removed is false when the store holds none there, or one removed
	// already.
	Remove(ctx context.Context, rawURL, why string) (removed bool, err error)
	// WasRemoved reports whether the store holds the page at rawURL as
	// removed.
	WasRemoved(ctx context.Context, rawURL string) (bool, error)
}

// End is what a URL came to, settled: what its event tells.
type End struct {
	Kind           Kind
	Reason, Detail string
	// URL is what the event names: the URL, or where its page was
	// stored when it redirected on its origin.
	URL     string
	Change  heed.Change // of a page stored
	Version int
	// Again is a URL that failed for a cause that may pass: it is queued
	// again, for a later turn of its host, and does not end now.
	Again bool
	// Dead is a failure that says the page is gone (an HTTP 404 or 410)
	// where the store held no page: a dead link, which leaves a crawl
	// complete.
	Dead bool
	// Moved is set when the store held a page at the URL, which now
	// redirects to URL on its origin: it was marked removed
	// (MovedEvent).
	Moved bool
	Err   error // why it failed
}

// Settle decides what the URL of it came to, from what its visit found
// (res, Stop aside) and what the crawl kept before (k): a duplicate of a
// page this crawl kept (by its canonical URL, or its content) is
// skipped; a page gone that the store held is removed; a failure for a
// cause that may pass is tried again. It stores the page it keeps. Its
// error is k's, of the store: the URL's end is then the caller's to
// decide.
func (e *Engine) Settle(ctx context.Context, k Keeper, it Item, res *Result) (End, error) {
	end := End{Kind: res.Kind, Reason: res.Reason, Detail: res.Detail, URL: it.URL, Err: res.Err}
	skip := func(reason, detail string) (End, error) {
		end.Kind, end.Reason, end.Detail, end.Err = Skipped, reason, detail, nil
		return end, nil
	}
	switch res.Kind {
	case Failed:
		if retry(res.Err, it.Attempts) {
			end.Again = true
			return end, nil
		}
		why := gone(res.Err)
		if why == "" {
			return end, nil
		}
		// A page the store held, gone: a removal, not a failure.
		removed, err := k.Remove(ctx, it.URL, why)
		if err != nil {
			return end, err
		}
		if removed {
			end.Kind, end.Reason, end.Detail, end.Err = Removed, why, res.Err.Error(), nil
			return end, nil
		}
		before, err := k.WasRemoved(ctx, it.URL)
		if err != nil {
			return end, err
		}
		if before {
			// Removed already, and gone still: nothing became of it.
			return skip(ReasonGone, "found gone before, and gone still: "+res.Err.Error())
		}
		end.Dead = true
		return end, nil
	case Stored:
	default:
		// Skipped, Unchanged, or left before its end (Stop): as it came.
		return end, nil
	}
	snap := res.Snapshot
	if snap == nil {
		return end, errors.New("crawl: a page to store without its snapshot")
	}
	if res.Canonical != "" {
		// A duplicate only of a page kept in this crawl: a canonical URL
		// merely seen (queued, out of scope, disallowed) is not.
		taken, err := k.Claim(ctx, res.Canonical, it)
		if err != nil {
			return end, err
		}
		if taken {
			return skip(ReasonDup, "its canonical URL "+res.Canonical+" is stored already")
		}
	}
	// One page, one snapshot: a page of the same content as one kept in
	// this crawl (/ and /index.html, a page and its ?ref= twin) is that
	// page again. A page with little text of its own (a shell built by
	// JavaScript, a stub) is not taken for another.
	hash := res.Hash
	if len(snap.Markdown) < minDupBytes {
		hash = ""
	}
	twin, err := k.Twin(ctx, snap.URL, hash)
	if err != nil {
		return end, err
	}
	if twin != "" && twin != snap.URL {
		return skip(ReasonDup, "the same content as "+twin+", kept already")
	}
	changed, err := k.Put(ctx, snap)
	if err != nil {
		return end, err
	}
	end.URL = snap.URL
	if !changed {
		end.Kind = Unchanged
	} else {
		end.Change, end.Version = snap.Change, snap.Version
		if end.Change == heed.Unchanged {
			// A page another source held, its content the same: new to
			// the source that takes it (heed add of a site stored under
			// another name stores its pages), though its history, of its
			// content, has no new version.
			end.Change = heed.New
		}
	}
	if snap.URL != it.URL {
		// The page the store held at the URL now redirects: it is no
		// page any more.
		if end.Moved, err = k.Remove(ctx, it.URL, ReasonMoved); err != nil {
			return end, err
		}
	}
	return end, nil
}

// minDupBytes is the least Markdown a page must have to be taken for a
// twin of another of its source.
const minDupBytes = 200
