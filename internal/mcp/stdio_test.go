package mcp

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/heedhq/heed/internal/testutil"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
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
		if want := []string{"stash_read", "stash_search", "stash_sources", "web_crawl", "web_fetch", "web_grep"}; !slices.Equal(names, want) {
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
		if n := len(progress.atLeast(3)); n < 3 {
			t.Errorf("%d progress notifications over stdio", n)
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
