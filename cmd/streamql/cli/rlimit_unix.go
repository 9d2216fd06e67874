//go:build unix

package cli

import "syscall"

// openFileLimit returns the process's soft and hard limits on open files
// (RLIMIT_NOFILE); ok is false when they cannot be read.
func openFileLimit() (soft, hard uint64, ok bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, 0, false
	}
	return uint64(r.Cur), uint64(r.Max), true
}
