package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/config"
	"github.com/heedhq/heed/internal/mcp"
	"github.com/heedhq/heed/internal/testutil"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPHTTP runs heed mcp --http on a loopback port and has an agent
// fetch a page through it, with the limits of the config file and the
// flags (the flags win); then stops it as a signal would.
func TestMCPHTTP(t *testing.T) {
	s, _ := exampleSite(t)
	cfg := writeFile(t, "config.yaml", "allow_net: [127.0.0.1/32]\nmcp:\n  max_chars: 5000\n  max_pages: 3\n")
	ctx, stop := context.WithCancel(t.Context())
	endpoint, stderr, done := startHTTP(t, ctx, "mcp", "--http", "127.0.0.1:0", "--config", cfg, "--stash", t.TempDir(), "--max-chars", "4500")
	if strings.Contains(stderr.String(), "Bearer") {
		t.Errorf("heed mcp --http on loopback with no token set spoke of one: %s", stderr)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "0"}, nil).Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "web_fetch", Arguments: map[string]any{"url": s.URL + "/guide/tides.html", "max_chars": 9000}})
	if err != nil || res.IsError {
		t.Fatalf("web_fetch: %v %+v", err, res)
	}
	var out struct {
		Chars int      `json:"chars"`
		Notes []string `json:"notes"`
	}
	data, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(data, &out)
	if out.Chars == 0 || len(out.Notes) != 1 || !strings.Contains(out.Notes[0], "max_chars 9000 was lowered to 4500") {
		t.Errorf("web_fetch under --max-chars 4500 (config 5000): %s", data)
	}
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name == "web_crawl" && !strings.Contains(tool.Description, "3 pages, 3 links deep") {
			t.Errorf("web_crawl does not state the config's limits: %s", tool.Description)
		}
	}
	cs.Close()
	stop()
	if code := <-done; code != 0 {
		t.Errorf("heed mcp --http exited %d after the signal: %s", code, stderr.String())
	}
}

// TestMCPMaxCharsAtLeast: a limit too small for a result to hold heed's
// own words is refused, saying the least.
func TestMCPMaxCharsAtLeast(t *testing.T) {
	code, _, stderr := run(t, "", "mcp", "--stash", t.TempDir(), "--max-chars", "500")
	if code != 2 || !strings.Contains(stderr, fmt.Sprintf("must be at least %d", mcp.MinChars)) {
		t.Errorf("heed mcp --max-chars 500: exit %d, %q", code, stderr)
	}
	// The config file's schema says the same least.
	raw, err := config.Schema(nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`"minimum": %d`, mcp.MinChars); !strings.Contains(string(raw), want) {
		t.Errorf("the config file's schema lacks %s for max_chars", want)
	}
}

// startHTTP runs heed with args, which serve MCP over HTTP until ctx
// ends, and returns the endpoint it says it serves, its stderr, and its
// exit code once it exits.
func startHTTP(t *testing.T, ctx context.Context, args ...string) (string, *testutil.Buffer, <-chan int) {
	t.Helper()
	stderr := new(testutil.Buffer)
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, args, strings.NewReader(""), &bytes.Buffer{}, stderr)
	}()
	for range 2000 {
		if _, rest, ok := strings.Cut(stderr.String(), "streamable HTTP at "); ok {
			if endpoint, _, ok := strings.Cut(rest, "\n"); ok {
				if !strings.HasPrefix(endpoint, "http://127.0.0.1:") || !strings.HasSuffix(endpoint, "/mcp") {
					t.Fatalf("heed mcp --http said %q", stderr.String())
				}
				return endpoint, stderr, done
			}
		}
		select {
		case code := <-done:
			t.Fatalf("heed mcp --http exited %d: %s", code, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("heed mcp --http did not say where it serves: %s", stderr.String())
	return "", nil, nil
}

// TestMCPHTTPNotLoopback: heed mcp --http refuses an address other than
// loopback (every address of the machine, a public one) unless
// --allow-remote is given, and says why and what to do; nothing listens.
func TestMCPHTTPNotLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0", "10.1.2.3:8765"} {
		code, out, stderr := run(t, "", "mcp", "--http", addr)
		if code != ExitUsage || out != "" || !strings.Contains(stderr, "is not a loopback address") || !strings.Contains(stderr, "--allow-remote") {
			t.Errorf("heed mcp --http %s: exit %d, %q, %q; want exit 2 saying it is not loopback", addr, code, out, stderr)
		}
	}
	if code, _, stderr := run(t, "", "mcp", "--allow-remote"); code != ExitUsage || !strings.Contains(stderr, "--allow-remote goes with --http") {
		t.Errorf("heed mcp --allow-remote without --http: exit %d, %q", code, stderr)
	}
}

