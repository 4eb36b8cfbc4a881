//go:build unix

package stash

import (
	"os"
	"syscall"
)

// lockFile takes the stash's writer lock without waiting, and reports
// whether it got it. The lock lasts as long as the file stays open, and
// the system drops it if the process dies.
func lockFile(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}
