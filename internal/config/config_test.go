package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/crawlopt"
)

// testKinds are the kinds of source the tests read config files with
// (the kinds package holds heed's own list).
var testKinds = []string{"bluesky", "x", "feed", "website"}

// source is a source of a URL, with the default crawl options.
func source(url string) *Source { return &Source{URL: url, Options: crawlopt.Defaults()} }

func write(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	p := write(t, `# heed's config
agent: "ExampleAgent/1.0 (+https://example.com)"
allow_net: [10.0.0.0/8, fd00::/8, 192.168.1.5]
max_crawl_delay: 5s
db: postgres://heed@db.internal/heed
resolve: [docs.internal:10.0.0.5]
browser:
  path: /opt/chromium/chrome
  timeout: 30s
  max_requests: 50
  max_bytes: 1000000
  max_memory: 500000000
  resources: true
mcp:
  render: never
  max_pages: 40
  max_depth: 2
  delay: 1s
  deadline: 2m
  max_chars: 5000
  token: env:MY_MCP_TOKEN
sources:
  docs:
    url: https://docs.example.com/
    respect_robots: false
    max_pages: 200
    max_depth: 3
    delay: 2s
    deadline: 90
    include: ["/guide/**"]
    exclude: [/guide/old/]
    allow_hosts: [cdn.example.com]
    tags: [docs, example]
    render: always
  blog:
    url: https://blog.example.com/
`)
	c, err := Load(p, testKinds)
	if err != nil {
		t.Fatal(err)
	}
	if c.Agent != "ExampleAgent/1.0 (+https://example.com)" || len(c.AllowNet) != 3 || time.Duration(c.MaxCrawlDelay) != 5*time.Second {
		t.Errorf("top level: %+v", c)
	}
	if c.DB != "postgres://heed@db.internal/heed" || len(c.Resolve) != 1 {
		t.Errorf("db, resolve: %q, %v", c.DB, c.Resolve)
	}
	if b := c.Browser; b == nil || b.Path != "/opt/chromium/chrome" || time.Duration(b.Timeout) != 30*time.Second || b.MaxRequests != 50 || b.MaxBytes != 1000000 || b.MaxMemory != 500000000 || !b.Resources {
		t.Errorf("browser: %+v", c.Browser)
	}
	if m := c.MCP; m == nil || m.Render != "never" || m.MaxPages != 40 || m.MaxDepth != 2 || m.Delay == nil || time.Duration(*m.Delay) != time.Second ||
		time.Duration(m.Deadline) != 2*time.Minute || m.MaxChars != 5000 || m.Token != "env:MY_MCP_TOKEN" {
		t.Errorf("mcp: %+v", c.MCP)
	}
	nets, err := c.Nets()
	if err != nil || len(nets) != 3 || nets[2].String() != "192.168.1.5/32" {
		t.Errorf("Nets: %v, %v", nets, err)
	}
	d := c.Sources["docs"]
	if d == nil || !d.NoRobots || d.MaxPages != 200 || d.MaxDepth != 3 || d.Delay != 2*time.Second ||
		d.Deadline != 90*time.Second || d.Include[0] != "/guide/**" || d.Tags[1] != "example" || d.Render != "always" {
		t.Errorf("docs: %+v", d)
	}
	if b := c.Sources["blog"]; b == nil || b.NoRobots {
		t.Errorf("blog: %+v", b)
	}
	if strings.Join(c.Names(), ",") != "blog,docs" {
		t.Errorf("Names: %v", c.Names())
	}
}

// TestSourceDefaults: a source's crawl options come from
// crawlopt.Defaults, and a key its entry omits keeps the default's value.
func TestSourceDefaults(t *testing.T) {
	c, err := Load(write(t, "sources:\n  blog:\n    url: https://blog.example.com/\n  docs:\n    url: https://docs.example.com/\n    max_pages: 20\n    tags: [docs]\n"), testKinds)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Sources["blog"].Options; !reflect.DeepEqual(got, crawlopt.Defaults()) {
		t.Errorf("a source of a url only: %+v, want crawlopt.Defaults()", got)
	}
	want := crawlopt.Defaults()
	want.MaxPages, want.Tags = 20, []string{"docs"}
	if got := c.Sources["docs"].Options; !reflect.DeepEqual(got, want) {
		t.Errorf("a source of max_pages and tags: %+v, want the defaults but those", got)
	}
}

