package crawl

import "testing"

// TestSweepIsFlushed shows that the removals a crawl's sweep makes
// are left waiting in the store's batch when the crawl returns: the
// crawl flushes its last batch before it sweeps. Crawl says the crawl
// is done when the last batch's index entries are; until a timer or
// Close flushes it, the removed page's row is pending, and the store
// answers for it as for a page being written (no hash, no validators).
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
