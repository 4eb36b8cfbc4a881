package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/printable"
	"github.com/heedhq/heed/robots"
)

func (e *env) robotsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "robots",
		Short: "Explain, format and lint robots.txt files",
		// Without a subcommand, or with one mistyped, this is a usage error
		// (exit 2), never a silent success.
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageErrorf("robots: which one? check, fmt or lint (see 'heed robots --help')")
		},
	}
	cmd.AddCommand(e.robotsCheckCommand(), e.robotsFmtCommand(), e.robotsLintCommand())
	return cmd
}

func (e *env) robotsCheckCommand() *cobra.Command {
	var (
		file    string
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use: "check [--file FILE] [--agent UA] [--json] URL...",
		// Any number of arguments, said so: cobra reads them all once more
		// to guess at subcommands when a command leaves Args unset.
		Args:  cobra.ArbitraryArgs,
		Short: "Say whether robots.txt allows each URL, and which rule decided",
		Long: `Check evaluates each URL against robots.txt and prints whether it is allowed
and which rule, on which line, decided. With --file, the URLs are checked
against that file and may be paths starting with "/"; without it, each
URL's origin's live robots.txt is fetched (through heed's guarded client)
and the URLs must be absolute http(s) URLs. A URL is decided on its path
and query, at any length; against a file, it may be of any scheme
("ftp://..."), and may carry a user and password, which are never printed.

Exit status: 0 when every URL is allowed, 1 when any is disallowed, 2 on a
usage error or when a robots.txt cannot be asked for at all.`,
		Example: `  heed robots check https://example.com/private/x
  heed robots check --file robots.txt /private/x /docs/
  curl -s https://example.com/robots.txt | heed robots check --file - --json /docs/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("robots check: no URL to check")
			}
			// Most URLs of a check share their scheme and authority, which is
			// all that checkableURL reads of an absolute URL: each is read once.
			checked := map[string]bool{}
			for _, a := range args {
				head, ok := urlHead(a)
				if ok && checked[head] {
					continue
				}
				if err := checkableURL(a, file != ""); err != nil {
					return usageErrorf("robots check: %v", err)
				}
				if ok {
					checked[head] = true
				}
			}
			decide, err := e.decider(cmd, file)
			if err != nil {
				return err
			}
			disallowed := false
			// One write for many URLs, not one each: a check of thousands
			// spent more time in write calls than in deciding.
			out := bufio.NewWriterSize(e.stdout, 64<<10)
			defer out.Flush()
			// A decision's words are the same for every URL it decides
			// (one rule of a file decides many): they are written once.
			said := map[robots.Decision][]byte{}
			for _, u := range args {
				d, err := decide(u)
				if err != nil {
					return &exitError{code: ExitUsage, err: fmt.Errorf("robots check: %w", withHint(err))}
				}
				disallowed = disallowed || !d.Allowed
				words, ok := said[d]
				if !ok {
					if words, err = decisionWords(d, jsonOut); err != nil {
						return err
					}
					said[d] = words
				}
				// A password is never printed: the URL is written
				// without its user and password.
				shown := fetch.WithoutCredentials(u)
				if jsonOut {
					out.WriteString(`{"url":`)
					if err := writeJSONString(out, shown); err != nil {
						return err
					}
					out.Write(words)
					continue
				}
				out.WriteString(printable.Line(shown))
				out.Write(words)
			}
			if err := out.Flush(); err != nil {
				return err
			}
			if disallowed {
				return &exitError{code: ExitFailed}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "robots.txt file to check against (- for standard input); without it, the live robots.txt")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per URL")
	return cmd
}

// decider returns the function that decides each URL: against the file,
// or against its origin's live robots.txt, loaded once per origin.
func (e *env) decider(cmd *cobra.Command, file string) (func(string) (robots.Decision, error), error) {
	if file != "" {
		data, err := e.readInput(file)
		if err != nil {
			return nil, usageErrorf("robots check: %v", err)
		}
		r := robots.Parse(data)
		return func(u string) (robots.Decision, error) { return r.Allowed(e.agent, u), nil }, nil
	}
	svc, err := e.service(false)
	if err != nil {
		return nil, err
	}
	// The service's robots.txt cache: loaded through the polite client,
	// on each host's turn, as every request heed makes.
	return func(u string) (robots.Decision, error) { return svc.Robots().Allowed(cmd.Context(), e.agent, u) }, nil
}

// checkableURL accepts, against a file, what the robots library decides
// (decidable), and against the live robots.txt absolute http(s) URLs. A
// URL is decided on its path and query, taken as written, as the robots
// library matches them (a stray "%" included), and at any length. Against
// the live robots.txt, its scheme and authority must be a URL's that heed
// fetches (http or https, a host), and a user and password are refused,
// as by every command that sends a request.
func checkableURL(s string, againstFile bool) error {
	if strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//") {
		if againstFile {
			return nil
		}
		return fmt.Errorf("%q is a path; without --file, URLs must be absolute so that heed knows whose robots.txt to fetch", heed.Clip(s, 256))
	}
	if againstFile {
		return decidable(s)
	}
	// The scheme and authority alone are read as a URL: the path is the
	// rules' business.
	head, ok := urlHead(s)
	if !ok {
		head = s
	}
	if err := fetch.CheckURL(head + "/"); err != nil {
		if fetch.HasCredentials(s) && !errors.Is(err, fetch.ErrRefused) {
			// What could not be read may be part of a password
			// ("http://user:pa/ss@host/"): it is not quoted.
			return errSplitCredentials(s)
		}
		return fmt.Errorf("%q is neither an http(s) URL heed takes nor a path starting with /: %v", fetch.Redact(s), err)
	}
	return nil
}

// errSplitCredentials is the error of a URL whose user or password
// holds what ends an authority, so that no parser reads it alike; no
// part of them is quoted.
func errSplitCredentials(s string) error {
	return fmt.Errorf("%q is not a URL heed reads: its user or password holds a \"/\", \"?\" or \"#\" (percent-encode it, or leave it out)", fetch.Redact(s))
}

// noRules is a robots.txt of no rules: what it makes of a URL says
// whether the library reads the URL at all.
var noRules = robots.Parse(nil)

// decidable accepts, against a file, any URL the robots library decides:
// a path, or an absolute URL of any scheme ("scheme://authority..."),
// whose path and query are decided as written, whatever its authority
// (a port or a host no resolver reads, ftp's). Nothing is fetched. Its
// user and password are allowed, and never printed, unless they cannot
// be told from the host ("http://user:pa/ss@host/", which parsers read
// as a host "user" and a path): that is refused, without quoting them.
func decidable(s string) error {
	if noRules.Allowed("heed", s).Reason == robots.ReasonBadURL {
		return fmt.Errorf("%q is neither a path starting with / nor an absolute URL (scheme://...): no rule of robots.txt applies to it", fetch.Redact(s))
	}
	if fetch.HasCredentials(s) && !credentialsInAuthority(s) {
		return errSplitCredentials(s)
	}
	return nil
}

// credentialsInAuthority reports whether the "@" that ends a URL's user
// and password is in its authority as the robots library ends it (at the
// first "/", "?" or "#", a backslash being a slash): where it is not, the
// library decides a path that holds part of them.
func credentialsInAuthority(s string) bool {
	head, ok := urlHead(strings.ReplaceAll(s, `\`, "/"))
	return !ok || strings.Contains(head, "@")
}

// urlHead returns the scheme and authority of an absolute URL
// ("https://example.com" of "https://example.com/a?b"), the authority
// ending where the robots library ends it, and false for anything else:
// a path, or a URL with nothing after its authority, which is read whole.
func urlHead(s string) (string, bool) {
	i := strings.Index(s, "://")
	if i < 0 {
		return "", false
	}
	end := strings.IndexAny(s[i+3:], "/?#")
	if end < 0 {
		return "", false
	}
	return s[:i+3+end], true
}

// writeJSONString writes s as a JSON string, as json.Marshal and
// printable.JSON would: a URL of printable ASCII without a quote or a
// backslash, which is nearly every URL, is written as it is, but for the
// <, > and & that json.Marshal writes as \u escapes (a query's & is in
// many URLs).
func writeJSONString(w *bufio.Writer, s string) error {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			b, err := json.Marshal(s)
			if err != nil {
				return err
			}
			_, err = w.Write(printable.JSON(b))
			return err
		}
	}
	w.WriteByte('"')
	from := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '<' || c == '>' || c == '&' {
			w.WriteString(s[from:i])
			w.WriteString(`\u00`)
			w.WriteByte("0123456789abcdef"[c>>4])
			w.WriteByte("0123456789abcdef"[c&0xf])
			from = i + 1
		}
	}
	w.WriteString(s[from:])
	return w.WriteByte('"')
}

// checkJSON is what "robots check --json" prints for one URL.
type checkJSON struct {
	URL         string        `json:"url"`
	Allowed     bool          `json:"allowed"`
	Reason      robots.Reason `json:"reason"`
	Rule        *robots.Rule  `json:"rule"`
	Group       *groupJSON    `json:"group"`
	Explanation string        `json:"explanation"`
}

type groupJSON struct {
	Agents []string `json:"agents"`
	Line   int      `json:"line"`
}

// decisionWords is what robots check writes of a decision after the URL:
// ": explanation" and a newline, or with asJSON the rest of the URL's
// JSON object (from the comma after its "url") and a newline.
func decisionWords(d robots.Decision, asJSON bool) ([]byte, error) {
	if !asJSON {
		return []byte(": " + printable.Line(d.String()) + "\n"), nil
	}
	b, err := json.Marshal(checkResult("", d))
	if err != nil {
		return nil, err
	}
	tail, ok := bytes.CutPrefix(b, []byte(`{"url":""`))
	if !ok {
		return nil, fmt.Errorf("robots check: a decision's JSON begins %.20q", b)
	}
	return append(printable.JSON(tail), '\n'), nil
}

func checkResult(u string, d robots.Decision) checkJSON {
	out := checkJSON{URL: u, Allowed: d.Allowed, Reason: d.Reason, Rule: d.Rule, Explanation: d.String()}
	if d.Group != nil {
		out.Group = &groupJSON{Agents: d.Group.Agents, Line: d.Group.Line}
	}
	return out
}

func (e *env) robotsFmtCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "fmt [FILE|-]",
		Short: "Print a robots.txt file in normal form",
		Long: `Fmt prints the file as heed reads it: groups with their rules, then sitemaps,
then other records (such as Host), with canonical field names. Comments,
rules outside any group and lines heed cannot read are left out; 'heed
robots lint' lists them.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := e.readInput(argOrStdin(args))
			if err != nil {
				return usageErrorf("robots fmt: %v", err)
			}
			// What the file says is printed, but what it says cannot
			// instruct the terminal: its control characters are escaped.
			var b strings.Builder
			if err := robots.Parse(data).Format(&b); err != nil {
				return err
			}
			_, err = io.WriteString(e.stdout, printable.Text(b.String()))
			return err
		},
	}
}

func (e *env) robotsLintCommand() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "lint [FILE|-]",
		Short: "List the lines of a robots.txt that crawlers ignore or read differently",
		Long: `Lint lists, with line numbers, the lines of a robots.txt file that a crawler
will ignore or read differently than written: rules outside any group,
unknown fields, accepted misspellings and missing colons, unreadable values,
patterns that match nothing, relative sitemaps, a Crawl-delay given twice in
one group, and lines past the 512 KiB limit.

Exit status: 0 when there is nothing to report, 1 when there is, 2 on a
usage error.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := argOrStdin(args)
			data, err := e.readInput(name)
			if err != nil {
				return usageErrorf("robots lint: %v", err)
			}
			problems := robots.Lint(data)
			for _, p := range problems {
				if jsonOut {
					if err := writeJSON(e.stdout, p); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintf(e.stdout, "%s:%d: %s: %s\n", printable.Line(displayName(name)), p.Line, printable.Line(p.Message), printable.Line(p.Text))
			}
			if len(problems) > 0 {
				return &exitError{code: ExitFailed}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per problem")
	return cmd
}

func argOrStdin(args []string) string {
	if len(args) == 0 {
		return "-"
	}
	return args[0]
}

func displayName(name string) string {
	if name == "-" {
		return "<stdin>"
	}
	return name
}

// readInput reads a robots.txt file, or standard input for "-". It reads no
// more than robots.Parse looks at (plus one byte, so that the limit shows).
func (e *env) readInput(name string) ([]byte, error) {
	var r io.Reader = e.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	return io.ReadAll(io.LimitReader(r, robots.MaxBytes+1))
}

// writeJSON writes v as a line of JSON. encoding/json escapes C0 control
// characters; the C1 ones, DEL and the bidirectional overrides, which a
// terminal may act on too, are escaped as well (\u009b), which keeps the
// JSON the same.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", printable.JSON(b))
	return err
}
