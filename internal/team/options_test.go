package team

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/testutil"
)

// oldRow is a crawl's options as team.Options wrote them before the one
// options type: durations in nanoseconds, and a max_depth of -1 for a
// crawl of the start URL only.
const oldRow = `{"start":"http://docs.example.com/guide/","source":"docs","tags":["go"],"max_pages":20,"max_depth":-1,"deadline":90000000000,"include":["/guide/**"],"exclude":["/guide/old/**"],"allow_hosts":["cdn.example.com"],"whole_site":true,"delay":250000000,"max_crawl_delay":10000000000,"no_robots":true,"ignore_signals":true,"render":"never","no_sitemaps":true,"no_llms_txt":true,"no_alternates":true}`

// TestReadOldRow: a row an older heed wrote reads as the options it
// meant, and the options Start writes read back as they were.
func TestReadOldRow(t *testing.T) {
	got, err := readOptions([]byte(oldRow))
	if err != nil {
		t.Fatal(err)
	}
	want := crawlopt.Defaults()
	want.Start, want.Source, want.Delay = "http://docs.example.com/guide/", "docs", 250*time.Millisecond
	want.MaxPages, want.MaxDepth, want.Deadline, want.Tags = 20, 0, 90*time.Second, []string{"go"}
	want.Include, want.Exclude, want.AllowHosts, want.WholeSite = []string{"/guide/**"}, []string{"/guide/old/**"}, []string{"cdn.example.com"}, true
	want.MaxCrawlDelay, want.NoRobots, want.IgnoreSignals, want.Render = 10*time.Second, true, true, "never"
	want.NoSitemaps, want.NoLLMsTxt, want.NoAlternates = true, true, true
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the old row reads as\n%+v\nwant\n%+v", got, want)
	}
	// A row that names none of the settings takes the defaults.
	if got, err := readOptions([]byte(`{"start":"http://docs.example.com/"}`)); err != nil || got.MaxPages != crawlopt.Defaults().MaxPages || got.Render != "auto" {
		t.Errorf("a row of a start URL only: %+v, %v", got, err)
	}
}

// TestWorkersCrawlOldRow: a crawl whose row an older heed wrote is
// crawled as it was meant: the start URL only (max_depth -1), without
// robots.txt (no_robots), under its source.
func TestWorkersCrawlOldRow(t *testing.T) {
	pool := database(t)
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /\n")
		case "/", "/a", "/b":
			fmt.Fprintf(w, `<html><head><title>%[1]s</title></head><body><main><h1>%[1]s</h1><p>%[2]s</p><a href="/a">a</a> <a href="/b">b</a></main></body></html>`,
				r.URL.Path, strings.Repeat("The page "+r.URL.Path+" says enough to be kept. ", 5))
		default:
			http.NotFound(w, r)
		}
	})
	o := crawlopt.Defaults()
	o.Start, o.Source, o.Delay = site.URL+"/", "old", 0
	o.MaxDepth, o.NoSitemaps, o.NoLLMsTxt = 0, true, true
	id, err := Start(context.Background(), pool, o)
	if err != nil {
		t.Fatal(err)
	}
	// No worker yet: the row is rewritten as an older heed wrote it.
	var start string
	if err := pool.QueryRow(context.Background(), `SELECT start_url FROM heed_crawl WHERE id = $1`, id).Scan(&start); err != nil {
		t.Fatal(err)
	}
	old := fmt.Sprintf(`{"start":%q,"source":"old","max_pages":20,"max_depth":-1,"deadline":600000000000,"delay":0,"max_crawl_delay":10000000000,"no_robots":true,"render":"auto"}`, start)
	if _, err := pool.Exec(context.Background(), `UPDATE heed_crawl_options SET options = $1::jsonb WHERE crawl = $2`, old, id); err != nil {
		t.Fatal(err)
	}
	startWorkers(t, pool, 1, nil)
	p := waitDone(t, pool, id, time.Minute)
	var asked []string
	for _, a := range site.Log() {
		asked = append(asked, a.Path)
	}
	if p.Stored != 1 || strings.Join(asked, " ") != "/" {
		t.Errorf("progress %+v, asked %v; want the start URL alone, robots.txt unasked", p, asked)
	}
	var source string
	if err := pool.QueryRow(context.Background(), `SELECT source FROM heed_snapshot WHERE url = $1`, start).Scan(&source); err != nil || source != "old" {
		t.Errorf("the start page's source: %q, %v", source, err)
	}
}
