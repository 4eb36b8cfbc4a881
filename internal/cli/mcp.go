package cli

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/config"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/mcp"
	"github.com/heedhq/heed/internal/printable"
	"github.com/heedhq/heed/internal/render"
)

func (e *env) mcpCommand() *cobra.Command {
	var (
		addr        string
		allowRemote bool
		limits      mcp.Limits
		delay       time.Duration
	)
	cmd := &cobra.Command{
		Use:   "mcp [--http ADDR [--allow-remote]]",
		Short: "Serve heed's tools to agents over MCP (stdio, or streamable HTTP)",
		Long: `Mcp serves heed to agents over the Model Context Protocol: on standard input
and output (how MCP clients start a local server), or with --http over
streamable HTTP at http://ADDR/mcp.

ADDR must be a loopback address, such as 127.0.0.1:8765, unless
--allow-remote is given: then heed serves the network, and every request
must carry a bearer token (Authorization: Bearer TOKEN). The token is
HEED_MCP_TOKEN, or the one mcp.token in the config file points to
(env:NAME or file:PATH); without either, heed makes one for the run and
prints it on stderr. A token set is asked for on a loopback address too.
Whatever the address, a request sent by a web page (one with an Origin
header) is refused unless the page is of localhost, a loopback address or
ADDR's own host.

Tools: web_fetch (one page as Markdown; robots.txt is not consulted for a
page asked for on purpose), web_crawl (a polite crawl into the stash, with
progress notifications), web_grep (a regular expression over one page, or
over a polite crawl), stash_search, stash_read and stash_sources. The
stash's pages are resources too: heed://snapshot/{id} (whole, or in parts)
and heed://sources, which a client may subscribe to, and is told when a
crawl of this server stores a page.

Every tool call shares one robots.txt cache and one per-host schedule, so
agents crawling one host together do not add to its load. The limits below
and the networks of --allow-net and allow_net bind every call: an agent's
arguments can narrow them, never widen them, and no argument turns
robots.txt off. The flags override the config file's mcp section.

With --db (or $HEED_DB), the stash is a team's database: stash_search and
stash_read read what every worker and server of the team stored, web_crawl
stores there, and every request takes its host's turn from the database,
so that all of a team's MCP servers and workers keep one schedule per host.`,
		Example: `  heed mcp
  heed mcp --max-pages 50 --delay 1s
  heed mcp --http 127.0.0.1:8765
  HEED_MCP_TOKEN=... heed mcp --http 0.0.0.0:8765 --allow-remote`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if allowRemote && addr == "" {
				return usageErrorf("--allow-remote goes with --http: on stdio heed serves only the client that started it")
			}
			cfg, err := e.serviceConfig(false)
			if err != nil {
				return err
			}
			conf, _ := e.config()
			var token string
			var made bool
			if addr != "" {
				if token, made, err = mcpToken(conf, allowRemote); err != nil {
					return err
				}
			}
			var l mcp.Limits
			cfg.Delay = crawlopt.Defaults().Delay
			if m := conf.MCP; m != nil {
				l.MaxPages, l.MaxDepth, l.Deadline, l.MaxChars = m.MaxPages, m.MaxDepth, time.Duration(m.Deadline), m.MaxChars
				l.MaxCrawls, l.MaxPagesInAll = m.MaxCrawls, m.MaxPagesInAll
				l.Render = render.Mode(m.Render)
				if m.Delay != nil {
					cfg.Delay = time.Duration(*m.Delay)
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
				{"max-crawls", func() { l.MaxCrawls = limits.MaxCrawls }},
				{"max-pages-in-all", func() { l.MaxPagesInAll = limits.MaxPagesInAll }},
				{"delay", func() { cfg.Delay = delay }},
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
			case l.MaxChars < 0 || f.Changed("max-chars") && l.MaxChars == 0 || l.MaxChars > 0 && l.MaxChars < mcp.MinChars:
				return usageErrorf("--max-chars (or max_chars in the config file's mcp section) must be at least %d: a result holds heed's own words besides what it quotes", mcp.MinChars)
			case l.MaxCrawls < 0 || f.Changed("max-crawls") && l.MaxCrawls == 0:
				return usageErrorf("--max-crawls must be 1 or more")
			case l.MaxPagesInAll < 0 || f.Changed("max-pages-in-all") && l.MaxPagesInAll == 0:
				return usageErrorf("--max-pages-in-all must be 1 or more")
			case l.Deadline < 0 || f.Changed("deadline") && l.Deadline == 0:
				return usageErrorf("--deadline must be longer than 0")
			case cfg.Delay < 0:
				return usageErrorf("--delay cannot be negative")
			case cfg.Delay == 0:
				cfg.Delay = -1 // ingest.Config: negative is none
			}
			e.svc = ingest.New(cfg)
			srv := mcp.New(mcp.Config{
				Service: e.svc, Limits: l,
				Logger: slog.New(slog.NewTextHandler(e.stderr, nil)),
			})
			defer srv.Close()
			// The crawls agents started, cut short when heed mcp last
			// stopped, go on.
			if ids, err := srv.ResumeCrawls(cmd.Context()); err != nil {
				fmt.Fprintf(e.stderr, "heed: mcp: taking up the agents' crawls: %s\n", printable.Line(err.Error()))
			} else if len(ids) > 0 {
				fmt.Fprintf(e.stderr, "heed: mcp: taking up %s the agents started: %v\n", heed.Count(len(ids), "crawl"), ids)
			}
			if addr == "" {
				if err := srv.ServeStdio(cmd.Context()); err != nil {
					return &exitError{code: ExitFailed, err: fmt.Errorf("mcp: %w", err)}
				}
				return nil
			}
			return e.serveHTTP(cmd.Context(), addr, allowRemote, token, made, srv)
		},
	}
	e.dbFlagFor(cmd, "serve a team's database at this PostgreSQL URL (default $HEED_DB): its stash, and one schedule per host shared with the team")
	f := cmd.Flags()
	f.StringVar(&addr, "http", "", "serve streamable HTTP on this address, such as 127.0.0.1:8765, instead of stdio (a loopback address, unless --allow-remote)")
	f.BoolVar(&allowRemote, "allow-remote", false, "with --http, allow an address other than loopback, such as 0.0.0.0:8765, and ask every request for a bearer token")
	f.IntVar(&limits.MaxPages, "max-pages", mcp.DefaultMaxPages, "the most pages one web_crawl or web_grep fetches")
	f.IntVar(&limits.MaxDepth, "max-depth", mcp.DefaultMaxDepth, "the deepest one web_crawl or web_grep follows links")
	f.DurationVar(&limits.Deadline, "deadline", mcp.DefaultDeadline, "the longest one web_crawl or web_grep runs")
	f.IntVar(&limits.MaxChars, "max-chars", mcp.DefaultMaxChars, "the most characters one tool's result takes, as JSON")
	f.IntVar(&limits.MaxCrawls, "max-crawls", mcp.DefaultMaxCrawls, "the most crawls one client may have running at once")
	f.IntVar(&limits.MaxPagesInAll, "max-pages-in-all", 0, "the most pages one client's running crawls may fetch together (default five times --max-pages)")
	f.DurationVar(&delay, "delay", crawlopt.Defaults().Delay, "least time between two requests to one host, across every tool call (robots.txt may ask for more)")
	return cmd
}

