package stash_test

import (
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/memstore"
	"github.com/heedhq/heed/internal/source"
	"github.com/heedhq/heed/internal/stash"
)

// The stash of files and SQLite is a store for the crawler and the
// sources, as the store in memory is.
var (
	_ crawl.Store   = (*stash.Stash)(nil)
	_ crawl.Batcher = (*stash.Stash)(nil)
	_ source.Store  = (*stash.Stash)(nil)
	_ crawl.Store   = (*memstore.Store)(nil)
	_ source.Store  = (*memstore.Store)(nil)
)
