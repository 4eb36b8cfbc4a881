package cli

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
)

// TestMain keeps the tests away from the user's own config and stash, and
// from any network but loopback.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "heed-cli-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("HEED_CONFIG", filepath.Join(dir, "config.yaml"))
	os.Setenv("HEED_STASH", filepath.Join(dir, "stash"))
	// No test reaches past loopback: every name resolves to a
	// documentation address, which the guarded client refuses.
	resolver = offline{}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type offline struct{}

func (offline) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("192.0.2.1")}, nil
}
