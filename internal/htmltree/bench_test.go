package htmltree

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/heedhq/heed/internal/extractdev"
)

func devPages(b *testing.B) ([]string, int64) {
	pages, err := extractdev.Load("../../extract/testdata/extract-dev")
	if err != nil {
		b.Fatal(err)
	}
	var out []string
	var n int64
	for _, p := range pages {
		page, err := p.HTML()
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, string(page))
		n += int64(len(page))
	}
	return out, n
}

// BenchmarkParse reads the 181 pages of the extraction development set,
// with this package and with golang.org/x/net/html:
//
//	go test -run '^$' -bench Parse -benchmem ./internal/htmltree
func BenchmarkParse(b *testing.B) {
	pages, n := devPages(b)
	b.Run("htmltree", func(b *testing.B) {
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			for _, p := range pages {
				Parse(p)
			}
		}
	})
	b.Run("x-net-html", func(b *testing.B) {
		b.SetBytes(n)
		b.ReportAllocs()
		for b.Loop() {
			for _, p := range pages {
				if _, err := html.Parse(strings.NewReader(p)); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkHostile reads pages made to cost: megabytes of tags that look
// for open elements under 512 open ones, of text broken by ignored tags,
// of attributes, and of content put before a table. Each must stay linear
// in the page's size.
func BenchmarkHostile(b *testing.B) {
	deep := strings.Repeat("<div>", 600)
	for _, c := range []struct{ name, page string }{
		{"links-under-divs", deep + strings.Repeat("<a>x", 1<<20)},
		{"items-under-divs", deep + strings.Repeat("<li>x", 1<<20)},
		{"paragraphs-under-divs", deep + strings.Repeat("<p>x", 1<<20)},
		{"end-tags-under-divs", deep + strings.Repeat("<b></b></h2></x-y>", 1<<18)},
		{"text-between-ignored-tags", deep + strings.Repeat("<td>x", 1<<20)},
		{"attributes", "<p " + strings.Repeat("a ", 4<<20) + ">"},
		{"before-a-table", "<table>" + strings.Repeat("x<b>", 1<<20)},
		{"nested-svg", strings.Repeat("<svg><g>", 1<<19)},
		{"body-tags", bodyTags(1 << 18)},
		{"items-under-a-button", "<li><button>" + strings.Repeat("<q>", 510) + strings.Repeat("<li>", 1<<20)},
		{"links-under-a-cell", "<a><table><td>" + strings.Repeat("<span>", 500) + strings.Repeat("<a>", 1<<20)},
		{"end-tags-under-a-div", "<x-y><div>" + strings.Repeat("<q>", 510) + strings.Repeat("</x-y>", 1<<20)},
		{"tags-of-many-attributes", strings.Repeat("<i a b c d e f g h i j k l m n o p q>", 1<<16)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.page)))
			for b.Loop() {
				Parse(c.page)
			}
		})
	}
}

// bodyTags is a page of n body tags, each with an attribute of its own.
func bodyTags(n int) string {
	var b strings.Builder
	b.WriteString("<p>x")
	for i := range n {
		fmt.Fprintf(&b, "<body a%d>", i)
	}
	return b.String()
}
