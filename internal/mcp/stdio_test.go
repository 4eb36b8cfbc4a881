package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed/internal/testutil"
)

// TestStdio builds heed and drives `heed mcp` over stdio with the SDK's
// client, as an MCP client that starts heed does: the loopback network
// allowed in the config file, as a user allows an intranet; and without
// that allowance, refused.
func TestStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "heed")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/heedhq/heed/cmd/heed").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	site := newSite(t)
	site.robots = "User-agent: *\nDisallow: /private/\n"
	site.set("/", html("Lighthouses", []string{"Lighthouses guide ships past reefs and headlands at night."}, "/fresnel", "/private/keeper"))
	site.set("/fresnel", html("Fresnel lenses", []string{"A Fresnel lens bends the lamp's light into a narrow beam seen far out at sea."}))
	site.set("/private/keeper", html("Keeper", []string{"Private."}))

	start := func(t *testing.T, config string, progress *progressLog) (*sdk.ClientSession, *testutil.Buffer) {
		t.Helper()
		cfg := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "mcp", "--config", cfg, "--stash", filepath.Join(t.TempDir(), "stash"))
		cmd.Env = append(os.Environ(), "HEED_CONFIG=", "HEED_STASH=")
		stderr := new(testutil.Buffer)
		cmd.Stderr = stderr
		opts := &sdk.ClientOptions{}
		if progress != nil {
			opts.ProgressNotificationHandler = progress.handle
		}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "0"}, opts).Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, stderr)
		}
		t.Cleanup(func() {
			if err := cs.Close(); err != nil {
				t.Errorf("heed mcp did not end cleanly: %v\n%s", err, stderr)
			}
		})
		return cs, stderr
	}

	t.Run("allowed", func(t *testing.T) {
		var progress progressLog
		cs, stderr := start(t, "allow_net: [127.0.0.1/32]\nmcp:\n  delay: 0s\n  max_pages: 10\n", &progress)
		tools, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range tools.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		if want := []string{"crawl_cancel", "crawl_pages", "crawl_status", "stash_changes", "stash_read", "stash_search", "stash_sources", "web_crawl", "web_fetch", "web_grep", "web_map"}; !slices.Equal(names, want) {
			t.Errorf("tools %v, want %v", names, want)
		}

		var page FetchOutput
		if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/private/keeper"}, &page); isErr || page.Title != "Keeper" || page.Markdown != "# Keeper\n\nPrivate." {
			t.Errorf("web_fetch: %s %+v", text, page)
		}
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "web_crawl", Arguments: map[string]any{"url": site.URL + "/", "max_pages": 50}, Meta: sdk.Meta{"progressToken": 7}})
		if err != nil {
			t.Fatal(err)
		}
		var crawled CrawlOutput
		if text, isErr := decode(t, res, &crawled); isErr || crawled.Stored != 2 || crawled.Skipped["robots"] != 1 || crawled.Limits.MaxPages != 10 ||
			!slices.Equal(crawled.Notes, []string{"max_pages 50 was lowered to 10, the limit the user set"}) {
			t.Errorf("web_crawl: %s %+v", text, crawled)
		}
		// Progress: the two pages fetched (the disallowed one is not), of
		// at most 10.
		if events := progress.atLeast(2); len(events) != 2 || events[1].Progress != 2 || events[1].Total != 10 {
			t.Errorf("progress notifications over stdio: %d, the last %+v; want 2, the last 2 of 10", len(events), events[len(events)-1])
		}
		var found SearchOutput
		if text, isErr := call(t, cs, "stash_search", map[string]any{"query": "narrow beam"}, &found); isErr || len(found.Hits) != 1 || found.Hits[0].URL != site.URL+"/fresnel" {
			t.Fatalf("stash_search: %s %+v", text, found)
		}
		var read ReadOutput
		if text, isErr := call(t, cs, "stash_read", map[string]any{"url_or_id": found.Hits[0].ID}, &read); isErr || !strings.Contains(read.Markdown, "narrow beam") {
			t.Errorf("stash_read: %s %+v", text, read)
		}
		var srcs SourcesOutput
		if text, isErr := call(t, cs, "stash_sources", nil, &srcs); isErr || len(srcs.Sources) != 1 || srcs.Sources[0].Snapshots != 2 {
			t.Errorf("stash_sources: %s %+v", text, srcs)
		}
		var grep GrepOutput
		if text, isErr := call(t, cs, "web_grep", map[string]any{"url": site.URL + "/", "pattern": "(?i)lens", "depth": 1}, &grep); isErr || grep.MatchCount != 2 || grep.PagesSearched != 2 {
			t.Errorf("web_grep: %s %+v", text, grep)
		}
		if stderr.String() != "" {
			t.Errorf("heed mcp wrote to stderr:\n%s", stderr)
		}
	})

	t.Run("malformed messages", func(t *testing.T) { malformedMessages(t, bin, site) })

	t.Run("loopback not allowed", func(t *testing.T) {
		cs, _ := start(t, "# no allow_net\n", nil)
		text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/"}, nil)
		for _, want := range []string{"refused: 127.0.0.1 is a loopback address", "allow_net in heed's config file", "no tool argument can allow one"} {
			if !isErr || !strings.Contains(text, want) {
				t.Errorf("web_fetch of loopback without allow_net: error %v, %q; want %q", isErr, text, want)
			}
		}
	})
}

