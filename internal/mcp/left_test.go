package mcp

import (
	"fmt"
	"strings"
	"testing"
)

// web_crawl says what the crawl's bounds left: a sitemap of more pages
// than max_pages is not read to its end, and the result says so.
func TestWebCrawlSaysWhatWasLeft(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Home", []string{"The home page, with words enough to be the main content of it."}))
	var sm strings.Builder
	sm.WriteString("<urlset>")
	for i := range 100 {
		fmt.Fprintf(&sm, "<url><loc>%s/p%d</loc></url>", site.URL, i)
		site.set(fmt.Sprintf("/p%d", i), html("Page", []string{"A page of the site with words enough to be the main content."}))
	}
	sm.WriteString("</urlset>")
	site.set("/sitemap.xml", sm.String())
	s := newServer(t, Limits{MaxPages: 3}, loopback)
	cs := connect(t, s, nil)
	var out CrawlOutput
	text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, &out)
	if isErr || out.Left.Sitemaps != 1 || !strings.Contains(text, "1 sitemap not read to its end") {
		t.Errorf("web_crawl: error %v, left %+v, %q; want the sitemap left unread past 3 pages", isErr, out.Left, text)
	}
}
