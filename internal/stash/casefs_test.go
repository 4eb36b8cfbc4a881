package stash

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// caseInsensitiveDir mounts a case-insensitive file system for the test
// and returns its root; the test's cleanup unmounts it. It is NTFS in an
// image file, mounted through FUSE by ntfs-3g's lowntfs-3g with
// ignore_case (names that differ only in case are one file, as on
// Windows and macOS) and windows_names (names that Windows refuses, such
// as con.md or a folder ending in a dot, are refused). ignore_case also
// lowercases every name it creates, which no system heed runs on does:
// exfatDir keeps case. The test is skipped where that cannot be done:
// not root, no /dev/fuse, or no ntfs-3g (Debian's package ntfs-3g).
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

// exfatDir mounts exFAT for the test and returns its root; the test's
// cleanup unmounts it. exFAT is case-insensitive and keeps the case a
// name is written in, as APFS and Windows's NTFS do: a reindex there
// reads names back in the case they were written in, not heed's. It is
// an image file on a loop device, mounted through FUSE by exfat-fuse
// (mount.exfat-fuse needs a block device when run as root). The test is
// skipped where that cannot be done: not root, no /dev/fuse, no free
// loop device, or no exfatprogs (mkfs.exfat) or exfat-fuse, Debian's
// packages.
func exfatDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting exFAT through FUSE on a loop device needs root")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("mounting exFAT through FUSE needs /dev/fuse: %v", err)
	}
	for _, tool := range []struct{ name, pkg string }{{"mkfs.exfat", "exfatprogs"}, {"mount.exfat-fuse", "exfat-fuse"}, {"losetup", "mount"}} {
		if _, err := exec.LookPath(tool.name); err != nil {
			t.Skipf("mounting exFAT needs %s, of Debian's package %s: %v", tool.name, tool.pkg, err)
		}
	}
	base := t.TempDir()
	img, mnt := filepath.Join(base, "exfat.img"), filepath.Join(base, "mnt")
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
	if out, err := exec.Command("mkfs.exfat", img).CombinedOutput(); err != nil {
		t.Skipf("mkfs.exfat: %v: %s", err, out)
	}
	out, err := exec.Command("losetup", "--find", "--show", img).CombinedOutput()
	if err != nil {
		t.Skipf("no loop device for the exFAT image: %v: %s", err, out)
	}
	loop := strings.TrimSpace(string(out))
	t.Cleanup(func() {
		if out, err := exec.Command("losetup", "--detach", loop).CombinedOutput(); err != nil {
			t.Errorf("detaching %s: %v: %s", loop, err, out)
		}
	})
	if out, err := exec.Command("mount.exfat-fuse", loop, mnt).CombinedOutput(); err != nil {
		t.Skipf("mounting exFAT through FUSE: %v: %s", err, out)
	}
	t.Cleanup(func() { // runs before the loop device is detached
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("unmounting %s: %v: %s", mnt, err, out)
		}
	})
	// The mount must be what the tests want: case-insensitive, and
	// keeping the case a name was written in.
	if err := os.WriteFile(filepath.Join(mnt, "Probe"), []byte("probe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(mnt, "PROBE")); err != nil || string(data) != "probe" {
		t.Fatalf("the mount tells case apart: PROBE is %q, %v", data, err)
	}
	if names, err := os.ReadDir(mnt); err != nil || len(names) != 1 || names[0].Name() != "Probe" {
		t.Fatalf("the mount does not keep case: %v, %v", names, err)
	}
	if err := os.Remove(filepath.Join(mnt, "Probe")); err != nil {
		t.Fatal(err)
	}
	return mnt
}

// caseInsensitive runs f on each case-insensitive file system the tests
// mount, as a subtest named after it.
func caseInsensitive(t *testing.T, f func(t *testing.T, mnt string)) {
	for _, fs := range []struct {
		name  string
		mount func(*testing.T) string
	}{{"NTFS", caseInsensitiveDir}, {"exFAT", exfatDir}} {
		t.Run(fs.name, func(t *testing.T) { f(t, fs.mount(t)) })
	}
}