// serveHTTP serves MCP over streamable HTTP at /mcp until ctx ends: on a
// loopback address unless allowRemote, with a bearer token if one is set
// (made: made for this run, and printed).
func (e *env) serveHTTP(ctx context.Context, addr string, allowRemote bool, token string, made bool, srv *mcp.Server) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErrorf("mcp --http: %v", err)
	}
	binds, err := bindAddrs(ctx, addr, allowRemote)
	if err != nil {
		return err
	}
	var ln net.Listener
	for _, b := range binds {
		if ln, err = net.Listen("tcp", b); err == nil {
			break
		}
	}
	if err != nil {
		return usageErrorf("mcp --http: %v", err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !allowRemote && (!ok || !tcp.IP.IsLoopback()) {
		ln.Close() // not reached: bindAddrs gave loopback addresses only
		return notLoopback(addr, host)
	}
	var origins []string
	if ip, err := netip.ParseAddr(host); host != "" && (err != nil || !ip.IsUnspecified()) {
		origins = []string{host} // pages of ADDR's own host
	}
	fmt.Fprintf(e.stderr, "heed: serving MCP over streamable HTTP at http://%s/mcp\n", ln.Addr())
	switch {
	case made:
		fmt.Fprintf(e.stderr, "heed: every request must carry the header Authorization: Bearer %s (a token made for this run; set HEED_MCP_TOKEN, or mcp.token in the config file, to keep one)\n", token)
	case token != "":
		fmt.Fprintf(e.stderr, "heed: every request must carry the header Authorization: Bearer with the token of %s\n", tokenSource)
	}
	if err := srv.Serve(ctx, ln, mcp.HTTPOptions{Token: token, Origins: origins}); err != nil {
		return &exitError{code: ExitFailed, err: fmt.Errorf("mcp --http: %w", err)}
	}
	return nil
}

// bindAddrs says where heed mcp --http listens for addr (host:port), in
// the order to try: addr itself with allowRemote. Otherwise addr is
// refused, before anything listens, unless its host is a loopback address
// (a zone, as in [::1%lo], is taken) or a name whose every address is
// loopback; a name is resolved here, once, and its addresses are listened
// on, so that what listens is what was judged.
func bindAddrs(ctx context.Context, addr string, allowRemote bool) ([]string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, usageErrorf("mcp --http: %v", err)
	}
	if allowRemote {
		return []string{addr}, nil
	}
	if host == "" {
		return nil, notLoopback(addr, host)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if !ip.Unmap().IsLoopback() {
			return nil, notLoopback(addr, host)
		}
		return []string{addr}, nil
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, usageErrorf("mcp --http %s: %v", addr, err)
	}
	var binds []string
	for _, ip := range ips {
		if !ip.Unmap().IsLoopback() {
			return nil, notLoopback(addr, fmt.Sprintf("%s (%s)", host, ip))
		}
		binds = append(binds, net.JoinHostPort(ip.Unmap().String(), port))
	}
	if len(binds) == 0 {
		return nil, usageErrorf("mcp --http %s: %s has no address", addr, host)
	}
	return binds, nil
}

