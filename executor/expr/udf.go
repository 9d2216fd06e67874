package expr

import (
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// BatchFunc computes the rows sel of a call at once: a holds the arguments'
// vectors; it sets out's rows (and out.Null) for every row of sel.
type BatchFunc func(a []*vector.Vec, sel []int32, out *vector.Vec)

// batchKernel is the kernel of a call of a function with PrepareBatch, or
// nil when it has none for these arguments.
func (c *compiler) batchKernel(e *plan.Expr, u *UserFunc, args []Arg) evalFunc {
	bf, err := u.PrepareBatch(args, e.Type, c.fails.at(e))
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
