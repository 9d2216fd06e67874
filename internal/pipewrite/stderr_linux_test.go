package pipewrite

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestStderrSharesStdoutPipe: with stderr the pipe stdout is (`2>&1`: one
// descriptor state, made non-blocking by Stdout), a write to the File Stderr
// returns that is larger than the pipe waits for the reader, who starts only
// once the pipe is full, and the reader gets every byte. (Before, the job's
// stderr was the blocking-mode os.Stderr: the write failed with EAGAIN,
// "write /dev/stderr: resource temporarily unavailable", and the run ended
// with status 1 whenever a slow reader let the pipe fill.) Any other stderr
// is returned as it is.
func TestStderrSharesStdoutPipe(t *testing.T) {
	r, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fd := pw.Fd()                    // blocking mode, as a process's inherited descriptors are
	fd2, err := syscall.Dup(int(fd)) // 2>&1
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr := os.NewFile(fd, "/dev/stdout"), os.NewFile(uintptr(fd2), "/dev/stderr")
	defer pw.Close()
	defer stderr.Close()
	w, restore := Stdout(context.Background(), stdout)
	if w == nil {
		t.Skip("no non-blocking mode here")
	}
	defer restore()
	e := Stderr(stdout, stderr)
	other, _ := os.CreateTemp(t.TempDir(), "stderr")
	defer other.Close()
	if Stderr(stdout, other) != other {
		t.Fatal("a stderr that is not stdout's pipe should be returned as it is")
	}
	text := lines(rand.New(rand.NewPCG(8, 8)), 4000, 100) // ~200 KiB, past the 64 KiB pipe
	done := make(chan error, 1)
	go func() {
		_, err := e.Write(text)
		done <- err
	}()
	// Read only once the pipe is full: a writer that cannot wait has failed by then.
	size := pipeSize(t, r)
	for queued(t, r) < size {
		select {
		case err := <-done:
			t.Fatalf("the write ended before the pipe was read: %v", err)
		default:
			time.Sleep(time.Millisecond)
		}
	}
	got := make([]byte, len(text))
	if _, err := io.ReadFull(r, got); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("write to stderr: %v", err)
	}
	if !bytes.Equal(got, text) {
		t.Fatal("the reader did not get the text written")
	}
}

// pipeSize is the pipe's capacity (F_GETPIPE_SZ).
func pipeSize(t *testing.T, f *os.File) int {
	n, _, e := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), 1032 /* F_GETPIPE_SZ */, 0)
	if e != 0 {
		t.Skip("no F_GETPIPE_SZ here")
	}
	return int(n)
}

// queued is how many bytes the pipe holds (FIONREAD).
func queued(t *testing.T, f *os.File) int {
	var n int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skip("no FIONREAD here")
	}
	return int(n)
}
