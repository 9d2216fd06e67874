//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd)

package cli

import "os"

// canSuspend is false where there is no job control: Ctrl-Z is ignored.
func canSuspend(*os.File) bool { return false }
