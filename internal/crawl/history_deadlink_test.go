package crawl

import "testing"

// TestDeadLinkDisablesRemoval: a link to a URL the store never held,
// which answers 404, is a dead link, not a failure (docs/history.md: a
// page found gone is no failure), so it leaves the crawl complete, and a
// page no longer linked is marked removed as unreached.
func TestDeadLinkDisablesRemoval(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home", "/a", "/b", "/missing")})
	s.set("/a", page{body: html("A")})
	s.set("/b", page{body: html("B")})
	c, st := crawler(t)
	o := options(s.URL + "/")
	o.Source, o.NoSitemaps, o.NoLLMsTxt = "site", true, true
	crawlAgain(t, c, o)

	s.set("/", page{body: html("Home", "/a", "/missing")})
	sum, _ := crawlAgain(t, c, o)
	snap, err := st.Get(t.Context(), s.URL+"/b")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Removed.IsZero() {
		t.Errorf("/b is no longer linked, yet not removed: the crawl came to %+v (its one failure the dead link /missing)", sum)
	}
}
