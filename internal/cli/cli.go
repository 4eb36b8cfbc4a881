package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/config"
	"github.com/heedhq/heed/internal/document"
	"github.com/heedhq/heed/internal/heapfloor"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/printable"
	"github.com/heedhq/heed/internal/render"
	"github.com/heedhq/heed/internal/source/kinds"
)

// Exit codes (DESIGN: errors and exit codes).
const (
	ExitOK     = 0
	ExitFailed = 1  // the work failed; for "robots check", a URL is disallowed
	ExitUsage  = 2  // a bad flag or argument
	ExitConfig = 78 // a configuration error (sysexits EX_CONFIG)
)

// exitError carries an exit code up to Run. A nil err with a code means
// the command has already said what it had to say.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErrorf reports a usage error: exit code 2.
func usageErrorf(format string, args ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, args...)}
}

// env is what a command reads from and writes to, and the flags every
// command shares.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	agent      string   // --agent
	agentSet   bool     // --agent was given
	db         string   // --db of the commands that read a team's database
	allowNet   []string // --allow-net
	resolve    []string // --resolve
	stash      string   // --stash
	configPath string   // --config

	quiet         bool          // --quiet of the commands that crawl
	progressEvery time.Duration // --progress-every of the commands that crawl

	conf *config.Config  // loaded on first use
	svc  *ingest.Service // made on first use

	undoFloor func() // puts the collector's default rule back (heapfloor)
	unlisten  func() // stops listening for Ctrl-C and SIGTERM
}

// config loads the config file (--config, HEED_CONFIG, or the default
// place) once. Its errors exit 78.
func (e *env) config() (*config.Config, error) {
	if e.conf != nil {
		return e.conf, nil
	}
	path := e.configPath
	if path != "" {
		// A file named on the command line is meant: one that is not
		// there is a mistake, not a config with no sources.
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, &exitError{code: ExitConfig, err: fmt.Errorf("--config %s: no such file; create it (an empty file will do) or leave --config out", path)}
		}
	}
	if path == "" {
		p, err := config.DefaultPath()
		if err != nil {
			return nil, &exitError{code: ExitConfig, err: fmt.Errorf("no config file: %v; pass --config FILE", err)}
		}
		path = p
	}
	c, err := config.Load(path, kinds.Names())
	if err != nil {
		return nil, &exitError{code: ExitConfig, err: err}
	}
	e.conf = c
	return c, nil
}

// client returns the guarded HTTP client: the user agent of --agent or
// the config, and the networks of --allow-net and the config.
func (e *env) client() (*fetch.Client, error) {
	c, err := e.config()
	if err != nil {
		return nil, err
	}
	nets, err := fetch.ParseNets(e.allowNet)
	if err != nil {
		return nil, usageErrorf("--allow-net: %v", err)
	}
	fromConfig, err := c.Nets()
	if err != nil {
		return nil, &exitError{code: ExitConfig, err: fmt.Errorf("%s: allow_net: %v", c.Path(), err)}
	}
	if !e.agentSet && c.Agent != "" {
		e.agent = c.Agent
	}
	names, err := fetch.ParseResolve(e.resolve)
	if err != nil {
		return nil, usageErrorf("--resolve: %v", err)
	}
	fromConf, err := fetch.ParseResolve(c.Resolve)
	if err != nil {
		return nil, &exitError{code: ExitConfig, err: fmt.Errorf("%s: resolve: %v", c.Path(), err)}
	}
	for name, addrs := range fromConf {
		if _, ok := names[name]; !ok { // the flag's win
			names[name] = addrs
		}
	}
	r := resolver
	if len(names) > 0 {
		r = &fetch.Static{Names: names, Next: resolver}
	}
	// A team's requests are given up with a reset: one abandoned while
	// the network was down must not reach its host later, on another
	// worker's turn.
	return fetch.New(fetch.Config{UserAgent: e.agent, AllowNets: append(nets, fromConfig...), Resolver: r, ResetOnClose: e.db != "", TypeCaps: document.Caps}), nil
}

// service returns the ingest service the commands are doors onto, made
// once (serviceConfig says of what).
func (e *env) service(withKinds bool) (*ingest.Service, error) {
	if e.svc != nil {
		return e.svc, nil
	}
	cfg, err := e.serviceConfig(withKinds)
	if err != nil {
		return nil, err
	}
	e.svc = ingest.New(cfg)
	return e.svc, nil
}

