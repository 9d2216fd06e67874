package expr

import (
	"sync"
	"sync/atomic"
)

// FuncError is a call of a built-in function that fails the job, as Flink's
// does (ELEMENT of an ARRAY of more than one element: Flink's "Array has more
// than one element"): the call gives NULL and the executor stops the job
// with the error after the batch (SPEC 2 names the failures that give NULL
// instead: a CAST that fails, BIGINT overflow). Row is the row's index in
// its batch.
type FuncError struct {
	Func, Reason string
	Row          int
}

// Error is "function NAME: reason".
func (e FuncError) Error() string { return "function " + e.Func + ": " + e.Reason }

var funcErrors struct {
	set   atomic.Bool
	mu    sync.Mutex
	first FuncError
}

// recordFuncError notes a call of fn on row i of the batch being computed
// that fails the job; only the first since the last TakeFuncError is kept.
func recordFuncError(fn string, row int, reason string) {
	if funcErrors.set.Load() {
		return
	}
	funcErrors.mu.Lock()
	if !funcErrors.set.Load() {
		funcErrors.first = FuncError{Func: fn, Reason: reason, Row: row}
		funcErrors.set.Store(true)
	}
	funcErrors.mu.Unlock()
}

// TakeFuncError returns the first failing call noted since the last call
// and forgets it; it costs one atomic load when there is none. The executor
// calls it after each batch.
func TakeFuncError() (FuncError, bool) {
	if !funcErrors.set.Load() {
		return FuncError{}, false
	}
	funcErrors.mu.Lock()
	e := funcErrors.first
	funcErrors.set.Store(false)
	funcErrors.mu.Unlock()
	return e, true
}
