package directives_test

import (
	"fmt"

	"github.com/heedhq/heed/robots/directives"
)

func ExampleFor() {
	// Two X-Robots-Tag headers and a <meta name="robots"> tag.
	var sets []directives.Set
	sets = append(sets, directives.Parse("max-snippet:100, otherbot: noindex")...)
	sets = append(sets, directives.Parse("heed: nofollow, max-snippet:20")...)
	sets = append(sets, directives.ParseMeta("robots", "noarchive")...)
	s := directives.For("heed/0.1", sets...)
	fmt.Println(s.NoIndex, s.NoFollow, s.NoArchive, *s.MaxSnippet)
	fmt.Println(s)
	// Output:
	// false true true 20
	// nofollow, noarchive, max-snippet:20
}

func ExampleSet_Explicit() {
	fmt.Println(directives.Set{NoIndex: true}.Explicit())
	// Output: noindex, follow
}
