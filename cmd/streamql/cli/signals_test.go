package cli

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"
)

// SIGTERM and SIGHUP end the REPL (SPEC 4: exit 143 or 129), cancelling a
// running job first; Ctrl-C only cancels the job (TestREPL...).
func TestREPLEndsOnSIGTERMAndSIGHUP(t *testing.T) {
	for _, c := range []struct {
		sig   syscall.Signal
		code  int
		inJob bool
	}{{syscall.SIGTERM, 143, true}, {syscall.SIGHUP, 129, true}, {syscall.SIGTERM, 143, false}, {syscall.SIGHUP, 129, false}} {
		h := startREPL(t, "")
		if c.inJob {
			h.line(`CREATE STREAM g (id BIGINT) WITH ('connector'='datagen', 'rows-per-second'='100');`)
			h.line(".format csv")
			h.send("SELECT id FROM g;\n")
			h.waitFor("\nid\n") // the job runs: its header came
		}
		t0 := time.Now()
		if err := syscall.Kill(syscall.Getpid(), c.sig); err != nil {
			t.Fatal(err)
		}
		select {
		case code := <-h.done:
			if code != c.code {
				t.Errorf("%v (in a job: %v): REPL exit %d, want %d", c.sig, c.inJob, code, c.code)
			}
			h.done <- code // for the harness's cleanup
		case <-time.After(5 * time.Second):
			t.Fatalf("%v (in a job: %v): the REPL still runs after 5 s", c.sig, c.inJob)
		}
		if d := time.Since(t0); d > time.Second {
			t.Errorf("%v took %v", c.sig, d)
		}
	}
}

func TestExitStatusOfSignals(t *testing.T) {
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143, syscall.SIGHUP: 129} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(SignalError{Sig: sig})
		if got := ExitStatus(ctx, exitInterrupt); got != want {
			t.Errorf("%v: exit %d, want %d", sig, got, want)
		}
		// a failure or a planning error keeps its status
		if got := ExitStatus(ctx, exitRuntime); got != exitRuntime {
			t.Errorf("%v after a failure: exit %d, want 1", sig, got)
		}
		if !errors.Is(ctx.Err(), context.Canceled) {
			t.Errorf("ctx.Err() = %v", ctx.Err())
		}
	}
	if got := ExitStatus(context.Background(), exitInterrupt); got != exitInterrupt {
		t.Errorf("no signal: exit %d, want 130", got)
	}
}
