package render

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedhq/heed/fetch"
)

var (
	shared     *Browser
	sharedOnce sync.Once
)

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.Close()
	}
	os.Exit(code)
}

// browser is the tests' browser, or skips the test (fails it with
// HEED_BROWSER=required) when there is none.
func browser(t *testing.T) *Browser {
	t.Helper()
	sharedOnce.Do(func() { shared = New(Config{PageTimeout: 10 * time.Second}) })
	if err := shared.Available(); err != nil {
		if os.Getenv("HEED_BROWSER") == "required" {
			t.Fatalf("a browser is needed: %v", err)
		}
		t.Skipf("no browser: %v", err)
	}
	return shared
}

func loopback() *fetch.Client {
	return fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Retries: -1})
}

// site serves pages by path, and logs each request's path.
type site struct {
	*httptest.Server
	mu  sync.Mutex
	log []string
}

func newSite(t *testing.T, pages map[string]string) *site {
	s := &site{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.log = append(s.log, r.URL.Path)
		s.mu.Unlock()
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		switch {
		case strings.HasSuffix(r.URL.Path, ".js"):
			w.Header().Set("Content-Type", "text/javascript")
		case strings.HasSuffix(r.URL.Path, ".json"):
			w.Header().Set("Content-Type", "application/json")
		default:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

func render(t *testing.T, b *Browser, url string, get Get) *Page {
	t.Helper()
	client := loopback()
	doc, err := client.Get(t.Context(), fetch.Request{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	if get == nil {
		get = client.Get
	}
	p, err := b.Render(t.Context(), doc, get)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const appShell = `<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`

// A page that fetches JSON and builds its content: rendered, the content
// is there, and each of its requests was heed's, once.
func TestRenderClientSide(t *testing.T) {
	b := browser(t)
	s := newSite(t, map[string]string{
		"/":          appShell,
		"/app.js":    `fetch("/data.json").then(r => r.json()).then(d => { document.getElementById("root").innerHTML = "<article><h1>" + d.title + "</h1><p>" + d.text + "</p></article>"; });`,
		"/data.json": `{"title": "Lighthouses", "text": "A Fresnel lens bends the lamp's light into a narrow beam."}`,
	})
	p := render(t, b, s.URL+"/", nil)
	if !strings.Contains(string(p.HTML), "narrow beam") || p.Requests != 3 {
		t.Errorf("rendered %d requests:\n%s", p.Requests, p.HTML)
	}
	if got := strings.Join(s.requests(), " "); got != "/ /app.js /data.json" {
		t.Errorf("the site saw %s", got)
	}
}
