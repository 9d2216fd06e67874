// Package pipewrite writes to pipes (a FIFO sink, a stdout that is a pipe) so
// that a stop never waits for a reader that does not read, and what reached
// the pipe ends on a whole line (issue 30; SPEC 4: SIGINT, SIGTERM and SIGHUP
// end the process within 100 ms, every output ending on a whole row).
//
// A Writer's file is in the runtime's poller (non-blocking), so a write that
// waits for room can be given a deadline. Each write(2) holds whole lines of
// at most PipeBuf bytes, which POSIX makes atomic on a pipe: a write the
// deadline stops has put none of its bytes in the pipe. (A line longer than
// PipeBuf is written in one call, which a stop can cut.) When its context
// ends, a Writer gives the reader Grace to take what waits, then drops the
// rest: its writes fail with the context's error.
//
// OpenFIFO opens a FIFO for writing without blocking in open(2) until a
// reader comes, so that the wait can be stopped too.
package pipewrite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// PipeBuf is the size up to which a write to a pipe is atomic (POSIX
// PIPE_BUF; 4096 bytes on Linux, 512 the least POSIX allows elsewhere).
const PipeBuf = 4096

// Grace is how long a Writer still writes after its context ends: a reader
// that drains gets the rows already routed (SPEC 4: a stop flushes them), one
// that does not holds the process no longer than this.
const Grace = 50 * time.Millisecond

// Writer writes to a pipe in whole lines, and stops waiting for room Grace
// after its context ends. It is an io.Writer for one goroutine.
type Writer struct {
	f    *os.File
	ctx  context.Context
	stop func() bool
	tail []byte // the text after the last line end of a large Write, not yet written
}

// NewWriter returns a Writer of f, a pipe or FIFO in the runtime's poller
// (os.OpenFile of a FIFO puts it there; a descriptor made non-blocking before
// os.NewFile too), that stops with ctx. Close writes what is held back and
// releases the context's hook.
func NewWriter(ctx context.Context, f *os.File) *Writer {
	w := &Writer{f: f, ctx: ctx}
	w.stop = context.AfterFunc(ctx, func() { f.SetWriteDeadline(time.Now().Add(Grace)) })
	return w
}

// maxTail bounds the text a Writer holds back after the last line end of a
// large Write (a buffer flushed in the middle of a row).
const maxTail = 64 << 10

// Write writes p in whole lines: as many as the pipe has room for in one
// write(2) (Linux; elsewhere, and when the pipe is nearly full, those within
// PipeBuf bytes, or the first line alone when it is longer). The text after
// the last line end of a p of more than PipeBuf bytes is held back (up to
// maxTail) and written before the next Write's, so that a stop never leaves
// half a row in the pipe; it counts as written. Once the pipe has had no room
// for Grace after the context ended, Write returns the bytes of p written and
// an error wrapping the context's error (context.Canceled): the rest is
// dropped.
func (w *Writer) Write(p []byte) (int, error) {
	if len(w.tail) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 && len(w.tail)+len(p) <= maxTail {
			w.tail = append(w.tail, p...)
			return len(p), nil
		}
		if i < 0 {
			i = len(p) - 1
		}
		w.tail = append(w.tail, p[:i+1]...)
		m, err := w.write(w.tail)
		done := max(0, m-(len(w.tail)-(i+1))) // of p's bytes
		w.tail = w.tail[:0]
		if err != nil {
			return done, err
		}
		p = p[i+1:]
		n, err := w.Write(p)
		return i + 1 + n, err
	}
	q := p
	if len(p) > PipeBuf {
		if j := bytes.LastIndexByte(p, '\n'); j >= 0 && len(p)-j-1 <= maxTail {
			q = p[:j+1]
		}
	}
	n, err := w.write(q)
	if err != nil {
		return n, err
	}
	w.tail = append(w.tail, p[len(q):]...)
	return len(p), nil
}

