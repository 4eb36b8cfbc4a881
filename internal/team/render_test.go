package team

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/render"
	"github.com/heedhq/heed/internal/render/rendertest"
	"github.com/heedhq/heed/internal/testutil"
)

// aBrowser is a browser for the test, or skips it (fails it with
// HEED_BROWSER=required) when there is none.
func aBrowser(t *testing.T) *render.Browser {
	t.Helper()
	return rendertest.Browser(t, render.Config{PageTimeout: 15 * time.Second})
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
				Promise.all([get("/data.json"), get("/private/secret.json"), get("http://cdn.team.test:%[1]s/lib.json"), get("http://cdn.team.test:%[1]s/more.json"),
					get("/words.json"), get("http://cdn.team.test:%[1]s/back"), get("/out")]).then(([d, p, c, m, w, back, out]) => {
					document.getElementById("root").innerHTML = "<article><h1>The app</h1><p>" + d.text + "</p><p>" + c.text + " " + m.text + "</p><p>secret: " + p.text + "</p>" +
						"<p>" + w.text + "</p><p>back: " + back.text + "</p><p>out: " + out.text + "</p><a href='/next'>next</a></article>";
				});`, port)
		case "app.team.test/data.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"text": "`+strings.Repeat("The tide tables, built in the browser from data the page fetched. ", 5)+`"}`)
		case "app.team.test/words.json", "app.team.test/again.json":
			// Asked at once with /data.json: one at a time all the same.
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Access-Control-Allow-Origin", "*")
			fmt.Fprintf(w, `{"text": "the words of %s"}`, r.URL.Path)
		case "cdn.team.test/back":
			// Redirects between hosts: each hop on its own host's turn.
			http.Redirect(w, r, "http://app.team.test:"+port+"/again.json", http.StatusFound)
		case "app.team.test/out":
			http.Redirect(w, r, "http://cdn.team.test:"+port+"/lib.json", http.StatusFound)
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
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = app+"/", "app", delay
	o.MaxPages, o.MaxDepth = 20, 2
	o.AllowHosts = []string{"app.team.test:" + port}
	id, err := Start(context.Background(), pool, o)
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
		!strings.Contains(md, "from the cdn /more.json") || !strings.Contains(md, "secret: refused") || !strings.Contains(md, "the words of /words.json") ||
		!strings.Contains(md, "back: the words of /again.json") || !strings.Contains(md, "out: from the cdn /lib.json") {
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

// Pages of two hosts, each built by a script of the other host, crawled
// by two workers at once: a page being rendered holds no lease, so
// neither keeps the other waiting, and every page is built.
func TestWorkersRenderEachOther(t *testing.T) {
	b := aBrowser(t)
	pool := database(t)
	var port string
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		host := r.Host[:strings.IndexByte(r.Host, ':')]
		other := "a.team.test"
		if host == "a.team.test" {
			other = "b.team.test"
		}
		switch {
		case r.URL.Path == "/robots.txt":
			http.NotFound(w, r)
		case strings.HasPrefix(r.URL.Path, "/p"):
			links := ""
			for i := range 4 {
				links += fmt.Sprintf(`<a href="http://%s:%s/p%d">x</a><a href="/p%d">y</a>`, other, port, i, i)
			}
			fmt.Fprintf(w, `<!doctype html><html><head><title>%s</title></head><body><div id="root"></div>%s<script src="http://%s:%s/app.js"></script></body></html>`, r.URL.Path, links, other, port)
		case r.URL.Path == "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			w.Header().Set("Access-Control-Allow-Origin", "*")
			fmt.Fprint(w, `document.getElementById("root").innerHTML = "<article><h1>Built</h1><p>`+strings.Repeat("Built by the other host's script. ", 10)+`" + location.host + location.pathname + "</p></article>";`)
		default:
			http.NotFound(w, r)
		}
	})
	port = site.URL[strings.LastIndexByte(site.URL, ':')+1:]
	startWorkers(t, pool, 2, func(w *Worker) { w.Browser = b; w.LeaseTTL = 30 * time.Second; w.Slice = 20 * time.Second })
	delay := 100 * time.Millisecond
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = "http://a.team.test:"+port+"/p0", "ab", delay
	o.MaxPages, o.MaxDepth = 8, 3
	o.AllowHosts = []string{"a.team.test:" + port, "b.team.test:" + port}
	o.Render = "always"
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	p := waitDone(t, pool, id, 3*time.Minute)
	if p.Stored != 8 {
		t.Errorf("progress %+v; want 8 pages stored", p)
	}
	rows, err := pool.Query(context.Background(), `SELECT url, markdown, notes::text FROM heed_snapshot WHERE source = 'ab'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var u, md, notes string
		if err := rows.Scan(&u, &md, &notes); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(md, "Built by the other host's script") || strings.Contains(notes, "rendered without") {
			t.Errorf("%s was not built (notes %s):\n%s", u, notes, md)
		}
	}
	last := map[string]testutil.Arrival{}
	for _, a := range site.Log() {
		if l, ok := last[a.Host]; ok && a.At.Sub(l.End) < delay {
			t.Errorf("%s%s asked %v after the last request to its host ended", a.Host, a.Path, a.At.Sub(l.End))
		}
		last[a.Host] = a
	}
}

// A rendered page's requests to its own host, made at once, wait for
// each other in the worker, and each only then for the host's turn: the
// time a request may wait for a host another job holds is not spent
// behind its own page's requests, and none of them is lost.
func TestWorkersRenderOwnHostQueue(t *testing.T) {
	b := aBrowser(t)
	pool := database(t)
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			http.NotFound(w, r)
		case r.URL.Path == "/":
			fmt.Fprint(w, `<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script>
				const ps = []; for (let i = 0; i < 6; i++) ps.push(fetch("/d" + i + ".json").then(r => r.json()).then(j => j.text).catch(() => "MISSING"));
				Promise.all(ps).then(a => { document.getElementById("root").innerHTML = "<article><h1>App</h1><p>" + a.join(" ") + " and enough words to be kept as the content of the page.</p></article>"; });
			</script></body></html>`)
		case strings.HasSuffix(r.URL.Path, ".json"):
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"text": "got%s"}`, strings.TrimSuffix(r.URL.Path, ".json"))
		default:
			http.NotFound(w, r)
		}
	})
	startWorkers(t, pool, 1, func(w *Worker) { w.Browser = b; w.LeaseTTL = 30 * time.Second })
	// Six requests 1.2 s apart: the last waits longer than renderPatience.
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = site.URL+"/", "queue", 1200*time.Millisecond
	o.MaxPages = 5
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, pool, id, 2*time.Minute)
	var md, notes string
	if err := pool.QueryRow(context.Background(), `SELECT markdown, notes::text FROM heed_snapshot WHERE url = $1`, site.URL+"/").Scan(&md, &notes); err != nil {
		t.Fatal(err)
	}
	// (The browser may ask again for what failed: the note says what
	// heed did not make.)
	if strings.Contains(md, "MISSING") || !strings.Contains(md, "got/d5") || strings.Contains(notes, "rendered without") {
		t.Errorf("the page lost requests (notes %s):\n%s", notes, md)
	}
}

