// Package crawlbench compares heed's crawler with colly on a loopback site,
// and measures search on a large stash. It is a package of its own so that
// its test binary holds the crawlers alone: the extractors compared in
// bench/ keep tens of megabytes of their own from start-up, which would
// count in the crawlers' heap and slow their collections.
package crawlbench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/extractdev"
	"github.com/heedhq/heed/internal/heapfloor"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/internal/stash"
	"github.com/heedhq/heed/internal/testutil"
)

// siteHandler serves n realistic pages: the development set's real pages
// in turn, each with links to its children in a tree of fan-out 8 and to
// a few pages further on, so that a crawl reaches every one.
func siteHandler(n int) (http.Handler, error) {
	pages, err := extractdev.Load("../../extract/testdata/extract-dev")
	if err != nil {
		return nil, err
	}
	var bodies [][]byte
	for _, p := range pages {
		h, err := p.HTML()
		if err != nil {
			return nil, err
		}
		// The page's own links and canonical URL point at its real site:
		// take them out, so that the tree's links are the only ones.
		bodies = append(bodies, bytes.ReplaceAll(bytes.ReplaceAll(h, []byte("href="), []byte("data-href=")), []byte("HREF="), []byte("data-href=")))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/p/") {
			http.NotFound(w, r)
			return
		}
		i, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
		if err != nil || i < 0 || i >= n {
			http.NotFound(w, r)
			return
		}
		body := bodies[i%len(bodies)]
		var links bytes.Buffer
		links.WriteString("<nav>")
		for c := i*8 + 1; c <= i*8+8 && c < n; c++ {
			fmt.Fprintf(&links, `<a href="/p/%d">child %d</a> `, c, c)
		}
		fmt.Fprintf(&links, `<a href="/p/%d">next</a></nav>`, (i+1)%n)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		// The real pages are cycled, but every page of the site says
		// something of its own, as a site's pages do: a crawl keeps a
		// page's content once.
		body = bytes.ReplaceAll(body, []byte("</p>"), fmt.Appendf(nil, " (page %d)</p>", i))
		if at := bytes.Index(body, []byte("</body>")); at >= 0 {
			w.Write(body[:at])
			w.Write(links.Bytes())
			w.Write(body[at:])
			return
		}
		w.Write(body)
		w.Write(links.Bytes())
	}), nil
}

// siteEnv, set to a number of pages, makes the test binary serve the test
// site on loopback instead of running tests: testSite's server process.
const siteEnv = "HEED_BENCH_SITE_PAGES"

func TestMain(m *testing.M) {
	if v := os.Getenv(siteEnv); v != "" {
		n, _ := strconv.Atoi(v)
		h, err := siteHandler(n)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("http://%s\n", l.Addr())
		go func() { io.Copy(io.Discard, os.Stdin); os.Exit(0) }() // ends with its parent
		http.Serve(l, h)
		return
	}
	// The crawlers run as the heed command runs, with its floor under the
	// collector's heap goal: heed's and colly's alike.
	heapfloor.Set(heapfloor.Heed)
	dir, err := os.MkdirTemp("", "heed-crawl-bench")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stashes = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// stashes holds the stashes that the crawls write, all removed only when
// every run is done. A stash removed between runs would slow the next
// run's file creation: ext4 without a journal, as on some virtual
// machines, passes over each inode freed in the last minute (five, while
// its inode table is unwritten) one by one when it allocates one, so a
// file created just after 2,000 were removed costs up to a millisecond of
// kernel time instead of tens of microseconds. A crawl into a stash does
// not follow the removal of thousands of files; for the same reason, the
// benchmark is best run where no thousands of files were removed in the
// last minutes (TMPDIR set to a new directory).
var stashes string

// newStash opens an empty stash in a directory of its own under stashes.
func newStash(b *testing.B) *stash.Stash {
	dir, err := os.MkdirTemp(stashes, "stash")
	if err != nil {
		b.Fatal(err)
	}
	st, err := stash.Open(b.Context(), dir)
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// testSite serves the test site of n pages from another process, so that
// the crawler's heap is the only one measured in this one; it returns the
// site's URL.
func testSite(tb testing.TB, n int) string {
	tb.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", siteEnv, n))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		tb.Fatalf("the test site did not start: %v", err)
	}
	return strings.TrimSpace(line)
}

// peak samples the process's memory until stop is called, and returns the
// highest it saw, in MB: the Go heap in use, less heapfloor's reserve
// (heap that holds nothing, and is never written), and the resident
// memory, which counts SQLite's too.
func peak() (stop func() (heapMB, rssMB float64)) {
	runtime.GC()
	debug.FreeOSMemory() // what an earlier crawl left is not this one's
	var heap, rss atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if h := m.HeapInuse - min(heapfloor.Reserve(), m.HeapInuse); h > heap.Load() {
				heap.Store(h)
			}
			if r := testutil.Resident(); r > rss.Load() {
				rss.Store(r)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	return func() (float64, float64) {
		close(done)
		wg.Wait()
		return float64(heap.Load()) / (1 << 20), float64(rss.Load()) / (1 << 20)
	}
}

// BenchmarkCrawl crawls a loopback site of 2,000 real pages with delays
// off: heed extracting every page to Markdown and indexing it in the
// stash, colly only following links. It reports pages/s and the peak heap.
//
//	go test -run '^$' -bench Crawl -benchtime 1x
func BenchmarkCrawl(b *testing.B) {
	const n = 2000
	site := testSite(b, n)
	b.Run("heed", func(b *testing.B) { crawlHeed(b, site, n) })
	// colly with one request at a time to the host, as heed makes, and
	// with four.
	for _, parallel := range []int{1, 4} {
		b.Run(fmt.Sprintf("colly-%d", parallel), func(b *testing.B) { crawlColly(b, site, parallel) })
	}
}

// crawlColly crawls the site with colly, parallel requests at a time,
// only following links.
func crawlColly(b *testing.B, site string, parallel int) {
	for b.Loop() {
		var visited atomic.Int32
		c := colly.NewCollector(colly.MaxDepth(100), colly.Async(true))
		c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: parallel})
		c.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
		c.OnResponse(func(*colly.Response) { visited.Add(1) })
		stop := peak()
		cpu := testutil.CPUTime()
		start := time.Now()
		c.Visit(site + "/p/0")
		c.Wait()
		elapsed, used := time.Since(start), cpu()
		heap, rss := stop()
		report(b, int(visited.Load()), elapsed, used, heap, rss)
	}
}

