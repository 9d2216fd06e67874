//go:build unix

package sensorbench

import (
	"syscall"
	"time"
)

// CPUTime is the user+system CPU time used by this process so far (0 where it
// cannot be read). Unlike wall time it hardly moves when other processes
// compete for the cores.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
