package expr

import (
	"sync"
	"sync/atomic"

	"streamql/executor/vector"
	"streamql/planner/plan"
)

// UDFFailure is a call of a user function that failed (a WASM trap, a call
// past its time cap, a Go function's error or panic): the call gives NULL and
// the row goes to the errors output (SPEC 2.10). Row is the row's index in
// its batch.
type UDFFailure struct {
	Func, Reason string
	Row          int
}

var failures struct {
	n    atomic.Int64
	mu   sync.Mutex
	list []UDFFailure
}

// recordFailure notes a failed call of fn on row i of the batch being computed.
func recordFailure(fn string, row int, reason string) {
	failures.mu.Lock()
	failures.list = append(failures.list, UDFFailure{Func: fn, Reason: reason, Row: row})
	failures.n.Add(1)
	failures.mu.Unlock()
}

// TakeUDFFailures appends the failed user function calls noted since the last
// call to dst and forgets them; it costs one atomic load when there are none.
// The executor calls it after each batch, on the goroutine that computed it.
func TakeUDFFailures(dst []UDFFailure) []UDFFailure {
	if failures.n.Load() == 0 {
		return dst
	}
	failures.mu.Lock()
	dst = append(dst, failures.list...)
	failures.list = failures.list[:0]
	failures.n.Store(0)
	failures.mu.Unlock()
	return dst
}

// BatchFunc computes the rows sel of a call at once: a holds the arguments'
// vectors; it sets out's rows (and out.Null) for every row of sel.
type BatchFunc func(a []*vector.Vec, sel []int32, out *vector.Vec)

// batchKernel is the kernel of a call of a function with PrepareBatch, or
// nil when it has none for these arguments.
func (c *compiler) batchKernel(e *plan.Expr, u *UserFunc, args []Arg) evalFunc {
	bf, err := u.PrepareBatch(args, e.Type)
	if err != nil || bf == nil {
		return nil
	}
	fs := c.args(e)
	vs := make([]*vector.Vec, len(fs))
	return derived(e.Type, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		for k, a := range fs {
			vs[k] = a(b, sel)
		}
		bf(vs, sel, out)
	})
}
