//go:build unix

package pipewrite

import "syscall"

// setNonblock puts the descriptor fd in non-blocking mode.
func setNonblock(fd uintptr) error { return syscall.SetNonblock(int(fd), true) }
