//go:build unix

package fsflags

import "syscall"

// NoFollow makes an open of a symbolic link fail with ELOOP.
const NoFollow = syscall.O_NOFOLLOW

// NonBlock keeps the open of a named pipe from waiting for the other end.
const NonBlock = syscall.O_NONBLOCK
