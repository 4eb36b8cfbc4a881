package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/config"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/internal/printable"
	"github.com/heedhq/heed/internal/source"
	"github.com/heedhq/heed/internal/source/bluesky"
	"github.com/heedhq/heed/internal/source/feed"
	"github.com/heedhq/heed/internal/source/xcom"
	"github.com/heedhq/heed/internal/stash"
	"github.com/heedhq/heed/robots"
)

const sourcesLong = `Kinds of source, asked in this order; a kind that finds nothing usable at
the URL leaves it to the next, and a website is the last:

  bluesky  https://bsky.app/profile/HANDLE (or DID): the profile's posts, from
           the AppView, into bluesky/HANDLE.md
  x        https://x.com/USER or https://twitter.com/USER: the user's posts,
           through the X API with a bearer token, else through a feed of them
           made from a URL template, into x/USER.md
  feed     an RSS, Atom, RDF or JSON feed, into feeds/HOST-PATH.md; a feed is
           fetched without robots.txt, as feed readers do (a page that is
           not a feed by its URL is only looked at if robots.txt allows it)
  website  anything else: a polite crawl, one snapshot per page

--kind (or kind: in the config) names the kind and asks no other; crawl
settings (--include, --max-pages, --delay, ...) name the website. A web page
naming feeds with <link rel="alternate">: on a terminal heed asks which feed
to follow, or to crawl the site; otherwise it crawls the site and lists the
feeds ('heed add FEEDURL' follows one). With --kind feed, the page's feed is
taken (the first of several). A source in the config without kind: is a
website. Feeds, Bluesky and X take --limit items or posts a sync (50 by
default); a feed keeps the items it saw before.

Settings of the services (environment variables win over the config file):
  HEED_BLUESKY_API_BASE, bluesky.api_base   the AppView (https://public.api.bsky.app)
  HEED_X_API_BASE, x.api_base               the X API (https://api.x.com)
  X_BEARER_TOKEN, x.bearer_token            the X API's bearer token; the config
                                            names where it is: env:NAME or file:PATH
  X_RSS_TEMPLATE, x.rss_template            a feed of a user's posts, such as
                                            https://bridge.example/{user}/rss`

func (e *env) addCommand() *cobra.Command {
	var (
		cf    crawlFlags
		kind  string
		limit int
	)
	cmd := &cobra.Command{
		Use:   "add URL [--name NAME] [--kind KIND]",
		Short: "Record a source in the config file and ingest it",
		Long: `Add records URL as a named source in the config file (with the flags given,
as its settings) and ingests it into the stash: a website, a feed, a
Bluesky profile or an X profile. 'heed sync' ingests recorded sources
again.

` + sourcesLong + `

A website is crawled politely. ` + crawlLong,
		Example: `  heed add https://docs.example.com/ --name docs --include '/guide/**'
  heed add https://blog.example.com/feed.xml    # a blog's feed
  heed add https://bsky.app/profile/alice.bsky.social --limit 100
  X_BEARER_TOKEN=... heed add https://x.com/jack
  heed sync docs`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			conf, err := e.config()
			if err != nil {
				return err
			}
			if kind != "" && !slicesContains(config.Kinds, kind) {
				return usageErrorf("add: --kind %q is not a kind of source heed knows (%s)", kind, strings.Join(config.Kinds, ", "))
			}
			if limit < 1 {
				return usageErrorf("add: --limit must be 1 or more")
			}
			// Crawl settings say the source is a website: no other kind
			// is asked, and none is guessed from the page.
			if given := crawlFlagsGiven(cmd); len(given) > 0 {
				switch kind {
				case "", "website":
					kind = "website"
				default:
					return usageErrorf("add: --%s is a website's setting, and --kind is %s", given[0], kind)
				}
			}
			name := cf.o.Source
			if name == "" {
				name = defaultName(args[0])
			}
			src := sourceFromFlags(cmd, args[0], cf.o)
			if _, ok := conf.Sources[name]; ok {
				return usageErrorf("add: a source named %q is recorded already; 'heed sync %s' ingests it again, --name gives another name", name, name)
			}
			if err := src.Validate(); err != nil {
				return usageErrorf("add: %v", err)
			}
			if cmd.Flags().Changed("limit") {
				src.Limit = limit
			}
			// Ingest first: a source whose start URL robots.txt refuses, or
			// that is not a URL at all, is not recorded.
			res, ingestErr := e.ingest(cmd, name, src, kind, cf.jsonOut)
			var ee *exitError
			if errors.As(ingestErr, &ee) && ee.code == ExitUsage || res == nil {
				return ingestErr
			}
			rec := *src
			rec.Kind, rec.URL = res.Kind, res.URL
			if res.Kind != "website" {
				// A crawl's settings mean nothing to the other kinds.
				rec = config.Source{URL: res.URL, Kind: res.Kind, Limit: src.Limit, Tags: src.Tags}
			}
			if err := conf.AddSource(name, &rec); err != nil {
				var ce *config.Error
				switch {
				case errors.Is(err, config.ErrSourceExists):
					return usageErrorf("add: a source named %q is recorded already; 'heed sync %s' ingests it again, --name gives another name", name, name)
				case errors.As(err, &ce):
					return &exitError{code: ExitConfig, err: err}
				}
				return &exitError{code: ExitFailed, err: err}
			}
			fmt.Fprintf(e.stderr, "heed: recorded source %q (%s, %s) in %s\n", name, rec.Kind, rec.URL, conf.Path())
			return ingestErr
		},
	}
	cf.register(cmd)
	cmd.Flags().StringVar(&kind, "kind", "", "the kind of source: bluesky, x, feed or website (default: found from the URL)")
	cmd.Flags().IntVar(&limit, "limit", source.DefaultLimit, "feeds, Bluesky and X: take at most this many items or posts a sync")
	return cmd
}

