package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/heedhq/heed/internal/config"
	"github.com/heedhq/heed/internal/source/kinds"
)

// The documents a user reads: the README and the reference beside it in
// docs/. The tests below keep what they say of heed's command line, its
// config file and each other true.
const docsRoot = "../../"

// doc is one document, read once: where it is, its source, and what the
// tests check in it.
type doc struct {
	path    string // relative to the module's root, as messages name it
	src     []byte
	codes   []docCode
	links   []docLink
	anchors map[string]bool // the headings' anchors, as GitHub makes them
}

// docCode is the text of a fenced code block (lang its info string) or of
// an inline code span (inline).
type docCode struct {
	line   int
	lang   string
	inline bool
	text   string
}

// docLink is a link's or an image's destination.
type docLink struct {
	line int
	dest string
}

// readDocs reads the README and every file of docs/ as a CommonMark
// reader with GitHub's tables does.
func readDocs(t *testing.T) []*doc {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(docsRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	paths = append([]string{filepath.Join(docsRoot, "README.md")}, paths...)
	md := goldmark.New(goldmark.WithExtensions(extension.Table))
	var docs []*doc
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(docsRoot, p)
		d := &doc{path: filepath.ToSlash(rel), src: src, anchors: map[string]bool{}}
		lineOf := func(offset int) int { return 1 + strings.Count(string(src[:offset]), "\n") }
		root := md.Parser().Parse(text.NewReader(src))
		ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			switch n := n.(type) {
			case *ast.FencedCodeBlock:
				var b strings.Builder
				for i := range n.Lines().Len() {
					seg := n.Lines().At(i)
					b.Write(seg.Value(src))
				}
				line := 0
				if n.Lines().Len() > 0 {
					line = lineOf(n.Lines().At(0).Start)
				}
				d.codes = append(d.codes, docCode{line: line, lang: string(n.Language(src)), text: b.String()})
			case *ast.CodeSpan:
				var b strings.Builder
				line := 0
				for c := n.FirstChild(); c != nil; c = c.NextSibling() {
					if t, ok := c.(*ast.Text); ok {
						b.Write(t.Segment.Value(src))
						if line == 0 {
							line = lineOf(t.Segment.Start)
						}
					}
				}
				d.codes = append(d.codes, docCode{line: line, inline: true, text: b.String()})
				return ast.WalkSkipChildren, nil
			case *ast.Link:
				d.links = append(d.links, docLink{line: nodeLine(n, lineOf), dest: string(n.Destination)})
			case *ast.Image:
				d.links = append(d.links, docLink{line: nodeLine(n, lineOf), dest: string(n.Destination)})
			case *ast.Heading:
				a := anchor(plainText(n, src))
				for i := 1; d.anchors[a]; i++ { // GitHub numbers repeated headings' anchors
					a = fmt.Sprintf("%s-%d", anchor(plainText(n, src)), i)
				}
				d.anchors[a] = true
			}
			return ast.WalkContinue, nil
		})
		docs = append(docs, d)
	}
	return docs
}

// nodeLine is the line of the first text inside n, or 0.
func nodeLine(n ast.Node, lineOf func(int) int) int {
	line := 0
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering && line == 0 {
			line = lineOf(t.Segment.Start)
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return line
}

// plainText is the text of n and its descendants, code spans included.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(src))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// anchor is a heading's anchor as GitHub makes it: lower case, spaces as
// hyphens, punctuation other than hyphens and underscores left out.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// shellLangs are the info strings of the fenced blocks that hold command
// lines; other blocks (JSON, YAML, SQL, Go) are read by their own checks.
var shellLangs = []string{"", "sh", "shell", "bash", "console"}

// commandLines splits shell text into the words of each command line:
// a line, or a part of one between &&, ||, |, ;, parentheses, or a
// comment's start, which begins a command line of its own (a comment may
// name a command too). Quotes keep their words together.
func commandLines(s string) [][]string {
	var (
		lines [][]string
		words []string
		word  strings.Builder
		quote rune
		in    bool // a word has begun
	)
	endWord := func() {
		if in {
			words = append(words, word.String())
			word.Reset()
			in = false
		}
	}
	endLine := func() {
		endWord()
		if len(words) > 0 {
			lines = append(lines, words)
		}
		words = nil
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				word.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == '\\' && i+1 < len(rs) && rs[i+1] == '\n':
			i++ // a line continued
		case r == '\n' || r == ';' || r == '|' || r == '&' || r == '(' || r == ')':
			endLine()
		case r == '#' && !in:
			endLine()
		case unicode.IsSpace(r):
			endWord()
		default:
			word.WriteRune(r)
			in = true
		}
	}
	endLine()
	return lines
}

