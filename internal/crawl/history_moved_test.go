package crawl

import "testing"

// TestPageOfAnotherSourceIsToldOf: a crawl storing pages that another
// source held, their content the same (a site crawled again under
// another name), counts each as new to its source, so that the summary's
// stored pages add up to its new and changed ones and heed changes tells
// of them.
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
