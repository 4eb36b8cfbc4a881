package extract

// Tests of the class-word cache that extraction keeps across pages: the
// same page gives the same document whatever was extracted before, and no
// page is kept alive by what a document holds.

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func devPageBytes(t *testing.T) (names []string, pages [][]byte) {
	t.Helper()
	files, _ := filepath.Glob("testdata/extract-dev/html/*.html.gz")
	if len(files) == 0 {
		t.Skip("no development set")
	}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		z, err := gzip.NewReader(fh)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(z)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		names, pages = append(names, filepath.Base(f)), append(pages, b)
	}
	return names, pages
}

func resetClassCache() {
	classKinds.mu.Lock()
	classKinds.m = nil
	classKinds.mu.Unlock()
}

func extractSummary(t *testing.T, page []byte) string {
	doc, err := ExtractBytes(bytes.Clone(page), Options{URL: "https://example.com/a/b"})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s\x00%s\x00%v\x00%s", doc.Title, doc.Markdown, doc.Links, doc.Description)
}

// TestClassCacheOrderIndependent: each page extracted with an empty
// cache, then after all the others (forwards and backwards), then by 8
// goroutines at once (run with -race), gives the same document.
func TestClassCacheOrderIndependent(t *testing.T) {
	names, pages := devPageBytes(t)
	fresh := make([]string, len(pages))
	for i, p := range pages {
		resetClassCache()
		fresh[i] = extractSummary(t, p)
	}
	resetClassCache()
	for i := range pages {
		if got := extractSummary(t, pages[i]); got != fresh[i] {
			t.Errorf("%s: forwards, after the pages before it, differs from fresh", names[i])
		}
	}
	for i := len(pages) - 1; i >= 0; i-- {
		if got := extractSummary(t, pages[i]); got != fresh[i] {
			t.Errorf("%s: backwards differs from fresh", names[i])
		}
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < len(pages); i += 8 {
				if got := extractSummary(t, pages[i]); got != fresh[i] {
					t.Errorf("%s: concurrently differs from fresh", names[i])
				}
			}
		})
	}
	wg.Wait()
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestDirectivesKeepThePage: a document's robots directives (their other
// words, their image preview size) do not keep the page alive.
func TestDirectivesKeepThePage(t *testing.T) {
	page := `<html><head><title>A title</title><meta name="robots" content="noai, max-image-preview:large"></head><body>` +
		`<main><p>` + strings.Repeat("padding ", 1<<20) + `</p></main></body></html>`
	var kept Document
	func() {
		doc, err := ExtractBytes([]byte(page), Options{URL: "https://example.com/"})
		if err != nil {
			t.Fatal(err)
		}
		kept.Directives = doc.Directives
	}()
	page = ""
	if h := heapInUse(); h > 6<<20 {
		t.Errorf("%d MB of heap in use with only the document's directives kept (%+v): the page is kept", h>>20, kept.Directives)
	}
	runtime.KeepAlive(kept)
}
