package mcp

import (
	"strings"
	"testing"
)

// TestIntegerArgumentsBounded: every integer argument of every tool, a
// pointer or not, has a greatest value in its schema, and a number too
// large for heed is refused in heed's words, naming the argument, not
// Go's.
func TestIntegerArgumentsBounded(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Start", []string{"The start page, with words enough to be the content."}))
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	// What each tool needs besides the integer.
	base := map[string]map[string]any{
		"web_fetch":     {"url": site.URL + "/"},
		"web_crawl":     {"url": site.URL + "/"},
		"web_grep":      {"url": site.URL + "/", "pattern": "x"},
		"stash_search":  {"query": "x"},
		"stash_read":    {"url_or_id": site.URL + "/"},
		"stash_sources": {},
		"stash_changes": {},
		"web_map":       {"url": site.URL + "/"},
		"crawl_status":  {"crawl": 1},
		"crawl_pages":   {"crawl": 1},
		"crawl_cancel":  {"crawl": 1},
	}
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ints := 0
	for _, tool := range res.Tools {
		args, ok := base[tool.Name]
		if !ok {
			t.Errorf("tool %s: the test does not know its arguments", tool.Name)
			continue
		}
		props, _ := tool.InputSchema.(map[string]any)["properties"].(map[string]any)
		for name, p := range props {
			p := p.(map[string]any)
			if p["type"] != "integer" {
				continue
			}
			ints++
			if max, _ := p["maximum"].(float64); max != maxArg {
				t.Errorf("%s %s: maximum %v, want %d", tool.Name, name, p["maximum"], maxArg)
			}
			a := map[string]any{name: 1e19}
			for k, v := range args {
				a[k] = v
			}
			text, isErr := call(t, cs, tool.Name, a, nil)
			if !isErr || !strings.Contains(text, name) || strings.Contains(text, "Go struct") || strings.Contains(text, "unmarshal") || strings.Contains(text, "mcp.") {
				t.Errorf("%s %s 1e19: error %v, %q; want a refusal naming %s without Go's words", tool.Name, name, isErr, text, name)
			}
		}
	}
	// max_chars of each tool, start_index twice, max_pages, max_depth,
	// depth, limit thrice, wait_seconds twice, crawl thrice: 24.
	if ints != 24 {
		t.Errorf("%d integer arguments, want 24", ints)
	}
}
