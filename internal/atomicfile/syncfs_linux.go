package atomicfile

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// SyncFS syncs the file systems that hold dirs, each once (syncfs(2)),
// and reports whether it did; where it cannot, it does nothing, and the
// caller syncs each file. It cannot on Linux before 5.8, whose syncfs
// does not report a failure to write a file back, nor on FUSE file
// systems, whose syncfs writes nothing back (their fsync does).
func SyncFS(dirs ...string) (bool, error) {
	if !syncfsReports() {
		return false, nil
	}
	done := map[uint64]bool{}
	for _, d := range dirs {
		f, err := os.Open(d)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return false, err
		}
		ok, err := syncfs(f, done)
		f.Close()
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// syncfs syncs the file system of the open directory d, unless done
// says it is synced already, and reports whether it could.
func syncfs(d *os.File, done map[uint64]bool) (bool, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(d.Fd()), &st); err != nil {
		return false, err
	}
	if done[st.Dev] {
		return true, nil
	}
	var fs unix.Statfs_t
	if err := unix.Fstatfs(int(d.Fd()), &fs); err != nil {
		return false, err
	}
	if fs.Type == unix.FUSE_SUPER_MAGIC {
		return false, nil
	}
	if err := unix.Syncfs(int(d.Fd())); err != nil {
		return false, err
	}
	done[st.Dev] = true
	return true, nil
}

// syncfsReports reports whether this kernel's syncfs reports failures to
// write files back: Linux 5.8 and later.
var syncfsReports = sync.OnceValue(func() bool {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return false
	}
	return kernelAtLeast(unix.ByteSliceToString(u.Release[:]), 5, 8)
})

// kernelAtLeast reports whether a kernel release ("6.8.0-45-generic") is
// major.minor or later.
func kernelAtLeast(release string, major, minor int) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return false
	}
	digits := func(s string) string {
		if i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
			return s[:i]
		}
		return s
	}
	maj, err1 := strconv.Atoi(digits(parts[0]))
	mnr, err2 := strconv.Atoi(digits(parts[1]))
	if err1 != nil || err2 != nil {
		return false
	}
	return maj > major || maj == major && mnr >= minor
}
