package team

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/render"
	"github.com/heedhq/heed/internal/testutil"
)

// aBrowser is a browser for the test, or skips it (fails it with
// HEED_BROWSER=required) when there is none.
func aBrowser(t *testing.T) *render.Browser {
	t.Helper()
	b := render.New(render.Config{PageTimeout: 15 * time.Second})
	if err := b.Available(); err != nil {
		if os.Getenv("HEED_BROWSER") == "required" {
			t.Fatalf("a browser is needed: %v", err)
		}
		t.Skipf("no browser: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// A team's workers render a page whose content its scripts build, as a
// crawl on one machine does: every request of the page made by the
// worker, on its host's turn (the page's own host on the job's lease,
// another host on that host's turn in the database), spaced by the
// delay, robots.txt read once per origin, a disallowed resource never
// asked for; the links found after rendering are crawled, and the
// snapshot says it was rendered.
func TestWorkersRender(t *testing.T) {
	b := aBrowser(t)
	pool := database(t)
	var port string
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		host := r.Host[:strings.IndexByte(r.Host, ':')]
		switch host + r.URL.Path {
		case "app.team.test/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		case "cdn.team.test/robots.txt":
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 0.3\n")
		case "app.team.test/":
			fmt.Fprint(w, `<!doctype html><html><head><title>The app</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`)
		case "app.team.test/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprintf(w, `
				const get = (u) => fetch(u).then((r) => r.ok ? r.json() : {text: "refused"}).catch(() => ({text: "refused"}));
				Promise.all([get("/data.json"), get("/private/secret.json"), get("http://cdn.team.test:%s/lib.json"), get("http://cdn.team.test:%s/more.json")]).then(([d, p, c, m]) => {
					document.getElementById("root").innerHTML = "<article><h1>The app</h1><p>" + d.text + "</p><p>" + c.text + " " + m.text + "</p><p>secret: " + p.text + "</p><a href='/next'>next</a></article>";
				});`, port, port)
		case "app.team.test/data.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"text": "`+strings.Repeat("The tide tables, built in the browser from data the page fetched. ", 5)+`"}`)
		case "app.team.test/private/secret.json":
			fmt.Fprint(w, `{"text": "the secret"}`)
		case "cdn.team.test/lib.json", "cdn.team.test/more.json":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Access-Control-Allow-Origin", "*")
			fmt.Fprintf(w, `{"text": "from the cdn %s"}`, r.URL.Path)
		case "app.team.test/next":
			fmt.Fprint(w, `<html><head><title>Next</title></head><body><main><h1>Next</h1><p>`+strings.Repeat("The page the rendered page links to, served whole. ", 5)+`</p></main></body></html>`)
		default:
			http.NotFound(w, r)
		}
	})
	port = site.URL[strings.LastIndexByte(site.URL, ':')+1:]
	startWorkers(t, pool, 2, func(w *Worker) { w.Browser = b; w.LeaseTTL = 30 * time.Second })
	delay := 150 * time.Millisecond
	app := "http://app.team.test:" + port
	id, err := Start(context.Background(), pool, FromCrawl(crawl.Options{
		Start: app + "/", Source: "app", Delay: delay, MaxPages: 20, MaxDepth: 2, AllowHosts: []string{"app.team.test:" + port},
	}))
	if err != nil {
		t.Fatal(err)
	}
	p := waitDone(t, pool, id, time.Minute)
	if p.Stored != 2 {
		t.Errorf("progress %+v; want the rendered page and the page it links to", p)
	}
	var md string
	var rendered bool
	if err := pool.QueryRow(context.Background(), `SELECT markdown, rendered FROM heed_snapshot WHERE url = $1`, app+"/").Scan(&md, &rendered); err != nil {
		t.Fatal(err)
	}
	if !rendered || !strings.Contains(md, "The tide tables, built in the browser") || !strings.Contains(md, "from the cdn /lib.json") ||
		!strings.Contains(md, "from the cdn /more.json") || !strings.Contains(md, "secret: refused") {
		t.Errorf("rendered %v:\n%s", rendered, md)
	}
	last := map[string]testutil.Arrival{}
	robots := map[string]int{}
	for _, a := range site.Log() {
		host := a.Host[:strings.IndexByte(a.Host, ':')]
		if strings.HasPrefix(a.Path, "/private/") {
			t.Errorf("requested %s%s, which robots.txt disallows", host, a.Path)
		}
		if a.Path == "/robots.txt" {
			robots[host]++
		}
		want := delay
		if host == "cdn.team.test" {
			want = 300 * time.Millisecond // its Crawl-delay
		}
		// The log is in the order requests came: a request that came
		// before the last one to its host ended was in flight beside it
		// (a negative gap).
		if l, ok := last[host]; ok && a.At.Sub(l.End) < want {
			t.Errorf("%s%s asked %v after the last request to its host ended; the delay is %v", host, a.Path, a.At.Sub(l.End), want)
		}
		last[host] = a
	}
	if robots["app.team.test"] != 1 || robots["cdn.team.test"] != 1 {
		t.Errorf("robots.txt asked for %v; want once per host", robots)
	}
}