// checkCommandLine checks a command line that runs heed: that the
// command (and subcommand) exists, and that each flag after it is one
// that command defines, or a flag every command shares that it reads
// (sharedFlags). It returns what is wrong, and whether the line runs heed.
func checkCommandLine(root *cobra.Command, words []string) (bad []string, isHeed bool) {
	// The command is the first word after the environment's assignments
	// (X_BEARER_TOKEN=... heed add): a heed elsewhere is an argument
	// (go build -o heed) or a word of prose.
	start := slices.IndexFunc(words, func(w string) bool {
		name, _, assigns := strings.Cut(w, "=")
		return !assigns || strings.ContainsAny(name, "/-")
	})
	if start < 0 || words[start] != "heed" && words[start] != "./heed" {
		return nil, false
	}
	cmd, rest := root, words[start+1:]
	for len(rest) > 0 && cmd.HasSubCommands() && !strings.HasPrefix(rest[0], "-") {
		sub := subcommand(cmd, rest[0])
		if sub == nil { // no command of heed's takes arguments beside its subcommands
			return []string{fmt.Sprintf("%s %s: no such command", cmd.CommandPath(), rest[0])}, true
		}
		cmd, rest = sub, rest[1:]
	}
	for _, w := range rest {
		w = strings.Trim(w, "[]{},.")
		name, short := "", false
		switch {
		case w == "--" || w == "-" || !strings.HasPrefix(w, "-"):
			continue
		case strings.HasPrefix(w, "--"):
			name, _, _ = strings.Cut(w[2:], "=")
		default:
			name, short = w[1:], true
		}
		if !flagDefined(cmd, name, short) {
			dash := "--"
			if short {
				dash = "-"
			}
			bad = append(bad, fmt.Sprintf("%s: no flag %s%s", cmd.CommandPath(), dash, name))
		}
	}
	return bad, true
}

// subcommand is cmd's subcommand of that name or alias, or nil.
func subcommand(cmd *cobra.Command, name string) *cobra.Command {
	for _, c := range cmd.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return c
		}
	}
	return nil
}

// flagDefined reports whether cmd defines the flag, or reads the shared
// flag of that name (every command accepts every shared flag, but only
// those it reads mean anything to it).
func flagDefined(cmd *cobra.Command, name string, short bool) bool {
	if name == "help" || short && name == "h" {
		return true
	}
	if short {
		return len(name) == 1 && cmd.LocalFlags().ShorthandLookup(name) != nil
	}
	if cmd.LocalFlags().Lookup(name) != nil {
		return true
	}
	return cmd.Root().PersistentFlags().Lookup(name) != nil && slices.Contains(sharedFlags()[cmd.CommandPath()], name)
}

// commandTree is heed's whole command tree, with what cobra adds as it
// runs: help, completion and --version.
func commandTree() *cobra.Command {
	root := (&env{}).rootCommand()
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.InitDefaultVersionFlag()
	return root
}

// TestDocsCommands keeps the commands and flags the README and docs/
// name true: every heed command line in a code block or inline code (and
// the arguments of an MCP client's config) names a command heed has,
// with flags that command defines, as heed's own command tree says.
func TestDocsCommands(t *testing.T) {
	root := commandTree()
	commands := 0
	for _, d := range readDocs(t) {
		for _, c := range d.codes {
			var lines [][]string
			switch {
			case c.inline || slices.Contains(shellLangs, c.lang):
				lines = commandLines(c.text)
			case c.lang == "json":
				lines = mcpClientArgs(c.text)
			}
			for _, words := range lines {
				msgs, ok := checkCommandLine(root, words)
				if ok {
					commands++
				}
				for _, msg := range msgs {
					t.Errorf("%s:%d: %s, in %q", d.path, c.line, msg, strings.Join(words, " "))
				}
			}
		}
	}
	t.Logf("%d heed command lines checked", commands)
	if commands < 20 {
		t.Errorf("found %d heed command lines in the README and docs/; the reading of them is broken", commands)
	}
}

