package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAddAndSync(t *testing.T) {
	t.Setenv("HEED_STASH", "") // the config names the stash
	s, robotsHits := exampleSite(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("# my sources\nallow_net: [127.0.0.1/32] # the test site\nstash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	base := []string{"--config", conf}

	code, out, stderr := run(t, "", append([]string{"add", s.URL + "/", "--name", "tide", "--delay", "0", "--exclude", "/guide/safety.html"}, base...)...)
	if code != 0 || !strings.HasPrefix(out, "3 stored") || !strings.Contains(stderr, `recorded source "tide"`) {
		t.Fatalf("add: exit %d\n%s\n%s", code, out, stderr)
	}
	data, _ := os.ReadFile(conf)
	for _, want := range []string{"# my sources", "# the test site", "tide:", "url: " + s.URL + "/", "delay: 0s", "exclude:"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("config lacks %q:\n%s", want, data)
		}
	}
	if code, _, stderr := run(t, "", append([]string{"add", s.URL + "/", "--name", "tide"}, base...)...); code != 2 || !strings.Contains(stderr, "heed sync tide") {
		t.Errorf("adding twice: exit %d, %s", code, stderr)
	}
	code, out, _ = run(t, "", append([]string{"sync"}, base...)...)
	if code != 0 || !strings.Contains(out, "tide:\n0 stored, 3 unchanged") {
		t.Errorf("sync: exit %d\n%s", code, out)
	}
	if code, _, stderr := run(t, "", append([]string{"sync", "nope"}, base...)...); code != 2 || !strings.Contains(stderr, `no source named "nope"`) {
		t.Errorf("sync unknown: exit %d, %s", code, stderr)
	}
	// respect_robots: false in the config makes no robots.txt request.
	before := *robotsHits
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash2")+"\nsources:\n  tide:\n    url: "+s.URL+"/\n    respect_robots: false\n    delay: 0s\n"), 0o644)
	if code, out, _ := run(t, "", append([]string{"sync", "tide"}, base...)...); code != 0 || !strings.Contains(out, "5 stored") {
		t.Errorf("sync without robots: exit %d\n%s", code, out)
	}
	if *robotsHits != before {
		t.Errorf("robots.txt requested with respect_robots: false")
	}
}

func TestConfigErrorsExit78(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(conf, []byte("sources:\n  docs:\n    url: https://docs.example.com/\n    respect_robots: \"no\"\n"), 0o644)
	for _, args := range [][]string{{"sync"}, {"search", "x"}, {"fetch", "https://example.com/"}, {"crawl", "https://example.com/"}} {
		code, out, stderr := run(t, "", append(args, "--config", conf)...)
		if code != 78 || out != "" || !strings.Contains(stderr, conf+":4: sources.docs.respect_robots: must be true or false") {
			t.Errorf("heed %v with a bad config: exit %d, %q, %s", args, code, out, stderr)
		}
	}
	// Commands that need no config do not read it.
	if code, _, _ := run(t, "User-agent: *\n", "robots", "fmt", "--config", conf); code != 0 {
		t.Errorf("robots fmt read the config: exit %d", code)
	}
}
