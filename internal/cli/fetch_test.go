package cli

import (
	"encoding/json"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"
)

const article = `<!doctype html><html lang="en"><head><title>Tides</title>
<meta name="description" content="Why the sea rises and falls.">
<meta name="robots" content="noarchive"></head>
<body><nav><a href="/">Home</a></nav><main><h1>Tides</h1>
<p>Tides are the rise and fall of sea levels caused by the Moon and the Sun, and by the rotation of the Earth, as every sailor knows.</p>
<p>See <a href="/moon">the Moon</a>.</p></main></body></html>`

func TestFetch(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		switch r.URL.Path {
		case "/tides":
			w.Header().Set("X-Robots-Tag", "heed: nofollow")
			w.Header().Add("X-Robots-Tag", "otherbot: noindex")
			fmt.Fprint(w, article)
		case "/notes.txt":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprint(w, "plain notes\n")
		case "/image.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG"))
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer s.Close()

	code, out, stderr := run(t, "", "fetch", "--allow-net", "127.0.0.1/32", s.URL+"/tides")
	if code != 0 {
		t.Fatalf("fetch: exit %d, %s", code, stderr)
	}
	head, body, ok := strings.Cut(strings.TrimPrefix(out, "---\n"), "\n---\n\n")
	if !ok {
		t.Fatalf("no frontmatter:\n%s", out)
	}
	for _, want := range []string{`title: "Tides"`, `description: "Why the sea rises and falls."`, `url: "` + s.URL + `/tides"`, `fetched_at: "20`, `lang: "en"`, `robots: "nofollow, noarchive"`} {
		if !strings.Contains(head, want) {
			t.Errorf("frontmatter lacks %s:\n%s", want, head)
		}
	}
	wantBody := "# Tides\n\nTides are the rise and fall of sea levels caused by the Moon and the Sun, and by the rotation of the Earth, as every sailor knows.\n\nSee [the Moon](" + s.URL + "/moon).\n"
	if body != wantBody {
		t.Errorf("body:\n%q\nwant\n%q", body, wantBody)
	}
	for _, p := range paths {
		if p == "/robots.txt" {
			t.Errorf("a single fetch consulted robots.txt")
		}
	}

	code, out, _ = run(t, "", "fetch", "--json", "--allow-net", "127.0.0.1/32", s.URL+"/tides")
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil {
		t.Fatalf("fetch --json: exit %d, %v\n%s", code, err, out)
	}
	if doc["title"] != "Tides" || doc["links"].([]any)[1] != s.URL+"/moon" || doc["robots"].(map[string]any)["nofollow"] != true {
		t.Errorf("fetch --json: %v", doc)
	}

	if code, out, _ := run(t, "", "fetch", "--allow-net", "127.0.0.1/32", s.URL+"/notes.txt"); code != 0 || !strings.HasSuffix(out, "\n\nplain notes\n") {
		t.Errorf("plain text: exit %d, %q", code, out)
	}
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"fetch", "--allow-net", "127.0.0.1/32", s.URL + "/image.png"}, 1, "not an HTML or text page"},
		{[]string{"fetch", "--allow-net", "127.0.0.1/32", s.URL + "/missing"}, 1, "HTTP 404"},
		{[]string{"fetch", s.URL + "/tides"}, 1, "--allow-net 127.0.0.0/8"},
		{[]string{"fetch", "ftp://example.com/x"}, 2, `scheme "ftp"`},
		{[]string{"fetch"}, 2, "accepts 1 arg"},
	} {
		code, out, stderr := run(t, "", tt.args...)
		if code != tt.code || out != "" || !strings.Contains(stderr, tt.msg) {
			t.Errorf("heed %v: exit %d, stdout %q, stderr %q; want exit %d and %q", tt.args, code, out, stderr, tt.code, tt.msg)
		}
	}
}

