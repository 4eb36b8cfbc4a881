package render

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
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

// site serves pages by path, and logs each request's path and query.
type site struct {
	*httptest.Server
	mu  sync.Mutex
	log []string
}

func newSite(t *testing.T, pages map[string]string) *site {
	s := &site{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.log = append(s.log, r.URL.RequestURI())
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
// is there, and each of its requests was heed's, once; its image and
// stylesheet are not fetched.
func TestRenderClientSide(t *testing.T) {
	b := browser(t)
	s := newSite(t, map[string]string{
		"/":          strings.Replace(appShell, `<div id="root">`, `<img src="/lamp.png"><link rel="stylesheet" href="/style.css"><div id="root">`, 1),
		"/app.js":    `fetch("/data.json").then(r => r.json()).then(d => { document.getElementById("root").innerHTML = "<article><h1>" + d.title + "</h1><p>" + d.text + "</p></article>"; });`,
		"/data.json": `{"title": "Lighthouses", "text": "A Fresnel lens bends the lamp's light into a narrow beam."}`,
		"/lamp.png":  "not fetched",
		"/style.css": "not fetched",
	})
	p := render(t, b, s.URL+"/", nil)
	if !strings.Contains(string(p.HTML), "narrow beam") || p.Requests != 3 {
		t.Errorf("rendered %d requests:\n%s", p.Requests, p.HTML)
	}
	if got := strings.Join(s.requests(), " "); got != "/ /app.js /data.json" {
		t.Errorf("the site saw %s", got)
	}
}

func TestNeeds(t *testing.T) {
	long := strings.Repeat("Lighthouses guide ships past reefs at night. ", 10)
	for _, tt := range []struct {
		name, html, markdown string
		want                 bool
	}{
		{"an app shell", appShell, "", true},
		{"an empty root, no script yet", `<body><div id="__next"></div></body>`, "", true},
		{"noscript alone", `<body><noscript>You need to enable JavaScript to run this app.</noscript></body>`, "You need to enable JavaScript to run this app.", true},
		{"a static page", `<body><article><h1>Lighthouses</h1><p>` + long + `</p></article></body>`, "# Lighthouses\n\n" + long, false},
		{"a static page with analytics", `<body><article><p>` + long + `</p></article><script src="/a.js"></script></body>`, long, false},
		{"a short page without scripts", `<body><p>Short.</p></body>`, "Short.", false},
		{"a short page with JSON-LD only", `<body><p>Short.</p><script type="application/ld+json">{"@type": "Thing"}</script></body>`, "Short.", false},
		{"a module", `<body><div></div><script type="module" src="/main.js"></script></body>`, "", true},
	} {
		if got := Needs([]byte(tt.html), tt.markdown); got != tt.want {
			t.Errorf("%s: Needs = %v", tt.name, got)
		}
	}
	if m, err := ParseMode(""); err != nil || m != Auto {
		t.Errorf(`ParseMode(""): %v, %v`, m, err)
	}
	if _, err := ParseMode("sometimes"); err == nil {
		t.Error("ParseMode took sometimes")
	}
}

// recorder is a listener that records every connection made to it.
type recorder struct {
	net.Listener
	n atomic.Int32
}

func record(t *testing.T, addr string) *recorder {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{Listener: l}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			r.n.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close() })
	return r
}

