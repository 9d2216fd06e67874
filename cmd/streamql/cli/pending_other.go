//go:build !linux

package cli

import (
	"os"
	"time"
)

// pendingInput is 0 where the terminal's unread bytes are not asked for: a
// long paste is taken a read of the terminal at a time (paste.go).
func pendingInput(*os.File) int { return 0 }

// waitInput is false where the terminal is not polled: a long paste is then
// taken a read of the terminal at a time (paste.go).
func waitInput(*os.File, time.Duration) bool { return false }
