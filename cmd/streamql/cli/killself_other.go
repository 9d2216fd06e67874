//go:build !unix

package cli

import "os"

// killedExit is the exit status of a process killSelf ended.
const killedExit = 137

// killSelf ends this process at once, without flushing or running deferred
// calls, as near to SIGKILL as the platform has (killWriter).
func killSelf() { os.Exit(killedExit) }
