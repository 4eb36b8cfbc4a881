package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/printable"
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

// crawlFlags are the flags of a crawl, shared by crawl and add.
type crawlFlags struct {
	req     ingest.CrawlRequest
	jsonOut bool
	verbose bool
	detach  bool // a team's crawl: queue it and return
}

// register binds the crawl's flags to the request's options, each
// flag's default the option's in crawlopt.Defaults.
func (cf *crawlFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	o := &cf.req.Options
	*o = crawlopt.Defaults()
	f.StringVar(&o.Source, "name", o.Source, "the source's name in the stash (default: the start URL's host)")
	f.IntVar(&o.MaxPages, "max-pages", o.MaxPages, "fetch at most this many pages")
	f.IntVar(&o.MaxDepth, "max-depth", o.MaxDepth, "follow links at most this deep from the start URL (0: the start URL only)")
	f.DurationVar(&o.Deadline, "deadline", o.Deadline, "stop the crawl after this long")
	f.StringArrayVar(&o.Include, "include", o.Include, "crawl only paths matching this glob (repeatable; * within a segment, ** across)")
	f.StringArrayVar(&o.Exclude, "exclude", o.Exclude, "skip paths matching this glob (repeatable)")
	f.StringArrayVar(&o.AllowHosts, "allow-host", o.AllowHosts, "also crawl this host (repeatable)")
	f.BoolVar(&o.WholeSite, "whole-site", o.WholeSite, "crawl the start URL's whole origin, not only its directory (the path up to its last /)")
	f.DurationVar(&o.Delay, "delay", o.Delay, "least time between two requests to one host (robots.txt may ask for more)")
	f.BoolVar(&o.NoRobots, "no-robots", o.NoRobots, "do not consult robots.txt (no robots.txt request is made)")
	f.BoolVar(&o.IgnoreSignals, "ignore-signals", o.IgnoreSignals, "store pages whatever their noindex, nofollow and content signals say")
	f.StringArrayVar(&o.Tags, "tag", o.Tags, "tag the snapshots (repeatable)")
	f.StringVar(&o.Render, "render", o.Render, "render pages in the browser: auto (a page whose static HTML holds next to nothing but scripts), always, never")
	f.BoolVar(&cf.jsonOut, "json", false, "print a JSON line per URL and one for the summary")
	f.BoolVarP(&cf.verbose, "verbose", "v", false, "print a line per URL skipped or failed (else one per reason)")
}

// defaultProgressEvery is how often a crawl prints a progress line when
// standard error is not a terminal.
const defaultProgressEvery = 5 * time.Second

// progressFlags registers the flags of a crawl's progress output.
func (e *env) progressFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVarP(&e.quiet, "quiet", "q", false, "print no scope, progress or waiting lines, only what the crawl came to")
	f.DurationVar(&e.progressEvery, "progress-every", defaultProgressEvery, "how often to print a progress line when standard error is not a terminal")
}

// clearStatus, written to a terminal, clears the line a crawl's status
// stands on, for what is written next.
const clearStatus = "\r\033[K"

// clearLine is what clears the status line on a terminal before another
// message, "" elsewhere.
func (e *env) clearLine() string {
	if isTerminal(e.stderr) {
		return clearStatus
	}
	return ""
}

const crawlLong = `It is polite by default: robots.txt is heeded for every URL (a start URL it
disallows, or a robots.txt that cannot be reached, fails the crawl with
exit 2); requests to one host go one at a time, spaced by the larger of
--delay and robots.txt's Crawl-delay (capped at 10 s); pages that say
noindex are not stored and nofollow pages' links are not followed; a
robots.txt Content-Signal of ai-input=no keeps pages out of the stash.
--no-robots and --ignore-signals opt out, and say so.

Every URL skipped is reported with its reason; the crawl ends with a
summary. Re-crawls send conditional requests and leave unchanged pages be.

Each crawl is recorded in the stash with an ID (heed status lists them).
A crawl cut short (Ctrl-C, a signal, its deadline, a crash) is resumed by
the same command, or by heed crawl --resume ID: the URLs it had queued are
crawled, those it had ended are not asked again.`

