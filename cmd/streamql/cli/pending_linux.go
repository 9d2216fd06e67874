package cli

import (
	"os"
	"time"

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

// waitInput reports whether the terminal tty holds unread bytes now or gets
// some within d (poll(2)); false when that cannot be asked. Only called while
// no read of tty is under way (paste.go).
func waitInput(tty *os.File, d time.Duration) bool {
	if pendingInput(tty) > 0 {
		return true
	}
	fds := []unix.PollFd{{Fd: int32(tty.Fd()), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(d/time.Millisecond))
	return err == nil && n > 0 && fds[0].Revents&unix.POLLIN != 0
}
