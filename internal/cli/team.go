package cli

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/printable"
	"github.com/heedhq/heed/internal/team"
)

// dbURL is the team database's URL: --db, else $HEED_DB, else the
// config file's db.
func (e *env) dbURL(flag string) string {
	if flag != "" {
		return flag
	}
	if db := os.Getenv("HEED_DB"); db != "" {
		return db
	}
	if c, err := e.config(); err == nil {
		return c.DB
	}
	return ""
}

func (e *env) migrateCommand() *cobra.Command {
	var db string
	var lockWait time.Duration
	cmd := &cobra.Command{
		Use:   "migrate --db URL",
		Short: "Create or upgrade a team database's schema (heed's and River's)",
		Long: `Migrate creates heed's tables and River's job tables in a PostgreSQL
database (15 or later), or upgrades them to what this heed knows. Running
it again changes nothing; two at once run one after the other, the second
waiting at most --lock-wait for the first, then naming the session that
holds the lock. Each step waits as long at most for the tables it alters,
then fails, changing nothing, naming the sessions that hold them: stop the
team's workers before it, and start the new heed's after it. A database
that a newer heed migrated is refused, unchanged.

The URL is a PostgreSQL connection URL or keyword/value string, from --db
or $HEED_DB; its password is never printed.`,
		Example: `  heed migrate --db postgres://heed@db.internal/heed
  HEED_DB=postgres://heed@db.internal/heed heed migrate`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			url := e.dbURL(db)
			if url == "" {
				return usageErrorf("migrate: no database: give --db URL or set HEED_DB")
			}
			res, err := ingest.Migrate(cmd.Context(), url, lockWait)
			switch {
			case errors.Is(err, ingest.ErrNewerSchema):
				return &exitError{code: ExitFailed, err: fmt.Errorf("%v (nothing was changed)", err)}
			case err != nil:
				return &exitError{code: ExitFailed, err: err}
			}
			if res.From == res.To && len(res.RiverApplied) == 0 {
				fmt.Fprintf(e.stdout, "heed's schema is at version %d, River's is current: nothing to do\n", res.To)
				return nil
			}
			fmt.Fprintf(e.stdout, "heed's schema: version %d to %d; River's migrations applied: %d\n", res.From, res.To, len(res.RiverApplied))
			return nil
		},
	}
	cmd.Flags().StringVar(&db, "db", "", "the team database's PostgreSQL URL (default $HEED_DB)")
	cmd.Flags().DurationVar(&lockWait, "lock-wait", ingest.MigrateLockWait, "how long to wait for another session's migration lock, and for each table a step alters")
	return cmd
}

// dbFlag gives a reading command --db: it then reads a team's database
// (default $HEED_DB) in place of the stash of files.
func (e *env) dbFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&e.db, "db", "", "read a team's database at this PostgreSQL URL (default $HEED_DB) in place of the stash")
	pre := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		e.db = e.dbURL(e.db)
		if pre != nil {
			return pre(c, args)
		}
		return nil
	}
}

