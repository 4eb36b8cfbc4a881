package config

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/crawlopt"
	"go.yaml.in/yaml/v3"
)

// decoder reads a config document strictly, naming the line and key of
// whatever it cannot read.
type decoder struct {
	file  string
	kinds []string // the kinds of source heed knows
}

func (d *decoder) errAt(n *yaml.Node, key, format string, args ...any) error {
	return &Error{File: d.file, Line: n.Line, Key: key, Msg: fmt.Sprintf(format, args...)}
}

// fields walks a mapping, calling set for each key; unknown keys and
// duplicate keys are errors.
func (d *decoder) fields(n *yaml.Node, path string, set func(key string, v *yaml.Node) (known bool, err error)) error {
	if n.Kind != yaml.MappingNode {
		return d.errAt(n, path, "must be a mapping of keys to values")
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := strings.TrimPrefix(path+"."+k.Value, ".")
		if seen[k.Value] {
			return d.errAt(k, key, "appears twice")
		}
		seen[k.Value] = true
		known, err := set(k.Value, v)
		if err != nil {
			return err
		}
		if !known {
			return d.errAt(k, key, "is not a setting heed knows")
		}
	}
	return nil
}

func (d *decoder) config(n *yaml.Node, c *Config) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	return d.fields(n, "", func(key string, v *yaml.Node) (bool, error) {
		var err error
		switch key {
		case "agent":
			if c.Agent, err = d.str(v, key); err == nil && strings.ContainsFunc(c.Agent, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				err = d.errAt(v, key, "cannot hold control characters or line breaks")
			}
		case "allow_net":
			c.AllowNet, err = d.strs(v, key)
			for _, s := range c.AllowNet {
				if _, perr := parseNet(s); perr != nil && err == nil {
					err = d.errAt(v, key, "%v", perr)
				}
			}
		case "resolve":
			c.Resolve, err = d.strs(v, key)
			if _, perr := fetch.ParseResolve(c.Resolve); perr != nil && err == nil {
				err = d.errAt(v, key, "%v", perr)
			}
		case "db":
			c.DB, err = d.str(v, key)
		case "stash":
			c.Stash, err = d.str(v, key)
		case "max_crawl_delay":
			c.MaxCrawlDelay, err = d.duration(v, key)
		case "history":
			c.History = &History{}
			err = d.fields(v, key, func(k string, v *yaml.Node) (bool, error) {
				kk := key + "." + k
				var err error
				switch k {
				case "versions":
					c.History.Versions, err = d.positive(v, kk)
				case "max_age":
					if c.History.MaxAge, err = d.duration(v, kk); err == nil && c.History.MaxAge <= 0 {
						err = d.errAt(v, kk, "must be longer than 0")
					}
				default:
					return false, nil
				}
				return true, err
			})
		case "mcp":
			c.MCP = &MCP{}
			err = d.mcp(v, c.MCP)
		case "browser":
			c.Browser = &Browser{}
			err = d.fields(v, key, func(k string, v *yaml.Node) (bool, error) {
				kk := key + "." + k
				var err error
				switch k {
				case "path":
					c.Browser.Path, err = d.str(v, kk)
				case "timeout":
					if c.Browser.Timeout, err = d.duration(v, kk); err == nil && c.Browser.Timeout == 0 {
						err = d.errAt(v, kk, "must be longer than 0")
					}
				case "max_requests":
					c.Browser.MaxRequests, err = d.positive(v, kk)
				case "max_bytes":
					c.Browser.MaxBytes, err = d.positive(v, kk)
				case "max_memory":
					c.Browser.MaxMemory, err = d.positive(v, kk)
				case "resources":
					c.Browser.Resources, err = d.boolean(v, kk)
				default:
					return false, nil
				}
				return true, err
			})
		case "sources":
			err = d.sources(v, c)
		case "bluesky":
			c.Bluesky = &Bluesky{}
			err = d.fields(v, key, func(k string, v *yaml.Node) (bool, error) {
				if k != "api_base" {
					return false, nil
				}
				return true, d.baseURL(v, key+"."+k, &c.Bluesky.APIBase)
			})
		case "x":
			c.X = &X{}
			err = d.fields(v, key, func(k string, v *yaml.Node) (bool, error) {
				kk := key + "." + k
				var err error
				switch k {
				case "api_base":
					err = d.baseURL(v, kk, &c.X.APIBase)
				case "bearer_token":
					if c.X.BearerToken, err = d.str(v, kk); err == nil && !validSecretRef(c.X.BearerToken) {
						// The value is not repeated: it may be the token itself.
						err = d.errAt(v, kk, "must say where the token is, as env:NAME or file:PATH, never the token itself")
					}
				case "rss_template":
					if c.X.RSSTemplate, err = d.str(v, kk); err == nil {
						if uerr := validURL(strings.ReplaceAll(c.X.RSSTemplate, "{user}", "user")); uerr != nil || !strings.Contains(c.X.RSSTemplate, "{user}") {
							err = d.errAt(v, kk, "must be an http(s) URL with {user} in it, such as https://bridge.example/{user}/rss")
						}
					}
				default:
					return false, nil
				}
				return true, err
			})
		default:
			return false, nil
		}
		return true, err
	})
}

