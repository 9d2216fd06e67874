//go:build !unix

package planner

import "os"

// fileIdentity has no device and inode to give where the system has none
// (Windows): the caller then compares clean absolute paths.
func fileIdentity(fi os.FileInfo) (key string, ok bool) { return "", false }