func (e *env) exportCommand() *cobra.Command {
	var db string
	cmd := &cobra.Command{
		Use:   "export --db URL [--stash DIR]",
		Short: "Write a team database's snapshots out as a stash of files",
		Long: `Export writes every snapshot of a team's database into a stash of files
(--stash, $HEED_STASH, the config's, or the default), as a crawl there
would have written them: Markdown files with frontmatter, and their index,
for people who read or grep them. Snapshots already there as they are stay.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			url := e.dbURL(db)
			if url == "" {
				return usageErrorf("export: no database: give --db URL or set HEED_DB")
			}
			dir, err := e.stashDir()
			if err != nil {
				return failure(err)
			}
			n, err := ingest.Export(cmd.Context(), url, dir)
			if err != nil {
				return &exitError{code: ExitFailed, err: err}
			}
			fmt.Fprintf(e.stdout, "wrote %s to %s\n", heed.Count(n, "snapshot"), printable.Line(dir))
			return nil
		},
	}
	cmd.Flags().StringVar(&db, "db", "", "the team database's PostgreSQL URL (default $HEED_DB)")
	return cmd
}

func (e *env) workerCommand() *cobra.Command {
	var (
		hosts      int
		slice, ttl time.Duration
		rescue     time.Duration
		verbose    bool
	)
	cmd := &cobra.Command{
		Use:   "worker --db URL",
		Short: "Crawl a team's queued URLs until stopped, one host at a time across all workers",
		Long: `Worker takes the team crawls queued in a team's database (heed crawl --db)
and fetches their URLs, a host at a time: any number of workers, on any
number of machines, keep one schedule per host between them: one request
at a time, the larger of the crawl's --delay and robots.txt's Crawl-delay
between them, and robots.txt fetched once per origin for all of them.

A worker holds a host for a slice of time (--slice), renewing its lease
with each request; a worker that dies holds its hosts until their leases
run out (--lease), and its jobs are run again by another worker, which
repeats nothing that was committed. SIGTERM or Ctrl-C: each host's page
in flight is finished and stored, the hosts are let go, and the worker
exits 0.

Requests go through the same guarded client as every heed request:
--allow-net and --resolve (or allow_net and resolve in the config) say
which non-public networks and names it may reach.`,
		Example: `  heed worker --db postgres://heed@db.internal/heed
  heed worker --db "$HEED_DB" --hosts 32 --allow-net 10.0.0.0/8`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case e.db == "":
				return usageErrorf("worker: no database: give --db URL or set HEED_DB")
			case hosts < 1:
				return usageErrorf("worker: --hosts must be 1 or more")
			case slice <= 0:
				return usageErrorf("worker: --slice must be longer than 0")
			case ttl < time.Second:
				return usageErrorf("worker: --lease must be 1s or longer (every request is over within it)")
			}
			svc, err := e.service(false)
			if err != nil {
				return err
			}
			wc := ingest.WorkerConfig{Hosts: hosts, Slice: slice, LeaseTTL: ttl, RescueAfter: rescue}
			if verbose {
				var mu sync.Mutex
				wc.Event = func(ev crawl.Event) {
					mu.Lock()
					defer mu.Unlock()
					writeJSON(e.stdout, ev)
				}
			}
			fmt.Fprintf(e.stderr, "heed: worker started on %s\n", printable.Line(ingest.RedactDB(e.db, e.db)))
			if err := svc.Work(cmd.Context(), wc); err != nil {
				return &exitError{code: ExitFailed, err: err}
			}
			fmt.Fprintln(e.stderr, "heed: worker stopped; its hosts are let go")
			return nil
		},
	}
	e.dbFlagFor(cmd, "the team database's PostgreSQL URL (default $HEED_DB)")
	f := cmd.Flags()
	f.IntVar(&hosts, "hosts", team.DefaultHosts, "crawl at most this many hosts at once")
	f.DurationVar(&slice, "slice", team.DefaultSlice, "how long a host is held before the next in line gets a turn")
	f.DurationVar(&ttl, "lease", team.DefaultLeaseTTL, "how long a host's lease lasts unless renewed (a dead worker's hosts wait this long)")
	f.DurationVar(&rescue, "rescue-after", 0, "how long a job may run before it is taken for a dead worker's and run again (default: slice + lease + 1m)")
	f.BoolVarP(&verbose, "verbose", "v", false, "print a JSON line per URL the worker ends")
	return cmd
}

// dbFlagFor gives a command --db with its own usage line.
func (e *env) dbFlagFor(cmd *cobra.Command, usage string) {
	e.dbFlag(cmd)
	cmd.Flags().Lookup("db").Usage = usage
}

func (e *env) statusCommand() *cobra.Command {
	var (
		jsonOut bool
		limit   int
	)
	cmd := &cobra.Command{
		Use:   "status [ID]",
		Short: "Show the stash's crawls, or a team database's",
		Long: `Status lists the stash's last crawls: each one's ID, start URL, state
(running, interrupted, done, failed or cancelled), who started it, and
what its URLs came to; with an ID, that crawl. A crawl interrupted or
failed is resumed by the same command again, or by heed crawl --resume
ID; one an agent started (heed mcp), by heed mcp when it starts.

With --db (or HEED_DB), it shows a team database's crawls, each one's
state (running, or done once no URL of it waits or its deadline came,
or cancelled) and what its URLs came to, frozen when it ends; the hosts
in flight and the URLs queued; with an ID, that crawl.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if e.db == "" || len(args) > 0 {
				// The crawls' records, read through the ledger of the
				// stash or of the team's database alike.
				return e.crawlStatus(cmd, args, jsonOut, limit)
			}
			svc, err := e.service(false)
			if err != nil {
				return err
			}
			st, err := svc.TeamStatus(cmd.Context(), limit)
			if err != nil {
				return &exitError{code: ExitFailed, err: err}
			}
			if jsonOut {
				return writeJSON(e.stdout, st)
			}
			fmt.Fprintf(e.stdout, "%s · %s queued · %s in flight\n", heed.Count(st.Snapshots, "snapshot"), heed.Count(st.Queued, "URL"), heed.Count(len(st.InFlight), "host"))
			for _, h := range st.InFlight {
				fmt.Fprintf(e.stdout, "  in flight: %s\n", printable.Line(h))
			}
			for _, p := range st.Crawls {
				fmt.Fprintf(e.stdout, "crawl %d  %s  %s\n  %s\n", p.ID, p.Created.Local().Format("2006-01-02 15:04"), printable.Line(p.Start), progressLine(p))
			}
			return nil
		},
	}
	e.dbFlagFor(cmd, "show a team database's crawls: its PostgreSQL URL (default $HEED_DB)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the status as JSON")
	cmd.Flags().IntVar(&limit, "crawls", 10, "show this many of the last crawls")
	return cmd
}

