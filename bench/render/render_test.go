// Package renderbench measures rendering: pages a second and peak memory
// (heed and the browser) of a crawl of a 200-page loopback site whose
// pages their scripts build, beside the static path on the same pages
// served as HTML; and what auto costs over never on the static site.
//
//	go -C bench test ./render -run '^$' -bench . -benchtime 3x
//
// It needs Chromium (Debian's chromium).
package renderbench

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/memstore"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/internal/render"
)

const pages = 200

// site serves pages /p/0 to /p/199, each linking to the next two, either
// built by a script from JSON (rendered) or as HTML (static).
func site(b *testing.B, rendered bool) *httptest.Server {
	body := func(i int) string {
		var links strings.Builder
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < pages {
				fmt.Fprintf(&links, `<li><a href="/p/%d">Page %d</a></li>`, c, c)
			}
		}
		return fmt.Sprintf(`<article><h1>Page %d</h1><p>Page %d of the site: lighthouses guide ships past reefs and headlands at night, and a Fresnel lens bends the lamp's light into a narrow beam seen far out at sea.</p><p>The keeper trims the wick at dusk, winds the clockwork that turns the lens, and writes the night's weather in the log before dawn.</p><ul>%s</ul></article>`, i, i, links.String())
	}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `fetch("/data" + location.pathname + ".json").then(r => r.json()).then(d => { document.getElementById("root").innerHTML = d.html; });`)
		case strings.HasPrefix(r.URL.Path, "/data/p/"):
			i, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/data/p/"), ".json"))
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"html": %q}`, body(i))
		case strings.HasPrefix(r.URL.Path, "/p/"):
			i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
			if err != nil || i >= pages {
				http.NotFound(w, r)
				return
			}
			if rendered {
				fmt.Fprintf(w, `<!doctype html><html><head><title>Page %d</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`, i)
			} else {
				fmt.Fprintf(w, `<!doctype html><html><head><title>Page %d</title></head><body>%s<script src="/analytics.js"></script></body></html>`, i, body(i))
			}
		default:
			http.NotFound(w, r)
		}
	}))
	b.Cleanup(s.Close)
	return s
}

// tree is the resident memory of this process and its descendants (the
// browser's processes), in bytes.
func tree() uint64 {
	entries, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	rss := map[int]uint64{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		status, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			f := strings.Fields(line)
			switch {
			case len(f) >= 2 && f[0] == "PPid:":
				parent[pid], _ = strconv.Atoi(f[1])
			case len(f) >= 2 && f[0] == "VmRSS:":
				kb, _ := strconv.ParseUint(f[1], 10, 64)
				rss[pid] = kb << 10
			}
		}
	}
	self := os.Getpid()
	var total uint64
	for pid, r := range rss {
		for p := pid; p > 1; p = parent[p] {
			if p == self {
				total += r
				break
			}
		}
	}
	return total
}

func crawlSite(b *testing.B, url string, mode render.Mode, br *render.Browser) int {
	b.Helper()
	client := polite.New(fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Retries: -1}), polite.NewSchedule(), 0)
	c := &crawl.Crawler{Client: client, Store: &memstore.Store{}, Agent: "heed/0.1", Browser: br}
	o := crawl.Options{Options: crawlopt.Defaults()}
	o.Start, o.Delay, o.Render = url+"/p/0", 0, string(mode)
	o.MaxPages, o.MaxDepth, o.NoSitemaps, o.NoLLMsTxt = 1000, 20, true, true
	sum, err := c.Crawl(context.Background(), o, nil)
	if err != nil {
		b.Fatal(err)
	}
	return sum.Stored
}

// BenchmarkRenderCrawl crawls the 200 pages: rendered (the site's
// scripts build them) and static (the same pages as HTML, never
// rendered): pages a second, and the peak resident memory of heed and
// the browser.
func BenchmarkRenderCrawl(b *testing.B) {
	for _, tt := range []struct {
		name     string
		rendered bool
		mode     render.Mode
	}{{"rendered", true, render.Auto}, {"static", false, render.Never}} {
		b.Run(tt.name, func(b *testing.B) {
			br := render.New(render.Config{})
			if err := br.Available(); err != nil {
				b.Skip(err)
			}
			defer br.Close()
			s := site(b, tt.rendered)
			var peak atomic.Uint64
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				for {
					if m := tree(); m > peak.Load() {
						peak.Store(m)
					}
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
					}
				}
			})
			stored, began := 0, time.Now()
			for b.Loop() {
				stored += crawlSite(b, s.URL, tt.mode, br)
			}
			took := time.Since(began)
			close(stop)
			wg.Wait()
			if stored != pages*b.N {
				b.Fatalf("stored %d, want %d", stored, pages*b.N)
			}
			b.ReportMetric(float64(stored)/took.Seconds(), "pages/s")
			b.ReportMetric(float64(peak.Load())/(1<<20), "peak-MB")
		})
	}
}

// BenchmarkAutoOnStatic crawls the static site with auto and with never:
// what deciding whether a page needs rendering costs, where none does.
func BenchmarkAutoOnStatic(b *testing.B) {
	for _, mode := range []render.Mode{render.Never, render.Auto} {
		b.Run(string(mode), func(b *testing.B) {
			s := site(b, false)
			br := render.New(render.Config{})
			defer br.Close()
			for b.Loop() {
				if n := crawlSite(b, s.URL, mode, br); n != pages {
					b.Fatalf("stored %d", n)
				}
			}
		})
	}
}