// report reports a crawl's pages/s, its CPU time per page (the crawler's
// process alone: the test site is served by another) and its peak heap.
func report(b *testing.B, pages int, elapsed, cpu time.Duration, heapMB, rssMB float64) {
	b.ReportMetric(float64(pages)/elapsed.Seconds(), "pages/s")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(pages), "cpu-ms/page")
	b.ReportMetric(heapMB, "peak-heap-MB")
	b.ReportMetric(rssMB, "peak-rss-MB")
}

// crawlHeed crawls the site's n pages with heed into a fresh stash.
func crawlHeed(b *testing.B, site string, n int) {
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	for b.Loop() {
		st := newStash(b)
		c := &crawl.Crawler{Client: polite.New(fetch.New(fetch.Config{AllowNets: loopback}), polite.NewSchedule(), 0), Store: st, Agent: "heed", Ledger: st}
		stop := peak()
		cpu := testutil.CPUTime()
		start := time.Now()
		o := crawl.Options{Options: crawlopt.Defaults()}
		o.Start, o.Delay = site+"/p/0", 0
		o.MaxPages, o.MaxDepth, o.NoSitemaps, o.Hosts = n, 100, true, 1
		sum, err := c.Crawl(b.Context(), o, nil)
		elapsed, used := time.Since(start), cpu()
		heap, rss := stop()
		st.Close()
		if err != nil || sum.Stored+sum.Unchanged < n*9/10 {
			b.Fatalf("crawl: %+v, %v", sum, err)
		}
		report(b, sum.Stored+sum.Unchanged, elapsed, used, heap, rss)
	}
}

// BenchmarkCrawl10k crawls a 10,000-page site with heed alone, for its
// peak heap (goal: under 150 MB).
//
//	go test -run '^$' -bench Crawl10k -benchtime 1x
func BenchmarkCrawl10k(b *testing.B) {
	const n = 10_000
	crawlHeed(b, testSite(b, n), n)
}

// BenchmarkSearch measures search latency on a stash of 50,000 snapshots
// (real page text, cycled), per query.
func BenchmarkSearch(b *testing.B) {
	const n = 50_000
	pages, err := extractdev.Load("../../extract/testdata/extract-dev")
	if err != nil {
		b.Fatal(err)
	}
	var texts []string
	for _, p := range pages {
		t, err := p.TruthText()
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, t)
	}
	st, err := stash.Open(b.Context(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for i := range n {
		t := texts[i%len(texts)]
		title, _, _ := strings.Cut(t, "\n")
		snap := &heed.Snapshot{Source: "bench", URL: fmt.Sprintf("https://bench.example/p/%d", i), Title: title, Markdown: t, FetchedAt: time.Now()}
		if _, err := st.Put(b.Context(), snap); err != nil {
			b.Fatal(err)
		}
	}
	// As a large crawl, or heed reindex, leaves it.
	if err := st.Optimize(b.Context()); err != nil {
		b.Fatal(err)
	}
	queries := []string{"climate change", "apple", "security vulnerability", "\"machine learning\"", "government policy", "recipe", "court ruling", "install*"}
	var took []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		if _, err := st.Search(b.Context(), heed.Query{Text: queries[i%len(queries)], Limit: 10}); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
		i++
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(took[len(took)*9/10].Microseconds())/1000, "p90-ms")
}
