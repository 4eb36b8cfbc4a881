package mcp

import (
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// namedInText finds the names a text gives of arguments and fields:
// written `in backticks`, snake_case, or alone in parentheses, as
// (render); and, for each, the tool whose it says it is ("stash_search's
// `source`"), or "".
var namedInText = regexp.MustCompile("(?:\\b([a-z]+_[a-z]+)'s )?(?:`([a-z][a-z0-9_]*)`|\\(([a-z][a-z0-9_]*)\\)|\\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\\b)")

type named struct{ tool, name string }

func namesIn(text string) []named {
	var out []named
	for _, m := range namedInText.FindAllStringSubmatch(text, -1) {
		out = append(out, named{tool: m[1], name: m[2] + m[3] + m[4]})
	}
	return out
}

// toolSchemas is each tool's arguments and result fields, by name, and
// which arguments it requires.
type toolSchema struct {
	in, out  map[string]map[string]any
	required []string
}

func schemas(t *testing.T, tools []*sdk.Tool) map[string]toolSchema {
	t.Helper()
	props := func(schema any) map[string]map[string]any {
		m := map[string]map[string]any{}
		p, _ := schema.(map[string]any)["properties"].(map[string]any)
		for name, s := range p {
			m[name] = s.(map[string]any)
		}
		return m
	}
	all := map[string]toolSchema{}
	for _, tool := range tools {
		ts := toolSchema{in: props(tool.InputSchema), out: props(tool.OutputSchema)}
		req, _ := tool.InputSchema.(map[string]any)["required"].([]any)
		for _, r := range req {
			ts.required = append(ts.required, r.(string))
		}
		all[tool.Name] = ts
	}
	return all
}

// unknownNames is the names text gives that are none of tool's arguments
// or result fields, nor a tool, nor the argument of the tool it says.
func unknownNames(text, tool string, all map[string]toolSchema) []string {
	var bad []string
	for _, n := range namesIn(text) {
		if n.tool != "" {
			if _, ok := all[n.tool].in[n.name]; !ok {
				bad = append(bad, n.tool+"'s "+n.name)
			}
			continue
		}
		_, in := all[tool].in[n.name]
		_, out := all[tool].out[n.name]
		_, isTool := all[n.name]
		if !in && !out && !isTool {
			bad = append(bad, n.name)
		}
	}
	return bad
}

// TestDescriptionsTrue: every tool's description, and every description
// of its arguments and result fields, names only arguments its schema has
// (or fields of its result, or tools), and what reads the web says when
// it renders pages, never that it does not.
func TestDescriptionsTrue(t *testing.T) {
	cs := connect(t, newServer(t, Limits{}, loopback), nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	all := schemas(t, res.Tools)
	for _, tool := range res.Tools {
		if bad := unknownNames(tool.Description, tool.Name, all); len(bad) > 0 {
			t.Errorf("%s's description names %v, which its schema has not:\n%s", tool.Name, bad, tool.Description)
		}
		for _, side := range []map[string]map[string]any{all[tool.Name].in, all[tool.Name].out} {
			for name, p := range side {
				d, _ := p["description"].(string)
				if bad := unknownNames(d, tool.Name, all); len(bad) > 0 {
					t.Errorf("%s's %s names %v, which its schema has not: %s", tool.Name, name, bad, d)
				}
			}
		}
		if strings.HasPrefix(tool.Name, "web_") && (!strings.Contains(tool.Description, "rendered in a browser") || strings.Contains(tool.Description, "not rendered")) {
			t.Errorf("%s does not say truly when pages are rendered: %s", tool.Name, tool.Description)
		}
	}
	// The test finds what it looks for.
	if bad := unknownNames("as far as the user allows (render); pass `cursor`, or stash_search's `source`, or stash_search's `depth`", "web_grep", all); !slices.Equal(bad, []string{"render", "stash_search's depth"}) {
		t.Errorf("names not found in web_grep's schema: %v", bad)
	}
}

// tableRow is a row of docs/mcp.md's table of tools: a tool's name
// (`web_fetch`), its arguments (`url`, `max_chars?`, ? for one that may
// be left out) and what it does.
var tableRow = regexp.MustCompile("^\\| `([a-z_]+)` \\| ([^|]*) \\| (.*) \\|$")

// TestToolTable: the table of tools in docs/mcp.md has a row for every
// tool heed registers, and for no other; each lists the tool's arguments,
// those it requires without ?, the rest with; and what each row says it
// does names only arguments and fields of its tool, or tools.
func TestToolTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, newServer(t, Limits{}, loopback), nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	all := schemas(t, res.Tools)
	rows := map[string]bool{}
	for line := range strings.Lines(string(doc)) {
		m := tableRow.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		tool, args, does := m[1], m[2], m[3]
		ts, ok := all[tool]
		if !ok {
			t.Errorf("docs/mcp.md has a row for %s, which heed has no tool of", tool)
			continue
		}
		rows[tool] = true
		var listed, want []string
		for _, a := range strings.Split(args, ",") {
			if a = strings.Trim(strings.TrimSpace(a), "`"); a != "" {
				listed = append(listed, a)
			}
		}
		for name := range ts.in {
			if !slices.Contains(ts.required, name) {
				name += "?"
			}
			want = append(want, name)
		}
		sort.Strings(listed)
		sort.Strings(want)
		if !slices.Equal(listed, want) {
			t.Errorf("docs/mcp.md: %s's arguments are %v; heed's are %v", tool, listed, want)
		}
		if bad := unknownNames(does, tool, all); len(bad) > 0 {
			t.Errorf("docs/mcp.md: %s's row names %v, which its schema has not", tool, bad)
		}
	}
	for name := range all {
		if !rows[name] {
			t.Errorf("docs/mcp.md has no row for %s", name)
		}
	}
}

// TestReadmeNamesTheTools: the README's MCP section names every tool
// heed registers, and no other.
func TestReadmeNamesTheTools(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, newServer(t, Limits{}, loopback), nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]bool{}
	for _, tool := range res.Tools {
		tools[tool.Name] = true
		if !strings.Contains(string(readme), "`"+tool.Name+"`") {
			t.Errorf("README.md does not name the tool %s", tool.Name)
		}
	}
	for _, m := range regexp.MustCompile("`((?:web|stash|crawl)_[a-z_]+)`").FindAllStringSubmatch(string(readme), -1) {
		if !tools[m[1]] {
			t.Errorf("README.md names %s, which heed has no tool of", m[1])
		}
	}
}
