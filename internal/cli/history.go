package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/history"
	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/printable"
	"github.com/heedhq/heed/internal/textdiff"
)

// versionLine is one version as heed history prints it.
type versionLine struct {
	heed.PageVersion
	// Added and Deleted are the words added and removed against the
	// version before, where both texts are kept.
	Added   *int `json:"words_added,omitempty"`
	Deleted *int `json:"words_removed,omitempty"`
}

func (e *env) historyCommand() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "history URL|ID",
		Short: "List the versions of a page the stash keeps",
		Long: `History lists the versions of a page the stash keeps, newest first: its
number, when it was fetched, its content's hash, its size, and the words
added and removed against the version before. A page found gone (an HTTP
404 or 410, or a complete crawl of its source no longer reaching it) has a
removal among them. heed diff shows what changed between two versions.`,
		Example: `  heed history https://go.dev/doc/effective_go
  heed history 4f3a9b2c --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := e.service(false)
			if err != nil {
				return err
			}
			h, err := svc.History(cmd.Context(), args[0])
			if errors.Is(err, heed.ErrNotFound) {
				return noSnapshot(args[0])
			}
			if err != nil {
				return failure(err)
			}
			lines := wordCounts(cmd, e.stderr, svc, h)
			if jsonOut {
				return writeJSON(e.stdout, struct {
					*heed.History
					Versions []versionLine `json:"versions"`
				}{h, lines})
			}
			fmt.Fprintf(e.stdout, "%s  %s\n%s  [%s] %s\n", h.ID, printable.Line(h.Title), strings.Repeat(" ", len(h.ID)), printable.Line(h.Source), printable.Line(h.URL))
			for i := len(lines) - 1; i >= 0; i-- {
				v := lines[i]
				if v.Removed != "" {
					fmt.Fprintf(e.stdout, "%4d  %s  removed (%s)\n", v.N, when(v.At), printable.Line(v.Removed))
					continue
				}
				words := ""
				if v.Added != nil {
					words = fmt.Sprintf("  +%d -%d words", *v.Added, *v.Deleted)
				}
				fmt.Fprintf(e.stdout, "%4d  %s  %.12s  %9s%s\n", v.N, when(v.At), v.Hash, size(v.Size), words)
			}
			for _, u := range h.Unreadable {
				fmt.Fprintf(e.stderr, "heed: an entry of the page's history cannot be read, and is kept as it is: %s\n", printable.Line(heed.Clip(u, 200)))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the history as a JSON object")
	e.dbFlag(cmd)
	return cmd
}

// wordCounts are a history's versions, each with the words added and
// removed against the version before it, where both texts are kept.
func wordCounts(cmd *cobra.Command, stderr io.Writer, svc *ingest.Service, h *heed.History) []versionLine {
	out := make([]versionLine, len(h.Versions))
	var prev string
	havePrev := false
	for i, v := range h.Versions {
		out[i].PageVersion = v
		if v.Removed != "" {
			continue
		}
		text, err := svc.VersionText(cmd.Context(), h.URL, v.N)
		if err != nil {
			if !errors.Is(err, heed.ErrNotFound) {
				// Not the retention's: a text that cannot be read.
				fmt.Fprintf(stderr, "heed: the text of version %d cannot be read, and its words are not counted: %v\n", v.N, err)
			}
			havePrev = false
			continue
		}
		if havePrev {
			a, d := textdiff.Count(prev, text)
			out[i].Added, out[i].Deleted = &a, &d
		}
		prev, havePrev = text, true
	}
	return out
}

func (e *env) diffCommand() *cobra.Command {
	var (
		words   bool
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "diff URL|ID [FROM [TO]]",
		Short: "Show what changed in a page between two of its versions",
		Long: `Diff shows what changed in a page's Markdown between two versions the stash
keeps (heed history lists them): by line, as a unified diff, or with
--words by word, removed words as [-...-] and added ones as {+...+}. FROM
is the version before TO, and TO the page's current version, unless given.`,
		Example: `  heed diff https://go.dev/doc/effective_go
  heed diff https://go.dev/doc/effective_go 2 5 --words`,
		Args: cobra.RangeArgs(1, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			svc, err := e.service(false)
			if err != nil {
				return err
			}
			var nums []int
			for _, a := range args[1:] {
				n, err := strconv.Atoi(strings.TrimPrefix(a, "v"))
				if err != nil || n < 1 {
					return usageErrorf("a version is a number that heed history lists, not %q", printable.Line(a))
				}
				nums = append(nums, n)
			}
			h, err := svc.History(cmd.Context(), args[0])
			if errors.Is(err, heed.ErrNotFound) {
				return noSnapshot(args[0])
			}
			if err != nil {
				return failure(err)
			}
			from, to, err := versionsToCompare(h, nums)
			if err != nil {
				return &exitError{code: ExitFailed, err: err}
			}
			old, err := svc.VersionText(cmd.Context(), h.URL, from)
			if err != nil {
				return failure(err)
			}
			cur, err := svc.VersionText(cmd.Context(), h.URL, to)
			if err != nil {
				return failure(err)
			}
			added, removed := textdiff.Count(old, cur)
			var out string
			if words {
				out = textdiff.Words(old, cur)
			} else {
				out = textdiff.Lines(fmt.Sprintf("version %d", from), fmt.Sprintf("version %d", to), old, cur)
			}
			if jsonOut {
				return writeJSON(e.stdout, struct {
					URL     string `json:"url"`
					From    int    `json:"from"`
					To      int    `json:"to"`
					Added   int    `json:"words_added"`
					Removed int    `json:"words_removed"`
					Diff    string `json:"diff"`
				}{h.URL, from, to, added, removed, out})
			}
			if old == cur {
				fmt.Fprintf(e.stderr, "heed: versions %d and %d of %s have the same text\n", from, to, printable.Line(h.URL))
				return nil
			}
			fmt.Fprint(e.stdout, printable.Text(out))
			if !strings.HasSuffix(out, "\n") {
				fmt.Fprintln(e.stdout)
			}
			fmt.Fprintf(e.stderr, "heed: version %d to %d: %d words added, %d removed\n", from, to, added, removed)
			return nil
		},
	}
	cmd.Flags().BoolVar(&words, "words", false, "show the changes by word rather than by line")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the diff as a JSON object")
	e.dbFlag(cmd)
	return cmd
}

