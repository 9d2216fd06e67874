//go:build !unix

package fsflags

// NoFollow is 0 where the system has no O_NOFOLLOW: callers check with
// os.Lstat instead.
const NoFollow = 0

// NonBlock is 0 where the system has no O_NONBLOCK.
const NonBlock = 0
