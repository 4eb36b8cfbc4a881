package crawl

import (
	"net/http"
	"testing"
)

// TestRedirectedPageLeaves shows that a page that now redirects
// elsewhere on its site (/old to /new) is never marked removed: the
// complete crawl asked for /old, so it counts as reached, though no page
// is there any more. /old keeps its last text in search beside /new's,
// for every crawl after. (A design question as much as a bug: the URL
// is reached, its page is gone.)
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
