//go:build unix

package pdf

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByUs reports whether a file is the running user's own.
func ownedByUs(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
