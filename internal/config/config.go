package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/atomicfile"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/history"
)

// Config is heed's configuration.
type Config struct {
	// Agent is the User-Agent heed sends; its product token picks
	// robots.txt groups. Empty means heed's own.
	Agent string `yaml:"agent,omitempty" json:"agent,omitempty" doc:"User-Agent sent with every request; its product token picks robots.txt groups. Empty means heed's own."`
	// AllowNet lists the non-public networks heed may reach (CIDR).
	AllowNet []string `yaml:"allow_net,omitempty" json:"allow_net,omitempty" doc:"Non-public networks heed may reach, as CIDR prefixes such as 10.0.0.0/8. Nothing else non-public is ever dialled."`
	// DB is a team's database, a PostgreSQL URL.
	DB string `yaml:"db,omitempty" json:"db,omitempty" doc:"A team's database, a PostgreSQL URL such as postgres://heed@db.internal/heed: the commands that take --db use it when neither --db nor HEED_DB is given. Its password is best kept out of the file (PGPASSWORD or ~/.pgpass)."`
	// Resolve maps host names to addresses, NAME:ADDRESS, as split DNS.
	Resolve []string `yaml:"resolve,omitempty" json:"resolve,omitempty" doc:"Host names heed resolves itself, as NAME:ADDRESS such as docs.internal:10.0.0.5 (like curl's --resolve, for every port); repeat a name for more addresses. A non-public address is still reached only within allow_net."`
	// Stash is the stash directory; empty means the default.
	Stash string `yaml:"stash,omitempty" json:"stash,omitempty" doc:"The stash directory. Empty means HEED_STASH, or heed in the user's data directory."`
	// MaxCrawlDelay caps a robots.txt Crawl-delay.
	MaxCrawlDelay Duration `yaml:"max_crawl_delay,omitempty" json:"max_crawl_delay,omitempty" doc:"The longest robots.txt Crawl-delay heed honours, such as 10s (the default)."`
	// History is how much of each page's history is kept.
	History *History `yaml:"history,omitempty" json:"history,omitempty" doc:"How much of each page's history the stash (or a team's database) keeps: every version a fetch, crawl or sync finds, within these bounds."`
	// MCP holds the limits of the MCP server (heed mcp): no tool argument
	// goes past them.
	MCP *MCP `yaml:"mcp,omitempty" json:"mcp,omitempty" doc:"Limits of the MCP server (heed mcp). An agent's tool arguments can narrow them, never widen them."`
	// Browser configures rendering in a browser.
	Browser *Browser `yaml:"browser,omitempty" json:"browser,omitempty" doc:"The browser that renders pages needing JavaScript (Chromium), and a page's budgets."`
	// Bluesky configures the Bluesky source kind.
	Bluesky *Bluesky `yaml:"bluesky,omitempty" json:"bluesky,omitempty" doc:"Settings of Bluesky sources."`
	// X configures the X source kind.
	X *X `yaml:"x,omitempty" json:"x,omitempty" doc:"Settings of X sources."`
	// Sources are the named sources, by name.
	Sources map[string]*Source `yaml:"sources,omitempty" json:"sources,omitempty" doc:"Named sources that heed add records and heed sync ingests."`

	path  string
	kinds []string   // the kinds of source heed knows
	doc   *yaml.Node // the document as read, for writing back
	// prefix is the text of a file without a document (comments only),
	// which the YAML parser does not keep: it is written back first.
	prefix []byte
}

// Source is one named source and how to ingest it. Its crawl options
// start from crawlopt.Defaults: an entry read from the file is decoded
// over them, and one written holds those that differ from them.
type Source struct {
	URL   string `yaml:"url" json:"url" doc:"Where the source is: a site's start URL, a feed, a Bluesky or an X profile." required:"true"`
	Kind  string `yaml:"kind,omitempty" json:"kind,omitempty" enum:"kinds" doc:"What kind of source it is. Empty means found from the URL, as heed add does."`
	Limit int    `yaml:"limit,omitempty" json:"limit,omitempty" minimum:"1" doc:"For feeds, Bluesky and X: take at most this many items or posts a sync (default 50)."`
	// Options are a website's crawl settings, by their keys (Tags and
	// Delay are every kind's). Their Start and Source are the entry's url
	// and name, which the crawl of it sets; NoRobots is respect_robots
	// the other way round.
	crawlopt.Options `yaml:",inline"`
}

