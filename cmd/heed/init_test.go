package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestInitMakesNoTables runs heed --version with GODEBUG=inittrace=1,
// which reports each package's initialization, and wants each of heed's
// own packages to make at most a few dozen allocations: tables, maps and
// compiled expressions are made when a command first uses them, not as
// every process starts (allocations are counted, not timed, so that the
// machine's load cannot change the answer).
func TestInitMakesNoTables(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const most = 40
	cmd := exec.Command(build(t), "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("heed --version: %v\n%s", err, stderr.String())
	}
	seen := 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[10] != "allocs" {
			continue
		}
		pkg := f[1]
		if pkg != "github.com/heedhq/heed" && !strings.HasPrefix(pkg, "github.com/heedhq/heed/") {
			continue
		}
		seen++
		allocs, err := strconv.Atoi(f[9])
		if err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		if allocs > most {
			t.Errorf("%s makes %d allocations as heed starts (%s bytes); at most %d", pkg, allocs, f[7], most)
		}
	}
	if seen == 0 {
		t.Fatalf("no heed package in the trace:\n%s", stderr.String())
	}
}