// TestFrontmatterIsYAML parses the frontmatter of hostile titles with a
// YAML parser: quotes, colons, newlines, control characters, DEL, C1
// controls, noncharacters.
func TestFrontmatterIsYAML(t *testing.T) {
	titles := []string{
		`He said "hi": a title`, "line one\nline two", "tab\there", "del \x7f x", "c1 \u0080\u0085\u009f",
		"nonchar \ufffe \uffff", "bom \ufeff", "sep \u2028\u2029", `back\slash`, "- dash: [not] {a} map #",
		"日本語のタイトル", "&#1; control \x01",
	}
	for _, title := range titles {
		page := "<html><head><title>" + html.EscapeString(title) + "</title></head><body><p>Body text long enough to be content.</p></body></html>"
		code, out, stderr := run(t, page, "extract", "--url", "https://example.com/a?b=c#d")
		if code != 0 {
			t.Fatalf("extract: %s", stderr)
		}
		front, _, ok := strings.Cut(strings.TrimPrefix(out, "---\n"), "\n---\n")
		if !ok {
			t.Fatalf("no frontmatter in %q", out)
		}
		var m map[string]string
		if err := yaml.Unmarshal([]byte(front), &m); err != nil {
			t.Errorf("title %q: frontmatter is not YAML: %v\n%s", title, err, front)
			continue
		}
		want := strings.Join(strings.Fields(html.UnescapeString(html.EscapeString(title))), " ")
		if m["title"] != want && !strings.Contains(title, "&#1;") {
			t.Errorf("title %q read back as %q, want %q", title, m["title"], want)
		}
		if m["url"] != "https://example.com/a?b=c#d" {
			t.Errorf("url read back as %q", m["url"])
		}
	}
}

func TestExtract(t *testing.T) {
	file := writeFile(t, "tides.html", article)
	code, out, stderr := run(t, "", "extract", file, "--url", "https://sea.example/tides")
	if code != 0 || !strings.Contains(out, `url: "https://sea.example/tides"`) || !strings.Contains(out, "[the Moon](https://sea.example/moon)") || strings.Contains(out, "fetched_at") {
		t.Errorf("extract FILE: exit %d, %s\n%s", code, stderr, out)
	}
	code, out, _ = run(t, article, "extract", "--json")
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || doc["title"] != "Tides" {
		t.Errorf("extract --json from stdin: exit %d, %v, %s", code, err, out)
	}
	if code, _, stderr := run(t, "", "extract", "/no/such/file.html"); code != 2 || !strings.Contains(stderr, "no such file") {
		t.Errorf("missing file: exit %d, %s", code, stderr)
	}
}

// TestDoorsReadWhatTheyAreGiven: a URL given without its scheme is
// refused with the URL to give instead (Go's own words were "first path
// segment in URL cannot contain colon"); heed extract reads a file by its
// name's type, as heed fetch reads a page by its Content-Type, so a
// stylesheet is refused, not printed; and --url must be a URL.
func TestDoorsReadWhatTheyAreGiven(t *testing.T) {
	for _, args := range [][]string{{"crawl", "127.0.0.1:18081"}, {"fetch", "127.0.0.1:18081/docs"}, {"add", "docs.example.com/guide"}} {
		code, out, stderr := run(t, "", append(args, "--stash", t.TempDir())...)
		if code != ExitUsage || out != "" || !strings.Contains(stderr, "no scheme; give it as https://"+args[1]+" or http://"+args[1]) {
			t.Errorf("heed %v: exit %d, %q, %q", args, code, out, stderr)
		}
	}
	css := writeFile(t, "style.css", "body { color: red }")
	if code, out, stderr := run(t, "", "extract", css); code != ExitFailed || out != "" || !strings.Contains(stderr, "not an HTML or text page (Content-Type text/css") {
		t.Errorf("heed extract style.css: exit %d, %q, %q", code, out, stderr)
	}
	page := writeFile(t, "page.html", "<html><head><title>Tides</title></head><body><main><p>The tide tables of the harbour, with words enough.</p></main></body></html>")
	if code, out, _ := run(t, "", "extract", page); code != 0 || !strings.Contains(out, "title: \"Tides\"") {
		t.Errorf("heed extract page.html: exit %d, %q", code, out)
	}
	// A page whose name says .php is a page, whatever the system's MIME
	// table says of .php.
	php := writeFile(t, "page.php", "<html><head><title>Tides</title></head><body><main><p>The tide tables of the harbour, with words enough.</p></main></body></html>")
	if code, out, stderr := run(t, "", "extract", php); code != 0 || !strings.Contains(out, "title: \"Tides\"") {
		t.Errorf("heed extract page.php: exit %d, %q, %q", code, out, stderr)
	}
	if code, _, stderr := run(t, "", "extract", page, "--url", "notaurl"); code != ExitUsage || !strings.Contains(stderr, "--url notaurl") {
		t.Errorf("heed extract --url notaurl: exit %d, %q", code, stderr)
	}
}