// serviceConfig is what the ingest service is made of: the guarded
// client, the stash, and withKinds the source kinds configured from the
// config file and the environment.
func (e *env) serviceConfig(withKinds bool) (ingest.Config, error) {
	client, err := e.client()
	if err != nil {
		return ingest.Config{}, err
	}
	conf, err := e.config()
	if err != nil {
		return ingest.Config{}, err
	}
	// A command that never opens the stash (robots check, fetch) needs
	// no place for it: the want of one is said only to a call that opens
	// it.
	dir, dirErr := e.stashDir()
	cfg := ingest.Config{
		HTTP: client, Agent: e.agent, MaxCrawlDelay: time.Duration(conf.MaxCrawlDelay), StashDir: dir,
		Retention: conf.History.Retention(),
		Warn:      func(msg string) { fmt.Fprintf(e.stderr, "%sheed: warning: %s\n", e.clearLine(), printable.Text(msg)) },
	}
	if dirErr != nil {
		cfg.Open = func(context.Context) (ingest.Store, error) { return nil, dirErr }
	}
	// The browser starts with the first page that needs it, if any.
	rc := render.Config{}
	if b := conf.Browser; b != nil {
		rc = render.Config{Path: b.Path, PageTimeout: time.Duration(b.Timeout), MaxRequests: b.MaxRequests, MaxBytes: int64(b.MaxBytes), MaxMemory: int64(b.MaxMemory), Resources: b.Resources}
	}
	cfg.Browser = render.New(rc)
	if e.db != "" {
		// A team's database in place of the stash of files.
		cfg.Open = ingest.OpenDB(e.db)
		cfg.DB = e.db
	}
	if withKinds {
		if cfg.Kinds, err = kinds.Make(conf, os.Getenv); err != nil {
			return ingest.Config{}, failure(err)
		}
	}
	return cfg, nil
}

// resolver resolves host names for the client; nil is the system's. The
// package's tests set one that sends no name anywhere off the machine.
var resolver fetch.Resolver

// Run runs heed with the given arguments (without the program name) and
// returns its exit code. Results go to stdout, diagnostics to stderr.
// Ctrl-C (SIGINT) and SIGTERM cancel the context of a stoppable command.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	root := e.rootCommand(args...)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if e.svc != nil {
		if cerr := e.svc.Close(); cerr != nil {
			fmt.Fprintf(stderr, "heed: %s\n", printable.Text(cerr.Error()))
		}
	}
	if e.undoFloor != nil {
		e.undoFloor()
	}
	if e.unlisten != nil {
		e.unlisten()
	}
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "heed: %s\n", printable.Text(ee.err.Error()))
		}
		return ee.code
	}
	// Errors from cobra itself are about flags and arguments.
	fmt.Fprintf(stderr, "heed: %s\nRun 'heed help' for usage.\n", printable.Text(err.Error()))
	return ExitUsage
}

// stoppable reports whether a command listens for Ctrl-C (SIGINT) and
// SIGTERM, to stop its work, keep what it did and say so. The few that
// only read a local file and print (robots fmt and lint, robots check
// --file, paths) are ended by the signal's default action instead, which
// loses nothing: listening starts a thread and a goroutine, a tenth of
// such a command's run.
func stoppable(cmd *cobra.Command) bool {
	switch cmd.CommandPath() {
	case "heed robots fmt", "heed robots lint", "heed paths":
		return false
	case "heed robots check":
		return !cmd.Flags().Changed("file")
	}
	return true
}

