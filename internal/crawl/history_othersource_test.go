package crawl

import (
	"context"
	"testing"
	"time"

	"github.com/heedhq/heed"
)

// TestPageOfAnotherSourceInChanges shows that what a crawl tells of a
// page another source held (new to the source that takes it) is not
// what heed changes says of the same crawl: asked what is new in that
// source since just before the crawl, it lists nothing, as the page's
// history has no entry since (the crawl adds no version). The summary
// and heed changes must agree (issue: "history, diff, changes and the
// crawl summary agree"): either the taking is an entry of the page's
// history, or the crawl does not call the page new.
func TestPageOfAnotherSourceInChanges(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home", "/a", "/b")})
	s.set("/a", page{body: html("A")})
	s.set("/b", page{body: html("B")})
	c, st := crawler(t)
	o := options(s.URL + "/")
	o.Source, o.NoSitemaps, o.NoLLMsTxt = "first", true, true
	crawlAgain(t, c, o)
	since := time.Now()
	o.Source = "second"
	sum, _ := crawlAgain(t, c, o)
	changes, err := st.(interface {
		Changes(context.Context, heed.ChangesQuery) ([]heed.PageChange, error)
	}).Changes(context.Background(), heed.ChangesQuery{Since: since, Source: "second"})
	if err != nil {
		t.Fatal(err)
	}
	news := 0
	for _, c := range changes {
		if c.Change == heed.New {
			news++
		}
	}
	if news != sum.New {
		t.Errorf("the crawl says %q; heed changes --source second since just before it lists %d new pages", sum.Text(), news)
	}
}
