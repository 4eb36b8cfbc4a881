package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed/internal/config"
	"github.com/heedhq/heed/internal/crawl"
)

func (e *env) addCommand() *cobra.Command {
	var cf crawlFlags
	cmd := &cobra.Command{
		Use:   "add URL [--name NAME]",
		Short: "Record a source in the config file and ingest it",
		Long: `Add records URL as a named source in the config file (with the crawl flags
given, as its settings) and crawls it into the stash. 'heed sync' crawls
recorded sources again.

` + crawlLong,
		Example: `  heed add https://docs.example.com/ --name docs --include '/guide/**'
  heed sync docs`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			conf, err := e.config()
			if err != nil {
				return err
			}
			name := cf.o.Source
			if name == "" {
				name = crawl.SourceName(args[0])
			}
			src := sourceFromFlags(cmd, args[0], cf.o)
			if _, ok := conf.Sources[name]; ok {
				return usageErrorf("add: a source named %q is recorded already; 'heed sync %s' crawls it again, --name gives another name", name, name)
			}
			if err := src.Validate(); err != nil {
				return usageErrorf("add: %v", err)
			}
			// Crawl first: a source whose start URL robots.txt refuses, or
			// that is not a URL at all, is not recorded.
			crawlErr := e.runCrawl(cmd, optionsOf(name, src), cf.jsonOut)
			var ee *exitError
			if errors.As(crawlErr, &ee) && ee.code == ExitUsage {
				return crawlErr
			}
			if err := conf.AddSource(name, src); err != nil {
				var ce *config.Error
				switch {
				case errors.Is(err, config.ErrSourceExists):
					return usageErrorf("add: a source named %q is recorded already; 'heed sync %s' crawls it again, --name gives another name", name, name)
				case errors.As(err, &ce):
					return &exitError{code: ExitConfig, err: err}
				}
				return &exitError{code: ExitFailed, err: err}
			}
			fmt.Fprintf(e.stderr, "heed: recorded source %q in %s\n", name, conf.Path())
			return crawlErr
		},
	}
	cf.register(cmd)
	return cmd
}

// sourceFromFlags records the crawl flags that were given.
func sourceFromFlags(cmd *cobra.Command, start string, o crawl.Options) *config.Source {
	s := &config.Source{URL: start, Kind: "website", Include: o.Include, Exclude: o.Exclude, AllowHosts: o.AllowHosts, Tags: o.Tags}
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

func (e *env) syncCommand() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "sync [NAME...]",
		Short: "Ingest recorded sources again",
		Long: `Sync crawls the named sources of the config file again (all of them when no
name is given), each with its recorded settings. Pages that did not change
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
				if err := e.runCrawl(cmd, optionsOf(n, conf.Sources[n]), jsonOut); err != nil {
					fmt.Fprintf(e.stderr, "heed: sync %s: %v\n", n, err)
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
