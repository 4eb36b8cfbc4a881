// Command truth writes the PDF development set from the unpacked Debian
// packages: for each document of the manifest its PDF, its truth text and
// its truth headings. bench/pdfdev/build.sh runs it after unpacking the
// packages:
//
//	go run ./pdfdev/truth -manifest pdfdev/manifest.tsv -pkgs testdata/pdfdev/pkgs -out testdata/pdfdev
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/heedhq/heed/bench/pdfdev"
)

func main() {
	manifest := flag.String("manifest", "pdfdev/manifest.tsv", "the set's manifest")
	pkgs := flag.String("pkgs", "testdata/pdfdev/pkgs", "where each package is unpacked, a directory named after it")
	out := flag.String("out", "testdata/pdfdev", "where the set is written")
	flag.Parse()
	if err := run(*manifest, *pkgs, *out); err != nil {
		fmt.Fprintln(os.Stderr, "truth:", err)
		os.Exit(1)
	}
}

func run(manifest, pkgs, out string) error {
	docs, err := pdfdev.Load(manifest)
	if err != nil {
		return err
	}
	for _, d := range []string{"pdf", "truth"} {
		// A document no longer in the manifest leaves no files behind.
		if err := os.RemoveAll(filepath.Join(out, d)); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			return err
		}
	}
	fmt.Printf("%-28s %-10s %-6s %10s %6s %8s %8s\n", "id", "generator", "split", "PDF bytes", "pages", "words", "headings")
	for _, d := range docs {
		pdf, err := readPDF(filepath.Join(pkgs, d.PDFPackage, d.PDF))
		if err != nil {
			return fmt.Errorf("%s: %w", d.ID, err)
		}
		t, err := pdfdev.DocTruth(d, filepath.Join(pkgs, d.HTMLPackage))
		if err != nil {
			return err
		}
		if t.Pages == 0 {
			return fmt.Errorf("%s: no HTML page has content", d.ID)
		}
		files := map[string][]byte{
			filepath.Join(out, "pdf", d.ID+".pdf"):        pdf,
			filepath.Join(out, "truth", d.ID+".txt"):      []byte(t.Text + "\n"),
			filepath.Join(out, "truth", d.ID+".headings"): []byte(strings.Join(t.Headings, "\n") + "\n"),
		}
		for name, data := range files {
			if err := os.WriteFile(name, data, 0o644); err != nil {
				return err
			}
		}
		fmt.Printf("%-28s %-10s %-6s %10d %6d %8d %8d\n", d.ID, d.Generator, d.Split, len(pdf), t.Pages, len(strings.Fields(t.Text)), len(t.Headings))
	}
	return nil
}

// readPDF reads a PDF as the package ships it, unpacking a gzipped one.
func readPDF(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		if raw, err = io.ReadAll(zr); err != nil {
			return nil, err
		}
	}
	if !bytes.HasPrefix(raw, []byte("%PDF-")) {
		return nil, fmt.Errorf("%s is no PDF", path)
	}
	return raw, nil
}
