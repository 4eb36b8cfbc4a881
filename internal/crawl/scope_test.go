package crawl

import (
	"fmt"
	"strings"
	"testing"
)

func TestGlobBounds(t *testing.T) {
	many := make([]string, MaxGlobs+1)
	for i := range many {
		many[i] = fmt.Sprintf("/p%d/", i)
	}
	for _, c := range []struct {
		globs []string
		want  string
	}{
		{many, "at most 32"},
		{[]string{"/" + strings.Repeat("a", maxGlobLen)}, "longer than"},
		{[]string{"/a*b*c*d*e*f*g*h*i*"}, "9 wildcards"},
		{[]string{"/**a**a**a**a**a**a**a**a**b"}, "9 wildcards"},
	} {
		if _, err := globs(c.globs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("globs(%.60q): %v, want an error saying %q", c.globs, err, c.want)
		}
	}
	if _, err := globs([]string{"/docs/**", "/guide/*/intro", "/a?c"}); err != nil {
		t.Errorf("ordinary globs refused: %v", err)
	}
}
