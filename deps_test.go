package heed_test

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const module = "github.com/heedhq/heed"

// rule is what a package's doc says it may not import (directly) or
// depend on (through anything it imports).
type rule struct {
	sentence string
	direct   bool
	tokens   []string
}

var (
	mayNotImport = regexp.MustCompile(`It may not import ([^.:]*)[.:]`)
	dependsOnNo  = regexp.MustCompile(`[Ii]t depends on no ([^.:]*)[.:]`)
	separators   = regexp.MustCompile(`,? (?:nor on|nor|or|and)\b|,`)
)

// rules reads the rules a package's doc states.
func rules(doc string) []rule {
	doc = strings.Join(strings.Fields(doc), " ")
	var out []rule
	for _, r := range []struct {
		re     *regexp.Regexp
		direct bool
	}{{mayNotImport, true}, {dependsOnNo, false}} {
		for _, m := range r.re.FindAllStringSubmatch(doc, -1) {
			var tokens []string
			for _, t := range separators.Split(m[1], -1) {
				if t = strings.TrimSpace(t); t != "" {
					tokens = append(tokens, t)
				}
			}
			out = append(out, rule{sentence: m[0], direct: r.direct, tokens: tokens})
		}
	}
	return out
}

// forbids reports whether a token of a rule of package pkg names dep.
// "third-party package" is any package outside the standard library and
// heed; "heed's other packages" any package of heed but pkg and the root;
// a path whose first element is a directory of the module is that package
// of heed and those below it; any other path is a package of the standard
// library, exactly.
func forbids(token, pkg, dep string) bool {
	inModule := dep == module || strings.HasPrefix(dep, module+"/")
	switch token {
	case "third-party package", "third-party packages":
		first, _, _ := strings.Cut(dep, "/")
		return strings.Contains(first, ".") && !inModule
	case "heed's other packages":
		return inModule && dep != pkg && (dep != module || pkg == module)
	}
	first, _, _ := strings.Cut(token, "/")
	if _, err := os.Stat(first); err == nil && !strings.Contains(first, ".") {
		p := module + "/" + token
		return dep == p || strings.HasPrefix(dep, p+"/")
	}
	return dep == token
}

// known reports whether a rule's token names packages: a word the rules
// use, a package of the standard library, or a directory of the module.
func known(token string, std map[string]bool) bool {
	switch token {
	case "third-party package", "third-party packages", "heed's other packages":
		return true
	}
	if std[token] {
		return true
	}
	info, err := os.Stat(token)
	return err == nil && info.IsDir()
}

// TestPackageDocs: every package has a doc.go that holds its package
// comment, and no other file has one; and every package keeps the rules
// its doc states of what it may not import (directly) or depend on
// (through anything it imports). DESIGN: a package never reaches up;
// robots and extract know nothing of the network.
func TestPackageDocs(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{.Dir}}|{{join .Imports \",\"}}|{{join .Deps \",\"}}", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	stdOut, err := exec.Command("go", "list", "std").Output()
	if err != nil {
		t.Fatalf("go list std: %v", err)
	}
	std := map[string]bool{}
	for _, p := range strings.Fields(string(stdOut)) {
		std[p] = true
	}
	if len(lines) < 20 {
		t.Fatalf("go list gave too few packages to trust: %d", len(lines))
	}
	checked := 0
	for _, line := range lines {
		f := strings.Split(line, "|")
		pkg, dir, imports, deps := f[0], f[1], strings.Split(f[2], ","), strings.Split(f[3], ",")
		doc := ""
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case filepath.Base(file) == "doc.go" && af.Doc != nil:
				doc = af.Doc.Text()
			case af.Doc != nil:
				t.Errorf("%s: the package comment is in %s; it belongs in doc.go", pkg, filepath.Base(file))
			}
		}
		if doc == "" {
			t.Errorf("%s: no doc.go with the package comment", pkg)
			continue
		}
		for _, r := range rules(doc) {
			checked++
			for _, tok := range r.tokens {
				if !known(tok, std) {
					t.Errorf("%s: its doc's rule %q names %q, which is no package heed knows: the rule is not checked", pkg, r.sentence, tok)
				}
			}
			list := deps
			if r.direct {
				list = imports
			}
			for _, tok := range r.tokens {
				for _, dep := range list {
					if dep != "" && forbids(tok, pkg, dep) {
						t.Errorf("%s imports %s, and its doc says %q", pkg, dep, r.sentence)
					}
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d rules read from the packages' docs; their sentences may have changed shape", checked)
	}
}

// TestRulesRead: the rules' sentences are read as they are meant.
func TestRulesRead(t *testing.T) {
	rs := rules("Package x does things.\n\nIt may not import internal/stash, internal/ingest or\ninternal/mcp: it is a door. It depends on no net, net/http, regexp, or third-party package.")
	if len(rs) != 2 || !rs[0].direct || strings.Join(rs[0].tokens, "|") != "internal/stash|internal/ingest|internal/mcp" ||
		rs[1].direct || strings.Join(rs[1].tokens, "|") != "net|net/http|regexp|third-party package" {
		t.Fatalf("rules read as %+v", rs)
	}
	for _, c := range []struct {
		token, pkg, dep string
		want            bool
	}{
		{"internal/source", module + "/internal/crawl", module + "/internal/source/feed", true},
		{"internal/source", module + "/internal/crawl", module + "/internal/sourcex", false},
		{"net", module + "/robots", "net/url", false},
		{"net/http", module + "/robots", "net/http", true},
		{"third-party package", module + "/robots", "golang.org/x/net/html", true},
		{"third-party package", module + "/robots", module + "/fetch", false},
		{"heed's other packages", module + "/internal/wait", module, false},
		{"heed's other packages", module, module + "/fetch", true},
		{"heed's other packages", module + "/internal/memstore", module + "/internal/stash", true},
	} {
		if got := forbids(c.token, c.pkg, c.dep); got != c.want {
			t.Errorf("forbids(%q, %s, %s) = %v, want %v", c.token, c.pkg, c.dep, got, c.want)
		}
	}
}
