package crawl

import "testing"

// TestStillGoneIsNoFailure: a page a crawl marked removed (404), still
// linked and still answering 404, is no failure in the crawls after
// either: they stay complete, and a page no longer linked (/a here) is
// marked removed (docs/history.md).
func TestStillGoneIsNoFailure(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home", "/a", "/b")})
	s.set("/a", page{body: html("A")})
	s.set("/b", page{body: html("B")})
	c, st := crawler(t)
	o := options(s.URL + "/")
	o.Source, o.NoSitemaps, o.NoLLMsTxt = "site", true, true
	crawlAgain(t, c, o)

	s.mu.Lock()
	delete(s.pages, "/b") // gone, still linked
	s.mu.Unlock()
	if sum, _ := crawlAgain(t, c, o); sum.Removed != 1 || sum.Failed != 0 {
		t.Fatalf("second crawl: %+v, want /b removed, nothing failed", sum)
	}

	s.set("/", page{body: html("Home", "/b")}) // /a no longer linked
	sum, _ := crawlAgain(t, c, o)
	snap, err := st.Get(t.Context(), s.URL+"/a")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 || snap.Removed.IsZero() {
		t.Errorf("third crawl: %d failed (/b, known gone), and /a, no longer linked, removed at %v; want 0 failed and /a removed", sum.Failed, snap.Removed)
	}
}