// progressLine says where a team crawl stands: its state, skips and
// failures by reason.
func progressLine(p *team.Progress) string {
	state := p.State
	if state == "" {
		state = "running"
	}
	line := fmt.Sprintf("%s · %d stored · %d unchanged · %d queued · %d requests", state, p.Stored, p.Unchanged, p.Queued, p.Fetched)
	if p.New+p.Changed+p.Removed > 0 {
		line += fmt.Sprintf(" · %d new · %d changed · %d removed", p.New, p.Changed, p.Removed)
	}
	for _, kind := range []struct {
		name string
		m    map[string]int
	}{{"skipped", p.Skipped}, {"failed", p.Failed}} {
		reasons := make([]string, 0, len(kind.m))
		for r := range kind.m {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		for _, r := range reasons {
			line += fmt.Sprintf(" · %d %s (%s)", kind.m[r], kind.name, r)
		}
	}
	return line
}

// runTeamCrawl shows a crawl the service runs on a team's workers: its
// scope once queued, then, unless detach, its progress until it is done.
func (e *env) runTeamCrawl(cmd *cobra.Command, req ingest.CrawlRequest, jsonOut, detach bool) error {
	svc, err := e.service(false)
	if err != nil {
		return err
	}
	var show func(*team.Progress)
	stop := func() {}
	req.Detach = detach
	req.Progress = func(p *team.Progress) {
		if show == nil {
			show, stop = e.teamProgress(jsonOut)
		}
		show(p)
	}
	res, err := svc.Crawl(cmd.Context(), req, func(ev crawl.Event) {
		if ev.Kind == crawl.Began && !e.quiet {
			fmt.Fprintln(e.stderr, scopeLine(fmt.Sprintf("team crawl %d: ", ev.Crawl), ev.Detail, ev.Narrow, flagOf))
		}
	})
	stop()
	if res == nil {
		return failure(err)
	}
	id, p := res.TeamCrawl, res.Team
	if detach {
		if jsonOut {
			return writeJSON(e.stdout, map[string]any{"event": "queued", "crawl": id})
		}
		fmt.Fprintf(e.stdout, "crawl %d queued; heed status --db shows how it goes\n", id)
		return nil
	}
	switch {
	case cmd.Context().Err() != nil:
		if p != nil {
			// Where the crawl stands, as an interrupted crawl here says
			// what it did.
			if jsonOut {
				writeJSON(e.stdout, struct {
					Event string `json:"event"`
					*team.Progress
				}{"progress", p})
			} else {
				fmt.Fprintf(e.stdout, "crawl %d: %s\n", id, progressLine(p))
			}
		}
		fmt.Fprintf(e.stderr, "heed: stopped following crawl %d; the team's workers go on with it (heed status --db)\n", id)
		return nil
	case err != nil:
		return &exitError{code: ExitFailed, err: err}
	}
	if jsonOut {
		return writeJSON(e.stdout, struct {
			Event string `json:"event"`
			*team.Progress
		}{"summary", p})
	}
	fmt.Fprintf(e.stdout, "crawl %d: %s\n", id, progressLine(p))
	if p.Stored+p.Unchanged == 0 {
		why := "heed status --db says why, by reason"
		if p.StartEnd != "" {
			why = "the start URL was " + p.StartEnd
		}
		return &exitError{code: ExitFailed, err: fmt.Errorf("crawl %d kept nothing: %s", id, printable.Line(why))}
	}
	return nil
}

// teamProgress shows a team crawl as it goes: a line kept up to date on
// a terminal, a JSON line per change with jsonOut, a line every
// --progress-every elsewhere (unless --quiet); and, when no worker
// has made a request after a while, how to start one. stop ends it.
func (e *env) teamProgress(jsonOut bool) (show func(*team.Progress), stop func()) {
	terminal := isTerminal(e.stderr) && !jsonOut
	var mu sync.Mutex
	started := false
	hint := time.AfterFunc(10*time.Second, func() {
		mu.Lock()
		defer mu.Unlock()
		if !started {
			if terminal {
				fmt.Fprint(e.stderr, clearStatus)
			}
			fmt.Fprintln(e.stderr, "heed: no worker has taken the crawl yet; start one with heed worker --db")
		}
	})
	// Off a terminal, unless --quiet, the crawl's progress is a line
	// every --progress-every, as a crawl's here is: a team's crawl
	// followed by a script is never silent till it ends.
	var last *team.Progress
	var ticker *time.Ticker
	done := make(chan struct{})
	if !terminal && !jsonOut && !e.quiet && e.progressEvery > 0 {
		ticker = time.NewTicker(e.progressEvery)
		go func() {
			for {
				select {
				case <-ticker.C:
					mu.Lock()
					if last != nil {
						fmt.Fprintf(e.stderr, "heed: %s · %s\n", progressLine(last), time.Since(last.Created).Round(time.Second))
					}
					mu.Unlock()
				case <-done:
					return
				}
			}
		}()
	}
	show = func(p *team.Progress) {
		mu.Lock()
		defer mu.Unlock()
		last = p
		started = started || p.Fetched > 0
		switch {
		case jsonOut:
			writeJSON(e.stdout, struct {
				Event string `json:"event"`
				*team.Progress
			}{"progress", p})
		case terminal:
			fmt.Fprint(e.stderr, clearStatus+progressLine(p))
		}
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			hint.Stop()
			if ticker != nil {
				ticker.Stop()
				close(done)
			}
			mu.Lock()
			defer mu.Unlock()
			if terminal {
				fmt.Fprint(e.stderr, clearStatus)
			}
		})
	}
	return show, stop
}