// crawlFlags are the flags that only a website's crawl reads.
var crawlFlagNames = []string{"include", "exclude", "allow-host", "max-pages", "max-depth", "deadline", "delay", "no-robots", "ignore-signals"}

// crawlFlagsGiven lists the crawl flags given.
func crawlFlagsGiven(cmd *cobra.Command) []string {
	var out []string
	for _, n := range crawlFlagNames {
		if cmd.Flags().Changed(n) {
			out = append(out, n)
		}
	}
	return out
}

func slicesContains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// defaultName names a source after its URL: a Bluesky profile
// bluesky-HANDLE, an X profile x-USER, anything else its host.
func defaultName(raw string) string {
	u, err := url.Parse(raw)
	if err == nil {
		if actor, ok := bluesky.Actor(u); ok {
			return "bluesky-" + strings.ReplaceAll(strings.ToLower(actor), ":", "_")
		}
		if user, ok := xcom.User(u); ok {
			return "x-" + strings.ToLower(user)
		}
	}
	return crawl.SourceName(raw)
}

// sourceFromFlags records the crawl flags that were given.
func sourceFromFlags(cmd *cobra.Command, start string, o crawl.Options) *config.Source {
	s := &config.Source{URL: start, Include: o.Include, Exclude: o.Exclude, AllowHosts: o.AllowHosts, Tags: o.Tags}
	f := cmd.Flags()
	if f.Changed("no-robots") {
		respect := !o.NoRobots
		s.RespectRobots = &respect
	}
	if f.Changed("ignore-signals") {
		s.IgnoreSignals = o.IgnoreSignals
	}
	if f.Changed("max-pages") {
		s.MaxPages = o.MaxPages
	}
	if f.Changed("max-depth") {
		s.MaxDepth = o.MaxDepth
	}
	if f.Changed("deadline") {
		s.Deadline = config.Duration(o.Deadline)
	}
	if f.Changed("delay") {
		d := config.Duration(o.Delay)
		s.Delay = &d
	}
	return s
}

// optionsOf turns a recorded source into crawl options.
func optionsOf(name string, s *config.Source) crawl.Options {
	o := crawl.Options{
		Start: s.URL, Source: name, Tags: s.Tags, MaxPages: s.MaxPages, MaxDepth: s.MaxDepth,
		Deadline: time.Duration(s.Deadline), Include: s.Include, Exclude: s.Exclude, AllowHosts: s.AllowHosts,
		Delay: defaultDelay, NoRobots: !s.Robots(), IgnoreSignals: s.IgnoreSignals,
	}
	if s.Delay != nil {
		o.Delay = time.Duration(*s.Delay)
	}
	if o.MaxPages == 0 {
		o.MaxPages = crawl.DefaultMaxPages
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = crawl.DefaultMaxDepth
	}
	if o.Deadline == 0 {
		o.Deadline = crawl.DefaultDeadline
	}
	return o
}

// website is the website kind: a crawl, with its own progress and
// summary. Its error is kept for the caller, which records a source whose
// crawl failed for any reason but a usage error.
type website struct {
	e        *env
	cmd      *cobra.Command
	src      *config.Source
	jsonOut  bool
	crawlErr error

	// robots and sched are what the source's feed probe used, for the
	// crawl to share; robots is nil without robots.txt.
	robots *robots.Cache
	sched  *polite.Schedule
}

