//go:build !linux

package cli

import "os"

// pendingInput is 0 where the terminal's unread bytes are not asked for: a
// long paste is taken a read of the terminal at a time (paste.go).
func pendingInput(*os.File) int { return 0 }
