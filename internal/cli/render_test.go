package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/heedhq/heed/internal/render"
	"github.com/heedhq/heed/internal/render/rendertest"
)

// needBrowser skips the test when there is no browser for heed to find
// (fails it with HEED_BROWSER=required).
func needBrowser(t *testing.T) {
	t.Helper()
	rendertest.Browser(t, render.Config{})
}

// heed fetch of pages that need JavaScript: a client-rendered page that
// fetches JSON, a hash-routed app, a page whose only static content is
// <noscript>: rendered by default (auto), their content in the Markdown
// and rendered: true in the frontmatter; never keeps the static page;
// a static page is not rendered, and reads as it did.
func TestFetchRender(t *testing.T) {
	needBrowser(t)
	long := strings.Repeat("Lighthouses guide ships past reefs and headlands at night. ", 6)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/app":
			fmt.Fprint(w, `<html><head><title>App</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`)
		case "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `fetch("/data.json").then(r => r.json()).then(d => { document.getElementById("root").innerHTML = "<article><h1>" + d.title + "</h1><p>" + d.text + "</p></article>"; });`)
		case "/data.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"title": "Fresnel lenses", "text": "A Fresnel lens bends the lamp's light into a narrow beam seen far out at sea."}`)
		case "/hash":
			fmt.Fprint(w, `<html><head><title>Routes</title></head><body><div id="app"></div><script>
const routes = {"#/keeper": "<article><h1>The keeper</h1><p>The keeper trims the wick at dusk and winds the clockwork that turns the lens.</p></article>"};
document.getElementById("app").innerHTML = routes[location.hash] || "<p>Home</p>";
</script></body></html>`)
		case "/noscript":
			fmt.Fprint(w, `<html><head><title>Docs</title></head><body><noscript>You need to enable JavaScript to run this app.</noscript><script>document.body.insertAdjacentHTML("beforeend", "<main><h1>Reference</h1><p>Every lamp has a focal plane; the lens is set so that the flame sits at its focus.</p></main>");</script></body></html>`)
		case "/static":
			fmt.Fprintf(w, `<html><head><title>Static</title></head><body><article><h1>Static</h1><p>%s</p></article><script src="/app.js"></script></body></html>`, long)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	for _, tt := range []struct {
		path, mode, want string
		rendered         bool
	}{
		{"/app", "auto", "narrow beam", true},
		{"/app", "never", `title: "App"`, false},
		{"/hash#/keeper", "auto", "winds the clockwork", true},
		{"/noscript", "", "focal plane", true},
		{"/static", "auto", "headlands at night", false},
		{"/static", "always", "headlands at night", true},
	} {
		args := []string{"fetch", site.URL + tt.path, "--allow-net", "127.0.0.1/32"}
		if tt.mode != "" {
			args = append(args, "--render", tt.mode)
		}
		code, out, stderr := run(t, "", args...)
		if code != 0 || !strings.Contains(out, tt.want) || strings.Contains(out, "rendered: true") != tt.rendered {
			t.Errorf("fetch %s --render %s: exit %d, %q\n%s", tt.path, tt.mode, code, stderr, out)
		}
	}
	if code, _, stderr := run(t, "", "fetch", site.URL+"/app", "--render", "sometimes"); code != ExitUsage || !strings.Contains(stderr, "auto, always or never") {
		t.Errorf("--render sometimes: exit %d, %q", code, stderr)
	}
}

// Without a browser, auto keeps the static page and says what to
// install; always fails, saying the same.
func TestFetchRenderNoBrowser(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>App</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`)
	}))
	defer site.Close()
	config := writeFile(t, "config.yaml", "browser:\n  path: /nonexistent/chromium\n")
	code, out, stderr := run(t, "", "fetch", site.URL+"/", "--allow-net", "127.0.0.1/32", "--config", config)
	if code != 0 || !strings.Contains(out, `title: "App"`) || !strings.Contains(stderr, "install Chromium") {
		t.Errorf("auto without a browser: exit %d, %q\n%s", code, stderr, out)
	}
	code, _, stderr = run(t, "", "fetch", site.URL+"/", "--allow-net", "127.0.0.1/32", "--config", config, "--render", "always")
	if code == 0 || !strings.Contains(stderr, "install Chromium") {
		t.Errorf("always without a browser: exit %d, %q", code, stderr)
	}
}
