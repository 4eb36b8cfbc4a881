package cli

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/config"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/printable"
	"github.com/heedhq/heed/internal/source"
	"github.com/heedhq/heed/internal/source/kinds"
)

// sourcesLong is heed add's help on the kinds of source, after the kinds
// package's list (kindsHelp): what holds for all of them. It is a
// constant, so that no run but heed add's makes the help.
const sourcesLong = `

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

// kindsHelp lists the kinds of source, each with its help, in the order
// they are asked.
func kindsHelp() string {
	var b strings.Builder
	b.WriteString("Kinds of source, asked in this order; a kind that finds nothing usable at\nthe URL leaves it to the next, and a website is the last:\n")
	for _, k := range kinds.All {
		for i, line := range strings.Split(k.Help, "\n") {
			if i == 0 {
				fmt.Fprintf(&b, "\n  %-8s %s", k.Name, line)
			} else {
				fmt.Fprintf(&b, "\n           %s", line)
			}
		}
	}
	return b.String()
}

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

` + kindsHelp() + sourcesLong + `

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
			if kind != "" && !slices.Contains(kinds.Names(), kind) {
				return usageErrorf("add: --kind %q is not a kind of source heed knows (%s)", kind, strings.Join(kinds.Names(), ", "))
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
			name := cf.req.Source
			if name == "" {
				name = ingest.DefaultName(args[0], kind)
				if _, taken := conf.Sources[name]; taken && (kind == "" || kind == "feed") {
					// Another source of the host has its name: a feed
					// of it (/news/feed.json beside /blog/feed.json) is
					// named by its slug, as its file is.
					name = ingest.DefaultName(args[0], "feed")
				}
			}
			// The source is recorded with the crawl options the flags
			// give; the file keeps those that are not the defaults.
			src := &config.Source{URL: args[0], Kind: kind, Options: cf.req.Options}
			if cmd.Flags().Changed("limit") {
				src.Limit = limit
			}
			svc, err := e.service(true)
			if err != nil {
				return err
			}
			progress := e.progress(cf.jsonOut, cf.verbose)
			req := ingest.SourceRequest{Name: name, Source: *src, Events: progress.event}
			if e.db != "" {
				var stop func()
				req.Detach = cf.detach
				req.Progress, stop = e.teamProgress(cf.jsonOut)
				defer stop()
			} else if cf.detach {
				return usageErrorf("--detach queues a team's crawl: give --db URL too")
			}
			if e.terminalIn() {
				req.ChooseFeed = e.chooseFeed
			}
			res, err := svc.Add(cmd.Context(), conf, req)
			progress.done()
			if res != nil && cmd.Context().Err() == nil && (err == nil || errors.Is(err, crawl.ErrStash)) {
				rec := conf.Sources[name]
				if rec != nil {
					fmt.Fprintf(e.stderr, "heed: recorded source %q (%s, %s) in %s\n", name, rec.Kind, rec.URL, conf.Path())
					e.noteNets(conf)
				}
			}
			return e.ingested(cmd, res, err, progress)
		},
	}
	cf.register(cmd)
	e.progressFlags(cmd)
	e.dbFlagFor(cmd, "ingest into a team's database at this PostgreSQL URL (default $HEED_DB): a website is queued for its workers (heed worker) and followed")
	cmd.Flags().BoolVar(&cf.detach, "detach", false, "with --db: queue the website's crawl and return at once (the source is recorded then)")
	cmd.Flags().StringVar(&kind, "kind", "", "the kind of source: "+strings.Join(kinds.Names(), ", ")+" (default: found from the URL)")
	cmd.Flags().IntVar(&limit, "limit", source.DefaultLimit, "feeds, Bluesky and X: take at most this many items or posts a sync")
	return cmd
}

// crawlFlags are the flags that only a website's crawl reads.
var crawlFlagNames = []string{"include", "exclude", "allow-host", "whole-site", "max-pages", "max-depth", "deadline", "delay", "no-robots", "ignore-signals", "render"}

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

// noteNets says, after heed add, which of the networks --allow-net gave
// the config file does not allow: the source was read with them, and
// heed sync will need them too.
func (e *env) noteNets(conf *config.Config) {
	given, _ := fetch.ParseNets(e.allowNet)
	recorded, _ := conf.Nets()
	var missing []string
	for _, n := range given {
		if !slices.Contains(recorded, n) {
			missing = append(missing, n.String())
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(e.stderr, "heed: note: heed sync of this source needs --allow-net %s too; or add it to allow_net in %s, so that every heed command may reach it\n",
			strings.Join(missing, " --allow-net "), conf.Path())
	}
}

// ingested prints what reading a source came to, and says how it failed.
func (e *env) ingested(cmd *cobra.Command, res *ingest.SourceResult, err error, p *progress) error {
	jsonOut := p.json
	if res != nil && res.Crawl != nil {
		return e.crawled(cmd, res.Crawl, err, p) // interrupted, with what it came to
	}
	if cmd.Context().Err() != nil {
		return &exitError{code: ExitFailed, err: errors.New("interrupted; what was stored is in the stash")}
	}
	if err != nil {
		return failure(err)
	}
	if jsonOut {
		return writeJSON(e.stdout, struct {
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
		}{"summary", res.Name, res.Kind, res.URL, res.Items, res.New, res.Changed, res.NotModified, res.Path, e.svc.StashDir()})
	}
	_, err = fmt.Fprintf(e.stdout, "%s %s: %s\n%s\nstash: %s (source %q)\n", res.Kind, printable.Line(res.URL), printable.Line(res.What()), res.Path, e.svc.StashDir(), res.Name)
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// terminalIn reports whether standard input is a terminal (not a file,
// a pipe or /dev/null, which is a character device but no terminal).
func (e *env) terminalIn() bool { return isTerminal(e.stdin) }

// isTerminal reports whether r or w is a terminal.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}

// chooseFeed asks on the terminal which of a page's feeds to take, or,
// with orSite, whether to crawl the page as a website instead (-1).
func (e *env) chooseFeed(page string, feeds []string, orSite bool) (int, error) {
	fmt.Fprintf(e.stderr, "%s names %s:\n", page, plural(len(feeds), "a feed", "feeds"))
	for i, f := range feeds {
		fmt.Fprintf(e.stderr, "  %d) %s\n", i+1, printable.Line(f))
	}
	choices := "1"
	if len(feeds) > 1 {
		choices = fmt.Sprintf("1-%d", len(feeds))
	}
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
	var jsonOut, verbose, detach bool
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
			if detach && e.db == "" {
				return usageErrorf("--detach queues a team's crawl: give --db URL too")
			}
			svc, err := e.service(true)
			if err != nil {
				return err
			}
			var failed []string
			for _, n := range names {
				if !jsonOut {
					fmt.Fprintf(e.stdout, "%s:\n", n)
				}
				src := *conf.Sources[n]
				// A source recorded without a kind was recorded as a
				// website: it is crawled, never guessed again.
				if src.Kind == "" {
					src.Kind = "website"
				}
				progress := e.progress(jsonOut, verbose)
				progress.recorded = true
				req := ingest.SourceRequest{Name: n, Source: src, Events: progress.event, Detach: detach}
				var stop func()
				if e.db != "" {
					req.Progress, stop = e.teamProgress(jsonOut)
				}
				res, err := svc.Ingest(cmd.Context(), req)
				progress.done()
				if stop != nil {
					stop()
				}
				if err := e.ingested(cmd, res, err, progress); err != nil {
					var ee *exitError
					if errors.As(err, &ee) && ee.code == ExitConfig {
						return err
					}
					if cmd.Context().Err() != nil {
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
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "print a line per URL a crawl skipped or failed (else one per reason)")
	e.progressFlags(cmd)
	e.dbFlagFor(cmd, "ingest into a team's database at this PostgreSQL URL (default $HEED_DB): websites are queued for its workers (heed worker) and followed")
	cmd.Flags().BoolVar(&detach, "detach", false, "with --db: queue the websites' crawls and return at once")
	return cmd
}