// tokenSource names where a token set comes from.
const tokenSource = "HEED_MCP_TOKEN or mcp.token"

func notLoopback(addr, host string) error {
	if host == "" {
		host = "an empty host (every address of the machine)"
	}
	return usageErrorf("mcp --http %s: %s is not a loopback address, so any machine that reaches it, or a web page through DNS rebinding, could use heed's tools, fetches into the networks you allowed among them; bind a loopback address such as 127.0.0.1:8765, or pass --allow-remote to serve the network with a bearer token", addr, host)
}

// minToken is the shortest bearer token heed takes.
const minToken = 16

// mcpToken is the bearer token heed mcp --http asks for: HEED_MCP_TOKEN,
// or the one mcp.token points to; without either, with allowRemote, one
// made for the run (made), of 32 random bytes; else none.
func mcpToken(conf *config.Config, allowRemote bool) (token string, made bool, err error) {
	if t := strings.TrimSpace(os.Getenv("HEED_MCP_TOKEN")); t != "" {
		if err := checkToken(t); err != nil {
			return "", false, usageErrorf("HEED_MCP_TOKEN: %v", err)
		}
		return t, false, nil
	}
	if conf != nil && conf.MCP != nil && conf.MCP.Token != "" {
		t, err := readSecret(conf.MCP.Token)
		if err == nil {
			err = checkToken(t)
		}
		if err != nil {
			return "", false, &exitError{code: ExitConfig, err: fmt.Errorf("%s: mcp.token: %v", conf.Path(), err)}
		}
		return t, false, nil
	}
	if !allowRemote {
		return "", false, nil
	}
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b), true, nil
}

// readSecret reads what a secret reference, env:NAME or file:PATH, points
// to. Its errors never hold the secret.
func readSecret(ref string) (string, error) {
	if name, ok := strings.CutPrefix(ref, "env:"); ok {
		t := strings.TrimSpace(os.Getenv(name))
		if t == "" {
			return "", fmt.Errorf("the environment variable %s is empty or not set", name)
		}
		return t, nil
	}
	path, ok := strings.CutPrefix(ref, "file:")
	if !ok {
		return "", errors.New("must be env:NAME or file:PATH")
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf := make([]byte, 4097)
	n, _ := io.ReadFull(f, buf)
	t := strings.TrimSpace(string(buf[:n]))
	switch {
	case n > 4096:
		return "", fmt.Errorf("%s is longer than a token", path)
	case t == "" || strings.ContainsAny(t, "\r\n"):
		return "", fmt.Errorf("%s does not hold one token on one line", path)
	}
	return t, nil
}

// checkToken checks a bearer token: at least minToken characters, of
// those RFC 6750 allows in one (letters, digits, -._~+/, and = at the
// end). The error does not hold the token.
func checkToken(t string) error {
	body := strings.TrimRight(t, "=")
	ok := len(t) >= minToken && body != "" && !strings.ContainsFunc(body, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~+/", r))
	})
	if !ok {
		return fmt.Errorf("a bearer token must be at least %d characters of letters, digits and -._~+/ (= only at its end)", minToken)
	}
	return nil
}