// rootCommand makes heed's command tree. Given the command line, it makes
// only what that line can reach, since making every command, its flags
// and help is work each run would pay at start-up: the command its first
// argument names, or none for a lone --version. Any other line (help,
// completion, flags before the command, a mistyped name) gets them all.
func (e *env) rootCommand(args ...string) *cobra.Command {
	root := &cobra.Command{
		Use:   "heed",
		Short: "heed fetches the web politely into a searchable stash of Markdown",
		Long: `heed is a polite web ingester for AI agents. It heeds robots.txt
(RFC 9309), Crawl-delay and each page's own robots directives.

'heed paths' shows the config file and the stash heed uses.`,
		Version:       heed.Version,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetVersionTemplate("heed {{.Version}}\n")
	root.PersistentFlags().StringVar(&e.agent, "agent", heed.UserAgent(), "user agent sent with requests; its product token picks robots.txt groups")
	root.PersistentFlags().StringArrayVar(&e.allowNet, "allow-net", nil, "allow requests to this non-public network (CIDR, repeatable), such as 10.0.0.0/8")
	root.PersistentFlags().StringArrayVar(&e.resolve, "resolve", nil, "resolve a host name to an address, NAME:ADDRESS (repeatable), as split DNS; a non-public address needs --allow-net too")
	root.PersistentFlags().StringVar(&e.stash, "stash", "", "the stash directory (default $HEED_STASH, the config's stash, or heed in the user's data directory; 'heed paths' shows it)")
	root.PersistentFlags().StringVar(&e.configPath, "config", "", "the config file (default $HEED_CONFIG, or heed/config.yaml in the user's config directory; 'heed paths' shows it)")
	root.PersistentPreRun = func(cmd *cobra.Command, args []string) {
		e.agentSet = cmd.Flags().Changed("agent")
		if stoppable(cmd) {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			cmd.SetContext(ctx)
			e.unlisten = stop
		}
		switch cmd.Name() {
		case "crawl", "add", "sync", "reindex", "mcp":
			// These make garbage by the page while keeping little (the
			// MCP server crawls for its tools): the collector waits for a
			// heap of heapfloor.Heed. Set once, as the process starts.
			e.undoFloor = heapfloor.Set(heapfloor.Heed)
		}
	}
	type command struct {
		name string
		make func() *cobra.Command
	}
	commands := []command{
		{"robots", e.robotsCommand}, {"fetch", e.fetchCommand}, {"extract", e.extractCommand},
		{"crawl", e.crawlCommand}, {"search", e.searchCommand}, {"show", e.showCommand},
		{"ls", e.lsCommand}, {"rm", e.rmCommand}, {"reindex", e.reindexCommand},
		{"add", e.addCommand}, {"sync", e.syncCommand}, {"mcp", e.mcpCommand},
		{"migrate", e.migrateCommand}, {"export", e.exportCommand}, {"worker", e.workerCommand},
		{"status", e.statusCommand}, {"paths", e.pathsCommand}, {"map", e.mapCommand},
		{"history", e.historyCommand}, {"diff", e.diffCommand}, {"changes", e.changesCommand},
	}
	switch {
	case len(args) == 1 && (args[0] == "--version" || args[0] == "-v"):
		commands = nil
	case len(args) > 0:
		if i := slices.IndexFunc(commands, func(c command) bool { return c.name == args[0] }); i >= 0 {
			commands = commands[i : i+1]
		}
	}
	for _, c := range commands {
		root.AddCommand(c.make())
	}
	sharedHelp(root)
	return root
}

// sharedFlags says which of the flags every command shares each command
// reads, by its path: its help lists those and no others. Made when help
// is asked for.
var sharedFlags = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"heed robots":       nil,
		"heed robots fmt":   nil,
		"heed robots lint":  nil,
		"heed robots check": {"agent", "allow-net", "resolve", "config"},
		"heed fetch":        {"agent", "allow-net", "resolve", "config"},
		"heed map":          {"agent", "allow-net", "resolve", "config"},
		"heed extract":      {"agent"},
		"heed crawl":        {"agent", "allow-net", "resolve", "stash", "config"},
		"heed add":          {"agent", "allow-net", "resolve", "stash", "config"},
		"heed sync":         {"agent", "allow-net", "resolve", "stash", "config"},
		"heed mcp":          {"agent", "allow-net", "resolve", "stash", "config"},
		"heed worker":       {"agent", "allow-net", "resolve", "config"},
		"heed search":       {"stash", "config"},
		"heed show":         {"stash", "config"},
		"heed ls":           {"stash", "config"},
		"heed rm":           {"stash", "config"},
		"heed reindex":      {"stash", "config"},
		"heed export":       {"stash", "config"},
		"heed paths":        {"stash", "config"},
		"heed history":      {"stash", "config"},
		"heed diff":         {"stash", "config"},
		"heed changes":      {"stash", "config"},
		"heed migrate":      {"config"},
		"heed status":       {"config"},
	}
})

// sharedHelp makes each command's help list only the shared flags it
// reads (sharedFlags). Every command still accepts them all, so that a
// script may give one set of flags to every command it runs.
func sharedHelp(root *cobra.Command) {
	help := root.HelpFunc()
	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		reads := sharedFlags()[cmd.CommandPath()]
		var unhide []func()
		for _, name := range []string{"agent", "allow-net", "resolve", "stash", "config"} {
			if f := root.PersistentFlags().Lookup(name); cmd != root && !f.Hidden && !slices.Contains(reads, name) {
				f.Hidden = true
				unhide = append(unhide, func() { f.Hidden = false })
			}
		}
		help(cmd, args)
		for _, u := range unhide {
			u()
		}
	})
}
