package crawl

import (
	"slices"
	"testing"
)

// Correct (or common) sitemaps are read as encoding/xml read them.
func TestSitemapReads(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"plain", `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://e.com/a</loc></url></urlset>`, []string{"https://e.com/a"}},
		{"bom", "\xef\xbb\xbf<?xml version=\"1.0\"?><urlset><url><loc>https://e.com/a</loc></url></urlset>", []string{"https://e.com/a"}},
		{"prefix", `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>https://e.com/a</sm:loc></sm:url></sm:urlset>`, []string{"https://e.com/a"}},
		{"image ext", `<urlset><url><loc>https://e.com/a</loc><image:image><image:loc>https://e.com/i.png</image:loc></image:image></url></urlset>`, []string{"https://e.com/a"}},
		{"video ext", `<urlset><url><loc>https://e.com/a</loc><video:video><video:content_loc>https://e.com/v.mp4</video:content_loc><video:player_loc allow_embed="yes">https://e.com/p</video:player_loc></video:video></url></urlset>`, []string{"https://e.com/a"}},
		{"xhtml link", `<urlset><url><loc>https://e.com/a</loc><xhtml:link rel="alternate" hreflang="de" href="https://e.com/de/"/></url><url><loc>https://e.com/b</loc></url></urlset>`, []string{"https://e.com/a", "https://e.com/b"}},
		{"cdata", `<urlset><url><loc><![CDATA[https://e.com/a?x=1&y=2]]></loc></url></urlset>`, []string{"https://e.com/a?x=1&y=2"}},
		{"entities", `<urlset><url><loc>https://e.com/a?x=1&amp;y=&#50;&#x33;</loc></url></urlset>`, []string{"https://e.com/a?x=1&y=23"}},
		{"entity with leading zeros", `<urlset><url><loc>https://e.com/&#x00000000041;</loc></url></urlset>`, []string{"https://e.com/A"}},
		{"whitespace", "<urlset>\n <url>\n  <loc>\n   https://e.com/a\n  </loc>\n </url>\n</urlset>", []string{"https://e.com/a"}},
		{"attr with gt", `<urlset a="x>y"><url><loc>https://e.com/a</loc></url></urlset>`, []string{"https://e.com/a"}},
		{"doctype with internal subset", `<!DOCTYPE urlset [<!ENTITY e "x">]><urlset><url><loc>https://e.com/a</loc></url></urlset>`, []string{"https://e.com/a"}},
		{"comment dashes", `<urlset><!-- a - b --><url><loc>https://e.com/a</loc></url></urlset>`, []string{"https://e.com/a"}},
		{"index", `<sitemapindex><sitemap><loc>https://e.com/s1.xml</loc><lastmod>2024-01-01</lastmod></sitemap></sitemapindex>`, []string{"https://e.com/s1.xml"}},
		{"empty-element tag with space", `<urlset><url><loc>https://e.com/a</loc><priority /></url><url><loc>https://e.com/b</loc></url></urlset>`, []string{"https://e.com/a", "https://e.com/b"}},
		{"gt in cdata", `<urlset><url><loc><![CDATA[https://e.com/a>]]></loc></url></urlset>`, []string{"https://e.com/a>"}},
		{"pi with gt", `<?xml-stylesheet href="a>b"?><urlset><url><loc>https://e.com/a</loc></url></urlset>`, []string{"https://e.com/a"}},
		{"comment ending --->", `<urlset><!-- x ---><url><loc>https://e.com/a</loc></url></urlset>`, []string{"https://e.com/a"}},
	}
	for _, tt := range tests {
		var got []string
		err := readSitemap(t.Context(), []byte(tt.body), func(e sitemapEntry) bool { got = append(got, e.Loc); return true })
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}
