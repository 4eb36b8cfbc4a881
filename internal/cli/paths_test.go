package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
