package crawl

import "testing"

// TestDeadLinkDisablesRemoval shows that a single link to a URL
// the store never held, which answers 404, makes every crawl of the
// source incomplete (the 404 counts as a failure): a page no longer
// linked is then never marked removed. docs/history.md says a page found
// gone is no failure; a site with one dead link anywhere never has a
// page removed as unreached.
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
