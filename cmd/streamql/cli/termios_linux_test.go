package cli

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"streamql/internal/ptytest"
)

// openPTY returns a new pseudo-terminal's controller and terminal ends.
func openPTY(t *testing.T) (ctl, tty *os.File) { return ptytest.Open(t) }

// TestNoEcho: while a REPL job runs the terminal does not echo (a line typed
// meanwhile shows once, at the next prompt), signals stay on, and the terminal
// is restored after.
func TestNoEcho(t *testing.T) {
	_, tty := openPTY(t)
	flags := func() uint32 {
		tm, err := unix.IoctlGetTermios(int(tty.Fd()), ioctlGetTermios)
		if err != nil {
			t.Fatal(err)
		}
		return tm.Lflag
	}
	before := flags()
	if before&unix.ECHO == 0 {
		t.Fatal("a new terminal does not echo")
	}
	restore := noEcho(tty)
	if f := flags(); f&unix.ECHO != 0 || f&unix.ISIG == 0 {
		t.Errorf("during a job: lflag %#x, want ECHO off and ISIG on", f)
	}
	restore()
	if f := flags(); f != before {
		t.Errorf("after the job: lflag %#x, want %#x", f, before)
	}
	// not a terminal, or none: nothing happens
	noEcho(nil)()
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	noEcho(f)()
	f.Close()
}
