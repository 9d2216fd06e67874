package expr

import (
	"slices"
	"sync"
	"sync/atomic"

	"streamql/executor/vector"
	"streamql/planner/plan"
)

// Failure is a call that failed while a job computed a batch. A user
// function's failure (a WASM trap, a call past its time cap, a Go function's
// error or panic) gives NULL and sends the row to the errors output, and the
// job goes on (SPEC 2.10). A built-in call that fails as Flink's fails the
// job (FailsJob: ELEMENT of an ARRAY of more than one element, Flink's
// "Array has more than one element") gives NULL until the executor stops the
// job with it, before the batch is written (SPEC 2 names the failures that
// give NULL instead: a CAST that fails, BIGINT overflow). Row is the row's
// index in the batch the call computed.
type Failure struct {
	Func, Reason string
	Row          int
	// Cols are the batch columns the call's arguments read (every column
	// reference in them, ascending, once each; nil: none), so that the
	// executor can name the input row whose value failed when the batch's
	// rows join two inputs' (executor/udf_errors.go)
	Cols []int
	// FailsJob: the call stops the job (Flink's behaviour), rather than
	// sending its row to the errors output
	FailsJob bool
}

// Error is "function NAME: reason".
func (f Failure) Error() string { return "function " + f.Func + ": " + f.Reason }

// Context is a job's expression context: the record of the failed calls of
// the kernels compiled in it (Context.Compile), which the executor takes
// after each batch and at the stream's end (Take). Each job has its own, so
// two jobs running at once in one process (the root package's Go API) never
// see each other's failures. Its kernels may run on several goroutines (the
// parallel paths); the record is safe for that. The zero value is ready.
type Context struct {
	n      atomic.Int64 // len(list)
	failed atomic.Bool  // list holds a FailsJob failure
	mu     sync.Mutex
	list   []Failure
	// root and cols make a call's view of its job's context (at): its
	// failures go to root's record with cols (Failure.Cols)
	root *Context
	cols []int
}

// at returns the view of x that the call e's kernel notes its failures
// through: each one with the columns e's arguments read (Failure.Cols).
// nil gives nil.
func (x *Context) at(e *plan.Expr) *Context {
	if x == nil {
		return nil
	}
	var cols []int
	var walk func(e *plan.Expr)
	walk = func(e *plan.Expr) {
		if e.Op == plan.OpCol && e.Col >= 0 && !slices.Contains(cols, e.Col) {
			cols = append(cols, e.Col)
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	walk(e)
	slices.Sort(cols)
	return &Context{root: x, cols: cols}
}

// NewContext returns the expression context of a new job.
func NewContext() *Context { return &Context{} }

// Compile returns the kernel of e, whose failed calls go to x's record
// (the package's Compile otherwise). nil gives nil.
func (x *Context) Compile(e *plan.Expr) *Kernel {
	if e == nil {
		return nil
	}
	c := compiler{fails: x}
	return &Kernel{Type: e.Type, Eval: c.compile(e)}
}

// CompileAll compiles each of es in x (Context.Compile).
func (x *Context) CompileAll(es []*plan.Expr) []*Kernel {
	ks := make([]*Kernel, len(es))
	for i, e := range es {
		ks[i] = x.Compile(e)
	}
	return ks
}

// Projection is a list of expressions computed over a batch's selected rows
// into columns it keeps and reuses (nothing allocated per call): the
// relation's select list an operator's late rows take when they are a
// relation's rows (plan.Aggregate.LateProject, plan.Rank.LateProject; SPEC
// 2.4, 2.6).
type Projection struct {
	ks   []*Kernel
	cols []*vector.Vec
}

// CompileProjection compiles es in x into a Projection; nil when es is
// empty (the caller then keeps its input's columns).
func (x *Context) CompileProjection(es []*plan.Expr) *Projection {
	if len(es) == 0 {
		return nil
	}
	ks := x.CompileAll(es)
	return &Projection{ks: ks, cols: make([]*vector.Vec, len(ks))}
}

// Eval returns the projection's columns computed for the rows sel of in,
// valid until the next call.
func (p *Projection) Eval(in *vector.Batch, sel []int32) []*vector.Vec {
	for k, kn := range p.ks {
		p.cols[k] = kn.Eval(in, sel)
	}
	return p.cols
}

// fail notes a failed call of fn on row i of the batch being computed. Of
// the calls that fail the job only the first since the last Take is kept
// (the job stops with it). A nil x (a kernel compiled outside a job, by the
// package's Compile: a constant folded once) drops it.
func (x *Context) fail(fn string, row int, reason string, failsJob bool) {
	if x == nil {
		return
	}
	cols := x.cols
	if x.root != nil {
		x = x.root
	}
	if failsJob && x.failed.Load() {
		return
	}
	x.mu.Lock()
	if !failsJob || !x.failed.Load() {
		x.list = append(x.list, Failure{Func: fn, Reason: reason, Row: row, Cols: cols, FailsJob: failsJob})
		x.n.Store(int64(len(x.list)))
		if failsJob {
			x.failed.Store(true)
		}
	}
	x.mu.Unlock()
}

// takesJobFailure reports whether a call that fails the job would be noted
// now: x is a job's context (or a call's view of one) whose record holds no
// such call since the last Take. A kernel asks it before it words its
// reason, so that the rows after the first failing one cost no text.
func (x *Context) takesJobFailure() bool {
	if x == nil {
		return false
	}
	if x.root != nil {
		x = x.root
	}
	return !x.failed.Load()
}

// Failed reports whether a call that fails the job was noted since the last
// Take: one atomic load. The sink asks it before writing a batch.
func (x *Context) Failed() bool { return x != nil && x.failed.Load() }

// Take appends the failed calls noted since the last call to dst, in the
// order they failed, and forgets them; it costs one atomic load when there
// are none. The executor calls it after each batch and at the stream's end.
func (x *Context) Take(dst []Failure) []Failure {
	if x == nil || x.n.Load() == 0 {
		return dst
	}
	x.mu.Lock()
	dst = append(dst, x.list...)
	x.list = x.list[:0]
	x.n.Store(0)
	x.failed.Store(false)
	x.mu.Unlock()
	return dst
}
