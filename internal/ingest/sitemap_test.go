package ingest

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawlopt"
)

// mapSite serves a documentation directory with robots.txt, a sitemap
// and llms.txt, and counts what it is asked.
func mapSite(t *testing.T) (*httptest.Server, func() map[string]int) {
	var mu sync.Mutex
	asked := map[string]int{}
	var s *httptest.Server
	s = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked[r.URL.Path]++
		mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nDisallow: /docs/secret\nSitemap: %s/maps/docs.xml\n", s.URL)
		case "/maps/docs.xml":
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%[1]s/docs/b</loc><lastmod>2026-01-01</lastmod></url><url><loc>%[1]s/docs/a</loc></url><url><loc>%[1]s/blog/x</loc></url><url><loc>%[1]s/docs/secret/y</loc></url></urlset>`, s.URL)
		case "/llms.txt":
			w.Header().Set("Content-Type", "text/markdown")
			fmt.Fprint(w, "# Site\n\n- [C](/docs/c): the third\n")
		case "/docs/":
			fmt.Fprint(w, `<html><head><title>Docs</title></head><body><main><p>The docs, with words enough.</p><a href="/docs/a">a</a> <a href="/docs/secret/z">s</a> <a href="/blog/">blog</a> <a href="/docs/a#part">again</a></main></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(asked)
	}
}

func mapRequest(start string) MapRequest {
	req := MapRequest{Options: crawlopt.Defaults()}
	req.Start, req.Delay = start, 0
	return req
}

// TestMap: a site's map lists the start URL, its page's links, and what
// llms.txt and the sitemaps list, within the directory and allowed by
// robots.txt, each once with where it was found, and stores nothing.
func TestMap(t *testing.T) {
	s, asked := mapSite(t)
	dir := t.TempDir() + "/stash"
	svc := New(Config{HTTP: fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}), StashDir: dir, Delay: -1})
	t.Cleanup(func() { svc.Close() })
	m, err := svc.Map(t.Context(), mapRequest(s.URL+"/docs/"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range m.URLs {
		got = append(got, strings.TrimPrefix(u.URL, s.URL)+" "+strings.Join(u.Via, ","))
	}
	want := []string{"/docs/ start", "/docs/a link,sitemap", "/docs/c llms.txt", "/docs/b sitemap"}
	if !slices.Equal(got, want) {
		t.Errorf("map %q, want %q", got, want)
	}
	if m.Disallowed != 2 || m.OutOfScope != 2 || m.Cut {
		t.Errorf("disallowed %d, out of scope %d, cut %v: want 2, 2 (/blog/ and /blog/x), not cut", m.Disallowed, m.OutOfScope, m.Cut)
	}
	if m.URLs[3].LastMod != "2026-01-01" {
		t.Errorf("the sitemap's lastmod: %q", m.URLs[3].LastMod)
	}
	for path, n := range asked() {
		if n != 1 {
			t.Errorf("%s asked %d times, want once", path, n)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a map made a stash: %v", err)
	}

	// Cut at its limit, it says so, and reads no sitemap past it.
	req := mapRequest(s.URL + "/docs/")
	req.Limit = 2
	if m, err = svc.Map(t.Context(), req); err != nil || len(m.URLs) != 2 || !m.Cut {
		t.Errorf("limit 2: %+v, %v; want 2 URLs, cut", m, err)
	}

	// A start URL robots.txt disallows is refused.
	if _, err := svc.Map(t.Context(), mapRequest(s.URL+"/docs/secret/")); err == nil {
		t.Error("a map of a disallowed start URL: no error")
	}
}

// TestMapNoRobots: with robots.txt not consulted, none is asked for.
func TestMapNoRobots(t *testing.T) {
	s, asked := mapSite(t)
	svc := New(Config{HTTP: fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}), StashDir: t.TempDir(), Delay: -1})
	t.Cleanup(func() { svc.Close() })
	req := mapRequest(s.URL + "/docs/")
	req.NoRobots = true
	m, err := svc.Map(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if n := asked()["/robots.txt"]; n != 0 {
		t.Errorf("robots.txt asked %d times with no-robots", n)
	}
	if m.Disallowed != 0 || len(m.URLs) < 3 {
		t.Errorf("no-robots map: %+v", m)
	}
}
