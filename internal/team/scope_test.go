package team

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/testutil"
)

// TestWorkersStayInTheDirectory: a team's crawl of /py/library/ fetches
// nothing outside it, whether a link, a sitemap or llms.txt leads there;
// WholeSite widens it to the origin.
func TestWorkersStayInTheDirectory(t *testing.T) {
	pool := database(t)
	var base string
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nAllow: /\n")
		case "/sitemap.xml":
			fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%[1]s/py/library/json.html</loc></url><url><loc>%[1]s/pg/sitemap.html</loc></url></urlset>`, base)
		case "/llms.txt":
			w.Header().Set("Content-Type", "text/markdown")
			fmt.Fprint(w, "# Manuals\n\n- [Pg](/pg/llms.html): the other manual\n")
		case "/", "/py/library/", "/py/library/os.html", "/py/library/json.html", "/py/other.html", "/pg/intro.html", "/pg/sitemap.html", "/pg/llms.html":
			fmt.Fprintf(w, `<html><head><title>%[1]s</title></head><body><main><h1>%[1]s</h1><p>%[2]s</p><a href="/py/library/os.html">os</a> <a href="../other.html">other</a> <a href="/pg/intro.html">pg</a> <a href="/">home</a></main></body></html>`,
				r.URL.Path, strings.Repeat("The page "+r.URL.Path+" says enough to be kept. ", 5))
		default:
			http.NotFound(w, r)
		}
	})
	base = site.URL
	startWorkers(t, pool, 2, nil)
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = base+"/py/library/", "py", 10*time.Millisecond
	o.MaxPages, o.MaxDepth = 50, 3
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	if p := waitDone(t, pool, id, time.Minute); p.Stored != 3 {
		t.Errorf("progress %+v; want /py/library/, os.html and json.html stored", p)
	}
	for _, a := range site.Log() {
		switch p := a.Path; {
		case strings.HasPrefix(p, "/py/library/"), p == "/robots.txt", p == "/sitemap.xml", p == "/llms.txt":
		default:
			t.Errorf("a team's crawl of /py/library/ asked for %s", p)
		}
	}
	o = crawlopt.Defaults()
	o.Start, o.Source, o.Delay = base+"/py/library/", "site", 10*time.Millisecond
	o.MaxPages, o.MaxDepth = 50, 3
	o.WholeSite = true
	id, err = Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	if p := waitDone(t, pool, id, time.Minute); p.Stored != 8 {
		t.Errorf("progress %+v; want every page of the site stored with WholeSite", p)
	}
}