// A page that tries every way out of the browser, rendered in a network
// namespace the test makes (so a leak would be seen, not sent): a
// script's fetch to a loopback port not allowed and to 169.254.169.254,
// a WebSocket to loopback, an <img> and an <iframe> to a private
// address, an <iframe> of file:///etc/passwd, an XHR redirected to a
// private address, a name that resolves to loopback, window.open and
// document.open's window, sendBeacon from Navigator's prototype, a
// WebSocket from a dedicated worker, navigation to javascript:, a WebRTC
// STUN request. Each listener
// records every connection, and must record none; no packet reaches the
// STUN port; the file is not read.
func TestEscapes(t *testing.T) {
	if os.Getenv("HEED_RENDER_NETNS") == "" {
		unshare, err := exec.LookPath("unshare")
		if err == nil && os.Geteuid() != 0 {
			err = errors.New("not root")
		}
		if err != nil {
			if os.Getenv("HEED_NETNS") == "required" {
				t.Fatalf("a network namespace is needed: %v", err)
			}
			t.Skipf("no network namespace (needs root and unshare(1)): %v", err)
		}
		browser(t)
		cmd := exec.Command(unshare, "--net", "--", os.Args[0], "-test.run", "^TestEscapes$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "HEED_RENDER_NETNS=1")
		out, err := cmd.CombinedOutput()
		t.Logf("in a network namespace:\n%s", out)
		if err != nil {
			t.Fatalf("in a network namespace: %v", err)
		}
		return
	}
	for _, args := range [][]string{{"link", "set", "lo", "up"}, {"addr", "add", "169.254.169.254/32", "dev", "lo"}, {"addr", "add", "10.99.0.1/32", "dev", "lo"}} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v\n%s", args, err, out)
		}
	}
	b := browser(t)
	forbidden := record(t, "127.0.0.1:0")
	metadata := record(t, "169.254.169.254:80")
	private := record(t, "10.99.0.1:80")
	stun, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stun.Close()
	var packets atomic.Int32
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, _, err := stun.ReadFrom(buf); err != nil {
				return
			}
			packets.Add(1)
		}
	}()
	fport := forbidden.Addr().(*net.TCPAddr).Port
	attack := fmt.Sprintf(`<!doctype html><html><head><title>Escapes</title></head><body><div id="root"></div>
<img src="http://10.99.0.1/pixel.png"><iframe src="http://10.99.0.1/frame"></iframe><iframe src="file:///etc/passwd"></iframe>
<script>
const root = document.getElementById("root");
const say = (s) => { root.insertAdjacentHTML("beforeend", "<p>" + s + "</p>"); };
fetch("http://127.0.0.1:%[1]d/secret").then(() => say("loopback fetched"), () => say("loopback refused"));
fetch("http://169.254.169.254/latest/meta-data/").then(() => say("metadata fetched"), () => say("metadata refused"));
fetch("http://localhost:%[1]d/named").then(() => say("name fetched"), () => say("name refused"));
fetch("/redirect").then(() => say("redirect fetched"), () => say("redirect refused"));
try { new WebSocket("ws://127.0.0.1:%[1]d/ws"); say("websocket made"); } catch (e) { say("websocket refused"); }
try { window.open("http://127.0.0.1:%[1]d/window"); } catch (e) {}
try { document.open("http://127.0.0.1:%[1]d/document-open", "_blank", ""); } catch (e) {}
try { Navigator.prototype.sendBeacon.call(navigator, "http://127.0.0.1:%[1]d/beacon", "x"); } catch (e) {}
try { new Worker(URL.createObjectURL(new Blob(["new WebSocket('ws://127.0.0.1:%[1]d/worker')"], {type: "text/javascript"}))); } catch (e) {}
try { const pc = new RTCPeerConnection({iceServers: [{urls: "stun:127.0.0.1:%[2]d"}]}); pc.createDataChannel("x"); pc.createOffer().then(o => pc.setLocalDescription(o)); say("rtc made"); } catch (e) { say("rtc refused"); }
try { location.href = "javascript:void(fetch('http://127.0.0.1:%[1]d/js'))"; } catch (e) {}
say("the page ran");
</script></body></html>`, fport, stun.LocalAddr().(*net.UDPAddr).Port)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, attack) })
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, fmt.Sprintf("http://127.0.0.1:%d/redirected", fport), http.StatusFound)
	})
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(l)
	defer srv.Close()
	client := fetch.New(fetch.Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}, Retries: -1})
	doc, err := client.Get(t.Context(), fetch.Request{URL: "http://" + l.Addr().String() + "/"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.Render(t.Context(), doc, client.Get)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // anything still on its way
	html := string(p.HTML)
	// What the script said is in the root; the script's own text is not.
	said, _, _ := strings.Cut(html[strings.Index(html, `<div id="root">`)+1:], "</div>")
	for _, want := range []string{"the page ran", "loopback refused", "metadata refused", "name refused", "redirect refused", "websocket refused", "rtc refused"} {
		if !strings.Contains(said, want) {
			t.Errorf("the page did not say %q: %s", want, said)
		}
	}
	if strings.Contains(html, "root:x:0") {
		t.Errorf("/etc/passwd was read into the page:\n%s", html)
	}
	if n := forbidden.n.Load() + metadata.n.Load() + private.n.Load(); n != 0 {
		t.Errorf("connections: %d to the loopback port not allowed, %d to 169.254.169.254, %d to the private address",
			forbidden.n.Load(), metadata.n.Load(), private.n.Load())
	}
	if n := packets.Load(); n != 0 {
		t.Errorf("%d packets reached the STUN port", n)
	}
	t.Logf("the page made %d requests through heed, %d refused", p.Requests, p.Refused)
}

// A page that loops for ever and one that allocates without end each
// lose their tab within their budget; the browser lives on, and the
// next page renders.
func TestBudgets(t *testing.T) {
	// One tab: the browser's processes may hold 300 MB for it and two
	// more, 900 MB in all.
	b := New(Config{PageTimeout: 3 * time.Second, MaxMemory: 300 << 20, Tabs: 1})
	if err := b.Available(); err != nil {
		browser(t) // skips, or fails when a browser is required
	}
	defer b.Close()
	s := newSite(t, map[string]string{
		"/loop": `<html><body><div id="root"></div><script>while (true) {}</script></body></html>`,
		"/bomb": `<html><body><div id="root"></div><script>const a = []; while (true) { a.push(new Array(1e6).fill(Math.random())); }</script></body></html>`,
		// Buffers live outside the JavaScript heap and its limit.
		"/buffers": `<html><body><div id="root"></div><script>const a = []; while (true) { const b = new Uint8Array(1 << 24); b.fill(1); a.push(b); }</script></body></html>`,
		// Blobs are held by the browser's own process, not the page's.
		"/blobs":     `<html><body><div id="root"></div><script>const a = []; const u = new Uint8Array(1 << 24); u.fill(1); for (let i = 0; i < 400; i++) { a.push(new Blob([u])); }</script></body></html>`,
		"/":          appShell,
		"/app.js":    `document.getElementById("root").innerHTML = "<article><h1>Still here</h1><p>The browser renders the next page.</p></article>";`,
		"/data.json": `{}`,
	})
	client := loopback()
	for _, path := range []string{"/loop", "/bomb", "/buffers", "/blobs"} {
		doc, err := client.Get(t.Context(), fetch.Request{URL: s.URL + path})
		if err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		_, err = b.Render(t.Context(), doc, client.Get)
		if took := time.Since(began); took > 3*time.Second+30*time.Second { // a hang, not a slow machine
			t.Errorf("%s: ended after %v", path, took)
		}
		if err == nil {
			t.Errorf("%s: rendered, without an error", path)
		}
		if path == "/buffers" && (err == nil || !strings.Contains(err.Error(), "more than 300 MB of memory")) {
			t.Errorf("%s: %v; want its renderer stopped past 300 MB", path, err)
		}
		if path == "/blobs" && (err == nil || !strings.Contains(err.Error(), "more than 900 MB of memory together")) {
			t.Errorf("%s: %v; want the browser stopped past 900 MB", path, err)
		}
		t.Logf("%s: %v", path, err)
	}
	if n := b.killed.Load(); n == 0 {
		t.Errorf("no renderer was stopped for its memory")
	}
	p := render(t, b, s.URL+"/", nil)
	if !strings.Contains(string(p.HTML), "Still here") {
		t.Errorf("the page after: %s", p.HTML)
	}
}

// A page's budgets hold: its requests (every one it makes counts, the
// document's too) and its bytes (reserved before they are asked for, so
// requests at once take no more); a page that spends one is read as it
// stands, and says which.
func TestRenderBudgetsHold(t *testing.T) {
	browser(t)
	big := `{"x": "` + strings.Repeat("a", 100<<10) + `"}`
	pages := map[string]string{
		"/many":  `<html><body><div id="root">Many</div><script>for (let i = 0; i < 30; i++) fetch("/d/" + i + ".json");</script></body></html>`,
		"/heavy": `<html><body><div id="root">Heavy</div><script>for (let i = 0; i < 6; i++) fetch("/big/" + i + ".json");</script></body></html>`,
	}
	for i := range 30 {
		pages[fmt.Sprintf("/d/%d.json", i)] = `{}`
	}
	for i := range 6 {
		pages[fmt.Sprintf("/big/%d.json", i)] = big
	}
	s := newSite(t, pages)
	b := New(Config{PageTimeout: 10 * time.Second, MaxRequests: 5})
	defer b.Close()
	p := render(t, b, s.URL+"/many", nil)
	if p.Requests > 5 || p.Cut != "requests" {
		t.Errorf("/many: %d requests made, cut %q", p.Requests, p.Cut)
	}
	asked := 0
	for _, path := range s.requests() {
		if strings.HasPrefix(path, "/d/") {
			asked++
		}
	}
	if asked > 4 {
		t.Errorf("the site served %d of /many's requests; the budget is 5 with the document", asked)
	}
	heavy := New(Config{PageTimeout: 10 * time.Second, MaxBytes: 250 << 10})
	defer heavy.Close()
	p = render(t, heavy, s.URL+"/heavy", nil)
	if p.Bytes > 250<<10 || p.Cut != "bytes" {
		t.Errorf("/heavy: %d bytes taken, cut %q", p.Bytes, p.Cut)
	}
}

// The page rendered is the one asked for: a script that sends it
// elsewhere is not followed. A fetch its scripts make after the page
// loaded, once they have worked a while, is waited for.
func TestRenderStaysAndWaits(t *testing.T) {
	b := browser(t)
	s := newSite(t, map[string]string{
		"/away":  `<html><body><main><p>The page asked for.</p></main><script>location.replace("/other");</script></body></html>`,
		"/other": `<html><body><p>Another page.</p></body></html>`,
		"/slow": `<html><body><div id="root"></div><script>
const until = Date.now() + 400; while (Date.now() < until) {}
setTimeout(() => fetch("/late.json").then(r => r.json()).then(d => { document.getElementById("root").textContent = d.text; }), 10);
</script></body></html>`,
		"/late.json": `{"text": "what came late"}`,
	})
	p := render(t, b, s.URL+"/away", nil)
	if !strings.Contains(string(p.HTML), "The page asked for.") || strings.Contains(string(p.HTML), "Another page") {
		t.Errorf("/away rendered as:\n%s", p.HTML)
	}
	for _, path := range s.requests() {
		if path == "/other" {
			t.Error("the page's location.replace was followed")
		}
	}
	p = render(t, b, s.URL+"/slow", nil)
	if !strings.Contains(string(p.HTML), "what came late") {
		t.Errorf("/slow rendered before its late fetch:\n%s", p.HTML)
	}
}

// Each page has cookies and storage of its own: what one page's scripts
// keep, the next page of the same site does not find; and no request
// heed makes for a page carries a cookie.
func TestRenderForgets(t *testing.T) {
	b := browser(t)
	var mu sync.Mutex
	cookies := 0
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Cookie") != "" {
			mu.Lock()
			cookies++
			mu.Unlock()
		}
		switch r.URL.Path {
		case "/keep":
			w.Header().Set("Set-Cookie", "session=secret; Path=/")
			fmt.Fprint(w, `<html><body><div id="root"></div><script>
localStorage.setItem("kept", "stored"); sessionStorage.setItem("kept", "stored"); document.cookie = "js=secret; path=/";
fetch("/data.json").then(() => { document.getElementById("root").textContent = "kept"; });
</script></body></html>`)
		case "/find":
			fmt.Fprint(w, `<html><body><div id="root"></div><script>
document.getElementById("root").textContent = "found:" + (localStorage.getItem("kept") || "") + ":" + (sessionStorage.getItem("kept") || "") + ":" + document.cookie;
fetch("/data.json");
</script></body></html>`)
		default:
			fmt.Fprint(w, `{}`)
		}
	}))
	defer s.Close()
	render(t, b, s.URL+"/keep", nil)
	p := render(t, b, s.URL+"/find", nil)
	if !strings.Contains(string(p.HTML), `<div id="root">found:::</div>`) {
		t.Errorf("the second page found what the first kept:\n%s", p.HTML)
	}
	mu.Lock()
	defer mu.Unlock()
	if cookies != 0 {
		t.Errorf("%d requests carried a cookie", cookies)
	}
}