// wire is a raw JSON-RPC client of `heed mcp` over its stdio: it writes
// lines to the process's stdin and reads the lines of its stdout, each
// decoded as JSON (a line that is not is a test failure).
type wire struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan json.RawMessage
	done  chan error // the process's exit
}

func startWire(t *testing.T, bin, config string) *wire {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp", "--config", cfg, "--stash", filepath.Join(t.TempDir(), "stash"))
	cmd.Env = append(os.Environ(), "HEED_CONFIG=", "HEED_STASH=")
	cmd.Stderr = new(testutil.Buffer)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &wire{t: t, cmd: cmd, stdin: stdin, lines: make(chan json.RawMessage, 100), done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			line := slices.Clone(sc.Bytes())
			if !json.Valid(line) {
				t.Errorf("heed mcp wrote a line that is not JSON: %q", line)
				continue
			}
			w.lines <- line
		}
		close(w.lines)
		w.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-w.done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
		}
	})
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.stdin, line+"\n"); err != nil {
		w.t.Fatalf("writing %.80q to heed mcp: %v", line, err)
	}
}

// next is the next line heed mcp writes; the test fails if it ends first.
func (w *wire) next(what string) json.RawMessage {
	w.t.Helper()
	select {
	case line, ok := <-w.lines:
		if !ok {
			w.t.Fatalf("heed mcp ended while the test waited for %s: %v\n%s", what, <-w.done, w.cmd.Stderr)
		}
		return line
	case <-time.After(20 * time.Second):
		w.t.Fatalf("still waiting for %s after 20s", what)
		panic("unreachable")
	}
}

