package kinds

import (
	"context"
	"fmt"
	"net/url"
	"os"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/config"
	"github.com/heedhq/heed/internal/source"
	"github.com/heedhq/heed/internal/source/bluesky"
	"github.com/heedhq/heed/internal/source/feed"
	"github.com/heedhq/heed/internal/source/website"
	"github.com/heedhq/heed/internal/source/xcom"
)

// Kind is one kind of source as heed knows it.
type Kind struct {
	Name string
	// Help says what the kind takes and where it keeps it, for heed add
	// --help: lines after the first are indented by the caller.
	Help string
	// New makes the kind from the config file and the environment (whose
	// settings win). nil for the website, which the ingest service makes
	// with its own crawl.
	New func(conf *config.Config, getenv func(string) string) (source.Kind, error)
}

// All are the kinds, in the order they are asked; the website, which
// takes any URL, is last.
var All = []Kind{
	{Name: bluesky.Name, Help: "https://bsky.app/profile/HANDLE (or DID): the profile's posts, from\nthe AppView, into bluesky/HANDLE.md", New: newBluesky},
	{Name: xcom.Name, Help: "https://x.com/USER or https://twitter.com/USER: the user's posts,\nthrough the X API with a bearer token, else through a feed of them\nmade from a URL template, into x/USER.md", New: newX},
	{Name: feed.Name, Help: "an RSS, Atom, RDF or JSON feed, into feeds/HOST-PATH.md; a feed is\nfetched without robots.txt, as feed readers do (a page that is\nnot a feed by its URL is only looked at if robots.txt allows it)", New: func(*config.Config, func(string) string) (source.Kind, error) { return feed.Kind{}, nil }},
	{Name: website.Name, Help: "anything else: a polite crawl, one snapshot per page"},
}

// Names are the kinds' names, in the order they are asked.
func Names() []string {
	out := make([]string, len(All))
	for i, k := range All {
		out[i] = k.Name
	}
	return out
}

// Make makes every kind but the website from the config file and the
// environment (nil getenv reads the process's). A kind whose settings are
// broken (an X bearer token that cannot be read) fails every URL it takes
// with a *config.Error; a service's base URL that is not one is an error
// now.
func Make(conf *config.Config, getenv func(string) string) ([]source.Kind, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var out []source.Kind
	for _, k := range All {
		if k.New == nil {
			continue
		}
		kind, err := k.New(conf, getenv)
		if err != nil {
			return nil, err
		}
		out = append(out, kind)
	}
	return out, nil
}

// pick is the environment's setting, or else the config file's.
func pick(getenv func(string) string, envName, fromConfig string) string {
	if v := getenv(envName); v != "" {
		return v
	}
	return fromConfig
}

// checkBase refuses a service's base URL that is not an http(s) URL.
func checkBase(base string) error {
	if u, err := url.Parse(base); base != "" && (err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "") {
		return &heed.Error{Kind: heed.Invalid, Op: "configure the sources", Err: fmt.Errorf("%q is not an http(s) URL for a service's base", base)}
	}
	return nil
}

func newBluesky(conf *config.Config, getenv func(string) string) (source.Kind, error) {
	var base string
	if conf.Bluesky != nil {
		base = conf.Bluesky.APIBase
	}
	b := bluesky.Kind{APIBase: pick(getenv, "HEED_BLUESKY_API_BASE", base)}
	return b, checkBase(b.APIBase)
}

func newX(conf *config.Config, getenv func(string) string) (source.Kind, error) {
	var xc config.X
	if conf.X != nil {
		xc = *conf.X
	}
	x := xcom.Kind{APIBase: pick(getenv, "HEED_X_API_BASE", xc.APIBase), RSSTemplate: pick(getenv, "X_RSS_TEMPLATE", xc.RSSTemplate)}
	if err := checkBase(x.APIBase); err != nil {
		return nil, err
	}
	token, err := xcom.ResolveToken(getenv, xc.BearerToken)
	if err != nil {
		return broken{x, &config.Error{File: conf.Path(), Msg: err.Error()}}, nil
	}
	x.Token = token
	return x, nil
}

// broken is a kind whose settings are broken: it fails every URL it
// matches with the reason.
type broken struct {
	source.Kind
	err error
}

func (k broken) Ingest(context.Context, *source.Env, source.Input) (*source.Result, error) {
	return nil, k.err
}