func (d *decoder) mcp(n *yaml.Node, m *MCP) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	return d.fields(n, "mcp", func(key string, v *yaml.Node) (bool, error) {
		k := "mcp." + key
		var err error
		switch key {
		case "max_pages":
			m.MaxPages, err = d.positive(v, k)
		case "max_depth":
			m.MaxDepth, err = d.positive(v, k)
		case "delay":
			var dur Duration
			dur, err = d.duration(v, k)
			m.Delay = &dur
		case "deadline":
			if m.Deadline, err = d.duration(v, k); err == nil && m.Deadline == 0 {
				err = d.errAt(v, k, "must be longer than 0")
			}
		case "max_chars":
			m.MaxChars, err = d.positive(v, k)
		case "render":
			m.Render, err = d.renderMode(v, k)
		case "token":
			if m.Token, err = d.str(v, k); err == nil && !validSecretRef(m.Token) {
				// The value is not repeated: it may be the token itself.
				err = d.errAt(v, k, "must say where the token is, as env:NAME or file:PATH, never the token itself")
			}
		default:
			return false, nil
		}
		return true, err
	})
}

func (d *decoder) sources(n *yaml.Node, c *Config) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	return d.fields(n, "sources", func(name string, v *yaml.Node) (bool, error) {
		key := "sources." + name
		if !validName(name) {
			return true, d.errAt(v, key, "%q is not a source name (letters, digits, '.', '_' and '-')", name)
		}
		s := &Source{Options: crawlopt.Defaults()}
		if err := d.source(v, key, s); err != nil {
			return true, err
		}
		if s.URL == "" {
			return true, d.errAt(v, key+".url", "is missing: every source needs its URL")
		}
		c.Sources[name] = s
		return true, nil
	})
}