// TestSourceZeroIsZero: max_depth: 0 is a crawl of the start URL only and
// delay: 0s none, not the defaults; written back, they stay.
func TestSourceZeroIsZero(t *testing.T) {
	p := write(t, "sources:\n  one:\n    url: https://one.example/\n    max_depth: 0\n    delay: 0s\n")
	c, err := Load(p, testKinds)
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Sources["one"]; s.MaxDepth != 0 || s.Delay != 0 {
		t.Errorf("max_depth: 0, delay: 0s read as %d, %v", s.MaxDepth, s.Delay)
	}
	s := source("https://two.example/")
	s.MaxDepth, s.Delay = 0, 0
	if err := c.AddSource("two", s); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if !strings.Contains(string(data), "two:\n    url: https://two.example/\n    max_depth: 0\n    delay: 0s\n") {
		t.Errorf("the source written:\n%s", data)
	}
	back, err := Load(p, testKinds)
	if err != nil || back.Sources["two"].MaxDepth != 0 || back.Sources["two"].Delay != 0 {
		t.Errorf("read back: %+v, %v", back.Sources["two"], err)
	}
}

// TestAddSourceWritesWhatDiffers: a source is written with the crawl
// options that are not the defaults, and only them.
func TestAddSourceWritesWhatDiffers(t *testing.T) {
	p := write(t, "")
	c, err := Load(p, testKinds)
	if err != nil {
		t.Fatal(err)
	}
	plain := source("https://plain.example/")
	plain.Kind = "website"
	odd := source("https://odd.example/")
	odd.MaxPages, odd.Deadline, odd.WholeSite, odd.NoRobots, odd.Render = 20, 90*time.Second, true, true, "never"
	if err := c.AddSource("plain", plain); err != nil {
		t.Fatal(err)
	}
	if err := c.AddSource("odd", odd); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	want := "sources:\n  plain:\n    url: https://plain.example/\n    kind: website\n" +
		"  odd:\n    url: https://odd.example/\n    max_pages: 20\n    deadline: 1m30s\n    whole_site: true\n    render: never\n    respect_robots: false\n"
	if string(data) != want {
		t.Errorf("written:\n%s\nwant:\n%s", data, want)
	}
	back, err := Load(p, testKinds)
	if err != nil || !reflect.DeepEqual(back.Sources["odd"], odd) || !reflect.DeepEqual(back.Sources["plain"], plain) {
		t.Errorf("read back: %+v, %+v, %v", back.Sources["odd"], back.Sources["plain"], err)
	}
}

func TestLoadSourceKinds(t *testing.T) {
	p := write(t, `bluesky:
  api_base: http://127.0.0.1:8080
x:
  api_base: http://127.0.0.1:8081
  bearer_token: env:MY_X_TOKEN
  rss_template: https://bridge.example/{user}/rss
sources:
  blog:
    url: https://blog.example.com/feed.xml
    kind: feed
    limit: 20
  alice:
    url: https://bsky.app/profile/alice.example.com
    kind: bluesky
  jack:
    url: https://x.com/jack
    kind: x
`)
	c, err := Load(p, testKinds)
	if err != nil {
		t.Fatal(err)
	}
	if c.Bluesky == nil || c.Bluesky.APIBase != "http://127.0.0.1:8080" || c.X == nil || c.X.APIBase != "http://127.0.0.1:8081" ||
		c.X.BearerToken != "env:MY_X_TOKEN" || c.X.RSSTemplate != "https://bridge.example/{user}/rss" {
		t.Errorf("services: %+v %+v", c.Bluesky, c.X)
	}
	if b := c.Sources["blog"]; b.Kind != "feed" || b.Limit != 20 || c.Sources["alice"].Kind != "bluesky" || c.Sources["jack"].Kind != "x" {
		t.Errorf("sources: %+v", c.Sources)
	}
	// The literal token is never echoed in the error.
	for _, literal := range []string{"x:\n  bearer_token: AAAAsecretAAAA\n", "mcp:\n  token: AAAAsecretAAAA\n"} {
		_, err = Load(write(t, literal), testKinds)
		if err == nil || strings.Contains(err.Error(), "AAAAsecretAAAA") {
			t.Errorf("a literal token: %v", err)
		}
	}
}

