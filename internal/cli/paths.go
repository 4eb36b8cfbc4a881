package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed/internal/printable"
)

// pathsCommand shows where heed reads its config and keeps its stash, as
// every other command finds them from the flags, the environment and the
// config file: --help cannot, since they depend on all three.
func (e *env) pathsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "paths",
		Short: "Show the config file and the stash heed uses",
		Long: `Paths prints the config file heed reads (--config, $HEED_CONFIG, or
heed/config.yaml in the user's config directory) and the stash directory it
uses (--stash, $HEED_STASH, the config file's stash:, or heed in the user's
data directory), as the other commands find them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			conf, err := e.config()
			if err != nil {
				return err
			}
			dir, err := e.stashDir()
			if err != nil {
				return failure(err)
			}
			fmt.Fprintf(e.stdout, "config  %s%s\n", printable.Line(conf.Path()), missing(conf.Path(), " (no file yet: heed add writes it)"))
			fmt.Fprintf(e.stdout, "stash   %s%s\n", printable.Line(dir), missing(dir, " (none yet: heed crawl or heed add makes it)"))
			return nil
		},
	}
}

// missing is note when nothing is at path, else "".
func missing(path, note string) string {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return note
	}
	return ""
}
