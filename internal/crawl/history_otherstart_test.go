package crawl

import "testing"

// TestOtherStartRemovesNothing: a complete crawl of a source from another
// start URL, its scope the whole site (--whole-site from /docs/), marks
// none of the source's pages removed that its start does not lead to (/,
// /blog/ and /blog/x, reached from / by the first crawl). A page is "no
// longer reached" only by a crawl that would have reached it before.
func TestOtherStartRemovesNothing(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home", "/docs/", "/blog/")})
	s.set("/docs/", page{body: html("Docs", "/docs/a")})
	s.set("/docs/a", page{body: html("DocsA")})
	s.set("/blog/", page{body: html("Blog", "/blog/x")})
	s.set("/blog/x", page{body: html("BlogX")})
	c, _ := crawler(t)
	o := options(s.URL + "/")
	o.Source, o.NoSitemaps, o.NoLLMsTxt, o.WholeSite = "site", true, true, true
	crawlAgain(t, c, o)

	o.Start = s.URL + "/docs/"
	sum, ev := crawlAgain(t, c, o)
	if sum.Removed != 0 {
		t.Errorf("a crawl from /docs/ over the whole site removed %v, all there", ev.urls(Removed))
	}
}
