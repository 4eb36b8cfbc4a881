package config

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteNoDevice: a config named by a device (--config /dev/null, for
// no config at all) is read as empty, and heed add's record is refused
// rather than written over the device. The device is made in the test's
// own folder (which needs root), as /dev/null is.
func TestWriteNoDevice(t *testing.T) {
	null := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("making a device like /dev/null: %v", err)
	}
	c, err := Load(null, testKinds)
	if err != nil || len(c.Sources) != 0 {
		t.Fatalf("Load(a null device) = %+v, %v; want an empty config", c, err)
	}
	err = c.AddSource("new", source("https://new.example/"))
	if err == nil {
		t.Error("a source was recorded in a device")
	}
	if fi, serr := os.Lstat(null); serr != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("the device was replaced: %v, %v", fi.Mode(), serr)
	}
	t.Logf("AddSource: %v", err)
}
