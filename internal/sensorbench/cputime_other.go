//go:build !unix

package sensorbench

import "time"

// CPUTime is the user+system CPU time used by this process so far; 0 here,
// where it is not read.
func CPUTime() time.Duration { return 0 }
