package pipewrite

import (
	"os"
	"syscall"
	"unsafe"
)

// room returns how many bytes a write to the pipe f surely takes at once
// without waiting: its capacity (F_GETPIPE_SZ) less what it holds (FIONREAD),
// counted in whole pages (a page the reader has begun, and the last one
// written, take a slot each), or 0 when that is not known.
func room(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	free := 0
	rc.Control(func(fd uintptr) {
		size, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, 1032 /* F_GETPIPE_SZ */, 0)
		if e != 0 {
			return
		}
		var queued int32
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCINQ /* FIONREAD */, uintptr(unsafe.Pointer(&queued))); e != 0 {
			return
		}
		const page = 4096
		slots := int(size)/page - (int(queued)+page-1)/page - 2
		free = max(0, slots*page)
	})
	return free
}
