package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// StopSignals are the signals that stop a run (SPEC 4): Ctrl-C (SIGINT),
// SIGTERM and SIGHUP. Each cancels the running job, which flushes what was
// routed, ends every output on a whole row, and exits 128 + the signal number.
var StopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// SignalError is the cause (context.Cause) of a context that NotifyContext
// cancelled: the signal that arrived first.
type SignalError struct{ Sig syscall.Signal }

// Error returns "interrupted by <signal name>".
func (e SignalError) Error() string { return "interrupted by " + e.Sig.String() }

// ExitCode is the exit status that the signal means (SPEC 4): 130 for SIGINT,
// 143 for SIGTERM, 129 for SIGHUP (128 + the signal number, as a shell reports).
func (e SignalError) ExitCode() int { return 128 + int(e.Sig) }

// NotifyContext returns a copy of parent that the first of StopSignals cancels,
// with a SignalError as its cause, and a stop function that releases the
// signals (as signal.NotifyContext, which does not tell which signal came).
// Later signals are left to the run already ending. The REPL reads SIGINT on
// its own channel (Ctrl-C cancels a job, not the REPL) and SIGTERM and SIGHUP
// too (they end it).
func NotifyContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, StopSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			if s, ok := sig.(syscall.Signal); ok {
				cancel(SignalError{Sig: s})
			} else {
				cancel(context.Canceled)
			}
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(context.Canceled)
	}
}

// ExitStatus returns the exit status of a run that returned code with ctx
// (SPEC 4): when a stop signal cancelled ctx, a run that was interrupted (130)
// exits with that signal's status (130, 143 or 129); every other status stays
// (a run that ended before the signal reached a job did all its work).
func ExitStatus(ctx context.Context, code int) int {
	if se, ok := context.Cause(ctx).(SignalError); ok && code == exitInterrupt {
		return se.ExitCode()
	}
	return code
}

// watchTerm makes SIGTERM and SIGHUP end the REPL (SPEC 4): the running job is
// cancelled (it flushes what was routed), the prompt's input is closed, so the
// loop ends, and term then returns the signal. Ctrl-C stays the REPL's own
// (guard). The returned stop function releases the signals. (Not rl.Close from
// here: readline's Close races with its own reader goroutine's start.)
func (r *repl) watchTerm() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	input := r.input
	go func() {
		select {
		case sig := <-ch:
			s, _ := sig.(syscall.Signal)
			r.cancelBase(SignalError{Sig: s})
			input.Close()
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// term returns the signal that ended the REPL, if one did.
func (r *repl) term() (SignalError, bool) {
	se, ok := context.Cause(r.base).(SignalError)
	return se, ok
}
