package stash

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// caseInsensitiveDir mounts a case-insensitive file system for the test
// and returns its root; the test's cleanup unmounts it. It is NTFS in an
// image file, mounted through FUSE by ntfs-3g's lowntfs-3g with
// ignore_case (names that differ only in case are one file, as on
// Windows and macOS) and windows_names (names that Windows refuses, such
// as con.md or a folder ending in a dot, are refused). The test is
// skipped where that cannot be done: not root, no /dev/fuse, or no
// ntfs-3g (Debian's package ntfs-3g).
func caseInsensitiveDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a case-insensitive file system (NTFS through FUSE) needs root")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("mounting a case-insensitive file system (NTFS through FUSE) needs /dev/fuse: %v", err)
	}
	for _, tool := range []string{"mkntfs", "lowntfs-3g"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("mounting a case-insensitive file system needs %s, of Debian's package ntfs-3g: %v", tool, err)
		}
	}
	base := t.TempDir()
	img, mnt := filepath.Join(base, "ntfs.img"), filepath.Join(base, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(img)
	if err == nil {
		err = f.Truncate(64 << 20) // sparse: a few MB are written
		f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkntfs", "--quiet", "--fast", "--force", img).CombinedOutput(); err != nil {
		t.Skipf("mkntfs: %v: %s", err, out)
	}
	if out, err := exec.Command("lowntfs-3g", "-o", "ignore_case,windows_names", img, mnt).CombinedOutput(); err != nil {
		t.Skipf("mounting NTFS through FUSE: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("unmounting %s: %v: %s", mnt, err, out)
		}
	})
	// The mount must be what the tests want: case-insensitive.
	if err := os.WriteFile(filepath.Join(mnt, "Probe"), []byte("probe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(mnt, "PROBE")); err != nil || string(data) != "probe" {
		t.Fatalf("the mount tells case apart: PROBE is %q, %v", data, err)
	}
	return mnt
}
