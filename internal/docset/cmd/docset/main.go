package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/heedhq/heed/internal/docset"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: docset DIR [PAGES-PER-GENERATOR]")
		os.Exit(2)
	}
	n := 30
	if len(os.Args) > 2 {
		var err error
		if n, err = strconv.Atoi(os.Args[2]); err != nil || n < 1 {
			fmt.Fprintln(os.Stderr, "docset: pages per generator must be a positive number")
			os.Exit(2)
		}
	}
	if err := os.RemoveAll(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := docset.Build(os.Args[1], n); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
