package bench

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/heedhq/heed/extract"
)

func TestScratchExtra(t *testing.T) {
	ids := strings.Split(os.Getenv("IDS"), ",")
	for _, p := range loadDev(t) {
		for _, id := range ids {
			if p.ID != id {
				continue
			}
			doc, _ := extract.Extract(bytes.NewReader(p.html), extract.Options{URL: p.url.String(), ContentType: "text/html; charset=utf-8"})
			truth := strings.ToLower(p.truth)
			fmt.Printf("=== %s %s\n", p.ID, p.URL)
			for _, line := range strings.Split(doc.Markdown, "\n") {
				ws := strings.Fields(strings.ToLower(line))
				if len(ws) == 0 {
					continue
				}
				miss := 0
				for _, w := range ws {
					w = strings.Trim(w, ".,:;!?()[]*#\"'`-_|>")
					if w != "" && !strings.Contains(truth, w) {
						miss++
					}
				}
				if float64(miss) > 0.5*float64(len(ws)) || !strings.Contains(truth, strings.ToLower(strings.Trim(line, "#*-> "))) && len(line) < 80 {
					if len(line) > 150 {
						line = line[:150]
					}
					fmt.Printf("  + %s\n", line)
				}
			}
		}
	}
}
