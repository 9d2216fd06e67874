package planner

import (
	"bytes"

	"github.com/pingcap/tidb/pkg/parser/opcode"

	"streamql/catalog"
	"streamql/executor/vector"
)

// derived returns an expression of type t whose Eval fills a fresh vector owned by
// the expression through fill.
func derived(t catalog.Type, konst bool, fill func(b *vector.Batch, sel []int32, out *vector.Vec)) *Expr {
	out := vector.NewVec(t)
	return &Expr{Type: t, Col: -1, Const: konst, Eval: func(b *vector.Batch, sel []int32) *vector.Vec {
		out.ResetArena()
		fill(b, sel, out)
		return out
	}}
}

// foldConst evaluates a constant expression once over all slots and freezes it.
func foldConst(e *Expr) *Expr {
	if !e.Const {
		return e
	}
	all := make([]int32, vector.Cap)
	for i := range all {
		all[i] = int32(i)
	}
	v := e.Eval(nil, all)
	frozen := vector.NewVec(e.Type)
	copy(frozen.Null, v.Null)
	copy(frozen.I, v.I)
	copy(frozen.F, v.F)
	copy(frozen.B, v.B)
	for i := range frozen.S {
		frozen.S[i] = bytes.Clone(v.S[i])
	}
	return &Expr{Type: e.Type, Col: -1, Const: true, Text: e.Text, Node: e.Node, Eval: func(*vector.Batch, []int32) *vector.Vec { return frozen }}
}

// coerce converts e to t when the conversion is implicit (NULL to anything, BIGINT
// to DOUBLE); otherwise it returns e unchanged and the caller reports the mismatch.
func coerce(e *Expr, t catalog.Type) *Expr {
	switch {
	case e.Type == t:
		return e
	case e.Type == catalog.Unknown:
		n := nullExpr(t)
		inheritText(n, e)
		return n
	case e.Type == catalog.BigInt && t == catalog.Double:
		return castTo(e, t)
	}
	return e
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func isNull(x *Expr, not bool) *Expr {
	return foldConst(derived(catalog.Boolean, x.Const, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		in := x.Eval(b, sel)
		for _, i := range sel {
			out.Null[i] = false
			out.B[i] = in.Null[i] != not
		}
	}))
}

func isTruth(x *Expr, want, not bool) *Expr {
	return foldConst(derived(catalog.Boolean, x.Const, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		in := x.Eval(b, sel)
		for _, i := range sel {
			out.Null[i] = false
			out.B[i] = (!in.Null[i] && in.B[i] == want) != not
		}
	}))
}

func notExpr(x *Expr) *Expr {
	return foldConst(derived(catalog.Boolean, x.Const, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		in := x.Eval(b, sel)
		for _, i := range sel {
			out.Null[i] = in.Null[i]
			out.B[i] = !in.B[i]
		}
	}))
}

// logic is AND / OR / XOR with SQL's three-valued logic.
func logic(op opcode.Op, l, r *Expr) *Expr {
	return foldConst(derived(catalog.Boolean, l.Const && r.Const, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		a, c := l.Eval(b, sel), r.Eval(b, sel)
		for _, i := range sel {
			an, cn := a.Null[i], c.Null[i]
			av, cv := a.B[i] && !an, c.B[i] && !cn
			switch op {
			case opcode.LogicAnd:
				if (!an && !av) || (!cn && !cv) {
					out.Null[i], out.B[i] = false, false
				} else {
					out.Null[i], out.B[i] = an || cn, true
				}
			case opcode.LogicOr:
				if av || cv {
					out.Null[i], out.B[i] = false, true
				} else {
					out.Null[i], out.B[i] = an || cn, false
				}
			default:
				out.Null[i], out.B[i] = an || cn, av != cv
			}
		}
	}))
}

type ordered interface{ ~int64 | ~float64 }

func cmpLoop[T ordered](op opcode.Op, sel []int32, a, c []T, out []bool) {
	switch op {
	case opcode.EQ, opcode.NullEQ:
		for _, i := range sel {
			out[i] = a[i] == c[i]
		}
	case opcode.NE:
		for _, i := range sel {
			out[i] = a[i] != c[i]
		}
	case opcode.LT:
		for _, i := range sel {
			out[i] = a[i] < c[i]
		}
	case opcode.LE:
		for _, i := range sel {
			out[i] = a[i] <= c[i]
		}
	case opcode.GT:
		for _, i := range sel {
			out[i] = a[i] > c[i]
		}
	case opcode.GE:
		for _, i := range sel {
			out[i] = a[i] >= c[i]
		}
	}
}

func cmpResult(op opcode.Op, c int) bool {
	switch op {
	case opcode.EQ, opcode.NullEQ:
		return c == 0
	case opcode.NE:
		return c != 0
	case opcode.LT:
		return c < 0
	case opcode.LE:
		return c <= 0
	case opcode.GT:
		return c > 0
	}
	return c >= 0
}

