//go:build linux

package render

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/chromedp/chromedp"
)

// sandboxed are the options that start the browser in Chromium's
// sandbox, whoever runs heed. Chromium does not run as root with its
// sandbox, so a heed run as root (as in containers and CI) starts the
// browser as the user nobody, the owner of the browser's directory dir;
// its sandbox then confines each renderer with seccomp and namespaces of
// its own, which needs unprivileged user namespaces (ErrNoSandbox where
// the system refuses them). The browser dies with heed.
func sandboxed(dir string) ([]chromedp.ExecAllocatorOption, error) {
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		uid, gid := nobody()
		if err := os.Chown(dir, int(uid), int(gid)); err != nil {
			return nil, err
		}
		for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
			if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o001 == 0 {
				return nil, fmt.Errorf("the browser runs as the user nobody, who may not enter %s: set TMPDIR to a directory every user may enter, such as /tmp", d)
			}
			if d == filepath.Dir(d) {
				break
			}
		}
		cred = &syscall.Credential{Uid: uid, Gid: gid, Groups: []uint32{}}
	}
	return []chromedp.ExecAllocatorOption{
		// Set, so that it is not turned on for root.
		chromedp.Flag("no-sandbox", false),
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
		}),
	}, nil
}

// nobody is the user and group ids of the user nobody (65534 where the
// system does not name it).
func nobody() (uid, gid uint32) {
	uid, gid = 65534, 65534
	if u, err := user.Lookup("nobody"); err == nil {
		if n, err := strconv.ParseUint(u.Uid, 10, 32); err == nil {
			uid = uint32(n)
		}
		if n, err := strconv.ParseUint(u.Gid, 10, 32); err == nil {
			gid = uint32(n)
		}
	}
	return uid, gid
}
