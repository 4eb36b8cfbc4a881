package crawl

import "testing"

// TestNoSitemapsCrawlRemovesSitemapPages: a complete crawl that reads no
// sitemaps (--no-sitemaps) is not of the same reach as the source's
// earlier crawls that read them, so it marks none of the pages they found
// through the sitemap removed: they are there, and listed, but the crawl
// did not look.
func TestNoSitemapsCrawlRemovesSitemapPages(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home", "/a")})
	s.set("/a", page{body: html("A")})
	s.set("/orphan", page{body: html("Orphan")})
	s.set("/sitemap.xml", page{body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>` + s.URL + `/orphan</loc></url></urlset>`,
		header: map[string]string{"Content-Type": "application/xml"}})
	c, st := crawler(t)
	o := options(s.URL + "/")
	o.Source, o.NoLLMsTxt = "site", true
	crawlAgain(t, c, o)
	if _, err := st.Get(t.Context(), s.URL+"/orphan"); err != nil {
		t.Fatalf("the sitemap's page was not stored: %v", err)
	}

	o.NoSitemaps = true
	sum, ev := crawlAgain(t, c, o)
	snap, err := st.Get(t.Context(), s.URL+"/orphan")
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Removed.IsZero() {
		t.Errorf("/orphan, still served and listed by the sitemap, was marked removed by a crawl that read no sitemap: %+v, %+v", ev.find(Removed, "/orphan"), sum)
	}
}
