//go:build unix

package planner

import (
	"fmt"
	"os"
	"syscall"
)

// fileIdentity names an existing file by its device and inode, so that links
// and other spellings of one file compare equal; ok is false when the system
// does not say.
func fileIdentity(fi os.FileInfo) (key string, ok bool) {
	st, isSys := fi.Sys().(*syscall.Stat_t)
	if !isSys {
		return "", false
	}
	return fmt.Sprintf("inode %d:%d", st.Dev, st.Ino), true
}
