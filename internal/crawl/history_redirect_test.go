package crawl

import (
	"net/http"
	"testing"
)

// TestRedirectedPageLeaves: a page that now redirects elsewhere on its
// site (/old to /new) is marked removed (moved) by the crawl that finds
// the redirect.
func TestRedirectedPageLeaves(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home", "/old")})
	s.set("/old", page{body: html("Old")})
	c, st := crawler(t)
	o := options(s.URL + "/")
	o.Source, o.NoSitemaps, o.NoLLMsTxt = "site", true, true
	crawlAgain(t, c, o)

	s.set("/old", page{status: http.StatusMovedPermanently, header: map[string]string{"Location": "/new"}})
	s.set("/new", page{body: html("New")})
	crawlAgain(t, c, o)
	snap, err := st.Get(t.Context(), s.URL+"/old")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Removed.IsZero() {
		t.Errorf("/old redirects to /new, and is there still, not removed: %q", snap.Title)
	}
}
