// Command temotocheck is the least program that checks URLs against a
// robots.txt file with github.com/temoto/robotstxt, for heed's end-to-end
// benchmark of heed robots check: temotocheck FILE URL... prints a JSON
// line per URL saying whether it is allowed.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/url"
	"os"

	"github.com/temoto/robotstxt"
)

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	r, err := robotstxt.FromBytes(data)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	group := r.FindGroup("heed")
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for _, raw := range os.Args[2:] {
		path := raw
		if u, err := url.Parse(raw); err == nil && u.Path != "" {
			path = u.EscapedPath()
			if u.RawQuery != "" {
				path += "?" + u.RawQuery
			}
		}
		enc.Encode(struct {
			URL     string `json:"url"`
			Allowed bool   `json:"allowed"`
		}{raw, group.Test(path)})
	}
}
