package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed/internal/ingest"
	"github.com/heedhq/heed/internal/printable"
)

// dbURL is the team database's URL: --db, else $HEED_DB.
func dbURL(flag string) string {
	if flag != "" {
		return flag
	}
	return os.Getenv("HEED_DB")
}

func (e *env) migrateCommand() *cobra.Command {
	var db string
	cmd := &cobra.Command{
		Use:   "migrate --db URL",
		Short: "Create or upgrade a team database's schema (heed's and River's)",
		Long: `Migrate creates heed's tables and River's job tables in a PostgreSQL
database (15 or later), or upgrades them to what this heed knows. Running
it again changes nothing; two at once run one after the other. A database
that a newer heed migrated is refused, unchanged.

The URL is a PostgreSQL connection URL or keyword/value string, from --db
or $HEED_DB; its password is never printed.`,
		Example: `  heed migrate --db postgres://heed@db.internal/heed
  HEED_DB=postgres://heed@db.internal/heed heed migrate`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			url := dbURL(db)
			if url == "" {
				return usageErrorf("migrate: no database: give --db URL or set HEED_DB")
			}
			res, err := ingest.Migrate(cmd.Context(), url)
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
	return cmd
}

// dbFlag gives a reading command --db: it then reads a team's database
// (default $HEED_DB) in place of the stash of files.
func (e *env) dbFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&e.db, "db", "", "read a team's database at this PostgreSQL URL (default $HEED_DB) in place of the stash")
	pre := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		e.db = dbURL(e.db)
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
			url := dbURL(db)
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
			fmt.Fprintf(e.stdout, "wrote %d snapshots to %s\n", n, printable.Line(dir))
			return nil
		},
	}
	cmd.Flags().StringVar(&db, "db", "", "the team database's PostgreSQL URL (default $HEED_DB)")
	return cmd
}
