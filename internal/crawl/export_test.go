package crawl

import (
	"context"
	"testing"

	"github.com/heedhq/heed"
)

// Snapshots is what the tests outside the package read of a crawl's
// store.
type Snapshots interface {
	List(ctx context.Context, source string) ([]heed.Entry, error)
	Get(ctx context.Context, urlOrID string) (*heed.Snapshot, error)
	History(ctx context.Context, urlOrID string) (*heed.History, error)
}

// NewTestCrawler is crawler, for the tests outside the package: a
// Crawler into a store of its own, the store of this run of the tests
// (TestMain), and what it stored.
func NewTestCrawler(t *testing.T) (*Crawler, Snapshots) {
	t.Helper()
	return crawler(t)
}
