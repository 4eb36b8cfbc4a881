package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptedCrawlSaysWhatItDid: a crawl without a terminal prints
// progress lines as it goes; Ctrl-C (SIGINT) stops it, and it prints
// what it came to until then before it exits 1.
func TestInterruptedCrawlSaysWhatItDid(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := build(t)
	held := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" && !strings.HasPrefix(r.URL.Path, "/p") {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path != "/" {
			// The pages after the start are slow to come: the crawl
			// is at work on one when it is interrupted.
			select {
			case <-held:
			case <-r.Context().Done():
			}
			return
		}
		fmt.Fprintf(w, `<html><head><title>Page %s</title></head><body><main><p>Page %s, with words enough to be content.</p><a href="/p1">1</a> <a href="/p2">2</a> <a href="/p3">3</a></main></body></html>`, r.URL.Path, r.URL.Path)
	}))
	defer s.Close()
	defer close(held)
	// Every door that crawls says what it did: crawl, add, and sync of a
	// recorded source.
	recorded := filepath.Join(t.TempDir(), "heed.yaml")
	if err := os.WriteFile(recorded, []byte("sources:\n  site:\n    url: "+s.URL+"/\n    delay: 0s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, door := range []struct {
		args   []string
		config string
	}{
		{[]string{"crawl", s.URL + "/", "--delay", "0s"}, filepath.Join(t.TempDir(), "none.yaml")},
		{[]string{"add", s.URL + "/", "--kind", "website", "--delay", "0s"}, filepath.Join(t.TempDir(), "new.yaml")},
		{[]string{"sync"}, recorded},
	} {
		t.Run(door.args[0], func(t *testing.T) { interrupt(t, bin, door.args, door.config) })
	}
}

// interrupt runs heed with args, interrupts it once it has stored a page
// and checks what it says.
func interrupt(t *testing.T, bin string, args []string, config string) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // a guard against a hang, not a measure
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, "--stash", t.TempDir(), "--allow-net", "127.0.0.1/32", "--progress-every", "100ms")...)
	cmd.Env = append(os.Environ(), "HEED_CONFIG="+config)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var seen []string
	for sc.Scan() {
		seen = append(seen, sc.Text())
		if strings.HasPrefix(sc.Text(), "heed: 1 stored · ") {
			break // a progress line, though stderr is no terminal
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		seen = append(seen, sc.Text())
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("heed %s interrupted: %v, want exit 1", args[0], err)
	}
	// (sync heads each source's lines with its name)
	if out := stdout.String(); !strings.HasPrefix(out, "1 stored (1 new, 0 changed), 0 unchanged, 0 failed, 3 skipped (3 interrupted)") && !strings.Contains(out, ":\n1 stored (1 new, 0 changed), 0 unchanged, 0 failed, 3 skipped (3 interrupted)") {
		t.Errorf("an interrupted crawl printed\n%s\nwant the summary of what it did (stderr:\n%s)", stdout.String(), strings.Join(seen, "\n"))
	}
	if !strings.Contains(strings.Join(seen, "\n"), "interrupted") {
		t.Errorf("stderr does not say the crawl was interrupted:\n%s", strings.Join(seen, "\n"))
	}
}