func (w *website) Name() string          { return "website" }
func (w *website) Match(u *url.URL) bool { return true }
func (w *website) Ingest(_ context.Context, env *source.Env, in source.Input) (*source.Result, error) {
	src := *w.src
	src.URL = in.URL
	w.crawlErr = w.e.crawlInto(w.cmd, env.Store.(*stash.Stash), optionsOf(in.Name, &src), w.jsonOut, w.robots, w.sched)
	return &source.Result{URL: in.URL}, nil
}

// ingest reads a source of any kind into the stash and prints what it
// came to. A nil result means nothing was ingested.
func (e *env) ingest(cmd *cobra.Command, name string, src *config.Source, kind string, jsonOut bool) (*source.Result, error) {
	client, err := e.client()
	if err != nil {
		return nil, err
	}
	reg, err := e.registry()
	if err != nil {
		return nil, err
	}
	web := &website{e: e, cmd: cmd, src: src, jsonOut: jsonOut}
	reg.Kinds = append(reg.Kinds, web)
	if !config.ValidName(name) {
		return nil, usageErrorf("%q is not a source name (letters, digits, '.', '_' and '-')", name)
	}
	st, err := e.openStash(cmd)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	env := &source.Env{Store: st, Warn: func(msg string) { fmt.Fprintf(e.stderr, "heed: warning: %s\n", printable.Text(msg)) }}
	if e.terminalIn() {
		env.ChooseFeed = e.chooseFeed
	}
	// The source's requests to a host, a page probed for feeds and then
	// a crawl's, keep one schedule: one at a time, spaced by the delay.
	sched := polite.NewSchedule()
	web.sched = sched
	env.Client = polite.New(client, sched, optionsOf(name, src).Delay)
	if !src.Robots() {
		env.Allowed = nil // --no-robots: the user's word
	} else {
		// The probe and the crawl ask robots.txt through one cache: it is
		// fetched once.
		web.robots = robots.NewCache(env.Client.LoadRobots, robots.CacheConfig{})
		env.Allowed = source.RobotsAllowed(web.robots, e.agent)
	}
	if kind == "website" {
		kind = "" // asked last in any case; the others are skipped below
		reg.Kinds = []source.Kind{web}
	}
	res, err := reg.Ingest(cmd.Context(), env, kind, source.Input{Name: name, URL: src.URL, Limit: src.Limit, Tags: src.Tags})
	if cmd.Context().Err() != nil {
		return nil, &exitError{code: ExitFailed, err: errors.New("interrupted; what was stored is in the stash")}
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return nil, err
	}
	if err != nil {
		code := ExitFailed
		if heed.KindOf(err) == heed.Invalid {
			code = ExitUsage
		}
		return nil, &exitError{code: code, err: fmt.Errorf("%s: %w", src.URL, err)}
	}
	if res.Kind == "website" {
		return res, web.crawlErr
	}
	path := ""
	if res.Snapshot != nil {
		path = res.Snapshot.Path
	} else if snap, err := st.Get(cmd.Context(), res.URL); err == nil {
		path = snap.Path
	}
	what := fmt.Sprintf("%d items, %d new", res.Items, res.New)
	switch {
	case res.NotModified:
		what = "not modified"
	case !res.Changed:
		what += ", unchanged"
	}
	if lerr := st.AppendLog(fmt.Sprintf("## %s: %s %s into %s\n\n%s: %s\n", time.Now().UTC().Format(time.RFC3339), res.Kind, res.URL, name, what, path)); lerr != nil {
		fmt.Fprintf(e.stderr, "heed: %s\n", printable.Text(lerr.Error()))
	}
	if jsonOut {
		return res, writeJSON(e.stdout, struct {
			Event       string `json:"event"`
			Source      string `json:"source"`
			Kind        string `json:"kind"`
			URL         string `json:"url"`
			Items       int    `json:"items"`
			New         int    `json:"new"`
			Changed     bool   `json:"changed"`
			NotModified bool   `json:"not_modified"`
			Path        string `json:"path,omitempty"`
			Stash       string `json:"stash"`
		}{"summary", name, res.Kind, res.URL, res.Items, res.New, res.Changed, res.NotModified, path, st.Dir()})
	}
	fmt.Fprintf(e.stdout, "%s %s: %s\n%s\nstash: %s (source %q)\n", res.Kind, printable.Line(res.URL), printable.Line(what), path, st.Dir(), name)
	return res, nil
}