// The process tree is read from /proc: a process's parent, and whether it
// descends from another.
func TestProcessTree(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here: renderers are not weighed")
	}
	if got := ppid(os.Getpid()); got != os.Getppid() {
		t.Errorf("ppid of this process: %d, want %d", got, os.Getppid())
	}
	if resident(os.Getpid()) <= 0 {
		t.Errorf("this process holds no memory, says /proc")
	}
	tree := map[int]int{30: 20, 20: 10, 10: 1, 40: 1}
	if !descends(tree, 30, 10) || descends(tree, 40, 10) || descends(tree, 10, 10) || descends(tree, 99, 1) {
		t.Errorf("descends is wrong on %v", tree)
	}
	loop := map[int]int{5: 6, 6: 5}
	if descends(loop, 5, 1) {
		t.Errorf("a loop of parents descends")
	}
}

// One browser serves a heed process, reused across pages, with a small
// pool of tabs: pages render at once up to Tabs, the rest wait for a
// tab, and the browser's process is the same from the first page to
// the last.
func TestRenderTabs(t *testing.T) {
	browser(t) // skips, or fails when a browser is required
	s := newSite(t, map[string]string{
		"/":          appShell,
		"/app.js":    `fetch("/data.json").then(r => r.json()).then(d => { document.getElementById("root").innerHTML = "<article><h1>Tabs</h1><p>" + d.text + "</p></article>"; });`,
		"/data.json": `{"text": "Built in a tab of the one browser."}`,
	})
	b := New(Config{Tabs: 2, PageTimeout: 10 * time.Second})
	defer b.Close()
	client := loopback()
	var now, most atomic.Int32
	var both sync.Once
	two := make(chan struct{}) // closed once two pages' data are asked for at once
	get := func(ctx context.Context, req fetch.Request) (*fetch.Response, error) {
		if strings.HasSuffix(req.URL, "/data.json") {
			n := now.Add(1)
			defer now.Add(-1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			if n >= 2 {
				both.Do(func() { close(two) })
			}
			// The first waits for a second page (a pool of one never
			// sends it), then each holds its tab a while.
			select {
			case <-two:
			case <-time.After(5 * time.Second):
			}
			time.Sleep(300 * time.Millisecond)
		}
		return client.Get(ctx, req)
	}
	p := render(t, b, s.URL+"/", client.Get)
	pid := chromedp.FromContext(b.ctx).Browser.Process().Pid
	if !strings.Contains(string(p.HTML), "Built in a tab") {
		t.Fatalf("the first page: %s", p.HTML)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	for range 5 {
		wg.Go(func() {
			doc, err := client.Get(t.Context(), fetch.Request{URL: s.URL + "/"})
			if err == nil {
				var p *Page
				if p, err = b.Render(t.Context(), doc, get); err == nil && !strings.Contains(string(p.HTML), "Built in a tab") {
					err = fmt.Errorf("not built: %s", p.HTML)
				}
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if m := most.Load(); m != 2 {
		t.Errorf("%d pages rendered at once; the pool has 2 tabs", m)
	}
	if after := chromedp.FromContext(b.ctx).Browser.Process().Pid; after != pid {
		t.Errorf("the browser's process was %d, then %d: not reused", pid, after)
	}
}

// What the browser writes (its profile, its caches, the temporary files
// and directories Chromium makes, such as org.chromium.Chromium.*) is
// heed's, under one directory removed when the browser closes: after a
// page is rendered and the browser closed, the temporary directory holds
// nothing new.
func TestRenderLeavesNothing(t *testing.T) {
	browser(t) // skips, or fails when a browser is required
	// A short path: Chromium's sockets are made there.
	tmp, err := os.MkdirTemp("", "heed")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil { // as /tmp is, for the user the browser runs as
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	s := newSite(t, map[string]string{
		"/":          appShell,
		"/app.js":    `fetch("/data.json").then(r => r.json()).then(d => { document.getElementById("root").textContent = d.text; });`,
		"/data.json": `{"text": "Nothing is left behind."}`,
	})
	b := New(Config{PageTimeout: 10 * time.Second, Tabs: 1})
	p := render(t, b, s.URL+"/", nil)
	if !strings.Contains(string(p.HTML), "Nothing is left behind.") {
		t.Errorf("the page: %s", p.HTML)
	}
	b.Close()
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("left in the temporary directory: %s", e.Name())
	}
}

// status is the field of /proc/pid/status named name, or "".
func status(pid int, name string) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// A page renders in Chromium's sandbox, root or not: while the page
// renders, its renderer is confined by seccomp and in namespaces of its
// own (a PID namespace: its id there is not its id outside), and no
// process of the browser runs as root or has heed's environment.
func TestRenderSandboxed(t *testing.T) {
	browser(t) // skips, or fails when a browser is required
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc here: the processes are not looked at")
	}
	s := newSite(t, map[string]string{
		"/":          appShell,
		"/app.js":    `fetch("/data.json").then(r => r.json()).then(d => { document.getElementById("root").textContent = d.text; });`,
		"/data.json": `{"text": "Rendered in a sandbox."}`,
	})
	t.Setenv("HEED_TEST_SECRET", "kept from the browser")
	b := New(Config{PageTimeout: 10 * time.Second, Tabs: 1})
	defer b.Close()
	client := loopback()
	var seen []string
	renderers := 0
	get := func(ctx context.Context, req fetch.Request) (*fetch.Response, error) {
		if strings.HasSuffix(req.URL, "/data.json") {
			// The page renders: its processes are looked at now.
			browser := chromedp.FromContext(b.ctx).Browser.Process().Pid
			for _, pid := range append([]int{browser}, descendants(browser)...) {
				uid := strings.Fields(status(pid, "Uid") + " ?")[0]
				if uid == "0" {
					seen = append(seen, fmt.Sprintf("process %d runs as root", pid))
				}
				if env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid)); err == nil && strings.Contains(string(env), "HEED_TEST_SECRET") {
					seen = append(seen, fmt.Sprintf("process %d has heed's environment", pid))
				}
				if !isRenderer(pid) {
					continue
				}
				renderers++
				if sc := status(pid, "Seccomp"); sc != "2" {
					seen = append(seen, fmt.Sprintf("renderer %d: Seccomp %q, want 2 (filtered)", pid, sc))
				}
				if ns := strings.Fields(status(pid, "NSpid")); len(ns) < 2 {
					seen = append(seen, fmt.Sprintf("renderer %d: NSpid %v, want a PID namespace of its own", pid, ns))
				}
			}
		}
		return client.Get(ctx, req)
	}
	p := render(t, b, s.URL+"/", get)
	if !strings.Contains(string(p.HTML), "Rendered in a sandbox.") {
		t.Errorf("the page: %s", p.HTML)
	}
	if renderers == 0 {
		t.Error("no renderer was found while the page rendered")
	}
	for _, s := range seen {
		t.Error(s)
	}
}

// What a page could open a connection or a window of its own with is
// taken out of every frame (the frames a script makes and reaches into
// at once among them) and every dedicated worker (a worker's worker
// too), and a page opens no new window, by any route: a hostile page
// tries each and reports what it found, through heed (a request the site
// records); and the browser makes no page but heed's tab while it
// renders.
func TestRenderTakenOut(t *testing.T) {
	browser(t) // skips, or fails when a browser is required
	probe := `
const found = [];
const note = (where, what) => { found.push(where + ":" + what); };
function probe(w, where) {
	if (!w) { note(where, "unreachable"); return; }
	for (const name of ["WebSocket", "WebSocketStream", "WebTransport", "RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel", "SharedWorker"]) {
		try { if (w[name] !== undefined) note(where, name); } catch (e) {}
	}
	try { if (w.navigator.serviceWorker) note(where, "navigator.serviceWorker"); } catch (e) {}
	try { if (Object.getOwnPropertyDescriptor(w.Navigator.prototype, "serviceWorker")) note(where, "Navigator.prototype.serviceWorker"); } catch (e) {}
	try { if (w.navigator.sendBeacon) note(where, "navigator.sendBeacon"); } catch (e) {}
	try { if (w.Navigator.prototype.sendBeacon) note(where, "Navigator.prototype.sendBeacon"); } catch (e) {}
	try { if (w.open("/popup?" + where + "-window.open")) note(where, "window.open"); } catch (e) {}
	try { if (w.document.open("/popup?" + where + "-document.open", "_blank", "")) note(where, "document.open"); } catch (e) {}
	try { if (w.Document.prototype.open.call(w.document, "/popup?" + where + "-Document.open", "_blank", "")) note(where, "Document.prototype.open"); } catch (e) {}
	if (where.endsWith("popup")) return;
	try { const p = w.document.open("about:blank", "_blank", ""); if (p) { note(where, "popup"); probe(p, where + "-popup"); } } catch (e) {}
}
`
	// A worker looks at itself, and at a worker it makes.
	workerProbe := `const look = () => { const f = []; for (const n of ["WebSocket", "WebSocketStream", "WebTransport"]) { if (self[n] !== undefined) f.push(n); } if (navigator.serviceWorker) f.push("serviceWorker"); return f; };`
	pages := map[string]string{
		"/probe.js": probe,
		"/worker.js": workerProbe + `
const mine = look();
const nested = new Worker(URL.createObjectURL(new Blob([` + "`" + workerProbe + ` postMessage(look().map(n => "nested:" + n).join(" "));` + "`" + `], {type: "text/javascript"})));
nested.onmessage = (e) => { postMessage(mine.concat(e.data ? [e.data] : []).join(" ")); };`,
		"/": `<!doctype html><html><body><div id="root">Taken out</div><iframe src="/frame"></iframe>
<script src="/probe.js"></script>
<script>
fetch("/hold"); // in flight until the page reported: the page is not read before
probe(window, "top");
const blank = document.createElement("iframe");
document.body.append(blank);
probe(blank.contentWindow, "blank");
const src = document.createElement("iframe");
src.srcdoc = "<p>srcdoc</p>";
document.body.append(src);
probe(src.contentWindow, "srcdoc");
const a = document.createElement("a");
a.href = "/popup?anchor"; a.target = "_blank"; document.body.append(a); a.click();
const f = document.createElement("form");
f.action = "/popup"; f.target = "_blank"; f.method = "get"; document.body.append(f); f.submit();
const report = (worker) => { fetch("/report?found=" + encodeURIComponent(found.join(" ") || "nothing") + "&worker=" + encodeURIComponent(worker || "nothing")); };
fetch("/worker.js").then(r => r.text()).then(code => {
	const worker = new Worker(URL.createObjectURL(new Blob([code], {type: "text/javascript"})));
	worker.onmessage = (e) => { report(e.data); };
}).catch(e => report("no worker: " + e));
</script></body></html>`,
		"/frame": `<!doctype html><html><body><p>A frame</p><script src="/probe.js"></script><script>
probe(window, "frame");
fetch("/report?frame=" + encodeURIComponent(found.join(" ") || "nothing"));
</script></body></html>`,
		"/popup": `<!doctype html><html><body><p>A popup</p><script>fetch("/report?popup=ran");</script></body></html>`,
		"/blank": `<!doctype html><html><body><p>Blank</p></body></html>`,
	}
	var mu sync.Mutex
	var reports []string
	reported := make(chan struct{})
	var once sync.Once
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/report":
			mu.Lock()
			reports = append(reports, r.URL.RawQuery)
			mu.Unlock()
			if r.URL.Query().Has("found") {
				once.Do(func() { close(reported) })
			}
			fmt.Fprint(w, "{}")
		case "/hold":
			select {
			case <-reported:
			case <-r.Context().Done():
			}
			fmt.Fprint(w, "{}")
		default:
			if strings.HasSuffix(r.URL.Path, ".js") {
				w.Header().Set("Content-Type", "text/javascript")
			}
			fmt.Fprint(w, pages[r.URL.Path])
		}
	}))
	defer s.Close()
	b := New(Config{PageTimeout: 10 * time.Second, Tabs: 1})
	defer b.Close()
	// The browser starts with its first page; the pages it makes are
	// counted from the second.
	render(t, b, s.URL+"/blank", nil)
	var made atomic.Int32
	lctx, stop := context.WithCancel(b.ctx)
	defer stop()
	chromedp.ListenBrowser(lctx, func(ev any) {
		if e, ok := ev.(*target.EventTargetCreated); ok && e.TargetInfo.Type == "page" {
			made.Add(1)
		}
	})
	render(t, b, s.URL+"/", nil)
	stop()
	// Each frame, worker and the worker's worker found nothing.
	mu.Lock()
	defer mu.Unlock()
	heard := map[string]bool{}
	for _, r := range reports {
		q, err := url.ParseQuery(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"found", "frame", "worker", "popup"} {
			if v := q.Get(k); v != "" {
				heard[k] = true
				if v != "nothing" {
					t.Errorf("%s: found %s", k, v)
				}
			}
		}
	}
	if !heard["found"] || !heard["frame"] || !heard["worker"] {
		t.Errorf("the page, its frame and its worker did not all report: %v", reports)
	}
	if n := made.Load(); n != 1 {
		t.Errorf("the browser made %d pages while the page rendered; only heed's tab may be one", n)
	}
}

