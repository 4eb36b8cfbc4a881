package crawl

import "testing"

// TestSweepIsFlushed: the removals a crawl's sweep makes are flushed
// before the crawl returns, as its pages are: once Crawl says the crawl
// is done, the removed page's row is no longer pending, and the store
// answers for it with its hash.
func TestSweepIsFlushed(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home", "/a", "/b"), etag: `"h1"`})
	s.set("/a", page{body: html("A"), etag: `"a1"`})
	s.set("/b", page{body: html("B"), etag: `"b1"`})
	c, st := crawler(t)
	o := options(s.URL + "/")
	o.Source, o.NoSitemaps, o.NoLLMsTxt = "site", true, true
	crawlAgain(t, c, o)
	s.set("/", page{body: html("Home", "/a"), etag: `"h2"`})
	sum, err := c.Crawl(t.Context(), o, nil) // not flushed after
	if err != nil || sum.Removed != 1 {
		t.Fatalf("second crawl: %+v, %v", sum, err)
	}
	if h := st.Hash(t.Context(), "site", s.URL+"/b"); h == "" {
		t.Error("the crawl returned with its removal of /b still waiting in a batch: the store has no hash for the page")
	}
}