// crawlStatus lists the stash's last crawls, or shows one of the stash
// or of the team's database.
func (e *env) crawlStatus(cmd *cobra.Command, args []string, jsonOut bool, limit int) error {
	svc, err := e.service(false)
	if err != nil {
		return err
	}
	var crawls []ledger.Crawl
	if len(args) == 1 {
		id, perr := strconv.ParseInt(args[0], 10, 64)
		if perr != nil || id <= 0 {
			return usageErrorf("status: %q is no crawl ID: give the number heed status lists", printable.Line(args[0]))
		}
		c, err := svc.CrawlStatus(cmd.Context(), id)
		if err != nil {
			return failure(err)
		}
		crawls = []ledger.Crawl{*c}
	} else if crawls, err = svc.Crawls(cmd.Context(), limit); err != nil {
		return failure(err)
	}
	if jsonOut {
		if crawls == nil {
			crawls = []ledger.Crawl{}
		}
		return writeJSON(e.stdout, map[string]any{"crawls": crawls})
	}
	if len(crawls) == 0 {
		fmt.Fprintln(e.stdout, "no crawl recorded in the stash yet")
		return nil
	}
	for _, c := range crawls {
		fmt.Fprintf(e.stdout, "crawl %d  %s  %s (source %q)\n  %s\n", c.ID, c.Began.Local().Format("2006-01-02 15:04"), printable.Line(c.Start), c.Source, recordLine(c))
	}
	return nil
}

// recordLine says where a crawl of the stash stands, and what its URLs
// came to.
func recordLine(c ledger.Crawl) string {
	// The record is the stash's, which anyone may have written: what it
	// says is made printable.
	line := fmt.Sprintf("%s · %d stored · %d unchanged · %d failed · %d requests", printable.Line(string(c.State)), c.Counts.Stored, c.Counts.Unchanged, c.Counts.Failed, c.Counts.Requests)
	if c.Counts.New+c.Counts.Changed+c.Counts.Removed > 0 {
		line += fmt.Sprintf(" · %d new · %d changed · %d removed", c.Counts.New, c.Counts.Changed, c.Counts.Removed)
	}
	reasons := make([]string, 0, len(c.Counts.Skipped))
	for r := range c.Counts.Skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		line += fmt.Sprintf(" · %d skipped (%s)", c.Counts.Skipped[r], printable.Line(r))
	}
	switch {
	case c.By == ledger.ByAgent && c.State == ledger.Interrupted:
		line += "\n  started by an agent (heed mcp): heed mcp takes it up again when it starts"
	case c.By == ledger.ByAgent && c.State.Resumable():
		line += fmt.Sprintf("\n  started by an agent (heed mcp); resume it: heed crawl --resume %d", c.ID)
	case c.By == ledger.ByAgent:
		line += "\n  started by an agent (heed mcp)"
	case c.State.Resumable():
		line += fmt.Sprintf("\n  resume it: the same command again, or heed crawl --resume %d", c.ID)
	}
	return line
}