// A window that gets past the popup blocker and the pages' script (one a
// user's click opens: the test clicks in the page as a user would) is
// closed while the page still renders.
func TestRenderClosesPopups(t *testing.T) {
	browser(t) // skips, or fails when a browser is required
	s := newSite(t, map[string]string{
		"/":          appShell,
		"/app.js":    `fetch("/data.json").then(r => r.json()).then(d => { document.getElementById("root").textContent = d.text; });`,
		"/data.json": `{"text": "No window but the tab."}`,
		"/popup":     `<p>A popup</p>`,
	})
	b := New(Config{PageTimeout: 10 * time.Second, Tabs: 1})
	defer b.Close()
	client := loopback()
	render(t, b, s.URL+"/data.json", nil) // the browser starts
	opened, closed := make(chan target.ID, 1), make(chan struct{})
	var once sync.Once
	lctx, stop := context.WithCancel(b.ctx)
	defer stop()
	var popup atomic.Value
	chromedp.ListenBrowser(lctx, func(ev any) {
		switch e := ev.(type) {
		case *target.EventTargetCreated:
			if e.TargetInfo.OpenerID != "" {
				popup.Store(e.TargetInfo.TargetID)
				select {
				case opened <- e.TargetInfo.TargetID:
				default:
				}
			}
		case *target.EventTargetDestroyed:
			if id, _ := popup.Load().(target.ID); id != "" && id == e.TargetID {
				once.Do(func() { close(closed) })
			}
		}
	})
	var clicked, gone bool
	get := func(ctx context.Context, req fetch.Request) (*fetch.Response, error) {
		if !strings.HasSuffix(req.URL, "/data.json") {
			return client.Get(ctx, req)
		}
		// The page renders: a user clicks a link to a new window in it.
		infos, err := chromedp.Targets(b.ctx)
		if err != nil {
			return nil, err
		}
		for _, info := range infos {
			if info.Type != "page" || info.URL != s.URL+"/" {
				continue
			}
			tctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithTargetID(info.TargetID), chromedp.WithDetachOnCancel())
			err := chromedp.Do(tctx)
			gesture := true
			if err == nil {
				_, err = cdp.Call(tctx, chromedp.FromContext(tctx).Target, cdpruntime.Evaluate, cdpruntime.EvaluateParams{UserGesture: &gesture,
					Expression: `const a = document.createElement("a"); a.href = "/popup"; a.target = "_blank"; document.body.append(a); a.click();`})
			}
			cancel()
			if err != nil {
				return nil, err
			}
			clicked = true
		}
		select {
		case <-opened:
			select {
			case <-closed:
				gone = true
			case <-ctx.Done():
			}
		case <-ctx.Done():
		}
		return client.Get(ctx, req)
	}
	p := render(t, b, s.URL+"/", get)
	switch {
	case !clicked:
		t.Error("the page was not found to click in")
	case !gone:
		t.Errorf("the window the click opened was not closed while the page rendered (cut %q)", p.Cut)
	}
}