// respectRobots is the key the file spells NoRobots by, the other way
// round: respect_robots: false is NoRobots. It is the one key of a
// source that no field's name gives.
const (
	respectRobots    = "respect_robots"
	respectRobotsDoc = "Whether robots.txt is heeded (default true). false makes no robots.txt request at all."
)

// MarshalYAML writes a source as the file keeps it: its url, kind and
// limit, and each crawl option that is not the default, so that an entry
// says what its source asks beyond heed's defaults.
func (s Source) MarshalYAML() (any, error) {
	type entry Source // the fields, without this method
	var n yaml.Node
	if err := n.Encode(entry(s)); err != nil {
		return nil, err
	}
	isDefault := map[string]bool{}
	o, def := reflect.ValueOf(s.Options), reflect.ValueOf(crawlopt.Defaults())
	for i := range o.NumField() {
		if key := yamlName(o.Type().Field(i)); key != "" {
			isDefault[key] = reflect.DeepEqual(o.Field(i).Interface(), def.Field(i).Interface())
		}
	}
	kept := n.Content[:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !isDefault[n.Content[i].Value] {
			kept = append(kept, n.Content[i], n.Content[i+1])
		}
	}
	n.Content = kept
	if s.NoRobots {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: respectRobots}, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "false"})
	}
	return &n, nil
}

// yamlName is the key a field is written under, or "" for one the file
// does not hold.
func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if !f.IsExported() || name == "-" || f.Anonymous {
		return ""
	}
	if name == "" {
		return strings.ToLower(f.Name)
	}
	return name
}

// MCP is what the user allows agents that use heed through MCP. Zero
// values take heed mcp's defaults.
type MCP struct {
	MaxPages      int       `yaml:"max_pages,omitempty" json:"max_pages,omitempty" minimum:"1" doc:"The most pages one web_crawl or web_grep may fetch (default 100)."`
	MaxDepth      int       `yaml:"max_depth,omitempty" json:"max_depth,omitempty" minimum:"1" doc:"The deepest links one web_crawl or web_grep may follow from its start URL (default 3)."`
	Delay         *Duration `yaml:"delay,omitempty" json:"delay,omitempty" doc:"Least time between two requests to one host, for every tool call together, such as 500ms (the default). robots.txt may ask for more during crawls."`
	Deadline      Duration  `yaml:"deadline,omitempty" json:"deadline,omitempty" doc:"The longest one web_crawl or web_grep may run, such as 5m (the default)."`
	MaxChars      int       `yaml:"max_chars,omitempty" json:"max_chars,omitempty" minimum:"4000" doc:"The most characters one heed mcp tool's result may take, as JSON: its text and its structured content together (default 100000, at least 4000). An agent's max_chars is lowered to it; without one, a result takes at most 32000."`
	MaxCrawls     int       `yaml:"max_crawls,omitempty" json:"max_crawls,omitempty" minimum:"1" doc:"The most crawls one client of heed mcp may have running at once (default 3)."`
	MaxPagesInAll int       `yaml:"max_pages_in_all,omitempty" json:"max_pages_in_all,omitempty" minimum:"1" doc:"The most pages one client's running crawls may fetch together, their max_pages summed (default five times max_pages)."`
	// Token says where the bearer token of heed mcp --http is: "env:NAME"
	// or "file:PATH", never the token itself.
	Render string `yaml:"render,omitempty" json:"render,omitempty" enum:"auto,always,never" doc:"The most an agent's web_fetch and web_crawl may ask of the browser: never (no rendering), auto (the default: pages whose static HTML holds next to nothing), always."`
	Token  string `yaml:"token,omitempty" json:"token,omitempty" pattern:"^(env|file):.+$" doc:"Where the bearer token heed mcp --http asks of every request is: env:NAME (an environment variable) or file:PATH (a file holding it), never the token itself. HEED_MCP_TOKEN wins. Without one, heed mcp --http --allow-remote makes one for the run."`
}

