package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/heedhq/heed/internal/heapfloor"
)

// TestRootCommandMakesWhatTheLineReaches runs command lines on the tree
// rootCommand makes for them and on the whole tree: each must say and do
// the same on both, so that making only the command a line names never
// changes what the line does (flags before the command, a flag's value
// that is a command's name, help, completion, mistyped names).
func TestRootCommandMakesWhatTheLineReaches(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HEED_CONFIG", filepath.Join(dir, "config.yaml"))
	t.Setenv("HEED_STASH", filepath.Join(dir, "stash"))
	robotsFile := writeFile(t, "robots.txt", sample)
	for _, line := range [][]string{
		nil,
		{"--version"},
		{"-v"},
		{"--version", "--help"},
		{"-v", "extra"},
		{"--help"},
		{"-h"},
		{"help"},
		{"help", "robots"},
		{"robots"},
		{"robots", "chek"},
		{"robots", "--help"},
		{"robots", "check", "--help"},
		{"robots", "check", "--file", robotsFile, "https://example.com/private/x", "https://example.com/docs/"},
		{"--config", "robots", "crawl", "https://example.com/"},
		{"--stash", "search", "search", "tides"},
		{"sarch", "tides"},
		{"search", "--help"},
		{"crawl", "--help"},
		{"paths"},
		{"completion", "bash"},
		{"__complete", "robots", ""},
		{"__complete", ""},
		{"__complete", "robots", "check", "--f"},
	} {
		t.Run(strings.Join(line, " "), func(t *testing.T) {
			var got, want [3]string
			for i, whole := range []bool{false, true} {
				var out, errOut bytes.Buffer
				e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}
				root := e.rootCommand(line...)
				if whole {
					root = e.rootCommand()
				}
				root.SetArgs(line)
				root.SetIn(e.stdin)
				root.SetOut(&out)
				root.SetErr(&errOut)
				err := root.ExecuteContext(t.Context())
				if e.svc != nil {
					e.svc.Close()
				}
				r := [3]string{out.String(), errOut.String(), ""}
				if err != nil {
					r[2] = err.Error()
				}
				if i == 0 {
					got = r
				} else {
					want = r
				}
			}
			if got != want {
				t.Errorf("made for the line: stdout %q, stderr %q, error %q\nwhole tree: stdout %q, stderr %q, error %q",
					got[0], got[1], got[2], want[0], want[1], want[2])
			}
		})
	}
}

// BenchmarkRun runs heed in the process for commands that do little but
// start, so that the work of making the command tree shows (allocs/op
// does not vary with the machine's load):
//
//	go test -run '^$' -bench Run -benchmem ./internal/cli
func BenchmarkRun(b *testing.B) {
	dir := b.TempDir()
	b.Setenv("HEED_CONFIG", filepath.Join(dir, "config.yaml"))
	robotsFile := filepath.Join(dir, "robots.txt")
	if err := os.WriteFile(robotsFile, []byte(sample), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"version", []string{"--version"}},
		{"robots-check", []string{"robots", "check", "--file", robotsFile, "https://example.com/private/x"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				var out bytes.Buffer
				if code := Run(b.Context(), c.args, strings.NewReader(""), &out, &out); code > ExitFailed {
					b.Fatalf("exit %d: %s", code, out.String())
				}
			}
		})
	}
}

