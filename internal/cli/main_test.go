package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain keeps the tests away from the user's own config and stash.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "heed-cli-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("HEED_CONFIG", filepath.Join(dir, "config.yaml"))
	os.Setenv("HEED_STASH", filepath.Join(dir, "stash"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
