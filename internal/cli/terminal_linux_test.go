package cli

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openTerminal opens a pseudo-terminal: the terminal end, to stand for a
// user's standard input, and the other end, to type into it.
func openTerminal(t *testing.T) (tty, keyboard *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty, ptmx
}

// runOnTerminal runs heed with standard input a terminal on which the
// user has typed typed.
func runOnTerminal(t *testing.T, typed string, args ...string) (int, string, string) {
	t.Helper()
	tty, keyboard := openTerminal(t)
	if _, err := keyboard.WriteString(typed); err != nil {
		t.Fatal(err)
	}
	var out, stderr bytes.Buffer
	code := Run(t.Context(), args, tty, &out, &stderr)
	return code, out.String(), stderr.String()
}

// TestRmAsksOnATerminal: on a terminal, heed rm of more than
// manySnapshots snapshots asks first; anything but y removes nothing.
func TestRmAsksOnATerminal(t *testing.T) {
	t.Setenv("HEED_STASH", "")
	s := manyPages(t, manySnapshots+1)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	if code, out, stderr := run(t, "", "add", s.URL+"/", "--name", "docs", "--delay", "0", "--config", conf); code != 0 {
		t.Fatalf("add: exit %d %s %s", code, out, stderr)
	}
	question := fmt.Sprintf("Remove the %d snapshots of docs and its record in %s? [y/N] ", manySnapshots+1, conf)
	code, out, stderr := runOnTerminal(t, "n\n", "rm", "docs", "--config", conf)
	if code != ExitFailed || out != "" || !strings.Contains(stderr, question) || !strings.Contains(stderr, "nothing was removed") {
		t.Errorf("heed rm answered n: exit %d, %q, %q", code, out, stderr)
	}
	if data, _ := os.ReadFile(conf); !strings.Contains(string(data), "docs:") {
		t.Errorf("heed rm answered n un-recorded the source")
	}
	code, out, stderr = runOnTerminal(t, "y\n", "rm", "docs", "--config", conf)
	if code != 0 || out != fmt.Sprintf("removed %d snapshots of docs\n", manySnapshots+1) || !strings.Contains(stderr, question) {
		t.Errorf("heed rm answered y: exit %d, %q, %q", code, out, stderr)
	}
}

// TestChooseFeedOnATerminal: on a terminal, heed add of a page naming one
// feed asks whether to follow it or crawl the site, offering the choices
// there are (not "1-1").
func TestChooseFeedOnATerminal(t *testing.T) {
	t.Setenv("HEED_STASH", "")
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/feed.xml":
			w.Header().Set("Content-Type", "application/rss+xml")
			fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>F</title><link>http://e.com/</link><description>d</description><item><title>One</title><link>http://e.com/1</link></item></channel></rss>`)
		case "/robots.txt":
		default:
			fmt.Fprint(w, `<html><head><title>Blog</title><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body><main><p>A blog with words enough to be content.</p></main></body></html>`)
		}
	}))
	t.Cleanup(s.Close)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	code, out, stderr := runOnTerminal(t, "\n", "add", s.URL+"/", "--name", "blog", "--config", conf)
	if code != 0 || !strings.Contains(stderr, "Which one [1 or w, 1 if empty]? ") || strings.Contains(stderr, "1-1") || !strings.Contains(out, "feed "+s.URL+"/feed.xml: 1 item, 1 new\n") {
		t.Errorf("heed add of a page naming one feed, on a terminal: exit %d, %q, %q", code, out, stderr)
	}
}
