package crawl

import "testing"

// TestPageOfAnotherSourceIsToldOf shows that a crawl storing pages
// another source held, their content the same (a site crawled again
// under another name), tells them "stored" with no change: its summary
// says "3 stored (0 new, 0 changed)", stored pages that are neither new
// nor changed, and heed changes has nothing to say of them. Each is
// new to its source, or unchanged; the counts must add up.
func TestPageOfAnotherSourceIsToldOf(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home", "/a", "/b")})
	s.set("/a", page{body: html("A")})
	s.set("/b", page{body: html("B")})
	c, _ := crawler(t)
	o := options(s.URL + "/")
	o.Source, o.NoSitemaps, o.NoLLMsTxt = "first", true, true
	crawlAgain(t, c, o)
	o.Source = "second"
	sum, _ := crawlAgain(t, c, o)
	if sum.Stored != sum.New+sum.Changed {
		t.Errorf("the crawl under another name says %q", sum.Text())
	}
}
