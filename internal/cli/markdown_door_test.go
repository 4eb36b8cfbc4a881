package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/heedhq/heed/internal/testutil"
)

// heed fetch reads a site's hostile Markdown in memory linear in its
// length (front matter of repeated keys; relative links at a long URL)
// and prints no raw HTML as a CommonMark parser reads it (the routes by
// which one once read the sanitizer's output otherwise than heed, and
// touching code elements in HTML).
func TestFetchHostileMarkdown(t *testing.T) {
	dir := "/" + strings.Repeat("d", 6<<10) + "/"
	var links strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&links, "[a](x%d) ", i)
	}
	pages := map[string]string{
		"/plain.md":      "# T\n\nA page.\n",
		"/keys.md":       "---\n" + strings.Repeat("k:\n", 4<<10/3) + "---\n# T\n\nA page.\n",
		dir + "one.md":   "[a](x0)",
		dir + "links.md": links.String(),
		"/routes.md":     "# T\n\n`a\nb `<img src=x onerror=alert(1)>`\n\n<b>-</b> a\n\n    <img src=x onerror=alert(1)>\n",
	}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/code" {
			fmt.Fprint(w, "<html><head><title>Code</title></head><body><main><p>Press <kbd>a</kbd><kbd>`&lt;img src=x onerror=alert(1)&gt;</kbd> to go on, as this page says at length.</p></main></body></html>")
			return
		}
		md, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, md)
	}))
	defer s.Close()
	fetch := func(path string) (body string, alloc uint64) {
		var code int
		var out, stderr string
		alloc = testutil.Allocated(func() {
			code, out, stderr = run(t, "", "fetch", "--allow-net", "127.0.0.1/32", s.URL+path)
		})
		if code != 0 {
			t.Fatalf("fetch %.40s: exit %d, %s", path, code, stderr)
		}
		_, body, _ = strings.Cut(out, "\n---\n")
		return body, alloc
	}
	_, plain := fetch("/plain.md")
	_, keys := fetch("/keys.md")
	t.Logf("fetch allocates %d bytes, %d with 4 KB of repeated keys", plain, keys)
	if keys > plain+16<<20 {
		t.Errorf("4 KB of repeated keys cost heed fetch %d bytes more", keys-plain)
	}
	_, one := fetch(dir + "one.md")
	_, many := fetch(dir + "links.md")
	t.Logf("fetch allocates %d bytes for a link at a 6 KB URL, %d for %d bytes of links", one, many, links.Len())
	if many > one+uint64(64*links.Len()) {
		t.Errorf("%d bytes of links at a 6 KB URL cost heed fetch %d bytes more", links.Len(), many-one)
	}
	for path, mailto := range map[string]bool{"/routes.md": false, "/code": true} {
		if body, _ := fetch(path); testutil.UnsafeMarkdown(body, mailto) != "" {
			t.Errorf("%s: %s in %q", path, testutil.UnsafeMarkdown(body, mailto), body)
		}
	}
}
