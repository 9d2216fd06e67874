package tests

import (
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// procReadBytes returns the bytes process pid has read so far (rchar of
// /proc/pid/io: every read and pread, of its script and its input files),
// or -1 when it cannot be known (the process ended).
func procReadBytes(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/io")
	if err != nil {
		return -1
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("rchar: ")); ok {
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil {
				return -1
			}
			return n
		}
	}
	return -1
}

// pipeFull reports whether the pipe or FIFO whose read end is r holds all
// it can take but less than one atomic write (FIONREAD, alias TIOCINQ, above
// F_GETPIPE_SZ less PIPE_BUF): a writer of it is blocked (pipewrite writes
// whole lines of at most PIPE_BUF bytes a call, so the pipe of a blocked
// one may lack a few bytes).
func pipeFull(r *os.File) bool {
	rc, err := r.SyscallConn()
	if err != nil {
		return false
	}
	full := false
	_ = rc.Control(func(fd uintptr) { // (r.Fd would make r blocking)
		n, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ)
		if err != nil {
			return
		}
		size, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0)
		full = err == nil && n > size-4096
	})
	return full
}
