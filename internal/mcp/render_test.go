package mcp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/render"
	"github.com/heedhq/heed/internal/render/rendertest"
)

// web_fetch renders a page that needs it, as far as the user allows: by
// default (auto); with the user's render: never, an agent's always is
// lowered, and said so.
func TestWebFetchRender(t *testing.T) {
	b := rendertest.Browser(t, render.Config{})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hash":
			fmt.Fprint(w, `<html><head><title>Routes</title></head><body><div id="app"></div><script>
document.getElementById("app").innerHTML = location.hash === "#/keeper" ? "<article><h1>The keeper</h1><p>The keeper trims the wick at dusk and winds the clockwork.</p></article>" : "<p>Home</p>";
</script></body></html>`)
		case "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `document.getElementById("root").innerHTML = "<article><h1>Fresnel lenses</h1><p>A Fresnel lens bends the lamp's light into a narrow beam seen far out at sea.</p></article>";`)
		default:
			fmt.Fprint(w, `<html><head><title>App</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`)
		}
	}))
	defer site.Close()
	serve := func(l Limits) *Server {
		svc := ingest.New(ingest.Config{HTTP: fetch.New(fetch.Config{AllowNets: loopback, Retries: -1}), Agent: "heed/0.1", StashDir: t.TempDir(), Delay: -1, Browser: b})
		s := New(Config{Service: svc, Limits: l})
		t.Cleanup(func() { s.Close(); svc.Close() })
		return s
	}
	cs := connect(t, serve(Limits{}), nil)
	var out FetchOutput
	if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/"}, &out); isErr || !out.Rendered || !strings.Contains(out.Markdown, "narrow beam") {
		t.Errorf("web_fetch, auto: %s %+v", text, out)
	}
	out = FetchOutput{}
	if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/hash#/keeper"}, &out); isErr || !strings.Contains(out.Markdown, "winds the clockwork") {
		t.Errorf("web_fetch of a hash route: %s %+v", text, out)
	}
	cs = connect(t, serve(Limits{Render: render.Never}), nil)
	out = FetchOutput{}
	if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/", "render": "always"}, &out); isErr || out.Rendered ||
		len(out.Notes) != 1 || out.Notes[0] != "render always was lowered to never, the most the user allows" {
		t.Errorf("web_fetch, always where the user allows never: %s %+v", text, out)
	}
	if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/", "render": "sometimes"}, &out); !isErr || !strings.Contains(text, "auto, always or never") {
		t.Errorf("web_fetch, render sometimes: %s", text)
	}
	// web_grep, which takes no render, renders no more than the user
	// allows either.
	var grep GrepOutput
	if text, isErr := call(t, cs, "web_grep", map[string]any{"url": site.URL + "/", "pattern": "narrow beam"}, &grep); isErr || len(grep.Matches) != 0 {
		t.Errorf("web_grep where the user allows no rendering: %s %+v", text, grep)
	}
	// web_crawl's render is lowered alike, and the shell it stores says
	// it was not rendered.
	var crawled CrawlOutput
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "max_depth": 0, "render": "always"}, &crawled); isErr || crawled.Stored != 1 ||
		len(crawled.Notes) != 1 || crawled.Notes[0] != "render always was lowered to never, the most the user allows" {
		t.Errorf("web_crawl, always where the user allows never: %s %+v", text, crawled)
	}
	var read ReadOutput
	if text, isErr := call(t, cs, "stash_read", map[string]any{"url_or_id": site.URL + "/"}, &read); isErr || strings.Contains(read.Markdown, "narrow beam") {
		t.Errorf("the page web_crawl stored where the user allows no rendering: %s %+v", text, read)
	}
	cs = connect(t, serve(Limits{}), nil)
	grep = GrepOutput{}
	if text, isErr := call(t, cs, "web_grep", map[string]any{"url": site.URL + "/", "pattern": "narrow beam"}, &grep); isErr || len(grep.Matches) != 1 {
		t.Errorf("web_grep, auto: %s %+v", text, grep)
	}
}
