package crawl

import (
	"testing"

	"github.com/heedhq/heed"
)

// TestPageBackBehind304 shows that a page marked removed (a
// complete crawl no longer reached it) that comes back unchanged, its
// server answering the conditional request with 304, stays removed: the
// store gives the removed page's validators for the request, the 304
// only touches it, and the crawl says "unchanged" of a page that heed
// changes and heed history say is removed, and that search leaves out.
// The issue says a page that comes back is a new version.
func TestPageBackBehind304(t *testing.T) {
	s := newSite(t)
	s.set("/", page{body: html("Home", "/a", "/b"), etag: `"h1"`})
	s.set("/a", page{body: html("A"), etag: `"a1"`})
	s.set("/b", page{body: html("B"), etag: `"b1"`})
	c, st := crawler(t)
	o := options(s.URL + "/")
	o.Source, o.NoSitemaps, o.NoLLMsTxt = "site", true, true
	crawlAgain(t, c, o)

	// /b is no longer linked: a complete crawl marks it removed.
	s.set("/", page{body: html("Home", "/a"), etag: `"h2"`})
	sum, _ := crawlAgain(t, c, o)
	if sum.Removed != 1 {
		t.Fatalf("second crawl: %+v, want /b removed", sum)
	}

	// /b is linked again, as it was: its server says 304.
	s.set("/", page{body: html("Home", "/a", "/b"), etag: `"h3"`})
	sum, ev := crawlAgain(t, c, o)
	snap, err := st.Get(t.Context(), s.URL+"/b")
	if err != nil {
		t.Fatal(err)
	}
	h, err := st.History(t.Context(), s.URL+"/b")
	if err != nil {
		t.Fatal(err)
	}
	last := h.Versions[len(h.Versions)-1]
	if !snap.Removed.IsZero() || last.Removed != "" {
		t.Errorf("/b came back, yet it is removed: %v, its history ends with %+v; the crawl told %+v (summary %+v)",
			snap.Removed, last, ev.find(Unchanged, "/b"), sum)
	}
	if e := ev.find(Stored, "/b"); e == nil || e.Change != heed.New {
		t.Errorf("/b came back: want a stored event, new; got %+v", e)
	}
}