// compareExpr compares two operands of the same type (see unify).
func compareExpr(op opcode.Op, l, r *Expr) *Expr {
	t := l.Type
	return foldConst(derived(catalog.Boolean, l.Const && r.Const, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		a, c := l.Eval(b, sel), r.Eval(b, sel)
		switch t {
		case catalog.BigInt, catalog.Timestamp:
			cmpLoop(op, sel, a.I, c.I, out.B)
		case catalog.Double:
			cmpLoop(op, sel, a.F, c.F, out.B)
		case catalog.Boolean:
			for _, i := range sel {
				out.B[i] = cmpResult(op, int(b2i(a.B[i])-b2i(c.B[i])))
			}
		case catalog.Varchar:
			for _, i := range sel {
				out.B[i] = cmpResult(op, bytes.Compare(a.S[i], c.S[i]))
			}
		}
		if op == opcode.NullEQ {
			for _, i := range sel {
				switch {
				case a.Null[i] && c.Null[i]:
					out.B[i] = true
				case a.Null[i] || c.Null[i]:
					out.B[i] = false
				}
				out.Null[i] = false
			}
			return
		}
		for _, i := range sel {
			out.Null[i] = a.Null[i] || c.Null[i]
		}
	}))
}

// binInt applies f to BIGINT pairs; f's false result gives NULL (overflow, / 0).
func binInt(l, r *Expr, f func(a, b int64) (int64, bool)) *Expr {
	return foldConst(derived(catalog.BigInt, l.Const && r.Const, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		a, c := l.Eval(b, sel), r.Eval(b, sel)
		for _, i := range sel {
			if a.Null[i] || c.Null[i] {
				out.Null[i] = true
				continue
			}
			v, ok := f(a.I[i], c.I[i])
			out.I[i], out.Null[i] = v, !ok
		}
	}))
}

// binFloat applies f to DOUBLE pairs; f's false result gives NULL (/ 0).
func binFloat(l, r *Expr, f func(a, b float64) (float64, bool)) *Expr {
	return foldConst(derived(catalog.Double, l.Const && r.Const, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		a, c := l.Eval(b, sel), r.Eval(b, sel)
		for _, i := range sel {
			if a.Null[i] || c.Null[i] {
				out.Null[i] = true
				continue
			}
			v, ok := f(a.F[i], c.F[i])
			out.F[i], out.Null[i] = v, !ok
		}
	}))
}

// mapInt applies f to each BIGINT (or TIMESTAMP) value, giving type t.
func mapInt(x *Expr, t catalog.Type, f func(a int64) (int64, bool)) *Expr {
	return foldConst(derived(t, x.Const, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		a := x.Eval(b, sel)
		for _, i := range sel {
			if a.Null[i] {
				out.Null[i] = true
				continue
			}
			v, ok := f(a.I[i])
			out.I[i], out.Null[i] = v, !ok
		}
	}))
}

func mapFloat(x *Expr, f func(a float64) float64) *Expr {
	return foldConst(derived(catalog.Double, x.Const, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		a := x.Eval(b, sel)
		for _, i := range sel {
			out.Null[i] = a.Null[i]
			out.F[i] = f(a.F[i])
		}
	}))
}

// caseKernel picks, per row, the result of the first true condition, else the last
// result (ELSE, or NULL). results has one more entry than conds; all have type t.
func caseKernel(t catalog.Type, conds, results []*Expr) *Expr {
	konst := true
	for _, e := range append(append([]*Expr{}, conds...), results...) {
		konst = konst && e.Const
	}
	cv := make([]*vector.Vec, len(conds))
	rv := make([]*vector.Vec, len(results))
	return foldConst(derived(t, konst, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		for k := range conds {
			cv[k] = conds[k].Eval(b, sel)
		}
		for k := range results {
			rv[k] = results[k].Eval(b, sel)
		}
		for _, i := range sel {
			k := 0
			for k < len(conds) && !(cv[k].B[i] && !cv[k].Null[i]) {
				k++
			}
			copyValue(t, rv[k], out, int(i))
		}
	}))
}

// copyValue copies row i of in to row i of out (same type); strings are shared.
func copyValue(t catalog.Type, in, out *vector.Vec, i int) {
	out.Null[i] = in.Null[i]
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		out.I[i] = in.I[i]
	case catalog.Double:
		out.F[i] = in.F[i]
	case catalog.Boolean:
		out.B[i] = in.B[i]
	case catalog.Varchar:
		out.S[i] = in.S[i]
	}
}

// inKernel is x IN (list) over n list elements (SPEC 2): eq(x', k) compiles the
// equality of element k with x', and the results are ORed in list order. When x
// is not constant, x' is a stand-in that reads x's vector of the current batch,
// so x is evaluated once per batch however long the list; a constant x is folded
// at planning time anyway and is used as it is. It returns eq's first error.
func inKernel(x *Expr, n int, eq func(x *Expr, k int) (*Expr, error)) (*Expr, error) {
	arg := x
	var cur *vector.Vec // x's values for the batch being evaluated
	if !x.Const {
		arg = &Expr{Type: x.Type, Col: -1, Eval: func(*vector.Batch, []int32) *vector.Vec { return cur }}
		inheritText(arg, x)
	}
	var acc *Expr
	for k := 0; k < n; k++ {
		e, err := eq(arg, k)
		if err != nil {
			return nil, err
		}
		if acc == nil {
			acc = e
		} else {
			acc = logic(opcode.LogicOr, acc, e)
		}
	}
	if x.Const || acc == nil {
		return acc, nil
	}
	or := acc
	return &Expr{Type: or.Type, Col: -1, Eval: func(b *vector.Batch, sel []int32) *vector.Vec {
		cur = x.Eval(b, sel)
		return or.Eval(b, sel)
	}}, nil
}
