package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// endless is a script that never ends (like /dev/zero); it fails the read
// once far more than maxScriptBytes was taken, so a reader without a bound
// shows up as a failed test instead of a process killed for its memory.
type endless struct{ n int64 }

var errReadTooFar = errors.New("read past 2 × maxScriptBytes")

func (e *endless) Read(p []byte) (int, error) {
	if e.n > 2*maxScriptBytes {
		return 0, errReadTooFar
	}
	clear(p)
	e.n += int64(len(p))
	return len(p), nil
}

// TestScriptWithoutEnd: SQL on stdin, a script file and a .read file that
// never end (/dev/zero) are refused once they pass maxScriptBytes, with exit 2
// and an error that names the script and the limit; memory stays bounded.
func TestScriptWithoutEnd(t *testing.T) {
	limit := fmt.Sprintf("%d MiB", maxScriptBytes>>20)
	var out, errb bytes.Buffer
	code := Run(context.Background(), nil, &endless{}, &out, &errb)
	if code != exitPlanning || !strings.Contains(errb.String(), "SQL on stdin") || !strings.Contains(errb.String(), limit) {
		t.Errorf("endless stdin: exit %d, stderr %q; want 2 and the %s limit", code, errb.String(), limit)
	}
	// a file that never ends: a FIFO fed with zeros (bounded, as endless is)
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.sql")
	if err := syscall.Mkfifo(zero, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	read := filepath.Join(dir, "r.sql")
	os.WriteFile(read, []byte("SELECT 1 AS a;\n.read zero.sql\n"), 0o644)
	for _, args := range [][]string{{zero}, {"-f", zero}, {read}} {
		fed := make(chan struct{})
		go func() {
			defer close(fed)
			if w, err := os.OpenFile(zero, os.O_WRONLY, 0); err == nil {
				io.Copy(w, io.LimitReader(&endless{}, maxScriptBytes+1<<16)) // EPIPE once the reader stops
				w.Close()
			}
		}()
		out.Reset()
		errb.Reset()
		code := Run(context.Background(), args, strings.NewReader(""), &out, &errb)
		if code != exitPlanning || !strings.Contains(errb.String(), "zero.sql") || !strings.Contains(errb.String(), limit) {
			t.Errorf("%v: exit %d, stderr %.300q; want 2, naming zero.sql and the limit", args, code, errb.String())
		}
		<-fed
	}
	// a script just under the limit still reads
	b, err := loadScriptFrom(context.Background(), io.LimitReader(&endless{}, maxScriptBytes))
	if err != nil || len(b) != maxScriptBytes {
		t.Errorf("a script of maxScriptBytes: %d bytes, %v", len(b), err)
	}
}

// TestSignalWhileReadingScript: a stop signal while the SQL still arrives (a
// pipe on stdin, a FIFO as the script file) ends the run at once with the
// signal's status (SPEC 4: 143 for SIGTERM, 129 for SIGHUP, 130 for SIGINT).
func TestSignalWhileReadingScript(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "q.sql")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	pr, pw := io.Pipe()
	defer pw.Close()
	for _, c := range []struct {
		name string
		args []string
		sig  syscall.Signal
		want int
	}{
		{"stdin pipe", nil, syscall.SIGTERM, 143},
		{"FIFO script", []string{fifo}, syscall.SIGHUP, 129},
		{"FIFO -f", []string{"-f", fifo}, syscall.SIGINT, 130},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		done := make(chan int, 1)
		var errb bytes.Buffer
		go func() { done <- ExitStatus(ctx, Run(ctx, c.args, pr, io.Discard, &errb)) }()
		time.Sleep(50 * time.Millisecond)
		cancel(SignalError{Sig: c.sig})
		select {
		case code := <-done:
			if code != c.want {
				t.Errorf("%s, %v: exit %d (%s), want %d", c.name, c.sig, code, errb.String(), c.want)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("%s, %v: the run still reads its script 2 s after the signal", c.name, c.sig)
		}
	}
}

// TestSignalWhileParsingScript: a stop signal while a long script is still
// being parsed (about a second here) ends the run at once with the signal's
// status (SPEC 4: every phase stops), not after the parse with its outcome.
func TestSignalWhileParsingScript(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.sql")
	// a syntax error at the end: a parse that runs to its end exits 2
	src := strings.Repeat("SELECT 1 AS a FROM v WHERE a > 1 AND a < 5;\n", 60000) + "SELEC;\n"
	os.WriteFile(long, []byte(src), 0o644)
	os.WriteFile(filepath.Join(dir, "r.sql"), []byte(".read long.sql\n"), 0o644)
	for _, script := range []string{long, filepath.Join(dir, "r.sql")} {
		ctx, cancel := context.WithCancelCause(context.Background())
		done := make(chan int, 1)
		var errb bytes.Buffer
		go func() {
			done <- ExitStatus(ctx, Run(ctx, []string{script}, strings.NewReader(""), io.Discard, &errb))
		}()
		time.Sleep(20 * time.Millisecond)
		t0 := time.Now()
		cancel(SignalError{Sig: syscall.SIGTERM})
		code := <-done
		if code != 143 {
			t.Errorf("%s: exit %d after %v (%.200s), want 143 at once", filepath.Base(script), code, time.Since(t0), errb.String())
		}
		if d := time.Since(t0); d > 500*time.Millisecond {
			t.Errorf("%s: the run ended %v after the signal", filepath.Base(script), d)
		}
	}
}
