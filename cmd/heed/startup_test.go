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
// robots.txt check of a file; and, for scale, a Go program that prints
// hello (go-hello-world), built alike (CGO_ENABLED=0, as the README
// builds heed). It reports the wall time a run and
// the CPU time (user and system) of the process; package initialization
// is what they pay beyond the work, so that nothing may be initialised at
// start-up that the command does not use (the goal is heed --version in
// at most twice the hello program's time).
//
//	go test -run '^$' -bench Startup ./cmd/heed
func BenchmarkStartup(b *testing.B) {
	bin := build(b)
	dir := b.TempDir()
	hello := filepath.Join(dir, "hello")
	for name, text := range map[string]string{
		"go.mod":  "module hello\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	build := exec.Command("go", "-C", dir, "build", "-o", hello, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build hello: %v\n%s", err, out)
	}
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
		{"go-hello-world", nil},
		{"version", []string{"--version"}},
		{"robots-check", []string{"robots", "check", "--file", robots, "https://example.com/private/x"}},
		{"search", []string{"search", "tides"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				cmd := exec.Command(bin, c.args...)
				if c.args == nil {
					cmd = exec.Command(hello)
				}
				cmd.Env = env
				cmd.Run() // exit codes 1 and 2 are the commands' answers
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
