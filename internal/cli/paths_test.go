package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestPaths: heed paths says which config file and stash heed uses, as
// the other commands find them: the flags first, then the environment,
// then the config file's stash:.
func TestPaths(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("stash: "+filepath.Join(dir, "from-config")+"\n"), 0o644)
	t.Setenv("HEED_CONFIG", conf)
	t.Setenv("HEED_STASH", "")
	code, out, stderr := run(t, "", "paths")
	if code != 0 || out != "config  "+conf+"\nstash   "+filepath.Join(dir, "from-config")+" (none yet: heed crawl or heed add makes it)\n" {
		t.Errorf("heed paths: exit %d, %q, %q", code, out, stderr)
	}
	t.Setenv("HEED_STASH", dir)
	if code, out, _ := run(t, "", "paths"); code != 0 || !strings.Contains(out, "stash   "+dir+"\n") {
		t.Errorf("heed paths with HEED_STASH: exit %d, %q", code, out)
	}
	t.Setenv("HEED_CONFIG", filepath.Join(dir, "none.yaml"))
	if code, out, _ := run(t, "", "paths", "--stash", "elsewhere"); code != 0 || out != "config  "+filepath.Join(dir, "none.yaml")+" (no file yet: heed add writes it)\nstash   elsewhere (none yet: heed crawl or heed add makes it)\n" {
		t.Errorf("heed paths --stash: exit %d, %q", code, out)
	}
	if code, out, _ := run(t, "", "--help"); code != 0 || !strings.Contains(out, "'heed paths' shows the config file and the stash") {
		t.Errorf("heed --help does not name heed paths: exit %d\n%s", code, out)
	}
}

// TestSharedFlagsWhereRead: a command's help lists only the shared
// flags it reads (heed robots fmt reads no stash, heed search makes no
// request), and every command is in the table that says which. Every
// command still takes them all: a script may give one set of flags to
// every command it runs.
func TestSharedFlagsWhereRead(t *testing.T) {
	for _, c := range []struct {
		args     []string
		has, not []string
	}{
		{[]string{"robots", "fmt", "--help"}, nil, []string{"--stash", "--config", "--agent", "--allow-net", "--resolve"}},
		{[]string{"help", "robots", "lint"}, nil, []string{"--stash", "--config", "--agent", "--allow-net"}},
		{[]string{"robots", "check", "--help"}, []string{"--agent", "--allow-net", "--config"}, []string{"--stash"}},
		{[]string{"search", "--help"}, []string{"--stash", "--config"}, []string{"--agent", "--allow-net", "--resolve"}},
		{[]string{"fetch", "--help"}, []string{"--agent", "--allow-net", "--resolve", "--config"}, []string{"--stash"}},
		{[]string{"extract", "--help"}, []string{"--agent"}, []string{"--stash", "--allow-net", "--config"}},
		{[]string{"crawl", "--help"}, []string{"--agent", "--allow-net", "--resolve", "--stash", "--config"}, nil},
		{[]string{"status", "--help"}, []string{"--config"}, []string{"--stash", "--agent"}},
		// After a help that hid them, another still lists its own.
		{[]string{"add", "--help"}, []string{"--agent", "--allow-net", "--stash", "--config"}, nil},
	} {
		code, out, _ := run(t, "", c.args...)
		for _, f := range c.has {
			if code != 0 || !strings.Contains(out, f+" ") {
				t.Errorf("heed %v lacks %s:\n%s", c.args, f, out)
			}
		}
		for _, f := range c.not {
			if strings.Contains(out, f+" ") {
				t.Errorf("heed %v lists %s, which it does not read:\n%s", c.args, f, out)
			}
		}
	}
	if code, out, stderr := run(t, "User-agent: *\n", "robots", "fmt", "--stash", "x", "--allow-net", "10.0.0.0/8"); code != 0 || out != "User-agent: *\n" {
		t.Errorf("heed robots fmt with flags it does not read: exit %d, %q, %q; want them taken", code, out, stderr)
	}
	// Every command is in the table, even if it reads none.
	e := &env{}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if _, ok := sharedFlags()[c.CommandPath()]; c.HasParent() && !ok {
			t.Errorf("%s is not in sharedFlags", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(e.rootCommand())
}
