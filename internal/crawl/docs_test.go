package crawl

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/heedhq/heed/extract"
)

// pgDocs is where Debian's postgresql-doc-15 installs PostgreSQL's
// documentation.
const pgDocs = "/usr/share/doc/postgresql-doc-15/html"

// A crawl of PostgreSQL's whole documentation, served on loopback: every
// reference page (the SQL commands' and the applications') keeps its
// Synopsis, and no page keeps DocBook's Prev/Up/Home/Next tables.
func TestCrawlPostgreSQLDocs(t *testing.T) {
	if _, err := os.Stat(pgDocs + "/index.html"); err != nil {
		if os.Getenv("HEED_DOCSET") == "required" {
			t.Fatalf("PostgreSQL's documentation is not installed: %v", err)
		}
		t.Skipf("PostgreSQL's documentation is not installed (apt-get install postgresql-doc-15): %v", err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(pgDocs)))
	defer srv.Close()
	var mu sync.Mutex
	pages := map[string]string{}
	c, _ := crawler(t)
	c.Store = nil
	o := options(srv.URL + "/index.html")
	o.Source = "pg"
	o.MaxPages, o.MaxDepth = 3000, 20
	o.NoSitemaps, o.NoLLMsTxt = true, true
	o.Page = func(u string, doc *extract.Document) {
		mu.Lock()
		pages[u] = doc.Markdown
		mu.Unlock()
	}
	sum, err := c.Crawl(context.Background(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	refs := 0
	for u, md := range pages {
		name := u[strings.LastIndex(u, "/")+1:]
		if name == "" {
			name = "index.html"
		}
		// A reference page is one whose DocBook has a Synopsis.
		src, err := os.ReadFile(pgDocs + "/" + name)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if strings.Contains(string(src), `class="refsynopsisdiv"`) {
			refs++
			if !strings.Contains(md, "\n## Synopsis\n") {
				t.Errorf("%s: no Synopsis:\n%.400s", name, md)
			}
		}
		if strings.Contains(md, "[Prev](") || strings.Contains(md, "[Next](") {
			t.Errorf("%s keeps its navigation:\n%.600s", name, md)
		}
	}
	if len(pages) < 1000 || refs < 200 {
		t.Errorf("%d pages, %d reference pages crawled (%+v)", len(pages), refs, sum)
	}
	t.Logf("%d pages, %d reference pages", len(pages), refs)
}
