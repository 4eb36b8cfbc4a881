package main

import (
	"context"
	"os"

	"github.com/heedhq/heed/internal/cli"
)

// main runs heed. The commands that listen for Ctrl-C and SIGTERM start
// listening themselves (cli's stoppable), so that the quick ones do not
// pay for it.
func main() {
	os.Exit(cli.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