// TestRootCommandMakesOnlyWhatTheLineNames wants the tree made for a line
// that names a command to hold that command alone, and none for a lone
// --version: making every command is the start-up work the lazy tree
// saves, and a tree that made them all would pass every test of what
// lines do. A line it cannot read (a flag before the command) gets them
// all.
func TestRootCommandMakesOnlyWhatTheLineNames(t *testing.T) {
	names := func(line ...string) []string {
		e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
		var got []string
		for _, c := range e.rootCommand(line...).Commands() {
			got = append(got, c.Name())
		}
		return got
	}
	all := names()
	if len(all) < 17 {
		t.Fatalf("the whole tree holds %v", all)
	}
	for _, line := range [][]string{{"--version"}, {"-v"}} {
		if got := names(line...); len(got) != 0 {
			t.Errorf("heed %s makes %v, want none", strings.Join(line, " "), got)
		}
	}
	for _, name := range all {
		if got := names(name, "--help"); !slices.Equal(got, []string{name}) {
			t.Errorf("heed %s --help makes %v, want %s alone", name, got, name)
		}
	}
	if got := names("robots", "check", "--file", "robots.txt", "https://example.com/"); !slices.Equal(got, []string{"robots"}) {
		t.Errorf("heed robots check makes %v, want robots alone", got)
	}
	if got := names("--stash", "s", "search", "q"); !slices.Equal(got, all) {
		t.Errorf("heed --stash s search q makes %v, want the whole tree %v", got, all)
	}
}

// TestHeapFloorWhereCommandsCrawl wants the collector's floor
// (heapfloor) in force while crawl, add, sync, reindex and mcp run, and
// not while the other commands run, both on the tree made for the line and
// with a flag before the command (the whole tree): the root's pre-run
// hook sets it by the name of the command the line reaches.
func TestHeapFloorWhereCommandsCrawl(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT is set: heapfloor leaves the collector alone")
	}
	floored := []string{"crawl", "add", "sync", "reindex", "mcp"}
	e := &env{}
	for _, c := range e.rootCommand().Commands() {
		name := c.Name()
		for _, line := range [][]string{{name}, {"--agent", "a", name}} {
			e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
			root := e.rootCommand(line...)
			reserve := -1
			for _, c := range root.Commands() {
				if c.Name() == name {
					// In place of the command's work: what the floor is
					// as it would start.
					c.Args, c.Run = cobra.ArbitraryArgs, nil
					c.RunE = func(*cobra.Command, []string) error { reserve = int(heapfloor.Reserve()); return nil }
				}
			}
			root.SetArgs(line)
			root.SetOut(io.Discard)
			root.SetErr(io.Discard)
			err := root.ExecuteContext(t.Context())
			if e.undoFloor != nil {
				e.undoFloor()
			}
			if err != nil {
				t.Fatalf("heed %s: %v", strings.Join(line, " "), err)
			}
			switch want := slices.Contains(floored, name); {
			case reserve < 0:
				t.Errorf("heed %s did not run", strings.Join(line, " "))
			case want && reserve == 0:
				t.Errorf("heed %s runs without the heap floor", strings.Join(line, " "))
			case !want && reserve != 0:
				t.Errorf("heed %s runs with a heap floor's reserve of %d bytes", strings.Join(line, " "), reserve)
			}
		}
	}
	if r := heapfloor.Reserve(); r != 0 {
		t.Errorf("a reserve of %d bytes is left after the commands", r)
	}
}

// TestStoppable: a command that sends a request or writes listens for
// Ctrl-C and SIGTERM, to stop and keep what it did; only those that read
// a local file and print are left to the signal's default action.
func TestStoppable(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"robots", "check", "--file", "robots.txt", "/x"}, false},
		{[]string{"robots", "lint", "robots.txt"}, false},
		{[]string{"robots", "fmt", "robots.txt"}, false},
		{[]string{"paths"}, false},
		{[]string{"robots", "check", "https://example.com/x"}, true},
		{[]string{"crawl", "https://example.com/"}, true},
		{[]string{"fetch", "https://example.com/"}, true},
		{[]string{"sync"}, true},
		{[]string{"add", "https://example.com/"}, true},
		{[]string{"mcp"}, true},
		{[]string{"worker"}, true},
		{[]string{"reindex"}, true},
		{[]string{"export", "dir"}, true},
		{[]string{"rm", "x"}, true},
		{[]string{"map", "https://example.com/"}, true},
	} {
		e := &env{}
		root := e.rootCommand(c.args...)
		cmd, rest, err := root.Find(c.args)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if got := stoppable(cmd); got != c.want {
			t.Errorf("stoppable(%v) = %v, want %v", c.args, got, c.want)
		}
	}
}
