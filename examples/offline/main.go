package main

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/heedhq/heed/internal/cli"
)

//go:embed site
var site embed.FS

func main() {
	root, _ := fs.Sub(site, "site")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go http.Serve(l, http.FileServerFS(root))
	base := "http://" + l.Addr().String() + "/"

	stash, err := os.MkdirTemp("", "heed-offline-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// The example keeps away from the user's own config and stash. A user
	// allows their own intranet the same way: --allow-net.
	// A config file of its own, with no sources yet.
	conf := filepath.Join(stash, "config.yaml")
	if err := os.WriteFile(conf, []byte("# heed's config for the offline example\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	common := []string{"--stash", stash, "--config", conf, "--allow-net", "127.0.0.1/32"}
	steps := [][]string{
		append([]string{"crawl", base, "--name", "tidewater"}, common...),
		append([]string{"search", "rip", "current"}, common...),
	}
	for _, args := range steps {
		fmt.Printf("$ heed %s\n", strings.Join(args, " "))
		if code := cli.Run(context.Background(), args, os.Stdin, os.Stdout, os.Stderr); code != 0 {
			os.Exit(code)
		}
		fmt.Println()
	}
	fmt.Printf("The stash is in %s: Markdown files you can read, and an index.\n", stash)
}