// mcpClientArgs reads an MCP client's config ({"mcpServers": {...}}) and
// returns the command line of each server whose command is heed.
func mcpClientArgs(s string) [][]string {
	var conf struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if json.Unmarshal([]byte(s), &conf) != nil {
		return nil
	}
	var lines [][]string
	for _, srv := range conf.MCPServers {
		if filepath.Base(srv.Command) == "heed" {
			lines = append(lines, append([]string{"heed"}, srv.Args...))
		}
	}
	return lines
}

// TestDocsCommandCheck checks the check above: it finds a made-up flag,
// command or subcommand, and lets real ones be.
func TestDocsCommandCheck(t *testing.T) {
	root := commandTree()
	for _, tc := range []struct {
		text string
		bad  bool
	}{
		{"heed crawl https://go.dev/doc/ --max-pages 30 && ./heed search goroutine leak", false},
		{"heed crawl https://go.dev/doc/ --max-pagez 30", true},
		{"X_BEARER_TOKEN=... heed add https://x.com/jack --limit=5", false},
		{"heed robots check [--file FILE] [--agent UA] [--json] URL...", false},
		{"heed robots check -f robots.txt /x", false},
		{"heed robots chekc /x", true},
		{"heed crawl -z URL", true},
		{"heed frobnicate", true},
		{"heed --version", false},
		{"heed add URL # a source; heed sync --limit 5", true}, // sync has no --limit
		{"heed search --allow-net 10.0.0.0/8 q", true},         // search reads no network
		{"heed worker --allow-net 10.0.0.0/8", false},
		{"go test ./cmd/heed -run X", false},
		{"CGO_ENABLED=0 go build -o heed ./cmd/heed", false},
		{"GRANT heed TO alice", false},
		{"GODEBUG=inittrace=1 heed --verzion", true},
	} {
		var bad []string
		for _, words := range commandLines(tc.text) {
			msgs, _ := checkCommandLine(root, words)
			bad = append(bad, msgs...)
		}
		if got := len(bad) > 0; got != tc.bad {
			t.Errorf("check of %q: %v, want bad %v", tc.text, bad, tc.bad)
		}
	}
	if got := mcpClientArgs(`{"mcpServers": {"heed": {"command": "/usr/local/bin/heed", "args": ["mcp", "--max-pagez", "5"]}}}`); len(got) != 1 || func() bool { bad, _ := checkCommandLine(root, got[0]); return bad == nil }() {
		t.Errorf("an MCP client's args with a made-up flag: %q passed", got)
	}
}

// TestDocsConfig reads every YAML block of the README and docs/ as heed
// reads its config file, strictly: a key, value or kind the docs show must
// be one heed takes.
func TestDocsConfig(t *testing.T) {
	blocks := 0
	for _, d := range readDocs(t) {
		for _, c := range d.codes {
			if c.inline || c.lang != "yaml" {
				continue
			}
			blocks++
			path := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(path, []byte(c.text), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := config.Load(path, kinds.Names()); err != nil {
				t.Errorf("%s:%d: the YAML block is no config heed reads: %v", d.path, c.line, err)
			}
		}
	}
	if blocks == 0 {
		t.Error("no YAML block in the README and docs/")
	}
}

// TestDocsLinks checks that every relative link between the README,
// docs/ and the files of the repository leads to a file that is there,
// and a link to a heading to a heading that is there.
func TestDocsLinks(t *testing.T) {
	docs := readDocs(t)
	byPath := map[string]*doc{}
	for _, d := range docs {
		byPath[d.path] = d
	}
	for _, d := range docs {
		for _, l := range d.links {
			if l.dest == "" || strings.Contains(l.dest, "://") || strings.HasPrefix(l.dest, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(l.dest, "#")
			target := d.path
			if file != "" {
				target = filepath.ToSlash(filepath.Join(filepath.Dir(d.path), file))
				if _, err := os.Stat(filepath.Join(docsRoot, target)); err != nil {
					t.Errorf("%s:%d: link to %s: %v", d.path, l.line, l.dest, err)
					continue
				}
			}
			if frag == "" {
				continue
			}
			td := byPath[target]
			if td == nil {
				t.Errorf("%s:%d: link to %s: a heading of a file that is not one of the docs", d.path, l.line, l.dest)
			} else if !td.anchors[frag] {
				t.Errorf("%s:%d: link to %s: %s has no such heading", d.path, l.line, l.dest, target)
			}
		}
	}
}
