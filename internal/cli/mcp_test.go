package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/testutil"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPHTTP runs heed mcp --http on a loopback port and has an agent
// fetch a page through it, with the limits of the config file and the
// flags (the flags win); then stops it as a signal would.
func TestMCPHTTP(t *testing.T) {
	s, _ := exampleSite(t)
	cfg := writeFile(t, "config.yaml", "allow_net: [127.0.0.1/32]\nmcp:\n  max_chars: 50\n  max_pages: 3\n")
	ctx, stop := context.WithCancel(t.Context())
	var stderr testutil.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"mcp", "--http", "127.0.0.1:0", "--config", cfg, "--stash", t.TempDir(), "--max-chars", "40"}, strings.NewReader(""), &bytes.Buffer{}, &stderr)
	}()
	var endpoint string
	for range 500 {
		if _, rest, ok := strings.Cut(stderr.String(), "streamable HTTP at "); ok {
			endpoint = strings.TrimSpace(rest)
			break
		}
		select {
		case code := <-done:
			t.Fatalf("heed mcp --http exited %d: %s", code, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if !strings.HasPrefix(endpoint, "http://127.0.0.1:") || !strings.HasSuffix(endpoint, "/mcp") {
		t.Fatalf("heed mcp --http said %q", stderr.String())
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "0"}, nil).Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "web_fetch", Arguments: map[string]any{"url": s.URL + "/guide/tides.html", "max_chars": 1000}})
	if err != nil || res.IsError {
		t.Fatalf("web_fetch: %v %+v", err, res)
	}
	var out struct {
		Chars int      `json:"chars"`
		Notes []string `json:"notes"`
	}
	data, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(data, &out)
	if out.Chars != 40 || len(out.Notes) != 1 || !strings.Contains(out.Notes[0], "lowered to 40") {
		t.Errorf("web_fetch under --max-chars 40 (config 50): %s", data)
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
