//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// noEcho turns off the echo of the terminal f while a REPL job runs, so that a
// line typed meanwhile shows once, when readline reads it at the next prompt,
// not also as the terminal's echo in the middle of the job's output. Signals
// (Ctrl-C) still work. It returns the function that restores the terminal; for
// a file that is not a terminal (or nil) it does nothing.
func noEcho(f *os.File) (restore func()) {
	if f == nil {
		return func() {}
	}
	fd := int(f.Fd())
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil || t.Lflag&unix.ECHO == 0 {
		return func() {}
	}
	old := *t
	t.Lflag &^= unix.ECHO | unix.ECHONL
	if unix.IoctlSetTermios(fd, ioctlSetTermios, t) != nil {
		return func() {}
	}
	return func() { unix.IoctlSetTermios(fd, ioctlSetTermios, &old) }
}
