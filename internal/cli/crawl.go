package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed/internal/crawl"
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
}

func (cf *crawlFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	def := ingest.DefaultCrawl("")
	f.StringVar(&cf.req.Source, "name", "", "the source's name in the stash (default: the start URL's host)")
	f.IntVar(&cf.req.MaxPages, "max-pages", def.MaxPages, "fetch at most this many pages")
	f.IntVar(&cf.req.MaxDepth, "max-depth", def.MaxDepth, "follow links at most this deep from the start URL")
	f.DurationVar(&cf.req.Deadline, "deadline", def.Deadline, "stop the crawl after this long")
	f.StringArrayVar(&cf.req.Include, "include", nil, "crawl only paths matching this glob (repeatable; * within a segment, ** across)")
	f.StringArrayVar(&cf.req.Exclude, "exclude", nil, "skip paths matching this glob (repeatable)")
	f.StringArrayVar(&cf.req.AllowHosts, "allow-host", nil, "also crawl this host (repeatable)")
	f.DurationVar(&cf.req.Delay, "delay", def.Delay, "least time between two requests to one host (robots.txt may ask for more)")
	f.BoolVar(&cf.req.NoRobots, "no-robots", false, "do not consult robots.txt (no robots.txt request is made)")
	f.BoolVar(&cf.req.IgnoreSignals, "ignore-signals", false, "store pages whatever their noindex, nofollow and content signals say")
	f.StringArrayVar(&cf.req.Tags, "tag", nil, "tag the snapshots (repeatable)")
	f.BoolVar(&cf.jsonOut, "json", false, "print a JSON line per URL and one for the summary")
}

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
			req := cf.req
			req.Start = args[0]
			return e.runCrawl(cmd, req, cf.jsonOut)
		},
	}
	cf.register(cmd)
	return cmd
}

// runCrawl crawls into the stash and prints what it came to.
func (e *env) runCrawl(cmd *cobra.Command, req ingest.CrawlRequest, jsonOut bool) error {
	svc, err := e.service(false)
	if err != nil {
		return err
	}
	progress := e.progress(jsonOut)
	res, err := svc.Crawl(cmd.Context(), req, progress.event)
	progress.done()
	return e.crawled(cmd, res, err, jsonOut)
}

// crawled prints what a crawl came to, and says how it failed.
func (e *env) crawled(cmd *cobra.Command, res *ingest.CrawlResult, err error, jsonOut bool) error {
	if cmd.Context().Err() != nil {
		return &exitError{code: ExitFailed, err: errors.New("crawl interrupted; what was stored is in the stash, and crawling again picks up where this left off")}
	}
	if errors.Is(err, crawl.ErrStash) && res != nil {
		e.printSummary(res, jsonOut)
		return &exitError{code: ExitFailed, err: fmt.Errorf("crawl stopped: %w; what was stored before is intact, and crawling again once the stash can be written picks up from there", err)}
	}
	if err != nil {
		return failure(err)
	}
	return e.printSummary(res, jsonOut)
}

// printSummary prints what a crawl came to.
func (e *env) printSummary(res *ingest.CrawlResult, jsonOut bool) error {
	dir := e.svc.StashDir()
	if jsonOut {
		return writeJSON(e.stdout, struct {
			Event  string `json:"event"`
			Source string `json:"source"`
			*crawl.Summary
			Stash string `json:"stash"`
		}{"summary", res.Source, res.Summary, dir})
	}
	_, err := fmt.Fprintf(e.stdout, "%sstash: %s (source %q)\n", res.Summary.Text(), dir, res.Source)
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
	delay    string // the host's delay, as the last fetched page said it
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
