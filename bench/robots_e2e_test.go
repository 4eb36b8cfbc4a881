package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// e2e builds heed and the least program over temoto once, for the
// end-to-end benchmark.
var e2e struct {
	once         sync.Once
	heed, temoto string
	err          error
}

func binaries(tb testing.TB) (heed, temoto string) {
	tb.Helper()
	e2e.once.Do(func() {
		dir, err := os.MkdirTemp("", "heed-bench-")
		if err != nil {
			e2e.err = err
			return
		}
		e2e.heed, e2e.temoto = filepath.Join(dir, "heed"), filepath.Join(dir, "temotocheck")
		// heed from its own module, with its own go.sum. Both alike, as the
		// README builds heed: CGO_ENABLED=0, static binaries that start
		// without the dynamic loader (temoto's package imports net/http,
		// so a cgo build of either would be linked dynamically).
		for _, b := range [][3]string{{"..", e2e.heed, "./cmd/heed"}, {".", e2e.temoto, "./cmd/temotocheck"}} {
			cmd := exec.Command("go", "-C", b[0], "build", "-o", b[1], b[2])
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				e2e.err = fmt.Errorf("go build %s: %v\n%s", b[2], err, out)
				return
			}
		}
	})
	if e2e.err != nil {
		tb.Fatal(e2e.err)
	}
	return e2e.heed, e2e.temoto
}

// urls are n absolute URLs made of the paths, the later ones with a query
// each so that no two are alike.
func urls(tb testing.TB, n int) []string {
	ps := paths(tb)
	out := make([]string, n)
	for i := range out {
		out[i] = "https://example.com" + ps[i%len(ps)]
		if i >= len(ps) {
			out[i] += fmt.Sprintf("?p=%d", i)
		}
	}
	return out
}

// BenchmarkRobotsCheckEndToEnd runs, as a user would, heed robots check
// --json --file F URL... and the least program over temoto (read the
// file, parse it, test each URL, print a JSON line each) on each file
// with 2,000 URLs: the process, its start, parsing, deciding and writing
// every answer. heed's answers say more (the rule, line and group that
// decided).
//
//	go -C bench test -run '^$' -bench RobotsCheckEndToEnd
func BenchmarkRobotsCheckEndToEnd(b *testing.B) {
	heed, temoto := binaries(b)
	us := urls(b, 2000)
	for _, name := range files {
		file, _ := filepath.Abs("testdata/" + name + ".txt")
		for _, tool := range []struct {
			name string
			args []string
		}{
			{"heed", append([]string{heed, "robots", "check", "--json", "--file", file}, us...)},
			{"temoto", append([]string{temoto, file}, us...)},
		} {
			b.Run(tool.name+"/"+name, func(b *testing.B) {
				var cpu time.Duration
				for b.Loop() {
					cmd := exec.Command(tool.args[0], tool.args[1:]...)
					cmd.Env = append(os.Environ(), "HEED_CONFIG="+filepath.Join(b.TempDir(), "none.yaml"))
					out, err := cmd.Output()
					if err != nil && cmd.ProcessState.ExitCode() != 1 || len(out) == 0 {
						b.Fatalf("%s: %v", tool.name, err)
					}
					cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				}
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