// A page runs its first workers, and no more: the rest stay paused.
func TestRenderWorkersBounded(t *testing.T) {
	browser(t) // skips, or fails when a browser is required
	var mu sync.Mutex
	most := 0
	enough := make(chan struct{})
	var once sync.Once
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprintf(w, `<!doctype html><html><body><div id="root">Workers</div><script>
fetch("/hold"); // in flight until the workers allowed have run
let heard = 0;
for (let i = 0; i < %d; i++) {
	const worker = new Worker(URL.createObjectURL(new Blob(["postMessage(1)"], {type: "text/javascript"})));
	worker.onmessage = () => { heard++; fetch("/heard?n=" + heard); };
}
</script></body></html>`, maxWorkers+8)
		case "/heard":
			n, _ := strconv.Atoi(r.URL.Query().Get("n"))
			mu.Lock()
			most = max(most, n)
			mu.Unlock()
			if n >= maxWorkers {
				once.Do(func() { close(enough) })
			}
			fmt.Fprint(w, "{}")
		case "/hold":
			select {
			case <-enough:
			case <-r.Context().Done():
			}
			fmt.Fprint(w, "{}")
		}
	}))
	defer s.Close()
	b := New(Config{PageTimeout: 10 * time.Second, Tabs: 1})
	defer b.Close()
	p := render(t, b, s.URL+"/", nil)
	mu.Lock()
	defer mu.Unlock()
	if most != maxWorkers || p.Cut != "" {
		t.Errorf("%d workers ran (cut %q); want %d", most, p.Cut, maxWorkers)
	}
}