// rpcReply is a JSON-RPC response as it is on the wire.
type rpcReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// malformedMessages: a line that is not JSON, a batch, a message of
// another JSON-RPC version and other malformed messages are each answered
// with a JSON-RPC error, and the session goes on: a call in flight when
// they arrive is answered, and later calls are too.
func malformedMessages(t *testing.T, bin string, site *site) {
	held := make(chan struct{})
	release := make(chan struct{})
	site.mu.Lock()
	site.block = func(r *http.Request) {
		if r.URL.Path == "/slow" {
			close(held)
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	}
	site.mu.Unlock()
	letGo := sync.OnceFunc(func() { close(release) })
	t.Cleanup(func() {
		letGo()
		site.mu.Lock()
		site.block = nil
		site.mu.Unlock()
	})
	site.set("/slow", html("Slow", []string{"A page that comes when the test lets it, with words enough."}))
	w := startWire(t, bin, "allow_net: [127.0.0.1/32]\nmcp:\n  delay: 0s\n")
	w.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if r := w.next("the answer to initialize"); !strings.Contains(string(r), `"protocolVersion"`) {
		t.Fatalf("initialize: %s", r)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// A call in flight while the malformed messages come.
	w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"web_fetch","arguments":{"url":"` + site.URL + `/slow"}}}`)
	waitFor(t, held, "web_fetch to ask for /slow")

	type want struct {
		id   string // the id the error answers, as JSON
		code int
		says string
	}
	for _, tt := range []struct {
		name, line string
		want       []want // one error, or in an array of answers one each
	}{
		{"not JSON", `this is not JSON {`, []want{{"null", -32700, "not JSON"}}},
		{"a JSON-RPC batch", `[{"jsonrpc":"2.0","id":3,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"},7]`,
			[]want{{"null", -32600, "batch"}}},
		{"an empty batch", `[]`, []want{{"null", -32600, "batch"}}},
		{"JSON-RPC 1.0", `{"jsonrpc":"1.0","id":4,"method":"tools/list"}`, []want{{"4", -32600, `"2.0"`}}},
		{"no version", `{"id":"five","method":"tools/list"}`, []want{{`"five"`, -32600, `"2.0"`}}},
		{"an id that is not one", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, []want{{"null", -32600, "id"}}},
		{"a method that is not a string", `{"jsonrpc":"2.0","id":6,"method":7}`, []want{{"6", -32600, "method"}}},
		{"neither a method nor an id", `{"jsonrpc":"2.0","params":{}}`, []want{{"null", -32600, ""}}},
		// A response is not answered: the next answer is the next line's.
		{"a response with a null id, then a line that is not JSON", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` + "\n" + `not JSON`, []want{{"null", -32700, "not JSON"}}},
		{"JSON that is not an object", `"tools/list"`, []want{{"null", -32600, "object"}}},
		{"two messages on one line", `{"jsonrpc":"2.0","id":8,"method":"ping"} {"jsonrpc":"2.0","id":9,"method":"ping"}`, []want{{"null", -32700, ""}}},
		{"a line longer than heed reads", `{"jsonrpc":"2.0","id":10,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2<<20) + `"}}`, []want{{"null", -32600, "longer"}}},
	} {
		w.send(tt.line)
		got := w.next("the answer to " + tt.name)
		var replies []rpcReply
		if got[0] == '[' {
			if err := json.Unmarshal(got, &replies); err != nil {
				t.Fatalf("%s: answer %s: %v", tt.name, got, err)
			}
		} else {
			var r rpcReply
			if err := json.Unmarshal(got, &r); err != nil {
				t.Fatalf("%s: answer %s: %v", tt.name, got, err)
			}
			replies = []rpcReply{r}
		}
		if len(replies) != len(tt.want) {
			t.Errorf("%s: answered %s, want %d errors", tt.name, got, len(tt.want))
			continue
		}
		for i, r := range replies {
			wt := tt.want[i]
			if r.JSONRPC != "2.0" || string(r.ID) != wt.id || r.Error == nil || r.Error.Code != wt.code || !strings.Contains(r.Error.Message, wt.says) {
				t.Errorf("%s: answered %s; want error %d with id %s saying %q", tt.name, got, wt.code, wt.id, wt.says)
			}
		}
	}
	// A notification that is malformed is not answered (it has no id
	// to answer), and a blank line is nothing: the next answer is the
	// ping's.
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"x":1}}}`)
	w.send(``)
	w.send(`{"jsonrpc":"2.0","id":11,"method":"ping"}`)
	if r := w.next("the answer to ping"); string(r) != `{"jsonrpc":"2.0","id":11,"result":{}}` {
		t.Errorf("ping after the malformed messages: %s", r)
	}
	letGo()
	var r rpcReply
	json.Unmarshal(w.next("the answer to the web_fetch in flight"), &r)
	if string(r.ID) != "2" || r.Error != nil || !strings.Contains(string(r.Result), "comes when the test lets it") {
		t.Errorf("the web_fetch in flight: %+v %s", r, r.Result)
	}
	w.stdin.Close()
	if err := waitFor(t, w.done, "heed mcp to end with its stdin"); err != nil {
		t.Errorf("heed mcp exited with %v\n%s", err, w.cmd.Stderr)
	}
}

// TestStdioCancelSendsNothingMore: once a client cancels a web_crawl on
// stdio, the server sends nothing more for it: no progress, and no
// response (the SDK's own transport sends the response).
func TestStdioCancelSendsNothingMore(t *testing.T) {
	site := newSite(t)
	var links []string
	for i := range 6 {
		links = append(links, fmt.Sprintf("/p%d", i+1))
	}
	site.set("/", html("Start", []string{"The start page of a site with six more pages."}, links...))
	for _, l := range links {
		site.set(l, html("Page "+l, []string{"A page about the sea, " + l + ", long enough to be content."}))
	}
	held := make(chan struct{})
	site.block = func(r *http.Request) {
		if r.URL.Path == "/p1" {
			close(held)
			<-r.Context().Done() // until the crawl gives up on it
		}
	}
	s := newServer(t, Limits{}, loopback)
	answered := make(chan bool, 1) // whether the answer to the crawl was held back
	crawlID, _ := jsonrpc.MakeID(float64(2))
	s.wrote = func(msg jsonrpc.Message, dropped bool) {
		if r, ok := msg.(*jsonrpc.Response); ok && r.ID == crawlID {
			answered <- dropped
		}
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- s.serveLines(t.Context(), inR, outW) }()
	lines := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	waitFor(t, lines, "the answer to initialize")
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"web_crawl","arguments":{"url":"` + site.URL + `/"},"_meta":{"progressToken":"crawl"}}}`)
	waitFor(t, held, "the crawl to ask for /p1")
	// The crawl waits on /p1 with nothing else to do once the start page
	// is stored: what the server sent until it said so is all it sends
	// before the cancellation.
	for {
		line := waitFor(t, lines, "progress saying the start page is stored")
		if strings.Contains(line, `"id":2`) {
			t.Fatalf("web_crawl answered before it was cancelled: %s", line)
		}
		if strings.Contains(line, "1 stored") {
			break
		}
	}
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the agent changed its mind"}}`)
	if dropped := waitFor(t, answered, "the server to be done with the cancelled call"); !dropped {
		t.Errorf("the server answered the cancelled call")
	}
	// The answer to a ping sent now comes after whatever else the server
	// wrote for the call.
	send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	for {
		line := waitFor(t, lines, "the answer to ping")
		if strings.Contains(line, `"id":3`) {
			break
		}
		t.Errorf("after the cancellation the server sent: %s", line)
	}
	inW.Close()
	if err := waitFor(t, served, "the session to end with its input"); err != nil {
		t.Errorf("serveLines: %v", err)
	}
}
