package crawl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heedhq/heed/internal/testutil"
)

// crawlAllocates is the memory a crawl from start allocates, in bytes.
func crawlAllocates(t *testing.T, opts Options) uint64 {
	t.Helper()
	c, _ := crawler(t)
	return testutil.Allocated(func() {
		if _, err := c.Crawl(t.Context(), opts, nil); err != nil {
			t.Fatal(err)
		}
	})
}

// A site's llms.txt whose front matter repeats a key costs the crawl
// memory linear in its length (the YAML decoder alone keeps an error for
// each pair of equal keys), and still lists its pages.
func TestCrawlLLMsTxtRepeatedKeys(t *testing.T) {
	const list = "# Site\n\n- [A](/docs/a.md)\n"
	s := newMDSite(t)
	s.html["/docs/"] = html("Docs")
	s.files["/docs/a.md"] = [2]string{"text/markdown", "# A\n\nA page.\n"}
	opts := options(s.URL + "/docs/")
	opts.Source, opts.NoSitemaps = "llms", true
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
	o := options(s.URL + dir + "small.md")
	o.Source, o.MaxDepth, o.NoSitemaps = "md", 0, true
	small := crawlAllocates(t, o)
	o = options(s.URL + dir + "page.md")
	o.Source, o.MaxDepth, o.NoSitemaps = "md", 0, true
	large := crawlAllocates(t, o)
	t.Logf("a crawl of a page of one link at a 6 KB URL allocates %d bytes; of %d bytes of links, %d", small, b.Len(), large)
	if large > small+uint64(64*b.Len()) {
		t.Errorf("%d bytes of links at a 6 KB URL cost the crawl %d bytes more", b.Len(), large-small)
	}
}

// What a crawl stores of a site's Markdown and HTML holds no raw HTML and
// no link but to the web, as a CommonMark parser reads it: the routes by
// which a parser once read the sanitizer's Markdown otherwise than heed,
// and code elements that touch.
func TestCrawlStoresSafeMarkdown(t *testing.T) {
	routes := []string{
		"`\\`<img src=x onerror=alert(1)>`", "`a\nb `<img src=x onerror=alert(1)>`",
		"a\n\u00a0\n    <img src=x onerror=alert(1)>", "<b>-</b> a\n\n    <img src=x onerror=alert(1)>",
		"a\n[<img src=x onerror=alert(1)>]: http://ok.example/", "<b>```</b>\n```\n<img src=x onerror=alert(1)>\n```",
	}
	s := newMDSite(t)
	var home strings.Builder
	home.WriteString("<html><head><title>Home</title></head><body><main><h1>Home</h1><p>Press <kbd>a</kbd><kbd>`&lt;img src=x onerror=alert(1)&gt;</kbd> to go on, as this page says at length, with enough words to be content.</p>")
	for i, r := range routes {
		path := fmt.Sprintf("/r%d.md", i)
		s.files[path] = [2]string{"text/markdown", "# Route\n\n" + r + "\n"}
		fmt.Fprintf(&home, `<p><a href="%s">%s</a></p>`, path, path)
	}
	s.html["/"] = home.String() + "</main></body></html>"
	c, st := crawler(t)
	o := options(s.URL + "/")
	o.Source, o.NoSitemaps = "safe", true
	if _, err := c.Crawl(t.Context(), o, nil); err != nil {
		t.Fatal(err)
	}
	for i := range routes {
		u := fmt.Sprintf("%s/r%d.md", s.URL, i)
		snap, err := st.Get(t.Context(), u)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if bad := testutil.UnsafeMarkdown(snap.Markdown, false); bad != "" {
			t.Errorf("%s: %s in %q", u, bad, snap.Markdown)
		}
	}
	snap, err := st.Get(t.Context(), s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if bad := testutil.UnsafeMarkdown(snap.Markdown, true); bad != "" || !strings.Contains(snap.Markdown, "img") {
		t.Errorf("the home page: %s in %q", bad, snap.Markdown)
	}
}