func TestLoadMissingIsEmpty(t *testing.T) {
	c, err := Load(filepath.Join(t.TempDir(), "none.yaml"), testKinds)
	if err != nil || len(c.Sources) != 0 {
		t.Errorf("missing file: %+v, %v", c, err)
	}
	if c, err := Load(write(t, ""), testKinds); err != nil || len(c.Sources) != 0 {
		t.Errorf("empty file: %+v, %v", c, err)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, content string
		line          int
		key, msg      string
	}{
		{"string for a bool", "sources:\n  docs:\n    url: https://e.com/\n    respect_robots: no\n", 4, "sources.docs.respect_robots", `must be true or false, not "no"`},
		{"quoted false", "sources:\n  docs:\n    url: https://e.com/\n    respect_robots: \"false\"\n", 4, "sources.docs.respect_robots", "must be true or false"},
		{"unknown key", "sources:\n  docs:\n    url: https://e.com/\n    respect_robot: true\n", 4, "sources.docs.respect_robot", "is not a setting heed knows"},
		{"unknown top key", "agnet: x\n", 1, "agnet", "is not a setting heed knows"},
		{"missing url", "sources:\n  docs:\n    max_pages: 3\n", 3, "sources.docs.url", "is missing"},
		{"bad url", "sources:\n  docs:\n    url: ftp://e.com/\n", 3, "sources.docs.url", "not an http(s) URL"},
		{"negative pages", "sources:\n  docs:\n    url: https://e.com/\n    max_pages: -1\n", 4, "sources.docs.max_pages", "above 0"},
		{"pages not a number", "sources:\n  docs:\n    url: https://e.com/\n    max_pages: many\n", 4, "sources.docs.max_pages", "must be a whole number"},
		{"negative depth", "sources:\n  docs:\n    url: https://e.com/\n    max_depth: -1\n", 4, "sources.docs.max_depth", "must be 0 (the start URL only) or more"},
		{"no deadline", "sources:\n  docs:\n    url: https://e.com/\n    deadline: 0s\n", 4, "sources.docs.deadline", "must be longer than 0"},
		{"bad duration", "sources:\n  docs:\n    url: https://e.com/\n    delay: soon\n", 4, "sources.docs.delay", "must be a duration"},
		{"bad network", "allow_net: [intranet]\n", 1, "allow_net", "not a CIDR prefix"},
		{"list for a string", "agent: [a, b]\n", 1, "agent", "must be a string, not a list"},
		{"bad kind", "sources:\n  docs:\n    url: https://e.com/\n    kind: ftp\n", 4, "sources.docs.kind", "not a kind of source"},
		{"bad name", "sources:\n  ../etc:\n    url: https://e.com/\n", 3, "sources.../etc", "not a source name"},
		{"mcp pages", "mcp:\n  max_pages: 0\n", 2, "mcp.max_pages", "above 0"},
		{"mcp render", "mcp:\n  render: sometimes\n", 2, "mcp.render", "auto, always or never"},
		{"source render", "sources:\n  docs:\n    url: https://e.com/\n    render: yes\n", 4, "sources.docs.render", "auto, always or never"},
		{"browser timeout", "browser:\n  timeout: 0s\n", 2, "browser.timeout", "longer than 0"},
		{"browser unknown", "browser:\n  headless: false\n", 2, "browser.headless", "is not a setting heed knows"},
		{"history versions", "history:\n  versions: 0\n", 2, "history.versions", "above 0"},
		{"history age", "history:\n  max_age: 0s\n", 2, "history.max_age", "longer than 0"},
		{"history unknown", "history:\n  keep: all\n", 2, "history.keep", "is not a setting heed knows"},
		{"resolve", "resolve: [docs.internal]\n", 1, "resolve", "NAME:ADDRESS"},
		{"mcp unknown", "mcp:\n  respect_robots: false\n", 2, "mcp.respect_robots", "is not a setting heed knows"},
		{"mcp deadline", "mcp:\n  deadline: 0s\n", 2, "mcp.deadline", "longer than 0"},
		{"mcp literal token", "mcp:\n  token: AAAAsecretAAAA\n", 2, "mcp.token", "env:NAME or file:PATH"},
		{"duplicate key", "agent: a\nagent: b\n", 2, "agent", "appears twice"},
		{"zero limit", "sources:\n  f:\n    url: https://e.com/feed\n    limit: 0\n", 4, "sources.f.limit", "above 0"},
		{"literal token", "x:\n  bearer_token: AAAAsecretAAAA\n", 2, "x.bearer_token", "env:NAME or file:PATH"},
		{"template without user", "x:\n  rss_template: https://bridge.example/rss\n", 2, "x.rss_template", "{user}"},
		{"bad api base", "bluesky:\n  api_base: bsky\n", 2, "bluesky.api_base", "not an http(s) URL"},
		{"unknown x key", "x:\n  token: env:T\n", 2, "x.token", "is not a setting heed knows"},
		{"not YAML", "sources: [unclosed\n", 1, "", "not valid YAML"},
		{"not a mapping", "- a\n- b\n", 1, "", "must be a mapping"},
	}
	for _, tt := range tests {
		p := write(t, tt.content)
		_, err := Load(p, testKinds)
		var ce *Error
		if !errors.As(err, &ce) {
			t.Errorf("%s: got %v, want a config error", tt.name, err)
			continue
		}
		if ce.File != p || tt.line != 0 && ce.Line != tt.line || ce.Key != tt.key || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: got %q (line %d, key %q), want line %d, key %q, %q", tt.name, err, ce.Line, ce.Key, tt.line, tt.key, tt.msg)
		}
	}
}

