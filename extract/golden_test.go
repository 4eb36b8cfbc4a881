package extract

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heedhq/heed/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the markdown sections of testdata/golden")

// TestGolden extracts each page in testdata/golden and compares the
// Markdown, and the metadata where a file states it, with what the file
// holds. Run with -update to rewrite the Markdown after a deliberate
// change, and read the diff.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			sec := testutil.Sections(t, file)
			doc, err := Extract(strings.NewReader(sec["html"]), Options{URL: strings.TrimSpace(sec["url"])})
			if err != nil {
				t.Fatal(err)
			}
			got := doc.Markdown + "\n"
			if *update {
				sec["markdown"] = got
				names := []string{"url", "html", "markdown"}
				if _, ok := sec["meta"]; ok {
					names = append(names, "meta")
				}
				comment := strings.SplitN(readAll(t, file), "\n-- ", 2)[0] + "\n"
				testutil.WriteSections(t, file, comment, names, sec)
				return
			}
			if diff := cmp.Diff(sec["markdown"], got); diff != "" {
				t.Errorf("markdown mismatch (-want +got):\n%s", diff)
			}
			if want, ok := sec["meta"]; ok {
				if diff := cmp.Diff(want, metaOf(doc)); diff != "" {
					t.Errorf("metadata mismatch (-want +got):\n%s", diff)
				}
			}
			// Extraction is deterministic.
			again, _ := Extract(strings.NewReader(sec["html"]), Options{URL: strings.TrimSpace(sec["url"])})
			if again.Markdown != doc.Markdown {
				t.Errorf("a second extraction differs")
			}
		})
	}
}

func metaOf(d *Document) string {
	var b strings.Builder
	line := func(k, v string) {
		if v != "" {
			b.WriteString(k + ": " + v + "\n")
		}
	}
	line("title", d.Title)
	line("description", d.Description)
	line("lang", d.Lang)
	line("canonical", d.Canonical)
	if !d.Published.IsZero() {
		line("published", d.Published.Format(time.RFC3339))
	}
	if !d.Modified.IsZero() {
		line("modified", d.Modified.Format(time.RFC3339))
	}
	var dirs []string
	for _, s := range d.Directives {
		dirs = append(dirs, s.String())
	}
	line("directives", strings.Join(dirs, "; "))
	line("links", strings.Join(d.Links, " "))
	return b.String()
}

func readAll(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
