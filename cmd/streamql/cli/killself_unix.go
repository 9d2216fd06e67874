//go:build unix

package cli

import (
	"os"
	"syscall"
)

// killedExit is the exit status of a process killSelf ended, besides -1
// (killed by a signal): none on Unix.
const killedExit = -1

// killSelf ends this process as SIGKILL does: no flush, no deferred call, no
// commit (killWriter, `streamql test --shuffle`).
func killSelf() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // (the signal ends the process)
}