func (e *env) crawlCommand() *cobra.Command {
	var cf crawlFlags
	cmd := &cobra.Command{
		Use:   "crawl URL",
		Short: "Crawl a site politely into the stash",
		Long: `Crawl fetches a site breadth-first from URL, within URL's directory (the
path up to its last /: https://go.dev/doc/ stays under /doc/; --whole-site
widens it to the origin, --include and --exclude narrow it, --allow-host
adds hosts), and stores each page's main content as Markdown in the stash,
where 'heed search' finds it. To record the site as a source to sync
later, use 'heed add'.

` + crawlLong,
		Example: `  heed crawl https://go.dev/doc/ --max-pages 50
  heed crawl https://docs.example.com/ --include '/guide/**' --delay 2s --json
  heed crawl https://docs.example.com/ --db postgres://heed@db.internal/heed --detach`,
		Args: func(cmd *cobra.Command, args []string) error {
			if cf.req.Resume != 0 {
				if len(args) > 0 {
					return usageErrorf("crawl: give a URL or --resume ID, not both: a crawl resumed crawls what it crawled")
				}
				return nil
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			req := cf.req
			if len(args) > 0 {
				req.Start = args[0]
			}
			switch {
			case e.db != "" && req.Resume != 0:
				return usageErrorf("--resume takes up a crawl of the stash; a team's crawl goes on by itself while workers run")
			case e.db == "" && cf.detach:
				return usageErrorf("--detach queues a team's crawl: give --db URL too")
			case e.db != "":
				// The service runs it on the team's workers; this door
				// shows it as a team's crawl.
				return e.runTeamCrawl(cmd, req, cf.jsonOut, cf.detach)
			}
			return e.runCrawl(cmd, req, cf.jsonOut, cf.verbose)
		},
	}
	cf.register(cmd)
	e.progressFlags(cmd)
	e.dbFlagFor(cmd, "queue the crawl in a team's database at this PostgreSQL URL (default $HEED_DB), for its workers (heed worker), and follow it")
	cmd.Flags().BoolVar(&cf.detach, "detach", false, "with --db: queue the crawl and return at once")
	cmd.Flags().Int64Var(&cf.req.Resume, "resume", 0, "take up crawl ID of the stash again (heed status lists them), where it stopped, with the options it ran with; without it, a crawl cut short is taken up by the same command")
	return cmd
}

// runCrawl crawls into the stash and prints what it came to.
func (e *env) runCrawl(cmd *cobra.Command, req ingest.CrawlRequest, jsonOut, verbose bool) error {
	svc, err := e.service(false)
	if err != nil {
		return err
	}
	progress := e.progress(jsonOut, verbose)
	res, err := svc.Crawl(cmd.Context(), req, progress.event)
	progress.done()
	return e.crawled(cmd, res, err, progress)
}

// crawled prints what a crawl came to, and says how it failed.
func (e *env) crawled(cmd *cobra.Command, res *ingest.CrawlResult, err error, p *progress) error {
	if res != nil {
		p.explain(res)
	}
	if cmd.Context().Err() != nil {
		if res != nil && res.Summary != nil {
			e.printSummary(res, p) // what the crawl came to until then
		}
		if res != nil && res.Crawl != 0 {
			return &exitError{code: ExitFailed, err: fmt.Errorf("crawl %d interrupted; what was stored is in the stash, and the same command again (or heed crawl --resume %d) picks up where it left off", res.Crawl, res.Crawl)}
		}
		return &exitError{code: ExitFailed, err: errors.New("crawl interrupted; what was stored is in the stash")}
	}
	if err == nil {
		return e.printSummary(res, p)
	}
	if res != nil {
		// The crawl ran: what it came to, then why it failed.
		e.printSummary(res, p)
	}
	if errors.Is(err, crawl.ErrStash) {
		return &exitError{code: ExitFailed, err: fmt.Errorf("crawl stopped: %w; what was stored before is intact, and crawling again once the stash can be written picks up from there", err)}
	}
	return failure(err)
}

// printSummary prints what a crawl came to.
func (e *env) printSummary(res *ingest.CrawlResult, p *progress) error {
	jsonOut := p.json
	dir := e.svc.StashDir()
	if res.Detached {
		if jsonOut {
			return writeJSON(e.stdout, map[string]any{"event": "queued", "crawl": res.TeamCrawl, "source": res.Source})
		}
		_, err := fmt.Fprintf(e.stdout, "crawl %d queued (source %q); heed status --db shows how it goes\n", res.TeamCrawl, res.Source)
		return err
	}
	if jsonOut {
		return writeJSON(e.stdout, struct {
			Event  string `json:"event"`
			Source string `json:"source"`
			*crawl.Summary
			Stash string `json:"stash"`
		}{"summary", res.Source, res.Summary, dir})
	}
	raise := ""
	if res.Left != (crawl.Left{}) {
		raise = "(" + p.setting("max_pages") + " raises the crawl's bounds)\n"
	}
	if res.TeamCrawl != 0 {
		_, err := fmt.Fprintf(e.stdout, "%s%steam crawl %d in %s (source %q)\n", res.Summary.Text(), raise, res.TeamCrawl, printable.Line(ingest.RedactDB(e.db, e.db)), res.Source)
		return err
	}
	_, err := fmt.Fprintf(e.stdout, "%s%sstash: %s (source %q)\n", res.Summary.Text(), raise, dir, res.Source)
	return err
}

// progress shows a crawl as it goes: a JSON line per event with --json, a
// line per skipped or failed URL and a status line on a terminal, and the
// skipped and failed URLs alone otherwise.
type progress struct {
	e        *env
	json     bool
	verbose  bool // a line per URL skipped or failed
	recorded bool // a recorded source's crawl (sync): its settings are the config's, not flags
	terminal bool
	quiet    bool // no scope, progress or waiting lines
	mu       sync.Mutex
	counts   map[crawl.Kind]int
	reasons  map[reasonKey]int // URLs skipped and failed, by why
	delay    string            // the host's delay, as the last fetched page said it
	queued   int               // URLs waiting, as the last event said
	began    time.Time
	tick     *time.Ticker // the progress line's, off a terminal
	stop     chan struct{}
	stopOnce sync.Once
}

// reasonKey is why URLs were skipped or failed, as the summary counts
// them: a limit is max_pages or max_depth.
type reasonKey struct {
	kind   crawl.Kind
	reason string
}

// progress starts showing a crawl: off a terminal, and unless --quiet,
// a progress line every --progress-every on standard error, so that a
// long crawl is never silent. done ends it.
func (e *env) progress(jsonOut, verbose bool) *progress {
	p := &progress{e: e, json: jsonOut, verbose: verbose, terminal: isTerminal(e.stderr), quiet: e.quiet,
		counts: map[crawl.Kind]int{}, reasons: map[reasonKey]int{}, began: time.Now(), stop: make(chan struct{})}
	if !p.terminal && !p.quiet && e.progressEvery > 0 {
		p.tick = time.NewTicker(e.progressEvery)
		go func() {
			for {
				select {
				case <-p.tick.C:
					p.mu.Lock()
					fmt.Fprintf(p.e.stderr, "heed: %s · %s\n", p.status(), time.Since(p.began).Round(time.Second))
					p.mu.Unlock()
				case <-p.stop:
					return
				}
			}
		}()
	}
	return p
}

// status is where the crawl stands, in a line. p.mu is held.
func (p *progress) status() string {
	line := fmt.Sprintf("%d stored · %d unchanged · %d skipped · %d failed · %d queued",
		p.counts[crawl.Stored], p.counts[crawl.Unchanged], p.counts[crawl.Skipped], p.counts[crawl.Failed], p.queued)
	if p.delay != "" {
		line += " · delay " + p.delay
	}
	return line
}

func (p *progress) event(ev crawl.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev.Kind {
	case crawl.Began, crawl.Waiting:
		p.say(ev)
		return
	}
	p.counts[ev.Kind]++
	p.queued = ev.Queued
	if ev.Kind == crawl.Skipped || ev.Kind == crawl.Failed {
		reason := ev.Reason
		if reason == crawl.ReasonLimit && strings.HasPrefix(ev.Detail, "deeper than") {
			reason = "depth"
		}
		p.reasons[reasonKey{ev.Kind, reason}]++
	}
	if p.json {
		writeJSON(p.e.stdout, ev)
		return
	}
	if p.terminal {
		fmt.Fprint(p.e.stderr, clearStatus)
	}
	if p.verbose && (ev.Kind == crawl.Skipped || ev.Kind == crawl.Failed) {
		fmt.Fprintf(p.e.stderr, "%s %s: %s: %s\n", ev.Kind, printable.Line(ev.URL), ev.Reason, printable.Line(ev.Detail))
	}
	if ev.Delay != "" {
		p.delay = ev.Delay // a URL skipped unfetched has none
	}
	if p.terminal {
		fmt.Fprint(p.e.stderr, p.status())
	}
}

// say shows a line of the crawl's own, unless --quiet: its scope as it
// begins, and a wait for a host's turn. With --json it is a JSON line
// too. p.mu is held.
func (p *progress) say(ev crawl.Event) {
	if p.json {
		writeJSON(p.e.stdout, ev)
	}
	if p.quiet {
		return
	}
	if p.terminal {
		fmt.Fprint(p.e.stderr, clearStatus)
	}
	switch ev.Kind {
	case crawl.Began:
		fmt.Fprintln(p.e.stderr, beganLine(ev, p.setting))
	case crawl.Waiting:
		fmt.Fprintln(p.e.stderr, "heed: "+printable.Line(ev.Detail))
	}
	if p.terminal && !p.json && p.counts[crawl.Stored]+p.counts[crawl.Unchanged]+p.counts[crawl.Skipped]+p.counts[crawl.Failed] > 0 {
		fmt.Fprint(p.e.stderr, p.status())
	}
}

// beganLine is the line a crawl begins with (its Began event): which
// crawl it is, what it resumes, and its scope (scopeLine).
func beganLine(ev crawl.Event, setting func(string) string) string {
	lead := ""
	if r := ev.Resumed; r != nil {
		lead = fmt.Sprintf("resuming crawl %d (%d of %d URLs ended, %d queued): ", ev.Crawl, r.Ended, r.Ended+r.Queued, r.Queued)
	} else if ev.Crawl != 0 {
		lead = fmt.Sprintf("crawl %d: ", ev.Crawl)
	}
	return scopeLine(lead, ev.Detail, ev.Narrow, setting)
}

// scopeLine is the line a crawl begins with, after lead: its scope, and
// how to widen it, in the words of setting.
func scopeLine(lead, scope string, narrow bool, setting func(string) string) string {
	line := "heed: " + lead + "crawling " + printable.Line(scope)
	if narrow {
		line += " (" + setting("whole_site") + " widens it to the whole site)"
	}
	return line
}

// done ends the crawl's progress: the status line is cleared, the
// progress lines stop. It may be called more than once.
func (p *progress) done() {
	p.stopOnce.Do(func() {
		if p.tick != nil {
			p.tick.Stop()
			close(p.stop)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.terminal && !p.json {
			fmt.Fprint(p.e.stderr, clearStatus)
		}
	})
}

// explain says, a line per reason, how many URLs were skipped or failed
// and why, and what raises a limit: the crawl's lines in brief, where -v
// lists every URL.
func (p *progress) explain(res *ingest.CrawlResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json || p.verbose || len(p.reasons) == 0 {
		return
	}
	keys := make([]reasonKey, 0, len(p.reasons))
	for k := range p.reasons {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].kind != keys[j].kind {
			return keys[i].kind == crawl.Failed // failures first
		}
		return p.reasons[keys[i]] > p.reasons[keys[j]] || p.reasons[keys[i]] == p.reasons[keys[j]] && keys[i].reason < keys[j].reason
	})
	for _, k := range keys {
		n := p.reasons[k]
		fmt.Fprintf(p.e.stderr, "%s %s: %s\n", k.kind, plural(n, "1 URL", "URLs"), p.why(k, res))
	}
	fmt.Fprintln(p.e.stderr, "(-v lists each URL; the stash's log.md too, but those a limit or an interrupt left)")
}