// write writes b whole, chunk by chunk, and returns the bytes written.
func (w *Writer) write(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k := chunk(b[n:], room(w.f))
		m, err := w.f.Write(b[n : n+k])
		n += m
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) && w.ctx.Err() != nil {
				err = fmt.Errorf("%d bytes not written to %s, whose reader does not read: %w", len(b)-n, w.f.Name(), w.ctx.Err())
			}
			return n, err
		}
	}
	return n, nil
}

// chunk returns how many bytes of p the next write takes: the whole lines
// within max(room, PipeBuf) bytes, or else the first line (or all of p when
// it has no line end).
func chunk(p []byte, room int) int {
	lim := max(room, PipeBuf)
	if len(p) <= lim {
		return len(p)
	}
	if i := bytes.LastIndexByte(p[:lim], '\n'); i >= 0 {
		return i + 1
	}
	if i := bytes.IndexByte(p[lim:], '\n'); i >= 0 {
		return lim + i + 1
	}
	return len(p)
}

// Close writes the text held back, then releases the context's hook; the
// file is the caller's.
func (w *Writer) Close() error {
	_, err := w.write(w.tail)
	w.tail = w.tail[:0]
	w.stop()
	return err
}

// IsPipe reports whether f is a pipe or FIFO.
func IsPipe(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeNamedPipe != 0
}

// Stdout returns a Writer of the process's stdout when it is a pipe, with
// restore, which puts the descriptor back in blocking mode (others may share
// the pipe, e.g. the next command of a shell group) and releases the hook;
// call it before the process exits. For any other stdout it returns nil.
func Stdout(ctx context.Context, stdout *os.File) (w *Writer, restore func()) {
	if !IsPipe(stdout) {
		return nil, nil
	}
	fd := stdout.Fd()
	if err := setNonblock(fd); err != nil {
		return nil, nil
	}
	f := os.NewFile(fd, stdout.Name()) // non-blocking: in the poller
	kept = append(kept, f)             // (its finalizer would close fd 1)
	w = NewWriter(ctx, f)
	return w, func() {
		w.Close()
		f.Fd() // (puts the descriptor back in blocking mode)
	}
}

// Stderr returns the File through which to write the process's stderr
// once Stdout has made stdout's pipe non-blocking. When stderr is that same
// pipe (`2>&1`: one open file description, so it is non-blocking too), a
// write that finds the pipe full would fail with EAGAIN ("write
// /dev/stderr: resource temporarily unavailable", exit 1, while a slow
// reader such as `less` lets the pipe fill); the File returned is in the
// runtime's poller, so its writes wait for room. Any other stderr is
// returned as it is. Stdout's restore puts the shared descriptor back in
// blocking mode, where the File still writes.
func Stderr(stdout, stderr *os.File) *os.File {
	a, err1 := stdout.Stat()
	b, err2 := stderr.Stat()
	if err1 != nil || err2 != nil || a.Mode()&os.ModeNamedPipe == 0 || !os.SameFile(a, b) {
		return stderr
	}
	f := os.NewFile(stderr.Fd(), stderr.Name()) // non-blocking (shared with stdout): in the poller
	kept = append(kept, f)                      // (its finalizer would close fd 2)
	return f
}

// kept holds the Files Stdout and Stderr made, which are never closed.
var kept []*os.File

// FIFOPoll is how often OpenFIFO tries again while a FIFO has no reader.
var FIFOPoll = 20 * time.Millisecond

// OpenFIFO opens path for writing with flag (os.O_WRONLY and the like) and
// O_NONBLOCK, so that a FIFO with no reader does not block open(2): it tries
// again every FIFOPoll until a reader opens the FIFO, and returns ctx's
// error when ctx ends first. Other files open as with os.OpenFile.
func OpenFIFO(ctx context.Context, path string, flag int, perm os.FileMode) (*os.File, error) {
	for {
		f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, perm)
		if !errors.Is(err, syscall.ENXIO) {
			return f, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for a reader of the FIFO %s: %w", path, ctx.Err())
		case <-time.After(FIFOPoll):
		}
	}
}
