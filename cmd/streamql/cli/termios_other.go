//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package cli

import "os"

// noEcho does nothing on this system (see termios_unix.go).
func noEcho(*os.File) (restore func()) { return func() {} }