// A browser that stops answering (here, stopped) does not hold a page
// for ever: opening its tab gives up after the page's time, and the page
// renders in a new browser.
func TestRenderBrowserHung(t *testing.T) {
	browser(t) // skips, or fails when a browser is required
	s := newSite(t, map[string]string{
		"/":          appShell,
		"/app.js":    `fetch("/data.json").then(r => r.json()).then(d => { document.getElementById("root").textContent = d.text; });`,
		"/data.json": `{"text": "Rendered by the next browser."}`,
	})
	// The page's time bounds the wait for a tab of the stopped browser,
	// and the start of the next: long enough for a busy machine.
	b := New(Config{PageTimeout: 10 * time.Second, Tabs: 1})
	defer b.Close()
	render(t, b, s.URL+"/data.json", nil) // the browser starts
	hung := chromedp.FromContext(b.ctx).Browser.Process()
	if err := hung.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer hung.Signal(syscall.SIGCONT)
	p := render(t, b, s.URL+"/", nil)
	if !strings.Contains(string(p.HTML), "Rendered by the next browser.") {
		t.Errorf("the page: %s", p.HTML)
	}
	if now := chromedp.FromContext(b.ctx).Browser.Process().Pid; now == hung.Pid {
		t.Errorf("the page rendered in the browser that was stopped")
	}
}