// TestMCPBindAddrs: where heed mcp --http listens is decided from the
// address alone, before anything listens: a loopback address, with or
// without a zone, is listened on as given; any other (a zone does not hide
// one: [::%lo] is every address, [fe80::1%lo] a link-local one) is
// refused; a name is resolved and listened on at its addresses only when
// every one is loopback.
func TestMCPBindAddrs(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "[::%lo]:0", "[fe80::1%lo]:0", "[::ffff:10.0.0.1]:0", "192.0.2.1:8765"} {
		if binds, err := bindAddrs(t.Context(), addr, false); err == nil || !strings.Contains(err.Error(), "is not a loopback address") {
			t.Errorf("bindAddrs(%s) = %q, %v; want it refused as not loopback", addr, binds, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "127.1.2.3:8765", "[::1]:0", "[::1%lo]:0", "[::ffff:127.0.0.1]:0"} {
		if binds, err := bindAddrs(t.Context(), addr, false); err != nil || len(binds) != 1 || binds[0] != addr {
			t.Errorf("bindAddrs(%s) = %q, %v; want it listened on as given", addr, binds, err)
		}
	}
	binds, err := bindAddrs(t.Context(), "localhost:8765", false)
	if err != nil || len(binds) == 0 {
		t.Fatalf("bindAddrs(localhost:8765) = %q, %v", binds, err)
	}
	for _, b := range binds {
		host, port, _ := net.SplitHostPort(b)
		if ip, err := netip.ParseAddr(host); err != nil || !ip.IsLoopback() || port != "8765" {
			t.Errorf("bindAddrs(localhost:8765) gave %s, not a loopback address and the port", b)
		}
	}
	if binds, err := bindAddrs(t.Context(), "[::%lo]:0", true); err != nil || len(binds) != 1 || binds[0] != "[::%lo]:0" {
		t.Errorf("bindAddrs([::%%lo]:0) with allowRemote = %q, %v; want it as given", binds, err)
	}
}

// bearer adds a bearer token to every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// status is the status of an initialize posted to endpoint with the
// headers given.
func status(t *testing.T, endpoint string, header ...string) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, endpoint,
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestMCPHTTPToken: with --allow-remote and no token set, heed makes one,
// prints it once, and asks every request for it; a token set (in
// HEED_MCP_TOKEN, or where mcp.token points) is asked for on loopback
// too, and never printed. Origin is checked in every case.
func TestMCPHTTPToken(t *testing.T) {
	t.Run("made", func(t *testing.T) {
		ctx, stop := context.WithCancel(t.Context())
		endpoint, stderr, done := startHTTP(t, ctx, "mcp", "--http", "127.0.0.1:0", "--allow-remote", "--stash", t.TempDir())
		defer func() { stop(); <-done }()
		var token string
		for range 2000 {
			if _, rest, ok := strings.Cut(stderr.String(), "Authorization: Bearer "); ok {
				if tok, _, ok := strings.Cut(rest, " "); ok {
					token = tok
					break
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		if len(token) != 43 || strings.Count(stderr.String(), token) != 1 {
			t.Fatalf("the token made for the run: %q in %s", token, stderr)
		}
		if got := status(t, endpoint); got != http.StatusUnauthorized {
			t.Errorf("without the token: %d, want 401", got)
		}
		if got := status(t, endpoint, "Authorization", "Bearer "+token+"x"); got != http.StatusUnauthorized {
			t.Errorf("with another token: %d, want 401", got)
		}
		if got := status(t, endpoint, "Authorization", "Bearer "+token, "Origin", "http://rebind.example"); got != http.StatusForbidden {
			t.Errorf("with the token from a foreign Origin: %d, want 403", got)
		}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "0"}, nil).Connect(t.Context(),
			&sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer(token)}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if tools, err := cs.ListTools(t.Context(), nil); err != nil || len(tools.Tools) != 11 {
			t.Errorf("tools/list with the token: %v %v", tools, err)
		}
	})
	const token = "a-token-the-user-keeps-0123456789"
	for _, tt := range []struct {
		name, config string
		env          map[string]string
	}{
		{"HEED_MCP_TOKEN", "", map[string]string{"HEED_MCP_TOKEN": token}},
		{"mcp.token env", "mcp:\n  token: env:MY_TOKEN\n", map[string]string{"MY_TOKEN": token}},
		{"mcp.token file", "mcp:\n  token: file:" + writeFile(t, "token", token+"\n") + "\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			ctx, stop := context.WithCancel(t.Context())
			endpoint, stderr, done := startHTTP(t, ctx, "mcp", "--http", "127.0.0.1:0", "--config", writeFile(t, "config.yaml", tt.config), "--stash", t.TempDir())
			defer func() { stop(); <-done }()
			if got := status(t, endpoint); got != http.StatusUnauthorized {
				t.Errorf("without the token: %d, want 401", got)
			}
			if got := status(t, endpoint, "Authorization", "Bearer "+token); got != http.StatusOK {
				t.Errorf("with the token: %d, want 200", got)
			}
			if strings.Contains(stderr.String(), token) || !strings.Contains(stderr.String(), "HEED_MCP_TOKEN or mcp.token") {
				t.Errorf("stderr printed the token, or did not say it is asked for: %s", stderr)
			}
		})
	}
	// A token too short, or that cannot be sent in a header, is refused,
	// without repeating it.
	t.Setenv("SHORT", "short-one")
	for _, tt := range []struct {
		env, config string
		code        int
	}{
		{"short", "", ExitUsage},
		{"a token with spaces in it, long", "", ExitUsage},
		{"", "mcp:\n  token: env:SHORT\n", ExitConfig},
		{"", "mcp:\n  token: env:UNSET_TOKEN_VARIABLE\n", ExitConfig},
	} {
		t.Setenv("HEED_MCP_TOKEN", tt.env)
		code, _, stderr := run(t, "", "mcp", "--http", "127.0.0.1:0", "--config", writeFile(t, "config.yaml", tt.config))
		if code != tt.code || !strings.Contains(stderr, "token") || tt.env != "" && strings.Contains(stderr, tt.env) || strings.Contains(stderr, "short-one") {
			t.Errorf("token %q, config %q: exit %d, %s; want %d", tt.env, tt.config, code, stderr, tt.code)
		}
	}
}

// TestMCPHTTPRefusalCloses: heed mcp --http --allow-remote answers a
// request without the token with 401 and Connection: close, and closes
// the connection, so that clients without the token cannot hold
// connections open.
func TestMCPHTTPRefusalCloses(t *testing.T) {
	ctx, stop := context.WithCancel(t.Context())
	endpoint, _, done := startHTTP(t, ctx, "mcp", "--http", "127.0.0.1:0", "--allow-remote", "--stash", t.TempDir())
	defer func() { stop(); <-done }()
	host := strings.TrimSuffix(strings.TrimPrefix(endpoint, "http://"), "/mcp")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const body = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAuthorization: Bearer not-the-token-at-all\r\nContent-Length: %d\r\n\r\n%s", host, len(body), body)
	conn.SetReadDeadline(time.Now().Add(time.Minute)) // generous: a busy machine is slow
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusUnauthorized || !resp.Close {
		t.Errorf("without the token: %s, Connection %q; want 401 and Connection: close", resp.Status, resp.Header.Get("Connection"))
	}
	if n, err := r.Read(make([]byte, 1)); n > 0 || !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("after the 401 the connection is still open: %d bytes, %v", n, err)
	}
}

func TestMCPFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"mcp", "--max-pages", "0"}, "--max-pages must be 1 or more"},
		{[]string{"mcp", "--delay", "-1s"}, "--delay cannot be negative"},
		{[]string{"mcp", "--http", "127.0.0.1:99999"}, "mcp --http"},
		{[]string{"mcp", "extra"}, "unknown command"},
	} {
		if code, out, stderr := run(t, "", tt.args...); code != ExitUsage || out != "" || !strings.Contains(stderr, tt.msg) {
			t.Errorf("heed %v: exit %d, %q, %q; want exit 2 and %q", tt.args, code, out, stderr, tt.msg)
		}
	}
	cfg := writeFile(t, "config.yaml", "mcp:\n  max_pages: none\n")
	if code, _, stderr := run(t, "", "mcp", "--config", cfg); code != ExitConfig || !strings.Contains(stderr, "mcp.max_pages") {
		t.Errorf("a bad mcp section: exit %d, %s", code, stderr)
	}
}

// TestMCPCrawlBoundsFlags: the crawl jobs' bounds must be 1 or more.
func TestMCPCrawlBoundsFlags(t *testing.T) {
	for _, flag := range []string{"--max-crawls", "--max-pages-in-all"} {
		code, _, stderr := run(t, "", "mcp", "--stash", t.TempDir(), flag, "0")
		if code != 2 || !strings.Contains(stderr, flag+" must be 1 or more") {
			t.Errorf("heed mcp %s 0: exit %d, %q", flag, code, stderr)
		}
	}
}
