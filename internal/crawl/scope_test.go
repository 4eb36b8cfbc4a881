package crawl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heedhq/heed/internal/config"
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

// TestSourceName: a source is named after its start URL's host, in a
// name a source may have, whatever the host.
func TestSourceName(t *testing.T) {
	for in, want := range map[string]string{
		"https://www.docs.example.com/guide/": "docs.example.com",
		"http://127.0.0.1:8080/":              "127.0.0.1_8080",
		"http://bücher.example/":              "xn--bcher-kva.example",
		"http://[::1]:8080/":                  "__1_8080",
		"not a url":                           "web",
	} {
		got := SourceName(in)
		if got != want {
			t.Errorf("SourceName(%q) = %q, want %q", in, got, want)
		}
		if !config.ValidName(got) {
			t.Errorf("SourceName(%q) = %q, not a valid source name", in, got)
		}
	}
}