func TestAddSourceKeepsComments(t *testing.T) {
	p := write(t, "# my heed config\nagent: me/1.0 # who I am\n\nsources:\n  old:\n    url: https://old.example/ # kept\n")
	c, err := Load(p, testKinds)
	if err != nil {
		t.Fatal(err)
	}
	s := source("https://new.example/")
	s.NoRobots, s.Delay, s.Include = true, 2*time.Second, []string{"/docs/**"}
	if err := c.AddSource("new", s); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	for _, want := range []string{"# my heed config", "# who I am", "# kept", "new:", "url: https://new.example/", "respect_robots: false", "delay: 2s"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("written config lacks %q:\n%s", want, data)
		}
	}
	again, err := Load(p, testKinds)
	if err != nil || again.Sources["new"] == nil || !again.Sources["new"].NoRobots || again.Sources["new"].Delay != 2*time.Second {
		t.Errorf("read back: %+v, %v", again, err)
	}
	if err := again.AddSource("new", source("https://x.example/")); !errors.Is(err, ErrSourceExists) {
		t.Errorf("adding a name twice: %v", err)
	}
	if err := again.AddSource("bad/name", source("https://x.example/")); err == nil {
		t.Errorf("a bad name was added")
	}
	// What heed would not read back, it does not write.
	noURL, noPages, badGlob := source("notaurl"), source("https://x.example/"), source("https://x.example/")
	noPages.MaxPages, badGlob.Include = -3, []string{"/a b"}
	for _, bad := range []*Source{noURL, noPages, badGlob} {
		if err := again.AddSource("bad", bad); err == nil {
			t.Errorf("AddSource(%+v) wrote a source Load refuses", bad)
		}
	}
	if back, err := Load(p, testKinds); err != nil || len(back.Sources) != 2 {
		t.Errorf("after refused adds: %v, %v", back, err)
	}
	// "sources:" with nothing after it, and a file of comments only.
	for _, content := range []string{"sources:\n", "# only a comment\n", "---\n# c\n...\n", "null\n"} {
		p := write(t, content)
		c, err := Load(p, testKinds)
		if err != nil {
			t.Fatalf("%q: %v", content, err)
		}
		if err := c.AddSource("s", source("https://s.example/")); err != nil {
			t.Fatalf("%q: %v", content, err)
		}
		back, err := Load(p, testKinds)
		data, _ := os.ReadFile(p)
		if err != nil || back.Sources["s"] == nil {
			t.Errorf("%q: the source was lost: %v\n%s", content, err, data)
		}
		if strings.Contains(content, "comment") && !strings.Contains(string(data), "# only a comment") {
			t.Errorf("%q: the comment was lost:\n%s", content, data)
		}
	}
	// A config that does not exist yet is created.
	fresh, _ := Load(filepath.Join(t.TempDir(), "sub", "config.yaml"), testKinds)
	if err := fresh.AddSource("first", source("https://first.example/")); err != nil {
		t.Fatal(err)
	}
	if back, err := Load(fresh.Path(), testKinds); err != nil || back.Sources["first"] == nil {
		t.Errorf("fresh config: %+v, %v", back, err)
	}
}