// Browser is the browser section of the config file.
type Browser struct {
	Path        string   `yaml:"path,omitempty" json:"path,omitempty" doc:"The browser's executable. Empty means chromium, chromium-browser, google-chrome or google-chrome-stable on PATH."`
	Timeout     Duration `yaml:"timeout,omitempty" json:"timeout,omitempty" doc:"The longest one page's rendering may take, such as 20s (the default)."`
	MaxRequests int      `yaml:"max_requests,omitempty" json:"max_requests,omitempty" minimum:"1" doc:"The most requests one page's rendering makes (default 200)."`
	MaxBytes    int      `yaml:"max_bytes,omitempty" json:"max_bytes,omitempty" minimum:"1" doc:"The most bytes of responses one page's rendering takes (default 20971520, 20 MB)."`
	MaxMemory   int      `yaml:"max_memory,omitempty" json:"max_memory,omitempty" minimum:"1" doc:"The most memory one page's renderer process may hold, in bytes (default 1073741824, 1 GiB); past it the process is stopped and the page fails (Linux)."`
	Resources   bool     `yaml:"resources,omitempty" json:"resources,omitempty" doc:"Fetch stylesheets, images, media and fonts for rendered pages too (by default they are not fetched)."`
}

// Bluesky is the bluesky section of the config file.
type Bluesky struct {
	// APIBase is the AppView's base URL.
	APIBase string `yaml:"api_base,omitempty" json:"api_base,omitempty" doc:"Base URL of the Bluesky AppView heed asks (default https://public.api.bsky.app; env HEED_BLUESKY_API_BASE wins)."`
}

// X is the x section of the config file.
type X struct {
	// APIBase is the X API's base URL.
	APIBase string `yaml:"api_base,omitempty" json:"api_base,omitempty" doc:"Base URL of the X API (default https://api.x.com; env HEED_X_API_BASE wins)."`
	// BearerToken says where the API's bearer token is: "env:NAME" or
	// "file:PATH", never the token itself.
	BearerToken string `yaml:"bearer_token,omitempty" json:"bearer_token,omitempty" pattern:"^(env|file):.+$" doc:"Where the X API bearer token is: env:NAME (an environment variable) or file:PATH (a file holding it), never the token itself. X_BEARER_TOKEN wins."`
	// RSSTemplate is the URL of a feed of a user's posts, with {user}.
	RSSTemplate string `yaml:"rss_template,omitempty" json:"rss_template,omitempty" doc:"URL of an RSS feed of an X user's posts, with {user} for the user name, used without a bearer token (X_RSS_TEMPLATE wins)."`
}

// knownKind reports whether k is one of the kinds heed knows.
func knownKind(kinds []string, k string) bool {
	for _, n := range kinds {
		if k == n {
			return true
		}
	}
	return false
}

// Validate checks a source the way Load checks one read from the file, so
// that what heed writes it can read back; kinds are the kinds of source
// heed knows. A crawl option no crawl can run with is a *crawlopt.Error.
func (s *Source) Validate(kinds []string) error {
	if err := validURL(s.URL); err != nil {
		return fmt.Errorf("url: %w", err)
	}
	switch {
	case s.Kind != "" && !knownKind(kinds, s.Kind):
		return fmt.Errorf("kind: %q is not a kind of source heed knows (%s)", s.Kind, strings.Join(kinds, ", "))
	case s.Limit < 0:
		return errors.New("limit: must be a whole number above 0")
	}
	if err := s.Options.Validate(); err != nil {
		return err
	}
	for _, g := range append(append([]string{}, s.Include...), s.Exclude...) {
		if !globRE().MatchString(g) {
			return fmt.Errorf("%q is not a path glob", g)
		}
	}
	for _, h := range s.AllowHosts {
		if h == "" || strings.ContainsAny(h, "/ ") {
			return fmt.Errorf("allow_hosts: %q is not a host", h)
		}
	}
	return nil
}

