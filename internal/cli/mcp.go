package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed/internal/mcp"
)

func (e *env) mcpCommand() *cobra.Command {
	var (
		addr   string
		limits mcp.Limits
		delay  time.Duration
	)
	cmd := &cobra.Command{
		Use:   "mcp [--http ADDR]",
		Short: "Serve heed's tools to agents over MCP (stdio, or streamable HTTP)",
		Long: `Mcp serves heed to agents over the Model Context Protocol: on standard input
and output (how MCP clients start a local server), or with --http over
streamable HTTP at http://ADDR/mcp (with no credentials asked: bind it to a
loopback address).

Tools: web_fetch (one page as Markdown; robots.txt is not consulted for a
page asked for on purpose), web_crawl (a polite crawl into the stash, with
progress notifications), web_grep (a regular expression over one page, or
over a polite crawl), stash_search, stash_read and stash_sources.

Every tool call shares one robots.txt cache and one per-host schedule, so
agents crawling one host together do not add to its load. The limits below
and the networks of --allow-net and allow_net bind every call: an agent's
arguments can narrow them, never widen them, and no argument turns
robots.txt off. The flags override the config file's mcp section.`,
		Example: `  heed mcp
  heed mcp --max-pages 50 --delay 1s
  heed mcp --http 127.0.0.1:8765`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			client, err := e.client()
			if err != nil {
				return err
			}
			conf, _ := e.config()
			dir, err := e.stashDir()
			if err != nil {
				return err
			}
			l := mcp.Limits{MaxCrawlDelay: time.Duration(conf.MaxCrawlDelay)}
			if m := conf.MCP; m != nil {
				l.MaxPages, l.MaxDepth, l.Deadline, l.MaxChars = m.MaxPages, m.MaxDepth, time.Duration(m.Deadline), m.MaxChars
				if m.Delay != nil {
					l.Delay = time.Duration(*m.Delay)
				}
			}
			f := cmd.Flags()
			for _, s := range []struct {
				flag string
				set  func()
			}{
				{"max-pages", func() { l.MaxPages = limits.MaxPages }},
				{"max-depth", func() { l.MaxDepth = limits.MaxDepth }},
				{"deadline", func() { l.Deadline = limits.Deadline }},
				{"max-chars", func() { l.MaxChars = limits.MaxChars }},
				{"delay", func() { l.Delay = delay }},
			} {
				if f.Changed(s.flag) {
					s.set()
				}
			}
			switch {
			case l.MaxPages < 0 || f.Changed("max-pages") && l.MaxPages == 0:
				return usageErrorf("--max-pages must be 1 or more")
			case l.MaxDepth < 0 || f.Changed("max-depth") && l.MaxDepth == 0:
				return usageErrorf("--max-depth must be 1 or more")
			case l.MaxChars < 0 || f.Changed("max-chars") && l.MaxChars == 0:
				return usageErrorf("--max-chars must be 1 or more")
			case l.Deadline < 0 || f.Changed("deadline") && l.Deadline == 0:
				return usageErrorf("--deadline must be longer than 0")
			case l.Delay < 0:
				return usageErrorf("--delay cannot be negative")
			case l.Delay == 0 && (f.Changed("delay") || conf.MCP != nil && conf.MCP.Delay != nil):
				l.Delay = -1 // mcp.Limits: negative is none
			}
			srv := mcp.New(mcp.Config{
				Client: client, Agent: e.agent, StashDir: dir, Limits: l,
				Logger: slog.New(slog.NewTextHandler(e.stderr, nil)),
			})
			defer srv.Close()
			if addr == "" {
				if err := srv.ServeStdio(cmd.Context()); err != nil {
					return &exitError{code: ExitFailed, err: fmt.Errorf("mcp: %w", err)}
				}
				return nil
			}
			return e.serveHTTP(cmd.Context(), addr, srv)
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "http", "", "serve streamable HTTP on this address, such as 127.0.0.1:8765, instead of stdio")
	f.IntVar(&limits.MaxPages, "max-pages", mcp.DefaultMaxPages, "the most pages one web_crawl or web_grep fetches")
	f.IntVar(&limits.MaxDepth, "max-depth", mcp.DefaultMaxDepth, "the deepest one web_crawl or web_grep follows links")
	f.DurationVar(&limits.Deadline, "deadline", mcp.DefaultDeadline, "the longest one web_crawl or web_grep runs")
	f.IntVar(&limits.MaxChars, "max-chars", mcp.DefaultMaxChars, "the most characters one web_fetch or stash_read returns at a time")
	f.DurationVar(&delay, "delay", mcp.DefaultDelay, "least time between two requests to one host, across every tool call (robots.txt may ask for more)")
	return cmd
}

// serveHTTP serves MCP over streamable HTTP at /mcp until ctx ends.
func (e *env) serveHTTP(ctx context.Context, addr string, srv *mcp.Server) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return usageErrorf("mcp --http: %v", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.Handler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(e.stderr, "heed: serving MCP over streamable HTTP at http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return &exitError{code: ExitFailed, err: fmt.Errorf("mcp --http: %w", err)}
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
			hs.Close()
		}
		return nil
	}
}
