package crawl

import (
	"fmt"
	"testing"

	"github.com/heedhq/heed/fetch"
)

// BenchmarkReadSitemap reads the hostile sitemap of hostileLoc at
// doubling sizes: time and bytes allocated a byte stay level as the size
// grows (they grew with the square of it when every piece of a <loc>'s
// text was appended to a string).
func BenchmarkReadSitemap(b *testing.B) {
	for _, n := range []int{1 << 16, 1 << 17, 1 << 18, 1 << 19} {
		body := []byte(hostileLoc(n))
		b.Run(fmt.Sprintf("bytes=%d", len(body)), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				readSitemap(b.Context(), body, func(sitemapEntry) bool { return true })
			}
		})
	}
}

// FuzzReadSitemap: any body is read without a panic, each entry's <loc>
// within a URL's length, and no more entries than the body has bytes.
func FuzzReadSitemap(f *testing.F) {
	f.Add([]byte(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://e.com/a?b=1&amp;c=2</loc><lastmod>2025-01-01</lastmod></url></urlset>`))
	f.Add([]byte(`<sitemapindex><sitemap><loc><![CDATA[/s.xml]]]></loc></sitemap></sitemapindex>`))
	f.Add([]byte(`<urlset><url><image:image><image:loc>/i.png</image:loc></image:image><loc>/p&#x41;&#65;</loc></url><!-- <url><loc>/no</loc></url> --></urlset>`))
	f.Add([]byte(hostileLoc(100)))
	f.Fuzz(func(t *testing.T, body []byte) {
		n := 0
		readSitemap(t.Context(), body, func(e sitemapEntry) bool {
			n++
			if len(e.Loc) > fetch.MaxURLLength || e.Loc == "" || len(e.LastMod) > 64 {
				t.Fatalf("entry %+v out of its bounds", e)
			}
			return true
		})
		if n > len(body) {
			t.Fatalf("%d entries from %d bytes", n, len(body))
		}
	})
}
