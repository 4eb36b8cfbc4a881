package rendertest

import (
	"os"
	"testing"

	"github.com/heedhq/heed/internal/render"
)

// Browser is a browser of cfg for the test, closed when it ends; the
// test is skipped when none is found, or fails with HEED_BROWSER=required.
func Browser(tb testing.TB, cfg render.Config) *render.Browser {
	tb.Helper()
	b := render.New(cfg)
	if err := b.Available(); err != nil {
		if os.Getenv("HEED_BROWSER") == "required" {
			tb.Fatalf("a browser is needed: %v", err)
		}
		tb.Skipf("no browser: %v", err)
	}
	tb.Cleanup(func() { b.Close() })
	return b
}
