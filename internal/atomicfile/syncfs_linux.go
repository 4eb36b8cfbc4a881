package atomicfile

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// syncFS syncs the file systems that hold dirs, each once (syncfs(2)),
// and reports that it did. Since Linux 5.8, syncfs reports the errors of
// writing back the file system's files.
func syncFS(dirs []string) (bool, error) {
	done := map[uint64]bool{}
	for _, d := range dirs {
		f, err := os.Open(d)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return false, err
		}
		var st syscall.Stat_t
		if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
			f.Close()
			return false, err
		}
		if !done[st.Dev] {
			err = unix.Syncfs(int(f.Fd()))
			done[st.Dev] = true
		}
		f.Close()
		if err != nil {
			return false, err
		}
	}
	return true, nil
}