// A job stopped while its page renders (its context ended) leaves the
// page's URL queued, as it left it before the one engine: the page did
// not fail, the job stopped, and the URL is asked again on the host's
// next turn.
func TestSliceStoppedWhileRendering(t *testing.T) {
	b := aBrowser(t)
	pool := database(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/":
			fmt.Fprint(w, `<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script>
				fetch("/slow.json").then(r => r.json()).then(j => { document.getElementById("root").innerHTML = "<article><h1>App</h1><p>" + j.text + "</p></article>"; });
			</script></body></html>`)
		case "/slow.json":
			// The job stops while the page waits for its data.
			stop()
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		default:
			http.NotFound(w, r)
		}
	})
	w := &Worker{Pool: pool, HTTP: loopbackClient(), Browser: b, LeaseTTL: 30 * time.Second}
	w.fill()
	var err error
	if w.inserter, err = NewInserter(pool); err != nil {
		t.Fatal(err)
	}
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay, o.Render = site.URL+"/", "stopped", 0, "always"
	o.NoSitemaps, o.NoLLMsTxt = true, true
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(site.URL, "http://")
	s := &slice{w: w, host: host, owner: ownerName("test"), end: time.Now().Add(time.Minute), turns: newHeld(host),
		silent: map[string]error{}}
	if _, ok, err := takeLease(context.Background(), pool, host, s.owner, w.LeaseTTL); err != nil || !ok {
		t.Fatalf("the host's lease: %v, %v", ok, err)
	}
	items, err := s.next(context.Background())
	if err != nil || len(items) != 1 || items[0].c.id != id {
		t.Fatalf("the host's queue: %+v, %v", items, err)
	}
	if err := s.visit(ctx, items[0]); err == nil {
		t.Error("the visit of a job stopped while its page rendered went on")
	}
	var state, detail string
	var attempts int
	if err := pool.QueryRow(context.Background(), `SELECT state, attempts, detail FROM heed_frontier WHERE url = $1`, o.Start).Scan(&state, &attempts, &detail); err != nil {
		t.Fatal(err)
	}
	if state != "queued" || attempts != 0 {
		t.Errorf("the page's URL: %s after %d attempts (%s), want it queued", state, attempts, detail)
	}
}
