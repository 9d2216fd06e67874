package expr

import (
	"streamql/catalog"
	"streamql/catalog/functions"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// RowFunc computes row i of a call: a holds the arguments' vectors (their row
// i), and the function writes row i of out (a fixed-width value in out.I, F
// or B; text appended to out.Arena and out.S[i] set, see setText). It returns
// false for NULL. It allocates nothing.
type RowFunc func(a []*vector.Vec, i int, out *vector.Vec) bool

// setText makes out's row i the bytes appended to out.Arena since start.
func setText(out *vector.Vec, i, start int) {
	out.S[i] = out.Arena[start:len(out.Arena):len(out.Arena)]
}

// PrepareCall returns the row function of a call of f with args giving
// result, or the *ArgError of a constant argument that cannot work.
func PrepareCall(f *Function, args []Arg, result catalog.Type) (RowFunc, error) {
	u, err := prepareOf(f)
	if err != nil {
		return nil, err
	}
	return u.Prepare(args, result, nil)
}

// funcKernel is the kernel of an OpFunc node: its arguments' kernels, then
// per selected row the table function's row function (a NULL argument gives
// NULL unless the function takes NULLs, Function.TakesNulls).
func (c *compiler) funcKernel(e *plan.Expr) evalFunc {
	f := functions.Lookup(e.Fn)
	if f == nil {
		panic("expr: unknown function " + e.Fn)
	}
	args := make([]Arg, len(e.Args))
	for k, a := range e.Args {
		args[k] = Arg{Type: a.Type, JSON: a.JSON, Text: a.Text}
		if a.Op == plan.OpLit {
			args[k].Const, args[k].Value = true, a.Lit
		}
	}
	u, err := prepareOf(f)
	if err != nil {
		panic("expr: " + err.Error()) // the planner binds only functions with kernels
	}
	if u.PrepareBatch != nil {
		if k := c.batchKernel(e, u, args); k != nil {
			return k
		}
	}
	row, err := u.Prepare(args, e.Type, c.fails.at(e))
	if err != nil {
		panic("expr: " + f.Name + ": " + err.Error()) // the planner checked the constants
	}
	fs := c.args(e)
	vs := make([]*vector.Vec, len(fs))
	strict := !f.TakesNulls
	return derived(e.Type, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		for k, a := range fs {
			vs[k] = a(b, sel)
		}
		for _, i := range sel {
			if strict && anyNull(vs, int(i)) {
				out.Null[i] = true
				continue
			}
			out.Null[i] = !row(vs, int(i), out)
		}
	})
}

// anyNull reports whether row i of any of vs is NULL.
func anyNull(vs []*vector.Vec, i int) bool {
	for _, v := range vs {
		if v.Null[i] {
			return true
		}
	}
	return false
}