// TestRobotsCheckNeedsNoStash: a robots.txt check of a file makes no use
// of a stash, and works where no stash directory can be named.
func TestRobotsCheckNeedsNoStash(t *testing.T) {
	for _, k := range []string{"HEED_STASH", "XDG_DATA_HOME", "HOME"} {
		t.Setenv(k, "")
	}
	f := writeFile(t, "robots.txt", "User-agent: *\nDisallow: /private/\n")
	if code, out, stderr := run(t, "", "robots", "check", "--file", f, "/private/x", "/docs/"); code != ExitFailed || !strings.Contains(out, "/private/x: disallowed by line 2") {
		t.Errorf("robots check without a stash directory: exit %d, %q, %q", code, out, stderr)
	}
}

// heed fetch asks for Markdown first and says where the Markdown came
// from: the site's answer, or the page's own Markdown alternate, read on
// the host's next turn. Either is stored safe.
func TestFetchMarkdown(t *testing.T) {
	var mu sync.Mutex
	var accepts []string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		accepts = append(accepts, r.URL.Path+" "+r.Header.Get("Accept"))
		mu.Unlock()
		switch r.URL.Path {
		case "/negotiated":
			w.Header().Set("Content-Type", "text/markdown")
			fmt.Fprint(w, "# Negotiated\n\nWords, and [a trap](javascript:alert(1)).\n\n<script>steal()</script>\n")
		case "/page":
			fmt.Fprint(w, `<html><head><title>HTML title</title><link rel="alternate" type="text/markdown" href="/page.md"></head><body><p>The HTML words.</p></body></html>`)
		case "/page.md":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "# The page, in Markdown\n\nThe Markdown words.\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer s.Close()
	code, out, stderr := run(t, "", "fetch", "--allow-net", "127.0.0.1/32", s.URL+"/negotiated")
	if code != 0 || !strings.Contains(out, `via: "markdown"`) || !strings.Contains(out, "Words, and a trap.") || strings.Contains(out, "javascript") || strings.Contains(out, "steal") {
		t.Errorf("exit %d, %s\n%s", code, stderr, out)
	}
	code, out, stderr = run(t, "", "fetch", "--allow-net", "127.0.0.1/32", s.URL+"/page")
	if code != 0 || !strings.Contains(out, `via: "markdown-alternate"`) || !strings.Contains(out, `title: "The page, in Markdown"`) || !strings.Contains(out, "The Markdown words.") || strings.Contains(out, "The HTML words") {
		t.Errorf("exit %d, %s\n%s", code, stderr, out)
	}
	mu.Lock()
	if len(accepts) != 3 || !strings.HasPrefix(accepts[0], "/negotiated text/markdown") || !strings.HasPrefix(accepts[2], "/page.md text/markdown") {
		t.Errorf("requests: %q", accepts)
	}
	mu.Unlock()

	// An alternate on another origin is not asked for: the page is read
	// from its HTML.
	asked := 0
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, "# Elsewhere\n")
	}))
	defer other.Close()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>Here</title><link rel="alternate" type="text/markdown" href="`+other.URL+`/x.md"></head><body><p>The words here.</p></body></html>`)
	}))
	defer page.Close()
	code, out, stderr = run(t, "", "fetch", "--allow-net", "127.0.0.1/32", page.URL+"/")
	mu.Lock()
	defer mu.Unlock()
	if code != 0 || asked != 0 || strings.Contains(out, "via:") || !strings.Contains(out, "The words here.") {
		t.Errorf("another origin's alternate: asked %d times, exit %d, %s\n%s", asked, code, stderr, out)
	}
}

// TestNetworkErrorNamesTheURLOnce: heed fetch of a closed port says its
// URL once, not again in Go's own words ("Get \"URL\": ...").
func TestNetworkErrorNamesTheURLOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String() + "/page"
	ln.Close()
	code, _, stderr := run(t, "", "fetch", u, "--allow-net", "127.0.0.1/32")
	if code != 1 || strings.Count(stderr, u) != 1 || !strings.Contains(stderr, "connection refused") {
		t.Errorf("heed fetch of a closed port: exit %d, %q; want its URL once and the cause", code, stderr)
	}
}