// setting is how the user changes a crawl's setting: a flag of heed
// crawl or add (--max-pages), or, for a recorded source's sync, the
// source's key in the config file (max_pages).
func (p *progress) setting(key string) string {
	if p.recorded {
		return key + " in the source's config"
	}
	if key == "allow_hosts" {
		return "--allow-host"
	}
	return flagOf(key)
}

// why says what a reason means to the user, and what they can do.
func (p *progress) why(k reasonKey, res *ingest.CrawlResult) string {
	if k.kind == crawl.Failed {
		return k.reason
	}
	switch k.reason {
	case crawl.ReasonLimit:
		return fmt.Sprintf("limit: max_pages %d reached, left uncrawled (%s raises it)", res.MaxPages, p.setting("max_pages"))
	case "depth":
		return fmt.Sprintf("limit: deeper than max_depth %d (%s raises it)", res.MaxDepth, p.setting("max_depth"))
	case crawl.ReasonDeadline:
		return "deadline: the crawl's deadline came first (" + p.setting("deadline") + " gives it longer)"
	case crawl.ReasonInterrupted:
		return "interrupted: the crawl was stopped before their turn"
	case crawl.ReasonCancelled:
		return "cancelled: the crawl was cancelled before their turn"
	case crawl.ReasonRobots:
		return "robots: robots.txt disallows them"
	case crawl.ReasonNoindex:
		return "noindex: the pages ask not to be indexed"
	case crawl.ReasonSignal:
		return "signal: the site's Content-Signal says ai-input=no"
	case crawl.ReasonScope:
		return "scope: out of the crawl's scope (" + p.setting("whole_site") + ", " + p.setting("include") + ", " + p.setting("exclude") + " and " + p.setting("allow_hosts") + " set it)"
	case crawl.ReasonDup:
		return "duplicate: the same page as one stored"
	case crawl.ReasonType:
		return "not-html: not HTML pages"
	case crawl.ReasonRedirect:
		return "redirect: redirected to another origin, crawled in its own turn"
	}
	return k.reason
}
