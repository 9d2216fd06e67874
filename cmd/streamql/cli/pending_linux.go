package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// pendingInput returns the bytes the terminal tty holds unread (TIOCINQ),
// 0 when unknown: a long paste is then taken as one run (paste.go).
func pendingInput(tty *os.File) int {
	n, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ)
	if err != nil {
		return 0
	}
	return n
}
