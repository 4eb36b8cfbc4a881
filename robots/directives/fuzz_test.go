package directives

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse checks that Parse never panics and that every set it returns
// is written back into a value that parses to the same set.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"noindex, nofollow", "googlebot: noindex, otherbot: max-snippet:20", "none",
		"unavailable_after: Friday, 25-Jun-10 15:00:00 PST", "max-image-preview:large, noai",
		"unavailable_after: 2025-07-01T00:00:00+02:00", "x: y: z, , ,",
		// Shapes from review: many words, many dates, bad zones, values
		// that are not scopes.
		strings.Repeat("w ", 2000), strings.Repeat("unavailable_after: x,", 200),
		"unavailable_after: Fri, 25 Jun 2010 15:00 CEST, noindex", "max-foo: 5, noindex",
		"unavailable_after: 2010-06-25T15:00:00.5Z",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		sets := Parse(value)
		For("heed", sets...)
		for _, s := range sets {
			if s.IsZero() && s.Bot == "" {
				continue
			}
			back := Parse(s.String())
			if len(back) != 1 {
				t.Fatalf("Parse(%q) = %d sets, from %q", s.String(), len(back), value)
			}
			if diff := cmp.Diff(s, back[0]); diff != "" {
				t.Fatalf("round trip of %q through %q (-want +got):\n%s", value, s.String(), diff)
			}
		}
	})
}
