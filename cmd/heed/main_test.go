package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBinary builds heed and runs the README's quick-start example, so
// that the command a new user types first keeps working.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "heed")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "robots", "check", "--file", "../../examples/robots.txt",
		"https://docs.example.com/guide/install", "https://docs.example.com/forum/t/123")
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("heed robots check: got %v, want exit status 1\n%s", err, out)
	}
	want := `https://docs.example.com/guide/install: allowed: no rule matches (group "User-agent: heed, User-agent: ExampleAgent" at line 11)
https://docs.example.com/forum/t/123: disallowed by line 13 "Disallow: /forum/" (group "User-agent: heed, User-agent: ExampleAgent" at line 11)
`
	if string(out) != want {
		t.Errorf("heed robots check printed\n%s\nwant\n%s", out, want)
	}
	out, err = exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "heed ") {
		t.Errorf("heed --version: %v, %q", err, out)
	}
}
