package history

import (
	"testing"

	"github.com/heedhq/heed"
)

// TestSinceAfterRetention: what became of a page since a time is told
// right after the retention let go of the version it had then: the page
// had a version on day 1 (let go, Versions 2) and two since, and Since
// says it changed, not that it is new.
func TestSinceAfterRetention(t *testing.T) {
	var vs []heed.PageVersion
	r := Retention{Versions: 2, MaxAge: -1}
	for i, text := range []string{"a", "b", "c"} {
		vs, _ = Append(vs, ver(1+4*i, text), r, t0.AddDate(0, 0, 1+4*i))
	}
	if vs[0].N != 2 {
		t.Fatalf("kept %+v, want versions 2 and 3", vs)
	}
	c, from, to, _, ok := Since(vs, t0.AddDate(0, 0, 3)) // version 1 was the page's then
	if !ok || c != heed.Changed || to != 3 {
		t.Errorf("Since(day 3) = %q %d→%d %v; the page had version 1 then, and has version 3: want changed", c, from, to, ok)
	}
}