// History is how much of each page's history is kept.
type History struct {
	Versions int      `yaml:"versions,omitempty" json:"versions,omitempty" minimum:"1" doc:"The most versions a page keeps, its current one and its removals included (default 30)."`
	MaxAge   Duration `yaml:"max_age,omitempty" json:"max_age,omitempty" doc:"Versions replaced longer ago than this are let go, such as 2160h (the default is 8760h, a year); a page's current version always stays."`
}

// Retention is h as a store's retention; nil means the default.
func (h *History) Retention() history.Retention {
	if h == nil {
		return history.Retention{}
	}
	return history.Retention{Versions: h.Versions, MaxAge: time.Duration(h.MaxAge)}
}

// Duration is a time.Duration written as "500ms", "2s" or "10m".
type Duration time.Duration

// Error is a configuration error: it names the file, line and key. heed
// exits 78 (EX_CONFIG) on it.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	where := e.File
	if e.Line > 0 {
		where += ":" + strconv.Itoa(e.Line)
	}
	if e.Key != "" {
		return fmt.Sprintf("%s: %s: %s", where, e.Key, e.Msg)
	}
	return where + ": " + e.Msg
}

// DefaultPath is where the config file lives: HEED_CONFIG, or
// heed/config.yaml in the user's config directory.
func DefaultPath() (string, error) {
	if p := os.Getenv("HEED_CONFIG"); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "heed", "config.yaml"), nil
}

// Load reads the config file at path; kinds are the kinds of source heed
// knows (the kinds package lists them). A file that does not exist is an
// empty configuration, not an error.
func Load(path string, kinds []string) (*Config, error) {
	c := &Config{path: path, Sources: map[string]*Source{}, kinds: kinds}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the error names the file already
		}
		return nil, &Error{File: path, Msg: err.Error()}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &Error{File: path, Line: yamlLine(err), Msg: "not valid YAML: " + yamlMessage(err)}
	}
	c.doc = &doc
	if len(doc.Content) == 0 {
		c.prefix = bytes.TrimSuffix(bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(data), []byte("---"))), []byte("..."))
		return c, nil
	}
	d := decoder{file: path, kinds: kinds}
	if err := d.config(doc.Content[0], c); err != nil {
		return nil, err
	}
	return c, nil
}

// Path is the file the config was read from.
func (c *Config) Path() string { return c.path }

