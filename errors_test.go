package heed_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/heedhq/heed"
)

// kinded is a cause that knows its kind, as an HTTP status does.
type kinded struct{ k heed.Kind }

func (e kinded) Error() string   { return "kinded" }
func (e kinded) Kind() heed.Kind { return e.k }

// TestKindOf: the kind is the first one said in the error's tree, by an
// *Error or by a cause that knows its own.
func TestKindOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want heed.Kind
	}{
		{nil, heed.Other},
		{errors.New("plain"), heed.Other},
		{kinded{heed.NotFound}, heed.NotFound},
		{fmt.Errorf("wrapped: %w", kinded{heed.Transient}), heed.Transient},
		{&heed.Error{Kind: heed.Blocked, Err: kinded{heed.NotFound}}, heed.Blocked},
		{fmt.Errorf("a: %w", &heed.Error{Kind: heed.Invalid}), heed.Invalid},
		{errors.Join(errors.New("x"), kinded{heed.TooLarge}), heed.TooLarge},
	} {
		if got := heed.KindOf(c.err); got != c.want {
			t.Errorf("KindOf(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
