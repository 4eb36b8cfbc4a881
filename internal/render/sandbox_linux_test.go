//go:build linux

package render

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heedhq/heed/fetch"
)

// Where Chromium's sandbox cannot run (user namespaces refused, as some
// containers refuse them), no page is rendered without it: rendering
// fails, saying why and what to allow. The test refuses them in a user
// namespace of its own (its limit of user namespaces set to none), in
// which it runs as root.
func TestRenderNoSandbox(t *testing.T) {
	if os.Getenv("HEED_RENDER_USERNS") == "" {
		browser(t) // skips, or fails when a browser is required
		if os.Geteuid() != 0 {
			t.Skip("refusing user namespaces to the browser alone needs root")
		}
		cmd := exec.Command(os.Args[0], "-test.run", "^TestRenderNoSandbox$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "HEED_RENDER_USERNS=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{
			Cloneflags:                 syscall.CLONE_NEWUSER,
			UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 65536}},
			GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 65536}},
			GidMappingsEnableSetgroups: true,
		}
		out, err := cmd.CombinedOutput()
		t.Logf("in a user namespace:\n%s", out)
		if err != nil {
			t.Fatalf("in a user namespace: %v", err)
		}
		return
	}
	if err := os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0\n"), 0o644); err != nil {
		t.Fatalf("refusing user namespaces: %v", err)
	}
	s := newSite(t, map[string]string{"/": appShell, "/app.js": `document.getElementById("root").textContent = "rendered";`})
	b := New(Config{PageTimeout: 10 * time.Second, Tabs: 1})
	defer b.Close()
	client := loopback()
	doc, err := client.Get(t.Context(), fetch.Request{URL: s.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.Render(t.Context(), doc, client.Get)
	if err == nil {
		t.Fatalf("rendered without Chromium's sandbox:\n%s", p.HTML)
	}
	if !errors.Is(err, ErrNoSandbox) || !strings.Contains(err.Error(), "user namespaces") {
		t.Errorf("the error: %v; want ErrNoSandbox, saying what to allow", err)
	}
	t.Logf("the error: %v", err)
}

// Run as root, heed starts the browser as nobody: a temporary directory
// nobody may not enter is refused, saying so, before the browser starts.
func TestRenderTmpdirClosed(t *testing.T) {
	browser(t) // skips, or fails when a browser is required
	if os.Geteuid() != 0 {
		t.Skip("the browser runs as heed's own user, who may enter TMPDIR")
	}
	// A short path: under a long one the browser's directory is made in
	// /tmp instead (TestRenderLongTmpdir).
	tmp, err := os.MkdirTemp("", "heed")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if len(tmp)+len("/heed-browser-4294967295") > socketRoom {
		t.Skipf("TMPDIR's path is too long to be used (%s): the browser's directory is made in /tmp", tmp)
	}
	if err := os.Chmod(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	s := newSite(t, map[string]string{"/": appShell})
	b := New(Config{PageTimeout: 10 * time.Second, Tabs: 1})
	defer b.Close()
	client := loopback()
	doc, err := client.Get(t.Context(), fetch.Request{URL: s.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Render(t.Context(), doc, client.Get)
	if err == nil || !strings.Contains(err.Error(), "set TMPDIR") {
		t.Errorf("rendered with TMPDIR closed to the browser's user: %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("%d left in TMPDIR", len(left))
	}
}
