package crawl

import (
	"context"
	"time"

	"github.com/heedhq/heed"
)

// Store is where a crawl keeps its pages, and what it remembers of them
// for the next crawl. The stash of files and SQLite is one; any other
// (rows in a database, a map in memory) serves as well.
type Store interface {
	// Put stores a snapshot; changed is false when the store held it as
	// it is. An error wrapping heed.ErrUnwritable or heed.ErrBusy says no
	// later page can be stored either: the crawl stops.
	Put(ctx context.Context, snap *heed.Snapshot) (changed bool, err error)
	// Touch records that the page at url was found unchanged at a time.
	Touch(ctx context.Context, url string, at time.Time) error
	// Links are the links a page of the source stored before, to be
	// followed when it is found unchanged.
	Links(ctx context.Context, source, url string) []string
	// Validators are what a page of the source was stored with, for a
	// conditional request.
	Validators(ctx context.Context, source, url string) (etag, lastModified string, ok bool)
	// HasValidators reports whether any page of the source has them: a
	// source never crawled asks for none.
	HasValidators(ctx context.Context, source string) bool
	// Hash is the content hash (heed.HashOf) of the source's page at
	// url as stored, or "".
	Hash(ctx context.Context, source, url string) string
	// MarkRemoved records that the source's page at url was found gone at
	// a time, and why (an HTTP status such as "404", or "unreached"): a
	// removal in its history, and out of search. removed is false where
	// the store holds no page of the source there, or holds it removed
	// already.
	MarkRemoved(ctx context.Context, source, url string, at time.Time, why string) (removed bool, err error)
}

// Batcher is a Store that keeps what Put gives it in batches: a crawl
// asks for batches of n, and flushes the last when it is done.
type Batcher interface {
	SetBatch(n int)
	Flush(ctx context.Context) error
}
