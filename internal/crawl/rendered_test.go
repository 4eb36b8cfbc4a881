package crawl

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/render"
	"github.com/heedhq/heed/internal/render/rendertest"
	"github.com/heedhq/heed/internal/testutil"
)

// testBrowser is a browser for a test, or skips it (fails it with
// HEED_BROWSER=required) when there is none.
func testBrowser(t *testing.T) *render.Browser {
	t.Helper()
	return rendertest.Browser(t, render.Config{PageTimeout: 15 * time.Second})
}

// A crawl of a site whose start page its scripts build: the page is
// rendered (its event and snapshot say so) and its content stored; the
// links its scripts made are followed; a static page is not rendered.
// Every request of the rendering is the crawl's: spaced by the delay,
// like the pages', and a script robots.txt disallows is never asked for.
func TestCrawlRenders(t *testing.T) {
	b := testBrowser(t)
	long := strings.Repeat("The keeper trims the wick at dusk and winds the clockwork that turns the lens. ", 5)
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		case "/":
			fmt.Fprint(w, `<!doctype html><html><head><title>Lights</title></head><body><div id="root"></div><script src="/app.js"></script><script src="/private/tracker.js"></script></body></html>`)
		case "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `fetch("/data.json").then(r => r.json()).then(d => { document.getElementById("root").innerHTML = "<article><h1>" + d.title + "</h1><p>" + d.text + "</p><a href=\"/keeper\">The keeper</a></article>"; });`)
		case "/data.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"title": "Lighthouses", "text": "A Fresnel lens bends the lamp's light into a narrow beam seen far out at sea, night after night."}`)
		case "/private/tracker.js":
			fmt.Fprint(w, `document.title = "tracked";`)
		case "/keeper":
			fmt.Fprintf(w, `<html><head><title>The keeper</title></head><body><article><h1>The keeper</h1><p>%s</p></article><script src="/app.js"></script></body></html>`, long)
		default:
			http.NotFound(w, r)
		}
	})
	c, st := crawler(t)
	c.Browser = b
	var ev events
	const delay = 100 * time.Millisecond
	o := options(site.URL + "/")
	o.MaxPages, o.Delay = 10, delay
	sum, err := c.Crawl(t.Context(), o, ev.add)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Stored != 2 {
		t.Errorf("stored %d: %+v", sum.Stored, ev.all)
	}
	for _, e := range ev.all {
		if want := strings.HasSuffix(e.URL, "/"); e.Kind == Stored && e.Rendered != want {
			t.Errorf("%s: rendered %v", e.URL, e.Rendered)
		}
	}
	snap, err := st.Get(t.Context(), site.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Rendered || !strings.Contains(snap.Markdown, "narrow beam") || snap.Title != "Lights" {
		t.Errorf("the rendered snapshot: rendered %v, title %q\n%s", snap.Rendered, snap.Title, snap.Markdown)
	}
	log := site.Log()
	var paths []string
	for i, a := range log {
		paths = append(paths, a.Path)
		if strings.HasPrefix(a.Path, "/private/") {
			t.Errorf("asked for %s, which robots.txt disallows", a.Path)
		}
		if i > 0 {
			if gap := a.At.Sub(log[i-1].End); gap < delay {
				t.Errorf("%s asked %v after the last request ended", a.Path, gap)
			}
		}
	}
	t.Logf("the site saw %v", paths)
}
