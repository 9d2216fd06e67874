//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package cli

import (
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// canSuspend says whether Ctrl-Z may stop the REPL (readline sends the
// process SIGTSTP and waits for SIGCONT): only when a shell does job control
// for it, which can resume it. Not when SIGTSTP was ignored at start (a shell
// without job control), when the process leads its session (no shell above
// it), when its process group is not the terminal's foreground group, or when
// the group is orphaned (the parent is in the same group or another session:
// the kernel then drops SIGTSTP, and the REPL would wait for good; issue 30).
func canSuspend(tty *os.File) bool {
	if tty == nil || signal.Ignored(syscall.SIGTSTP) {
		return false
	}
	pgrp := unix.Getpgrp()
	sid, err := unix.Getsid(0)
	if err != nil || sid == os.Getpid() {
		return false
	}
	if fg, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCGPGRP); err != nil || fg != pgrp {
		return false
	}
	ppid := os.Getppid()
	ppgrp, err := unix.Getpgid(ppid)
	if err != nil || ppid <= 1 || ppgrp == pgrp {
		return false
	}
	psid, err := unix.Getsid(ppid)
	return err == nil && psid == sid
}
