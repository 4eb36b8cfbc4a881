package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/config"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/internal/printable"
	"github.com/heedhq/heed/internal/stash"
	"github.com/heedhq/heed/robots"
)

// stashDir is where the stash lives: --stash, then HEED_STASH, then the
// user's data directory.
func (e *env) stashDir() (string, error) {
	c, err := e.config() // a broken config fails every command that uses it
	if err != nil {
		return "", err
	}
	if e.stash != "" {
		return e.stash, nil
	}
	if d := os.Getenv("HEED_STASH"); d != "" {
		return d, nil
	}
	if c.Stash != "" {
		return c.Stash, nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "heed"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", usageErrorf("no stash directory: pass --stash DIR or set HEED_STASH (%v)", err)
	}
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "heed"), nil
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "heed"), nil
		}
	}
	return filepath.Join(home, ".local", "share", "heed"), nil
}

func (e *env) openStash(cmd *cobra.Command) (*stash.Stash, error) {
	dir, err := e.stashDir()
	if err != nil {
		return nil, err
	}
	s, err := stash.Open(cmd.Context(), dir)
	if err != nil {
		return nil, &exitError{code: ExitFailed, err: err}
	}
	return s, nil
}

// crawlFlags are the flags of a crawl, shared by crawl and add.
type crawlFlags struct {
	o       crawl.Options
	jsonOut bool
}

func (cf *crawlFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&cf.o.Source, "name", "", "the source's name in the stash (default: the start URL's host)")
	f.IntVar(&cf.o.MaxPages, "max-pages", crawl.DefaultMaxPages, "fetch at most this many pages")
	f.IntVar(&cf.o.MaxDepth, "max-depth", crawl.DefaultMaxDepth, "follow links at most this deep from the start URL")
	f.DurationVar(&cf.o.Deadline, "deadline", crawl.DefaultDeadline, "stop the crawl after this long")
	f.StringArrayVar(&cf.o.Include, "include", nil, "crawl only paths matching this glob (repeatable; * within a segment, ** across)")
	f.StringArrayVar(&cf.o.Exclude, "exclude", nil, "skip paths matching this glob (repeatable)")
	f.StringArrayVar(&cf.o.AllowHosts, "allow-host", nil, "also crawl this host (repeatable)")
	f.DurationVar(&cf.o.Delay, "delay", defaultDelay, "least time between two requests to one host (robots.txt may ask for more)")
	f.BoolVar(&cf.o.NoRobots, "no-robots", false, "do not consult robots.txt (no robots.txt request is made)")
	f.BoolVar(&cf.o.IgnoreSignals, "ignore-signals", false, "store pages whatever their noindex, nofollow and content signals say")
	f.StringArrayVar(&cf.o.Tags, "tag", nil, "tag the snapshots (repeatable)")
	f.BoolVar(&cf.jsonOut, "json", false, "print a JSON line per URL and one for the summary")
}

// defaultDelay is the least time between two requests to a host.
const defaultDelay = 500 * time.Millisecond

const crawlLong = `It is polite by default: robots.txt is heeded for every URL (a start URL it
disallows, or a robots.txt that cannot be reached, fails the crawl with
exit 2); requests to one host go one at a time, spaced by the larger of
--delay and robots.txt's Crawl-delay (capped at 10 s); pages that say
noindex are not stored and nofollow pages' links are not followed; a
robots.txt Content-Signal of ai-input=no keeps pages out of the stash.
--no-robots and --ignore-signals opt out, and say so.

Every URL skipped is reported with its reason; the crawl ends with a
summary. Re-crawls send conditional requests and leave unchanged pages be.`