// registry returns the kinds other than the website, configured from the
// environment and the config file.
func (e *env) registry() (*source.Registry, error) {
	conf, err := e.config()
	if err != nil {
		return nil, err
	}
	pick := func(envName, fromConfig string) string {
		if v := os.Getenv(envName); v != "" {
			return v
		}
		return fromConfig
	}
	var bskyBase string
	var xc config.X
	if conf.Bluesky != nil {
		bskyBase = conf.Bluesky.APIBase
	}
	if conf.X != nil {
		xc = *conf.X
	}
	b := bluesky.Kind{APIBase: pick("HEED_BLUESKY_API_BASE", bskyBase)}
	x := xcom.Kind{APIBase: pick("HEED_X_API_BASE", xc.APIBase), RSSTemplate: pick("X_RSS_TEMPLATE", xc.RSSTemplate)}
	for _, base := range []string{b.APIBase, x.APIBase} {
		if u, err := url.Parse(base); base != "" && (err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "") {
			return nil, usageErrorf("%q is not an http(s) URL for a service's base", base)
		}
	}
	token, err := xcom.ResolveToken(os.Getenv, xc.BearerToken)
	var xk source.Kind
	if err != nil {
		xk = brokenKind{x, &exitError{code: ExitConfig, err: fmt.Errorf("%s: %v", conf.Path(), err)}}
	} else {
		x.Token = token
		xk = x
	}
	return &source.Registry{Kinds: []source.Kind{b, xk, feed.Kind{}}}, nil
}

// brokenKind is a kind whose settings are broken: it fails every URL it
// matches with the reason.
type brokenKind struct {
	source.Kind
	err error
}

func (k brokenKind) Ingest(context.Context, *source.Env, source.Input) (*source.Result, error) {
	return nil, k.err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// terminalIn reports whether standard input is a terminal.
func (e *env) terminalIn() bool {
	f, ok := e.stdin.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// chooseFeed asks on the terminal which of a page's feeds to take, or,
// with orSite, whether to crawl the page as a website instead (-1).
func (e *env) chooseFeed(page string, feeds []string, orSite bool) (int, error) {
	fmt.Fprintf(e.stderr, "%s names %s:\n", page, plural(len(feeds), "a feed", "feeds"))
	for i, f := range feeds {
		fmt.Fprintf(e.stderr, "  %d) %s\n", i+1, printable.Line(f))
	}
	choices := fmt.Sprintf("1-%d", len(feeds))
	if orSite {
		fmt.Fprintf(e.stderr, "  w) none: crawl %s as a website\n", page)
		choices += " or w"
	}
	fmt.Fprintf(e.stderr, "Which one [%s, 1 if empty]? ", choices)
	line, err := bufio.NewReader(e.stdin).ReadString('\n')
	line = strings.TrimSpace(line)
	if line == "" && err == nil {
		return 0, nil
	}
	if orSite && strings.EqualFold(line, "w") {
		return -1, nil
	}
	n, perr := strconv.Atoi(line)
	if perr != nil || n < 1 || n > len(feeds) {
		return 0, usageErrorf("no feed chosen (%q); heed add the feed's URL to take it", line)
	}
	return n - 1, nil
}

func (e *env) syncCommand() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "sync [NAME...]",
		Short: "Ingest recorded sources again",
		Long: `Sync ingests the named sources of the config file again (all of them when no
name is given), each by its recorded kind and settings. Websites are
crawled; feeds are asked with conditional requests and keep the items seen
before; Bluesky and X profiles are read again. Pages that did not change
are not rewritten.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			conf, err := e.config()
			if err != nil {
				return err
			}
			names := args
			if len(names) == 0 {
				names = conf.Names()
			}
			if len(names) == 0 {
				return usageErrorf("sync: no sources are recorded in %s; 'heed add URL' records one", conf.Path())
			}
			for _, n := range names {
				if conf.Sources[n] == nil {
					return usageErrorf("sync: no source named %q in %s", n, conf.Path())
				}
			}
			var failed []string
			for _, n := range names {
				if !jsonOut {
					fmt.Fprintf(e.stdout, "%s:\n", n)
				}
				src := conf.Sources[n]
				var err error
				// A source recorded without a kind was recorded as a
				// website: it is crawled, never guessed again.
				if src.Kind == "website" || src.Kind == "" {
					err = e.runCrawl(cmd, optionsOf(n, src), jsonOut)
				} else {
					_, err = e.ingest(cmd, n, src, src.Kind, jsonOut)
				}
				if err != nil {
					var ee *exitError
					if errors.As(err, &ee) && ee.code == ExitConfig {
						return err
					}
					fmt.Fprintf(e.stderr, "heed: sync %s: %s\n", n, printable.Text(err.Error()))
					failed = append(failed, n)
				}
			}
			if len(failed) > 0 {
				return &exitError{code: ExitFailed, err: fmt.Errorf("sync: %d of %d sources failed: %v", len(failed), len(names), failed)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print a JSON line per URL and one summary per source")
	return cmd
}