// source reads a source's entry over what s holds (its crawl options'
// defaults): a key the entry does not name keeps its value. The crawl
// options' values are checked by their Validate, named by the line of
// their key.
func (d *decoder) source(n *yaml.Node, path string, s *Source) error {
	keys := map[string]*yaml.Node{}
	err := d.fields(n, path, func(key string, v *yaml.Node) (bool, error) {
		k := path + "." + key
		keys[key] = v
		var err error
		switch key {
		case "url":
			if s.URL, err = d.str(v, k); err == nil {
				if uerr := validURL(s.URL); uerr != nil {
					err = d.errAt(v, k, "%v", uerr)
				}
			}
		case "kind":
			if s.Kind, err = d.str(v, k); err == nil && !knownKind(d.kinds, s.Kind) {
				err = d.errAt(v, k, "%q is not a kind of source heed knows (%s)", s.Kind, strings.Join(d.kinds, ", "))
			}
		case "limit":
			s.Limit, err = d.positive(v, k)
		case respectRobots:
			var b bool
			b, err = d.boolean(v, k)
			s.NoRobots = !b
		case "ignore_signals":
			s.IgnoreSignals, err = d.boolean(v, k)
		case "whole_site":
			s.WholeSite, err = d.boolean(v, k)
		case "max_pages":
			s.MaxPages, err = d.integer(v, k)
		case "max_depth":
			s.MaxDepth, err = d.integer(v, k)
		case "deadline":
			var dur Duration
			dur, err = d.duration(v, k)
			s.Deadline = time.Duration(dur)
		case "delay":
			var dur Duration
			dur, err = d.duration(v, k)
			s.Delay = time.Duration(dur)
		case "render":
			s.Render, err = d.str(v, k)
		case "include":
			s.Include, err = d.globs(v, k)
		case "exclude":
			s.Exclude, err = d.globs(v, k)
		case "allow_hosts":
			if s.AllowHosts, err = d.strs(v, k); err == nil {
				for i, h := range s.AllowHosts {
					if h == "" || strings.ContainsAny(h, "/ @") {
						err = d.errAt(v.Content[i], k, "%q is not a host (such as docs.example.com or example.com:8080)", h)
						break
					}
				}
			}
		case "tags":
			s.Tags, err = d.strs(v, k)
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return err
	}
	var oe *crawlopt.Error
	if errors.As(s.Options.Validate(), &oe) {
		at := n
		if v := keys[oe.Name]; v != nil {
			at = v
		}
		return d.errAt(at, path+"."+oe.Name, "must be %s", oe.Want)
	}
	return nil
}

// baseURL reads a service's base URL.
func (d *decoder) baseURL(n *yaml.Node, key string, into *string) error {
	s, err := d.str(n, key)
	if err != nil {
		return err
	}
	if err := validURL(s); err != nil {
		return d.errAt(n, key, "%v", err)
	}
	*into = s
	return nil
}

// validSecretRef reports whether s is a reference to a secret: env:NAME
// or file:PATH.
func validSecretRef(s string) bool {
	if name, ok := strings.CutPrefix(s, "env:"); ok {
		return name != "" && !strings.ContainsAny(name, "= \t")
	}
	path, ok := strings.CutPrefix(s, "file:")
	return ok && path != ""
}

func (d *decoder) str(n *yaml.Node, key string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" && n.Tag != "!!int" && n.Tag != "!!float" {
		return "", d.errAt(n, key, "must be a string, not %s", describe(n))
	}
	return n.Value, nil
}

func (d *decoder) strs(n *yaml.Node, key string) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, d.errAt(n, key, "must be a list, not %s", describe(n))
	}
	var out []string
	for _, item := range n.Content {
		s, err := d.str(item, key)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// boolean accepts only true and false: "no", "off" or "0" are errors, so
// that a misspelt opt-out is never taken for the opposite of what was
// meant.
func (d *decoder) boolean(n *yaml.Node, key string) (bool, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		switch n.Value {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, d.errAt(n, key, "must be true or false, not %s", describe(n))
}

// integer reads a whole number; what range it must be in is its
// reader's to say.
func (d *decoder) integer(n *yaml.Node, key string) (int, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" {
		if v, err := strconv.Atoi(n.Value); err == nil {
			return v, nil
		}
	}
	return 0, d.errAt(n, key, "must be a whole number, not %s", describe(n))
}

func (d *decoder) positive(n *yaml.Node, key string) (int, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!int" {
		if v, err := strconv.Atoi(n.Value); err == nil && v > 0 {
			return v, nil
		}
	}
	return 0, d.errAt(n, key, "must be a whole number above 0, not %s", describe(n))
}

func (d *decoder) duration(n *yaml.Node, key string) (Duration, error) {
	if n.Kind == yaml.ScalarNode {
		if v, err := time.ParseDuration(n.Value); err == nil && v >= 0 {
			return Duration(v), nil
		}
		if n.Tag == "!!int" || n.Tag == "!!float" {
			if f, err := strconv.ParseFloat(n.Value, 64); err == nil && f >= 0 && f < 1e9 {
				return Duration(f * float64(time.Second)), nil
			}
		}
	}
	return 0, d.errAt(n, key, "must be a duration such as 500ms, 2s or 10m, not %s", describe(n))
}

var globRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\S+$`) })

func (d *decoder) globs(n *yaml.Node, key string) ([]string, error) {
	out, err := d.strs(n, key)
	for _, g := range out {
		if !globRE().MatchString(g) {
			return nil, d.errAt(n, key, "%q is not a path glob", g)
		}
	}
	return out, err
}

// describe names what a node holds, for messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	return strconv.Quote(n.Value)
}

// yamlLine finds the line number in a YAML parse error.
func yamlLine(err error) int {
	var te *yaml.TypeError
	msg := err.Error()
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if i := strings.Index(msg, "line "); i >= 0 {
		rest := msg[i+5:]
		j := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
		if j > 0 {
			n, _ := strconv.Atoi(rest[:j])
			return n
		}
	}
	return 0
}

func yamlMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, "line ") {
		msg = msg[i+2:]
	}
	return msg
}

// renderMode reads auto, always or never.
func (d *decoder) renderMode(n *yaml.Node, key string) (string, error) {
	s, err := d.str(n, key)
	if err == nil && s != "auto" && s != "always" && s != "never" {
		err = d.errAt(n, key, "must be auto, always or never")
	}
	return s, err
}
