package crawl

import (
	"fmt"
	"testing"
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
