package team

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/testutil"
)

// A team's workers read a site's hostile Markdown as a crawl on one
// machine does: an llms.txt whose front matter repeats a key costs
// memory linear in its length (the YAML decoder alone keeps an error for
// each pair of equal keys, and a worker was once killed for it), and
// what they store holds no raw HTML as a CommonMark parser reads it.
func TestWorkersHostileMarkdown(t *testing.T) {
	pool := database(t)
	const list = "# Site\n\n- [One](/one.md): the first\n"
	var repeated atomic.Bool
	site := testutil.NewArrivals(t, 0, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/llms.txt":
			w.Header().Set("Content-Type", "text/markdown")
			if repeated.Load() {
				fmt.Fprint(w, "---\n"+strings.Repeat("k:\n", 4<<10/3)+"---\n")
			}
			fmt.Fprint(w, list)
		case "/":
			fmt.Fprint(w, `<html><head><title>Home</title></head><body><main><h1>Home</h1><p>Press <kbd>a</kbd><kbd>`+
				"`"+`&lt;img src=x onerror=alert(1)&gt;</kbd> to go on, as this page says at length, with enough words to be content.</p></main></body></html>`)
		case "/one.md":
			w.Header().Set("Content-Type", "text/markdown")
			fmt.Fprint(w, "# One\n\n`a\nb `<img src=x onerror=alert(1)>`\n\n<b>-</b> a\n\n    <img src=x onerror=alert(1)>\n")
		default:
			http.NotFound(w, r)
		}
	})
	startWorkers(t, pool, 1, nil)
	crawlAllocates := func(source string) uint64 {
		return testutil.Allocated(func() {
			o := crawlopt.Defaults()
			o.Start, o.Source, o.Delay = site.URL+"/", source, 0
			o.MaxPages, o.MaxDepth = 10, 2
			id, err := Start(context.Background(), pool, o)
			if err != nil {
				t.Fatal(err)
			}
			if p := waitDone(t, pool, id, time.Minute); p.Stored != 2 {
				t.Errorf("%s: progress %+v; want / and /one.md stored", source, p)
			}
		})
	}
	plain := crawlAllocates("plain")
	repeated.Store(true)
	keys := crawlAllocates("keys")
	t.Logf("a team's crawl allocates %d bytes, %d with 4 KB of repeated keys in llms.txt", plain, keys)
	if keys > plain+32<<20 {
		t.Errorf("4 KB of repeated keys in llms.txt cost the workers %d bytes more", keys-plain)
	}
	for _, path := range []string{"/", "/one.md"} {
		var md string
		if err := pool.QueryRow(context.Background(), `SELECT markdown FROM heed_snapshot WHERE url = $1 AND source = 'keys'`, site.URL+path).Scan(&md); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if bad := testutil.UnsafeMarkdown(md, path == "/"); bad != "" {
			t.Errorf("%s: %s in %q", path, bad, md)
		}
	}
}
