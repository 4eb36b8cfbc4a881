package cli

import (
	"bufio"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/config"
	"github.com/heedhq/heed/internal/frontmatter"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/printable"
)

func (e *env) searchCommand() *cobra.Command {
	var (
		q       heed.Query
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "search QUERY...",
		Short: "Search the stash",
		Long: `Search ranks the stash's snapshots by how well they match the words of the
query (all of them, in any form that stems alike; "quoted phrases"; a
trailing * for a prefix), a match in the title weighing more, and prints
each with a snippet around what matched.`,
		Example: `  heed search goroutine leak
  heed search '"context cancellation"' --source go.dev --json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			q.Text = strings.Join(args, " ")
			svc, err := e.service(false)
			if err != nil {
				return err
			}
			hits, err := svc.Search(cmd.Context(), q)
			if err != nil {
				return failure(err)
			}
			bold := isTerminal(e.stdout) // matches in the terminal's bold; elsewhere plain text
			for i, h := range hits {
				if jsonOut {
					if err := writeJSON(e.stdout, h); err != nil {
						return err
					}
					continue
				}
				if i > 0 {
					fmt.Fprintln(e.stdout)
				}
				fmt.Fprintf(e.stdout, "%s  %s\n%s  [%s] %s\n  %s\n", h.ID, printable.Line(h.Title), strings.Repeat(" ", len(h.ID)), printable.Line(h.Source), printable.Line(h.Where()), snippetLine(h, bold))
			}
			if len(hits) == 0 {
				fmt.Fprintf(e.stderr, "heed: nothing in the stash matches %q\n", heed.Clip(q.Text, 256))
				return &exitError{code: ExitFailed}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&q.Source, "source", "", "search only this source")
	cmd.Flags().IntVar(&q.Limit, "limit", 10, "print at most this many results")
	cmd.Flags().BoolVar(&q.Removed, "removed", false, "find pages found gone too (heed history lists their versions)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print a JSON object per result")
	e.dbFlag(cmd)
	return cmd
}

func (e *env) showCommand() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "show URL|ID",
		Short: "Print a snapshot from the stash",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := e.service(false)
			if err != nil {
				return err
			}
			snap, err := svc.Read(cmd.Context(), args[0])
			if errors.Is(err, heed.ErrNotFound) {
				return noSnapshot(args[0])
			}
			if err != nil {
				return failure(err)
			}
			if jsonOut {
				return writeJSON(e.stdout, struct {
					*heed.Snapshot
					Markdown string `json:"markdown"`
				}{snap, snap.Markdown})
			}
			var w frontmatter.Writer
			w.Snapshot(snap) // as the stash's file holds it
			if !snap.Removed.IsZero() {
				w.Field("removed", snap.Removed.UTC().Format(time.RFC3339))
			}
			if snap.Version > 0 {
				w.Field("version", strconv.Itoa(snap.Version))
			}
			w.Field("id", snap.ID)
			w.Field("path", snap.Path)
			fmt.Fprint(e.stdout, printable.Text(w.Document(snap.Markdown)))
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the snapshot as JSON")
	e.dbFlag(cmd)
	return cmd
}

func (e *env) lsCommand() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "ls [SOURCE]",
		Short: "List the stash's sources, or one source's snapshots",
		Long: `Ls lists the stash's sources and how many snapshots each holds, or, given a
source, its snapshots: ID, URL and title. With --json, each is a JSON object
on a line of its own.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := e.service(false)
			if err != nil {
				return err
			}
			if len(args) == 0 {
				srcs, err := svc.Sources(cmd.Context())
				if err != nil {
					return failure(err)
				}
				for _, name := range sortedKeys(srcs) {
					if jsonOut {
						// A JSON line a source, as a JSON line an entry
						// for one source's pages.
						if err := writeJSON(e.stdout, struct {
							Source    string `json:"source"`
							Snapshots int    `json:"snapshots"`
						}{name, srcs[name]}); err != nil {
							return err
						}
						continue
					}
					fmt.Fprintf(e.stdout, "%-30s %6s\n", printable.Line(name), heed.Count(srcs[name], "snapshot"))
				}
				return nil
			}
			entries, err := svc.List(cmd.Context(), args[0])
			if err != nil {
				return failure(err)
			}
			for _, en := range entries {
				if jsonOut {
					writeJSON(e.stdout, en)
					continue
				}
				fmt.Fprintf(e.stdout, "%s  %s  %s\n", en.ID, printable.Line(en.URL), printable.Line(en.Title))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	e.dbFlag(cmd)
	return cmd
}

// manySnapshots is how many snapshots heed rm removes without asking:
// more are removed on a terminal when the user says so, elsewhere only
// with --yes.
const manySnapshots = 20

func (e *env) rmCommand() *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "rm SOURCE",
		Short: "Remove a source: its snapshots, and its record in the config file",
		Long: fmt.Sprintf(`Rm removes a source's snapshots from the stash and, when the config file
records the source, its record there, so that heed sync does not bring it
back ('heed add URL' records it again). Before removing more than %d
snapshots heed asks on a terminal; elsewhere (a script, a pipe) it removes
that many only with --yes, and otherwise removes nothing (exit 2).`, manySnapshots),
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			conf, err := e.config()
			if err != nil {
				return err
			}
			svc, err := e.service(false)
			if err != nil {
				return err
			}
			rec := conf.Sources[name]
			srcs, err := svc.Sources(cmd.Context())
			var none *ingest.NoStashError
			if errors.As(err, &none) && !none.Files && rec != nil {
				// No stash holds its snapshots: its record alone goes. (A
				// stash whose index is gone is reindexed first.)
				srcs, err = nil, nil
			}
			if err != nil {
				return failure(err)
			}
			n := srcs[name]
			if n > manySnapshots && !yes {
				if !e.terminalIn() {
					return usageErrorf("rm: %s has %d snapshots; heed rm removes more than %d only with --yes when it cannot ask (nothing was removed)", name, n, manySnapshots)
				}
				if !e.confirm(fmt.Sprintf("Remove the %d snapshots of %s%s? [y/N] ", n, name, recordNote(rec, conf))) {
					return &exitError{code: ExitFailed, err: errors.New("rm: nothing was removed")}
				}
			}
			if n > 0 || rec == nil {
				// Of a source the stash does not hold, and the config does
				// not record, the service says so.
				removed, err := svc.Remove(cmd.Context(), name)
				if err != nil {
					return failure(err)
				}
				fmt.Fprintf(e.stdout, "removed %s of %s\n", heed.Count(removed, "snapshot"), name)
			}
			if rec != nil {
				if _, err := conf.RemoveSource(name); err != nil {
					return &exitError{code: ExitConfig, err: fmt.Errorf("rm: %s is still recorded, and heed sync will bring it back: %w", name, err)}
				}
				what := printable.Line(rec.URL)
				if rec.Kind != "" {
					what = rec.Kind + ", " + what
				}
				fmt.Fprintf(e.stderr, "heed: removed source %q (%s) from %s; 'heed add %s' records it again\n", name, what, conf.Path(), printable.Line(rec.URL))
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, fmt.Sprintf("remove without asking, however many snapshots (more than %d are asked about on a terminal, refused elsewhere)", manySnapshots))
	e.dbFlagFor(cmd, "remove the source from a team's database at this PostgreSQL URL (default $HEED_DB)")
	return cmd
}

// recordNote says, for heed rm's question, that the source's record goes
// too.
func recordNote(rec *config.Source, conf *config.Config) string {
	if rec == nil {
		return ""
	}
	return " and its record in " + conf.Path()
}

// confirm asks a yes-or-no question on the terminal; only y or yes is a
// yes.
func (e *env) confirm(question string) bool {
	fmt.Fprint(e.stderr, question)
	line, _ := bufio.NewReader(e.stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

func (e *env) reindexCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "reindex",
		Short: "Rebuild the stash's search index from its files",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := e.service(false)
			if err != nil {
				return err
			}
			n, err := svc.Reindex(cmd.Context())
			var none *ingest.NoStashError
			if errors.As(err, &none) {
				return failure(err)
			}
			fmt.Fprintf(e.stdout, "indexed %s\n", heed.Count(n, "snapshot"))
			if err != nil {
				return &exitError{code: ExitFailed, err: err}
			}
			return nil
		},
	}
}

// noSnapshot is the error of a command asked for a page the stash does
// not hold, named as the user named it.
func noSnapshot(urlOrID string) error {
	return &exitError{code: ExitFailed, err: fmt.Errorf("no snapshot of %s in the stash", fetch.Redact(printable.Line(urlOrID)))}
}

// snippetLine is a hit's snippet as a line to print, its matches in the
// terminal's bold if bold.
func snippetLine(h heed.Hit, bold bool) string {
	if !bold {
		return printable.Line(h.Snippet)
	}
	return printable.Marked(h.Snippet, h.Matches, "\033[1m", "\033[0m")
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
