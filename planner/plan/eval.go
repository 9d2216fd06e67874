package plan

import (
	"sync/atomic"

	"streamql/catalog"
)

// Arg is an argument of a function call as a kernel is prepared for it: its
// type, its value when it is constant, and whether it is JSON made by a JSON
// construction call (Expr.JSON), which JSON_OBJECT and JSON_ARRAY insert as
// JSON. Text is the argument as the query wrote it (Expr.Text; "" when
// unknown), for the message of a call that stops the job (ELEMENT's).
type Arg struct {
	Type  catalog.Type
	Const bool
	Value Value
	JSON  bool
	Text  string
}

// Evaluator computes the constant expressions of a plan while it is planned:
// the planner folds constant subtrees into OpLit nodes, reads the value of a
// LIMIT, a ROUND's digits or a VALUES row, and checks a call's constant
// arguments (a regular expression RE2 cannot run, a bad date format) before
// the plan reaches the executor. The planner imports no executor package
// (DESIGN, "The engine's third shape": layering): the executor's expression
// package installs its kernels as the evaluator (executor/expr, init), and a
// test may install another (the kernel fuzzer installs its reference
// interpreter, so that the oracle's constants are not folded by the kernels
// under test).
type Evaluator interface {
	// Fold returns the value of e, a constant expression (e.Const) of a type
	// that is not nested.
	Fold(e *Expr) Value
	// CheckCall returns the error of a call of the function fn (a key of the
	// function table, catalog/functions.Function.Key) over args giving
	// result: a *functions.ArgError for a constant argument that cannot
	// work, nil when the call can run.
	CheckCall(fn string, args []Arg, result catalog.Type) error
}

type evaluatorBox struct{ ev Evaluator }

var evaluator atomic.Pointer[evaluatorBox]

// SetEvaluator installs ev as the evaluator of constant expressions and
// returns the one it replaces (nil for none), which a test restores. It is not
// meant to be called while plans are being planned.
func SetEvaluator(ev Evaluator) (old Evaluator) {
	if b := evaluator.Swap(&evaluatorBox{ev}); b != nil {
		return b.ev
	}
	return nil
}

// Constants returns the installed evaluator. It panics when none is: a
// program that plans links executor/expr (the session does), and a test of
// the planner imports it for its side effect.
func Constants() Evaluator {
	b := evaluator.Load()
	if b == nil || b.ev == nil {
		panic("plan: no evaluator of constant expressions installed: import streamql/executor/expr")
	}
	return b.ev
}