// Names returns the sources' names, sorted.
func (c *Config) Names() []string {
	names := make([]string, 0, len(c.Sources))
	for n := range c.Sources {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Nets returns AllowNet as prefixes.
func (c *Config) Nets() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range c.AllowNet {
		p, err := parseNet(s)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func parseNet(s string) (netip.Prefix, error) {
	if p, err := netip.ParsePrefix(strings.TrimSpace(s)); err == nil {
		return p.Masked(), nil
	}
	if a, err := netip.ParseAddr(strings.TrimSpace(s)); err == nil {
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	return netip.Prefix{}, fmt.Errorf("%q is not a CIDR prefix such as 10.0.0.0/8", s)
}

// ErrSourceExists is returned by AddSource for a name already recorded.
var ErrSourceExists = errors.New("config: a source of that name exists")

// AddSource records a source under a name and writes the file, keeping the
// rest of it (comments included) as it was.
func (c *Config) AddSource(name string, s *Source) error {
	if !validName(name) {
		return &Error{File: c.path, Key: "sources", Msg: fmt.Sprintf("%q is not a source name (letters, digits, '.', '_' and '-')", name)}
	}
	if _, ok := c.Sources[name]; ok {
		return fmt.Errorf("%w: %s", ErrSourceExists, name)
	}
	if err := s.Validate(c.kinds); err != nil {
		return &Error{File: c.path, Key: "sources." + name, Msg: err.Error()}
	}
	if c.doc == nil {
		c.doc = &yaml.Node{Kind: yaml.DocumentNode}
	}
	if c.doc.Kind == 0 {
		c.doc.Kind = yaml.DocumentNode // a file of comments only
	}
	if len(c.doc.Content) == 0 {
		// A file of comments only: keep them, on the document.
		c.doc.Content = []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}
	}
	root := c.doc.Content[0]
	if root.Kind != yaml.MappingNode {
		// "null" or an empty document: a mapping takes its place.
		root.Kind, root.Tag, root.Value = yaml.MappingNode, "!!map", ""
	}
	sources := mapValue(root, "sources")
	if sources == nil {
		sources = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "sources"}, sources)
	} else if sources.Kind != yaml.MappingNode {
		// "sources:" with nothing after it is null: make it a mapping.
		sources.Kind, sources.Tag, sources.Value = yaml.MappingNode, "!!map", ""
	}
	var val yaml.Node
	if err := val.Encode(s); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	sources.Content = append(sources.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, &val)
	if err := c.write(); err != nil {
		return err
	}
	if c.Sources == nil {
		c.Sources = map[string]*Source{}
	}
	c.Sources[name] = s
	return nil
}

// RemoveSource takes the source of a name out of the file, keeping the
// rest of it (comments included) as it was. It reports whether the file
// recorded the source.
func (c *Config) RemoveSource(name string) (bool, error) {
	if _, ok := c.Sources[name]; !ok || c.doc == nil || len(c.doc.Content) == 0 {
		return false, nil
	}
	root := c.doc.Content[0]
	sources := mapValue(root, "sources")
	if sources == nil || sources.Kind != yaml.MappingNode {
		return false, nil
	}
	for i := 0; i+1 < len(sources.Content); i += 2 {
		if sources.Content[i].Value == name {
			sources.Content = slices.Delete(sources.Content, i, i+2)
			if len(sources.Content) == 0 {
				// The last source: no "sources: {}" is left behind.
				for j := 0; j+1 < len(root.Content); j += 2 {
					if root.Content[j].Value == "sources" {
						root.Content = slices.Delete(root.Content, j, j+2)
						break
					}
				}
			}
			if err := c.write(); err != nil {
				return false, err
			}
			delete(c.Sources, name)
			return true, nil
		}
	}
	return false, nil
}

// write writes the document back to the file, atomically.
func (c *Config) write() error {
	var buf bytes.Buffer
	if len(c.prefix) > 0 {
		buf.Write(c.prefix)
		buf.WriteString("\n")
	}
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(c.doc); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	path := c.path
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p // a link to the file (kept with one's dotfiles) stays a link
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		// Such as --config /dev/null, for no config: renamed over, the
		// device would be a file.
		return &Error{File: c.path, Msg: "not a regular file: heed records sources only in a file"}
	}
	if err := atomicfile.Write(path, buf.Bytes()); err != nil {
		return &Error{File: c.path, Msg: "writing: " + err.Error()}
	}
	c.prefix = nil
	return nil
}

// ValidName reports whether s can name a source: letters, digits, '.',
// '_' and '-', not starting with '.'.
func ValidName(s string) bool { return validName(s) }

func validName(s string) bool {
	if s == "" || len(s) > 100 || s[0] == '.' {
		return false
	}
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// MarshalYAML writes a duration as "2s".
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// validURL checks a source URL by the rule of every entry point
// (fetch.CheckURL): credentials, for one, are refused, not dropped.
func validURL(s string) error {
	if err := fetch.CheckURL(s); err != nil {
		return fmt.Errorf("%q is not an http(s) URL heed takes: %w", fetch.Redact(s), err)
	}
	return nil
}
