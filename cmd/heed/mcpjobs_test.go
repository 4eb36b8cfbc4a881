package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPCrawlSurvivesKill: a crawl an agent started through heed mcp
// over stdio goes on when heed mcp is killed (kill -9) and started again:
// the new heed mcp takes it up, says so, and it ends done, every page
// asked once but those in flight at the kill.
func TestMCPCrawlSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := build(t)
	m := newManual(t)
	stash := t.TempDir()
	env := append(os.Environ(), "HEED_CONFIG="+filepath.Join(t.TempDir(), "none.yaml"))
	start := func() (*sdk.ClientSession, *exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(bin, "mcp", "--stash", stash, "--allow-net", "127.0.0.1/32", "--delay", "0s", "--max-pages", "400")
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "0"}, nil).Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cs, cmd, &stderr
	}
	type standing struct {
		Crawl  int64  `json:"crawl"`
		State  string `json:"state"`
		Stored int    `json:"stored"`
		Kept   int    // stored or unchanged: a page stored before the kill, asked again, is unchanged
	}
	call := func(cs *sdk.ClientSession, tool string, args map[string]any) standing {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		var st standing
		raw, _ := res.StructuredContent.(map[string]any)
		st.State, _ = raw["state"].(string)
		if n, ok := raw["crawl"].(float64); ok {
			st.Crawl = int64(n)
		}
		if n, ok := raw["stored"].(float64); ok {
			st.Stored = int(n)
		}
		if n, ok := raw["unchanged"].(float64); ok {
			st.Kept = st.Stored + int(n)
		}
		return st
	}

	cs, cmd, _ := start()
	started := call(cs, "web_crawl", map[string]any{"url": m.URL + "/", "max_pages": 400, "wait_seconds": 0})
	if started.Crawl == 0 || started.State != "running" {
		t.Fatalf("web_crawl: %+v", started)
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if n, _, _ := m.pages(); n >= 150 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the crawl did not reach 150 pages") // a guard against a hang, not a measure
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	cs.Close()

	cs, cmd, stderr := start()
	defer func() {
		cs.Close()
		cmd.Wait()
	}()
	var st standing
	for range 20 {
		if st = call(cs, "crawl_status", map[string]any{"crawl": started.Crawl, "wait_seconds": 50}); st.State != "running" {
			break
		}
	}
	if st.State != "done" || st.Kept < 390 {
		t.Errorf("after the restart: %+v; want it done, most of its 400 requests stored pages", st)
	}
	if !strings.Contains(stderr.String(), "taking up 1 crawl the agents started") {
		t.Errorf("the second heed mcp did not say it took the crawl up: %q", stderr.String())
	}
	pages, twice, _ := m.pages()
	if pages > 400+maxInFlight || twice > maxInFlight {
		t.Errorf("%d page requests, %d pages asked twice: want 400 and what was in flight at the kill at most", pages, twice)
	}
}
