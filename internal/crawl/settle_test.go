package crawl

import (
	"context"
	"errors"
	"testing"

	"github.com/heedhq/heed"
)

// nothingKept is a Keeper of a crawl that kept nothing yet, and fails a
// test that stores.
type nothingKept struct{ t *testing.T }

func (k nothingKept) Claim(context.Context, string, Item) (bool, error) { return false, nil }
func (k nothingKept) Twin(context.Context, string, string) (string, error) {
	return "", nil
}
func (k nothingKept) Put(context.Context, *heed.Snapshot) (bool, error) {
	k.t.Error("Put called")
	return true, nil
}
func (k nothingKept) Remove(context.Context, string, string) (bool, error) { return false, nil }
func (k nothingKept) WasRemoved(context.Context, string) (bool, error)     { return false, nil }

// TestSettleLeavesWhatItDoesNotStore: a URL left before its end, and a
// result of a kind Settle does not store, come out as they went in; a
// page to store without its snapshot is an error, not a crash.
func TestSettleLeavesWhatItDoesNotStore(t *testing.T) {
	e := &Engine{}
	it := Item{URL: "https://example.com/a"}
	stop := errors.New("the crawl stopped")
	for _, res := range []*Result{{Stop: stop}, {Kind: Removed}, {Kind: Skipped, Reason: ReasonScope}, {Kind: Unchanged}} {
		end, err := e.Settle(t.Context(), nothingKept{t}, it, res)
		if err != nil || end.Kind != res.Kind || end.URL != it.URL || end.Again || end.Moved {
			t.Errorf("%+v: got %+v, %v", res, end, err)
		}
	}
	if _, err := e.Settle(t.Context(), nothingKept{t}, it, &Result{Kind: Stored}); err == nil {
		t.Error("a page to store without its snapshot settled")
	}
}