func TestRemoveSourceKeepsTheRest(t *testing.T) {
	p := write(t, "# my heed config\nagent: me/1.0 # who I am\n\nsources:\n  old:\n    url: https://old.example/ # gone\n  kept:\n    url: https://kept.example/ # kept\n")
	c, err := Load(p, testKinds)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := c.RemoveSource("old"); !ok || err != nil {
		t.Fatalf("RemoveSource(old) = %v, %v", ok, err)
	}
	data, _ := os.ReadFile(p)
	for _, want := range []string{"# my heed config", "# who I am", "kept:", "# kept"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("written config lacks %q:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "old") || c.Sources["old"] != nil {
		t.Errorf("the source is still recorded:\n%s", data)
	}
	again, err := Load(p, testKinds)
	if err != nil || again.Sources["old"] != nil || again.Sources["kept"] == nil {
		t.Errorf("read back: %+v, %v", again, err)
	}
	if ok, err := again.RemoveSource("old"); ok || err != nil {
		t.Errorf("removing it again = %v, %v; want false, nil", ok, err)
	}
	// The last source gone, no empty sources: is left.
	if ok, err := again.RemoveSource("kept"); !ok || err != nil {
		t.Fatalf("RemoveSource(kept) = %v, %v", ok, err)
	}
	data, _ = os.ReadFile(p)
	if strings.Contains(string(data), "sources") || !strings.Contains(string(data), "agent: me/1.0") {
		t.Errorf("the config without sources:\n%s", data)
	}
	if _, err := Load(p, testKinds); err != nil {
		t.Errorf("read back: %v", err)
	}
}

// TestLoadUnreadable: a config path that cannot be read (a directory) is
// an error that names it once, as every config error does.
func TestLoadUnreadable(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir, testKinds)
	if err == nil {
		t.Fatal("a directory was read as a config file")
	}
	if got, want := err.Error(), dir+": is a directory"; got != want {
		t.Errorf("Load(a directory) = %q, want %q", got, want)
	}
}

// TestWriteKeepsALink: a config file that is a symbolic link to one kept
// elsewhere (with one's dotfiles) stays a link when heed add or heed rm
// writes it: the file it leads to is written.
func TestWriteKeepsALink(t *testing.T) {
	kept := write(t, "# kept with my dotfiles\nsources:\n  old:\n    url: https://old.example/\n")
	link := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.Symlink(kept, link); err != nil {
		t.Fatal(err)
	}
	c, err := Load(link, testKinds)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddSource("new", source("https://new.example/")); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.RemoveSource("old"); !ok || err != nil {
		t.Fatalf("RemoveSource = %v, %v", ok, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the config's link was replaced by a file: %v, %v", fi.Mode(), err)
	}
	data, _ := os.ReadFile(kept)
	if !strings.Contains(string(data), "new.example") || strings.Contains(string(data), "old.example") || !strings.Contains(string(data), "# kept with my dotfiles") {
		t.Errorf("the file the link leads to:\n%s", data)
	}
}
