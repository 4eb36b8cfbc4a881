package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/stash"
)

// BenchmarkStartup runs the built heed as a user does, for commands that
// do little but start: --version, a search of an empty stash (its index
// opened and searched), and a
// robots.txt check of a file. It reports the wall time a run and the CPU
// time (user and system) of the process; package initialization is what
// they pay beyond the work, so that nothing heavy may be done at start-up
// (the goal is under 10 ms of each).
//
//	go test -run '^$' -bench Startup ./cmd/heed
func BenchmarkStartup(b *testing.B) {
	bin := build(b)
	dir := b.TempDir()
	robots := filepath.Join(dir, "robots.txt")
	if err := os.WriteFile(robots, []byte("User-agent: *\nDisallow: /private/\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	// An empty stash, so that search opens its index and searches it.
	st, err := stash.Open(b.Context(), filepath.Join(dir, "stash"))
	if err != nil {
		b.Fatal(err)
	}
	st.Close()
	env := append(os.Environ(), "HEED_CONFIG="+filepath.Join(dir, "config.yaml"), "HEED_STASH="+filepath.Join(dir, "stash"))
	for _, c := range []struct {
		name string
		args []string
	}{
		{"version", []string{"--version"}},
		{"robots-check", []string{"robots", "check", "--file", robots, "https://example.com/private/x"}},
		{"search", []string{"search", "tides"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				cmd := exec.Command(bin, c.args...)
				cmd.Env = env
				cmd.Run() // exit codes 1 and 2 are the commands' answers
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