// versionsToCompare are the versions heed diff compares, given none,
// FROM, or FROM and TO: TO is the page's current version (or the last
// before its removal), FROM the version before TO.
func versionsToCompare(h *heed.History, nums []int) (from, to int, err error) {
	kept := func(n int) error {
		v, ok := history.Find(h.Versions, n)
		switch {
		case !ok:
			return fmt.Errorf("%s has no version %d that the stash keeps (heed history lists them)", h.URL, n)
		case v.Removed != "":
			return fmt.Errorf("version %d of %s is its removal, which has no text", n, h.URL)
		}
		return nil
	}
	switch len(nums) {
	case 2:
		from, to = nums[0], nums[1]
	case 1:
		from = nums[0]
		cur, _ := history.Current(h.Versions)
		to = cur.N
	default:
		cur, _ := history.Current(h.Versions)
		to = cur.N
		for i := len(h.Versions) - 1; i >= 0; i-- {
			if v := h.Versions[i]; v.N < to && v.Removed == "" {
				from = v.N
				break
			}
		}
		if from == 0 {
			return 0, 0, fmt.Errorf("%s has one version in the stash: nothing to compare it with", h.URL)
		}
	}
	if err := cmp.Or(kept(from), kept(to)); err != nil {
		return 0, 0, err
	}
	return from, to, nil
}

func (e *env) changesCommand() *cobra.Command {
	var (
		since   string
		source  string
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "changes",
		Short: "List the pages new, changed and removed since a time",
		Long: `Changes lists the stash's pages that are new, changed or removed since a
time (by default a week ago), and counts them. A page is new if it had no
version then (or had been removed), changed if its content changed since,
removed if it was found gone since. --since takes a time (2026-12-01,
2026-12-01T09:00:00Z) or a duration back from now (36h, 7d).`,
		Example: `  heed changes --since 7d
  heed changes --since 2026-12-01 --source go.dev --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			at, err := history.ParseSince(since, time.Now())
			if err != nil {
				return usageErrorf("--since: %v", err)
			}
			svc, err := e.service(false)
			if err != nil {
				return err
			}
			cs, err := svc.Changes(cmd.Context(), heed.ChangesQuery{Since: at, Source: source})
			if err != nil {
				return failure(err)
			}
			counts := map[heed.Change]int{}
			for _, c := range cs {
				counts[c.Change]++
				if jsonOut {
					if err := writeJSON(e.stdout, c); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintf(e.stdout, "%-8s %s  %s  %s\n", c.Change, when(c.At), printable.Line(c.URL), versions(c))
			}
			if jsonOut {
				return writeJSON(e.stdout, struct {
					Since   time.Time `json:"since"`
					New     int       `json:"new"`
					Changed int       `json:"changed"`
					Removed int       `json:"removed"`
				}{at.UTC(), counts[heed.New], counts[heed.Changed], counts[heed.Removed]})
			}
			fmt.Fprintf(e.stderr, "heed: since %s: %d new, %d changed, %d removed\n", when(at), counts[heed.New], counts[heed.Changed], counts[heed.Removed])
			return nil
		},
	}
	cmd.Flags().StringVar(&since, "since", history.DefaultSince, "a time, or a duration back from now")
	cmd.Flags().StringVar(&source, "source", "", "only this source's pages")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print a JSON object per page, and one of the counts")
	e.dbFlag(cmd)
	return cmd
}

// versions says which versions a change is between.
func versions(c heed.PageChange) string {
	switch c.Change {
	case heed.New:
		return fmt.Sprintf("(version %d)", c.To)
	case heed.Removed:
		return fmt.Sprintf("(after version %d)", c.From)
	}
	return fmt.Sprintf("(version %d to %d)", c.From, c.To)
}

// when is a time as heed's lists print it, in UTC to the minute.
func when(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

// size is a number of bytes, short.
func size(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
