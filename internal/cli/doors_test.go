package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// doorSite is a loopback site for the doors' test that logs every
// request it serves, with any credentials sent.
type doorSite struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // paths, and "auth" for a request that carried credentials
}

func newDoorSite(t *testing.T) *doorSite {
	d := &doorSite{}
	page := func(title, meta string) string {
		return `<!doctype html><html><head><title>` + title + `</title>` + meta + `</head><body><main><h1>` + title +
			`</h1><p>The tide tables of the harbour, with words enough to be the content of a page.</p></main></body></html>`
	}
	d.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		d.seen = append(d.seen, r.URL.Path)
		if _, _, ok := r.BasicAuth(); ok || r.Header.Get("Authorization") != "" {
			d.seen = append(d.seen, "auth")
		}
		d.mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		case "/", "/ok.html", "/private/x.html":
			fmt.Fprint(w, page("Tides", ""))
		case "/noindex.html":
			fmt.Fprint(w, page("Hidden tides", `<meta name="robots" content="noindex">`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(d.Close)
	return d
}

// requests are the paths asked since the last call, and forgets them.
func (d *doorSite) requests() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.seen
	d.seen = nil
	return out
}

// doorOutcome is what a door made of an input.
type doorOutcome struct {
	failed bool   // the CLI exited other than 0; the tool call was an error
	code   int    // the CLI's exit code
	text   string // all it said
}

// TestBothDoors sends the same inputs through both doors, the command
// line and MCP (heed mcp --http, with the same config file and stash, and
// the official SDK's client), and asserts the same outcome of each: both
// refuse or fail, or both succeed; both say the same thing of it; and
// neither asks the site what it must not, nor writes a credential.
func TestBothDoors(t *testing.T) {
	site := newDoorSite(t)
	dir := t.TempDir()
	stashDir := filepath.Join(dir, "stash")
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+stashDir+"\nmcp:\n  delay: 0s\n"), 0o644)

	ctx, stop := context.WithCancel(t.Context())
	endpoint, mcpErr, done := startHTTP(t, ctx, "mcp", "--http", "127.0.0.1:0", "--config", conf)
	t.Cleanup(func() {
		stop()
		<-done
	})
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "doors-test", Version: "0"}, nil).Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })

	// A closed port: a host that cannot be reached.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	withCreds := strings.Replace(site.URL, "http://", "http://tide:hunter2@", 1)
	long := site.URL + "/ok.html?q=" + strings.Repeat("a", 9000)

	cliDoor := func(args ...string) doorOutcome {
		code, out, stderr := run(t, "", append(args, "--config", conf)...)
		return doorOutcome{failed: code != 0, code: code, text: out + stderr}
	}
	mcpDoor := func(tool string, args map[string]any) doorOutcome {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		data, _ := json.Marshal(res.StructuredContent)
		return doorOutcome{failed: res.IsError, text: b.String() + string(data)}
	}

	for _, c := range []struct {
		name string
		cli  []string
		tool string
		args map[string]any
		// failed: both doors refuse or fail, the CLI with code; says:
		// what both say; asked: the requests the site may see (nil: none).
		failed  bool
		code    int
		says    []string
		notSays []string
		asked   func([]string) bool
	}{
		{
			name: "a page's URL with credentials", code: 2, cli: []string{"fetch", withCreds + "/ok.html"},
			tool: "web_fetch", args: map[string]any{"url": withCreds + "/ok.html"},
			failed: true, says: []string{"credentials"},
		},
		{
			name: "a start URL with credentials", code: 2, cli: []string{"crawl", withCreds + "/ok.html", "--delay", "0s"},
			tool: "web_crawl", args: map[string]any{"url": withCreds + "/ok.html"},
			failed: true, says: []string{"credentials"},
		},
		{
			name: "a page that answers 404", code: 1, cli: []string{"fetch", site.URL + "/missing"},
			tool: "web_fetch", args: map[string]any{"url": site.URL + "/missing"},
			failed: true, says: []string{"HTTP 404"}, asked: only("/missing"),
		},
		{
			name: "a start URL that answers 404", code: 1, cli: []string{"crawl", site.URL + "/missing", "--delay", "0s", "--max-depth", "0"},
			tool: "web_crawl", args: map[string]any{"url": site.URL + "/missing", "max_depth": 0},
			failed: true, says: []string{"the start URL could not be fetched", "HTTP 404"}, asked: only("/robots.txt", "/missing"),
		},
		{
			name: "a grep of a site whose start URL answers 404", code: 1, cli: []string{"crawl", site.URL + "/missing", "--delay", "0s", "--max-depth", "1"},
			tool: "web_grep", args: map[string]any{"url": site.URL + "/missing", "pattern": "tide", "depth": 1},
			failed: true, says: []string{"the start URL could not be fetched", "HTTP 404"}, notSays: []string{"0 matches"}, asked: atMost("/robots.txt", "/sitemap.xml", "/missing"),
		},
		{
			name: "a page on a host that cannot be reached", code: 1, cli: []string{"fetch", closed + "/"},
			tool: "web_fetch", args: map[string]any{"url": closed + "/"},
			failed: true, says: []string{"connection refused"},
		},
		{
			name: "a crawl of a host that cannot be reached", code: 1, cli: []string{"crawl", closed + "/", "--delay", "0s"},
			tool: "web_crawl", args: map[string]any{"url": closed + "/"},
			failed: true, says: []string{"cannot reach " + strings.TrimPrefix(closed, "http://"), "connection refused"}, notSays: []string{"no-robots", "disallow"},
		},
		{
			name: "a start URL robots.txt disallows", code: 2, cli: []string{"crawl", site.URL + "/private/x.html", "--delay", "0s"},
			tool: "web_crawl", args: map[string]any{"url": site.URL + "/private/x.html"},
			failed: true, says: []string{"line 2", "Disallow: /private/"}, asked: atMost("/robots.txt"),
		},
		{
			name: "a crawl of a noindex page", code: 1, cli: []string{"crawl", site.URL + "/noindex.html", "--delay", "0s", "--max-depth", "0"},
			tool: "web_crawl", args: map[string]any{"url": site.URL + "/noindex.html", "max_depth": 0},
			failed: true, says: []string{"nothing was kept: the start URL was skipped: noindex"}, asked: only("/robots.txt", "/noindex.html"),
		},
		{
			name: "a search of a source the stash does not hold", code: 1, cli: []string{"search", "tides", "--source", "nosuch"},
			tool: "stash_search", args: map[string]any{"query": "tides", "source": "nosuch"},
			failed: true, says: []string{`no source "nosuch" in the stash`},
		},
		{
			// The "@" is in the fragment: the URL is the site's, and no
			// credentials are in it (RFC 3986, WHATWG).
			name: "a page's URL with an @ in its fragment", code: 0, cli: []string{"fetch", site.URL + "#@192.0.2.1/"},
			tool: "web_fetch", args: map[string]any{"url": site.URL + "#@192.0.2.1/"},
			says: []string{"Tides"}, notSays: []string{"credentials"}, asked: only("/"),
		},
		{
			name: "a page's URL over 8 KiB", code: 2, cli: []string{"fetch", long},
			tool: "web_fetch", args: map[string]any{"url": long},
			failed: true, says: []string{"more than the 8192 heed reads"},
		},
		{
			name: "a start URL over 8 KiB", code: 2, cli: []string{"crawl", long, "--delay", "0s"},
			tool: "web_crawl", args: map[string]any{"url": long},
			failed: true, says: []string{"more than the 8192 heed reads"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, door := range []struct {
				name string
				do   func() doorOutcome
			}{
				{"heed " + c.cli[0], func() doorOutcome { return cliDoor(c.cli...) }},
				{c.tool, func() doorOutcome { return mcpDoor(c.tool, c.args) }},
			} {
				// A fresh robots.txt cache for each door: heed mcp's is
				// its own, and the CLI's lasts one command.
				got := door.do()
				if got.failed != c.failed {
					t.Errorf("%s: failed %v, want %v: %.600s", door.name, got.failed, c.failed, got.text)
				}
				if strings.HasPrefix(door.name, "heed ") && got.code != c.code {
					t.Errorf("%s: exit %d, want %d: %.600s", door.name, got.code, c.code, got.text)
				}
				for _, want := range c.says {
					if !strings.Contains(got.text, want) {
						t.Errorf("%s does not say %q: %.600s", door.name, want, got.text)
					}
				}
				for _, not := range c.notSays {
					if strings.Contains(got.text, not) {
						t.Errorf("%s says %q: %.600s", door.name, not, got.text)
					}
				}
				if strings.Contains(got.text, "hunter2") {
					t.Errorf("%s repeats the password: %.600s", door.name, got.text)
				}
				asked := site.requests()
				if c.asked == nil && len(asked) > 0 || c.asked != nil && !c.asked(asked) {
					t.Errorf("%s asked the site %v", door.name, asked)
				}
			}
		})
	}
	// Written nowhere: no file of the stash holds the password, and no
	// request carried it.
	filepath.WalkDir(stashDir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte("hunter2")) {
				t.Errorf("%s holds the password", path)
			}
		}
		return nil
	})
	if strings.Contains(mcpErr.String(), "hunter2") {
		t.Errorf("heed mcp's log holds the password")
	}
	// And nothing was stored, the noindex page included.
	if code, out, _ := run(t, "", "ls", "--config", conf); code != 0 || out != "" {
		t.Errorf("heed ls after the doors' crawls: exit %d\n%s", code, out)
	}
}

// only is a check that the site was asked for these paths at most, and
// for the last of them.
func only(paths ...string) func([]string) bool {
	return func(asked []string) bool {
		return len(asked) > 0 && asked[len(asked)-1] == paths[len(paths)-1] && atMost(paths...)(asked)
	}
}

// atMost is a check that the site was asked for these paths at most (a
// robots.txt read before is not asked again).
func atMost(paths ...string) func([]string) bool {
	return func(asked []string) bool {
		for _, a := range asked {
			if !slices.Contains(paths, a) {
				return false
			}
		}
		return true
	}
}