// A browser that does not answer as it starts (here, a program that
// never speaks) does not hold heed for ever: a page whose context ends
// meanwhile fails with its context's error, the browser is stopped and
// its directory removed, and it can be closed.
func TestRenderBrowserHungAtStart(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh here to play a browser that does not answer")
	}
	dir, err := os.MkdirTemp("", "heed")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil { // the user the browser runs as runs it
		t.Fatal(err)
	}
	silent := filepath.Join(dir, "browser")
	if err := os.WriteFile(silent, []byte("#!"+sh+"\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", dir)
	s := newSite(t, map[string]string{"/": appShell})
	b := New(Config{Path: silent, PageTimeout: 10 * time.Second, Tabs: 1})
	client := loopback()
	doc, err := client.Get(t.Context(), fetch.Request{URL: s.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if _, err := b.Render(ctx, doc, client.Get); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the page: %v; want its context's end", err)
	}
	b.Close()
	left, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		if e.Name() != "browser" {
			t.Errorf("left in the temporary directory: %s", e.Name())
		}
	}
}

// A long TMPDIR does not keep the browser from starting: Chromium makes
// a socket in its temporary directory, whose path a Unix socket's 107
// bytes must hold, and a browser's directory under a long TMPDIR (here
// of 60 bytes) would not leave it room.
func TestRenderLongTmpdir(t *testing.T) {
	browser(t) // skips, or fails when a browser is required
	tmp, err := os.MkdirTemp("", "heed")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	long := tmp + "/" + strings.Repeat("t", max(8, 60-len(tmp)-1))
	if err := os.Mkdir(long, 0o755); err != nil { // as /tmp is, for the user the browser runs as
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", long)
	s := newSite(t, map[string]string{"/": appShell, "/app.js": `document.getElementById("root").textContent = "Rendered under a long TMPDIR.";`})
	b := New(Config{PageTimeout: 10 * time.Second, Tabs: 1})
	defer b.Close()
	p := render(t, b, s.URL+"/", nil)
	if !strings.Contains(string(p.HTML), "Rendered under a long TMPDIR.") {
		t.Errorf("the page: %s", p.HTML)
	}
}

// A browser that exits as it starts is started once more before the page
// fails: on a busy machine Chromium has been seen to exit so, once,
// among many starts. The first start here exits at once; the second is
// the real browser, which renders the page.
func TestRenderStartTriedTwice(t *testing.T) {
	browser(t) // skips, or fails when a browser is required
	real, err := Find("")
	if err != nil {
		t.Fatal(err)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh here to play a browser that exits as it starts")
	}
	dir, err := os.MkdirTemp("", "heed")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o777); err != nil { // the user the browser runs as writes in it
		t.Fatal(err)
	}
	once := filepath.Join(dir, "browser")
	script := "#!" + sh + "\nif mkdir " + filepath.Join(dir, "started") + " 2>/dev/null; then exit 1; fi\nexec " + real + ` "$@"` + "\n"
	if err := os.WriteFile(once, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s := newSite(t, map[string]string{"/": appShell, "/app.js": `document.getElementById("root").textContent = "Rendered on the second start.";`})
	b := New(Config{Path: once, PageTimeout: 10 * time.Second, Tabs: 1})
	defer b.Close()
	p := render(t, b, s.URL+"/", nil)
	if !strings.Contains(string(p.HTML), "Rendered on the second start.") {
		t.Errorf("the page: %s", p.HTML)
	}
	if _, err := os.Stat(filepath.Join(dir, "started")); err != nil {
		t.Errorf("the first start did not run: %v", err)
	}
}
