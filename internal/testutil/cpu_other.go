//go:build !unix

package testutil

import "time"

// CPUTime would count the process's CPU time; where the system does not
// say it (off Unix), it counts none.
func CPUTime() func() time.Duration {
	return func() time.Duration { return 0 }
}
