//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// CPUTime starts counting the process's CPU time, user and system; the
// function it returns says how much was used since.
func CPUTime() func() time.Duration {
	used := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := used()
	return func() time.Duration { return used() - start }
}
