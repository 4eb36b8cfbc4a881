package crawl

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/internal/stash"
)

// BenchmarkHistoryGrowth crawls a site of 1,000 pages into a stash, then
// crawls it again 20 times, 5% of its pages changed before each: what the
// stash takes on disk, against the pages' own size (their Markdown now),
// with every version kept (the default retention keeps 30). Run it once:
//
//	go test -run '^$' -bench HistoryGrowth -benchtime 1x ./internal/crawl
func BenchmarkHistoryGrowth(b *testing.B) {
	const pages, crawls, changed = 1000, 20, 50
	var mu sync.Mutex
	bodies := map[string]string{}
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the tide turns at dusk and the harbour lights come on one by one while ships wait for the pilot boats to lead them through the channel past the old fort whose walls the sea has worn")
	para := func() string {
		var sb strings.Builder
		for range 40 + r.IntN(60) {
			sb.WriteString(words[r.IntN(len(words))] + " ")
		}
		return sb.String()
	}
	text := make([][]string, pages)
	for i := range pages {
		for range 4 + r.IntN(6) {
			text[i] = append(text[i], para())
		}
	}
	render := func(i int) string {
		var sb strings.Builder
		fmt.Fprintf(&sb, "<html><head><title>Page %d</title></head><body><main><h1>Page %d</h1>", i, i)
		for _, p := range text[i] {
			sb.WriteString("<p>" + p + "</p>")
		}
		return sb.String() + "</main></body></html>"
	}
	index := func(sec int) string {
		var sb strings.Builder
		fmt.Fprintf(&sb, "<html><head><title>Section %d</title></head><body><main><h1>Section %d</h1><p>The pages of section %d.</p>", sec, sec, sec)
		for i := sec * 100; i < (sec+1)*100; i++ {
			fmt.Fprintf(&sb, `<p><a href="/p/%d">Page %d</a></p>`, i, i)
		}
		return sb.String() + "</main></body></html>"
	}
	publish := func() {
		mu.Lock()
		defer mu.Unlock()
		var home strings.Builder
		home.WriteString("<html><head><title>Home</title></head><body><main><h1>Home</h1><p>The sections of the site.</p>")
		for sec := range pages / 100 {
			fmt.Fprintf(&home, `<p><a href="/s/%d">Section %d</a></p>`, sec, sec)
			bodies[fmt.Sprintf("/s/%d", sec)] = index(sec)
		}
		bodies["/"] = home.String() + "</main></body></html>"
		for i := range pages {
			bodies[fmt.Sprintf("/p/%d", i)] = render(i)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		body, ok := bodies[req.URL.Path]
		mu.Unlock()
		if !ok {
			http.NotFound(w, req)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(body))
	}))
	defer srv.Close()

	for b.Loop() {
		b.StopTimer()
		publish()
		dir := b.TempDir()
		st, err := stash.Open(b.Context(), dir)
		if err != nil {
			b.Fatal(err)
		}
		client := polite.New(fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}), polite.NewSchedule(), 0)
		c := &Crawler{Client: client, Store: st, Agent: "heed/0.1"}
		o := options(srv.URL + "/")
		o.MaxPages, o.NoSitemaps, o.NoLLMsTxt = 2000, true, true
		b.StartTimer()
		for round := range crawls + 1 {
			if round > 0 {
				// 5% of the pages change: one paragraph each, rewritten.
				for k := range changed {
					i := (round*changed + k*(pages/changed)) % pages
					text[i][r.IntN(len(text[i]))] = para()
				}
				publish()
			}
			if _, err := c.Crawl(b.Context(), o, func(Event) {}); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		own := 0
		entries, err := st.List(b.Context(), "")
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range entries {
			snap, err := st.Get(b.Context(), e.ID)
			if err != nil {
				b.Fatal(err)
			}
			own += len(snap.Markdown)
		}
		st.Close()
		files, versions, index := diskUse(b, dir)
		b.ReportMetric(float64(own)/1e6, "MB-pages")
		b.ReportMetric(float64(files)/1e6, "MB-page-files")
		b.ReportMetric(float64(versions)/1e6, "MB-versions")
		b.ReportMetric(float64(index)/1e6, "MB-index")
		b.ReportMetric(float64(files+versions+index)/float64(own), "disk/pages")
		b.StartTimer()
	}
}

// diskUse is what the stash at dir takes on disk (blocks allocated):
// its pages' files, its kept versions, and its index and the rest of
// .heed.
func diskUse(b *testing.B, dir string) (files, versions, index int64) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		n := fi.Size()
		if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
			n = sys.Blocks * 512
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case strings.HasPrefix(rel, filepath.Join(".heed", "versions")):
			versions += n
		case strings.HasPrefix(rel, ".heed"):
			index += n
		default:
			files += n
		}
		return nil
	})
	return files, versions, index
}
