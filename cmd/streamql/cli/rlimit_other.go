//go:build !unix

package cli

// openFileLimit: no limit known on this system.
func openFileLimit() (soft, hard uint64, ok bool) { return 0, 0, false }
