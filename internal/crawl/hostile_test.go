package crawl

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// crawlAllocates is the memory a crawl from start allocates, in bytes.
func crawlAllocates(t *testing.T, opts Options) uint64 {
	t.Helper()
	c, _ := crawler(t)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := c.Crawl(t.Context(), opts, nil); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A site's llms.txt whose front matter repeats a key costs the crawl
// memory linear in its length (the YAML decoder alone keeps an error for
// each pair of equal keys), and still lists its pages.
func TestCrawlLLMsTxtRepeatedKeys(t *testing.T) {
	const list = "# Site\n\n- [A](/docs/a.md)\n"
	s := newMDSite(t)
	s.html["/docs/"] = html("Docs")
	s.files["/docs/a.md"] = [2]string{"text/markdown", "# A\n\nA page.\n"}
	opts := Options{Start: s.URL + "/docs/", Source: "llms", NoSitemaps: true}
	s.files["/llms.txt"] = [2]string{"text/plain", list}
	plain := crawlAllocates(t, opts)
	s.files["/llms.txt"] = [2]string{"text/plain", "---\n" + strings.Repeat("k:\n", 4<<10/3) + "---\n" + list}
	repeated := crawlAllocates(t, opts)
	t.Logf("a crawl allocates %d bytes, %d with 4 KB of repeated keys in llms.txt", plain, repeated)
	if repeated > plain+16<<20 {
		t.Errorf("4 KB of repeated keys in llms.txt cost the crawl %d bytes more", repeated-plain)
	}
	if s.count("/docs/a.md") != 2 {
		t.Errorf("the page llms.txt lists was not crawled both times: %q", s.paths())
	}
}

// A Markdown page of many relative links at a long URL costs the crawl
// memory linear in its length: resolving them has the budget Extract's
// links have.
func TestCrawlMarkdownLinkBudget(t *testing.T) {
	s := newMDSite(t)
	var b strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&b, "[a](x%d) ", i)
	}
	dir := "/" + strings.Repeat("d", 6<<10) + "/"
	s.files[dir+"page.md"] = [2]string{"text/markdown", b.String()}
	s.files[dir+"small.md"] = [2]string{"text/markdown", "[a](x0)"}
	small := crawlAllocates(t, Options{Start: s.URL + dir + "small.md", Source: "md", NoSitemaps: true, MaxDepth: -1})
	large := crawlAllocates(t, Options{Start: s.URL + dir + "page.md", Source: "md", NoSitemaps: true, MaxDepth: -1})
	t.Logf("a crawl of a page of one link at a 6 KB URL allocates %d bytes; of %d bytes of links, %d", small, b.Len(), large)
	if large > small+uint64(64*b.Len()) {
		t.Errorf("%d bytes of links at a 6 KB URL cost the crawl %d bytes more", b.Len(), large-small)
	}
}
