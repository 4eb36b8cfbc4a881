package crawl

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// Sitemap requests are bounded as pages are, their redirect hops too: at
// most max_pages of them (and 50). An index fanning out to 60 sitemaps
// that each redirect through 10 fresh hops made 541 requests under
// max_pages 5 before; now at most 5 pages and 5 sitemap requests.
func TestSitemapRequestsCount(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home")})
	var idx strings.Builder
	idx.WriteString("<sitemapindex>")
	for i := range 60 {
		fmt.Fprintf(&idx, "<sitemap><loc>/sm%d-0.xml</loc></sitemap>", i)
		for h := range 10 {
			s.set(fmt.Sprintf("/sm%d-%d.xml", i, h), page{status: http.StatusFound, header: map[string]string{"Location": fmt.Sprintf("/sm%d-%d.xml", i, h+1)}})
		}
		s.set(fmt.Sprintf("/sm%d-10.xml", i), page{body: "<urlset></urlset>"})
	}
	idx.WriteString("</sitemapindex>")
	s.set("/sitemap.xml", page{body: idx.String()})
	c, _ := crawler(t)
	o := options(s.URL + "/")
	o.MaxPages = 5
	sum, err := c.Crawl(t.Context(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range s.paths() {
		if p != "/robots.txt" {
			n++
		}
	}
	if n > 2*5 {
		t.Errorf("%d requests under max_pages 5 (%d stored)", n, sum.Stored)
	}
}

// A sitemap's redirect answers to robots.txt, as a page's does: a
// Disallow on its target is not fetched.
func TestSitemapRedirectHeedsRobots(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home")})
	s.set("/sitemap.xml", page{status: http.StatusFound, header: map[string]string{"Location": "/private/secret.xml"}})
	s.set("/private/secret.xml", page{body: "<urlset></urlset>"})
	s.mu.Lock()
	s.robots = "User-agent: *\nDisallow: /private/\n"
	s.mu.Unlock()
	c, _ := crawler(t)
	o := options(s.URL + "/")
	o.MaxPages = 5
	if _, err := c.Crawl(t.Context(), o, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range s.paths() {
		if strings.HasPrefix(p, "/private/") {
			t.Errorf("fetched %s, which robots.txt disallows", p)
		}
	}
}

// A gzip sitemap cut at maxSitemapBytes inflated is counted as left in
// the summary.
func TestSitemapCutIsReported(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home")})
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	fmt.Fprint(zw, "<urlset><!--")
	zw.Write(bytes.Repeat([]byte{' '}, maxSitemapBytes+1))
	fmt.Fprintf(zw, "--><url><loc>%s/late</loc></url></urlset>", s.URL)
	zw.Close()
	s.set("/sitemap.xml", page{body: gz.String()})
	c, _ := crawler(t)
	o := options(s.URL + "/")
	o.MaxPages = 5
	sum, err := c.Crawl(t.Context(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Left.Sitemaps == 0 {
		t.Errorf("a sitemap of more than %d bytes inflated was cut, and the summary says nothing: %+v", maxSitemapBytes, sum.Left)
	}
}

// Once max_pages is reached, nothing more is asked: before, each queued URL
// of a further allowed host cost a robots.txt request. A robots.txt may
// still be loaded for each host crawled at once while the last page is
// taken (at most Options.Hosts), never a page past the limit.
func TestNoRequestsPastLimit(t *testing.T) {
	var hosts []*site
	var allow []string
	var links []string
	for range 20 {
		h := newSite(t)
		h.set("/p", page{body: html("P")})
		hosts = append(hosts, h)
		allow = append(allow, strings.TrimPrefix(h.URL, "http://"))
		links = append(links, h.URL+"/p")
	}
	s := newSite(t)
	s.set("/", page{body: html("Home", links...)})
	c, _ := crawler(t)
	o := options(s.URL + "/")
	o.MaxPages = 2
	o.AllowHosts = allow
	o.NoSitemaps, o.NoLLMsTxt = true, true
	if _, err := c.Crawl(t.Context(), o, nil); err != nil {
		t.Fatal(err)
	}
	pages, robots := 0, 0
	for _, h := range append(hosts, s) {
		for _, p := range h.paths() {
			if p == "/robots.txt" {
				robots++
			} else {
				pages++
			}
		}
	}
	if pages > 2 || robots > 1+o.Hosts {
		t.Errorf("%d page and %d robots.txt requests for max_pages 2", pages, robots)
	}
}

// A sitemap's redirect to another host is not followed: that host is not
// asked, without its robots.txt and outside scope.
func TestSitemapRedirectKeepsToItsOrigin(t *testing.T) {
	s, other := newSite(t), newSite(t)
	s.set("/", page{body: html("Home")})
	s.set("/sitemap.xml", page{status: http.StatusFound, header: map[string]string{"Location": other.URL + "/private/x.xml"}})
	other.set("/private/x.xml", page{body: "<urlset></urlset>"})
	other.mu.Lock()
	other.robots = "User-agent: *\nDisallow: /\n"
	other.mu.Unlock()
	c, _ := crawler(t)
	o := options(s.URL + "/")
	o.MaxPages = 5
	if _, err := c.Crawl(t.Context(), o, nil); err != nil {
		t.Fatal(err)
	}
	if p := other.paths(); len(p) > 0 {
		t.Errorf("a host out of scope was asked for %v", p)
	}
}

// TestBarrenSitemapsLeftUnread: a crawl kept to a directory of a site
// whose sitemap index lists many sitemaps, none of whose pages are in the
// directory, stops reading them after maxBarrenSitemaps in a row, rather
// than ask for every one on the host's turn; a sitemap that lists a page
// in scope starts the count again, and its page is crawled.
func TestBarrenSitemapsLeftUnread(t *testing.T) {
	s := newSite(t)
	s.set("/docs/", page{body: html("Docs")})
	var idx strings.Builder
	idx.WriteString("<sitemapindex>")
	for i := range 20 {
		fmt.Fprintf(&idx, "<sitemap><loc>/sm%d.xml</loc></sitemap>", i)
		loc := fmt.Sprintf("%s/blog/%d", s.URL, i)
		if i == 2 {
			loc = s.URL + "/docs/listed"
		}
		s.set(fmt.Sprintf("/sm%d.xml", i), page{body: "<urlset><url><loc>" + loc + "</loc></url></urlset>"})
	}
	idx.WriteString("</sitemapindex>")
	s.set("/sitemap.xml", page{body: idx.String()})
	s.set("/docs/listed", page{body: html("Listed")})
	c, _ := crawler(t)
	var ev events
	sum, err := c.Crawl(t.Context(), options(s.URL+"/docs/"), ev.add)
	if err != nil {
		t.Fatal(err)
	}
	var asked []string
	for _, p := range s.paths() {
		if strings.HasPrefix(p, "/sm") {
			asked = append(asked, p)
		}
	}
	// sm0 and sm1 list nothing in /docs/, sm2 does, then three more.
	if want := []string{"/sm0.xml", "/sm1.xml", "/sm2.xml", "/sm3.xml", "/sm4.xml", "/sm5.xml"}; !slices.Equal(asked, want) {
		t.Errorf("sitemaps asked for %v, want %v", asked, want)
	}
	if ev.find(Stored, "/docs/listed") == nil {
		t.Errorf("the page a sitemap lists in scope was not crawled: requests %v", s.paths())
	}
	if sum.Left.Sitemaps != 14 {
		t.Errorf("%d sitemaps said left unread, want the 14 not asked for", sum.Left.Sitemaps)
	}
}