func (e *env) crawlCommand() *cobra.Command {
	var cf crawlFlags
	cmd := &cobra.Command{
		Use:   "crawl URL",
		Short: "Crawl a site politely into the stash",
		Long: `Crawl fetches a site breadth-first from URL, within its origin (narrowed or
widened with --include, --exclude and --allow-host), and stores each page's
main content as Markdown in the stash, where 'heed search' finds it. To
record the site as a source to sync later, use 'heed add'.

` + crawlLong,
		Example: `  heed crawl https://go.dev/doc/ --max-pages 50
  heed crawl https://docs.example.com/ --include '/guide/**' --delay 2s --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := cf.o
			o.Start = args[0]
			if o.Source == "" {
				o.Source = crawl.SourceName(args[0])
			}
			return e.runCrawl(cmd, o, cf.jsonOut)
		},
	}
	cf.register(cmd)
	return cmd
}

// checkOptions refuses crawl options no crawl can run with, and reads a
// --max-depth of 0 as "the start URL only".
func checkOptions(o *crawl.Options) error {
	switch {
	case !config.ValidName(o.Source):
		return usageErrorf("%q is not a source name (letters, digits, '.', '_' and '-')", o.Source)
	case o.MaxPages < 1:
		return usageErrorf("--max-pages must be 1 or more")
	case o.MaxDepth < 0:
		return usageErrorf("--max-depth must be 0 (the start URL only) or more")
	case o.Deadline <= 0:
		return usageErrorf("--deadline must be longer than 0")
	case o.Delay < 0:
		return usageErrorf("--delay cannot be negative")
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = -1 // crawl.Options: negative is the start URL only
	}
	return nil
}

// runCrawl crawls into the stash and prints the summary.
func (e *env) runCrawl(cmd *cobra.Command, o crawl.Options, jsonOut bool) error {
	return e.crawlInto(cmd, nil, o, jsonOut, nil, nil)
}

// crawlInto crawls into a stash already open, or (st nil) the stash. A
// robots.txt cache and a schedule already used for the source (nil: the
// crawl's own) are shared with it.
func (e *env) crawlInto(cmd *cobra.Command, st *stash.Stash, o crawl.Options, jsonOut bool, cache *robots.Cache, sched *polite.Schedule) error {
	if err := checkOptions(&o); err != nil {
		return err
	}
	client, err := e.client()
	if err != nil {
		return err
	}
	if conf, _ := e.config(); conf != nil && conf.MaxCrawlDelay > 0 {
		o.MaxCrawlDelay = time.Duration(conf.MaxCrawlDelay)
	}
	if st == nil {
		if st, err = e.openStash(cmd); err != nil {
			return err
		}
		defer st.Close()
	}
	if sched == nil {
		sched = polite.NewSchedule()
	}
	c := &crawl.Crawler{Client: polite.New(client, sched, o.Delay), Store: st, Agent: e.agent, Robots: cache}
	progress := e.progress(jsonOut)
	sum, err := c.Crawl(cmd.Context(), o, progress.event)
	progress.done()
	if err == nil && sum.Stored >= 100 {
		st.Optimize(cmd.Context()) // many new pages: merge the index for faster searches
	}
	if err == nil {
		if lerr := st.AppendLog(crawl.LogEntry(o, sum, progress.skips, time.Now())); lerr != nil {
			fmt.Fprintf(e.stderr, "heed: %s\n", printable.Text(lerr.Error()))
		}
	}
	if cmd.Context().Err() != nil {
		return &exitError{code: ExitFailed, err: errors.New("crawl interrupted; what was stored is in the stash, and crawling again picks up where this left off")}
	}
	if errors.Is(err, crawl.ErrStash) {
		e.printSummary(o, sum, st, jsonOut)
		return &exitError{code: ExitFailed, err: fmt.Errorf("crawl stopped: %w; what was stored before is intact, and crawling again once the stash can be written picks up from there", err)}
	}
	if err != nil {
		if errors.Is(err, crawl.ErrStartRefused) || heed.KindOf(err) == heed.Invalid {
			return &exitError{code: ExitUsage, err: err}
		}
		return &exitError{code: ExitFailed, err: err}
	}
	return e.printSummary(o, sum, st, jsonOut)
}

// printSummary prints what a crawl came to.
func (e *env) printSummary(o crawl.Options, sum *crawl.Summary, st *stash.Stash, jsonOut bool) error {
	if jsonOut {
		return writeJSON(e.stdout, struct {
			Event  string `json:"event"`
			Source string `json:"source"`
			*crawl.Summary
			Stash string `json:"stash"`
		}{"summary", o.Source, sum, st.Dir()})
	}
	_, err := fmt.Fprintf(e.stdout, "%sstash: %s (source %q)\n", sum.Text(), st.Dir(), o.Source)
	return err
}

// progress shows a crawl as it goes: a JSON line per event with --json, a
// line per skipped or failed URL and a status line on a terminal, and the
// skipped and failed URLs alone otherwise.
type progress struct {
	e        *env
	json     bool
	terminal bool
	mu       sync.Mutex
	counts   map[crawl.Kind]int
	delay    string        // the host's delay, as the last fetched page said it
	skips    []crawl.Event // skipped and failed URLs, for the stash's log
}

func (e *env) progress(jsonOut bool) *progress {
	terminal := false
	if f, ok := e.stderr.(*os.File); ok {
		if info, err := f.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
			terminal = true
		}
	}
	return &progress{e: e, json: jsonOut, terminal: terminal, counts: map[crawl.Kind]int{}}
}

func (p *progress) event(ev crawl.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.counts[ev.Kind]++
	if ev.Logged() && len(p.skips) < crawl.MaxLogged {
		p.skips = append(p.skips, ev)
	}
	if p.json {
		writeJSON(p.e.stdout, ev)
		return
	}
	if p.terminal {
		fmt.Fprint(p.e.stderr, "\r\033[K")
	}
	if ev.Kind == crawl.Skipped || ev.Kind == crawl.Failed {
		fmt.Fprintf(p.e.stderr, "%s %s: %s: %s\n", ev.Kind, printable.Line(ev.URL), ev.Reason, printable.Line(ev.Detail))
	}
	if ev.Delay != "" {
		p.delay = ev.Delay // a URL skipped unfetched has none
	}
	if p.terminal {
		fmt.Fprintf(p.e.stderr, "%d stored · %d unchanged · %d skipped · %d failed · %d queued · delay %s",
			p.counts[crawl.Stored], p.counts[crawl.Unchanged], p.counts[crawl.Skipped], p.counts[crawl.Failed], ev.Queued, p.delay)
	}
}

func (p *progress) done() {
	if p.terminal && !p.json {
		fmt.Fprint(p.e.stderr, "\r\033[K")
	}
}
