package planner

import (
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"streamql/catalog"
	"streamql/planner/plan"
)

// The expression nodes the planner builds (planner/plan.Expr): the type rules
// are the planner's, the kernels the executor's (executor/expr compiles the
// tree when it builds a job).

// build completes e, a node over e.Args: it is constant when all of them are,
// and a constant node is folded into a literal (evaluated once, here, by the
// installed plan.Evaluator: the planner imports no executor package).
func build(e *Expr) *Expr {
	e.Col = -1
	e.Const = len(e.Args) > 0 && allConst(e.Args)
	return foldConst(e)
}

// node is build of an operator op of type t over args.
func node(op plan.Op, t catalog.Type, args ...*Expr) *Expr {
	return build(&Expr{Op: op, Type: t, Args: args})
}

// foldConst evaluates a constant expression once and makes it a literal
// (keeping its text, and its JSON mark: a folded JSON_OBJECT call is still
// inserted as JSON by the JSON construction call around it).
func foldConst(e *Expr) *Expr {
	if !e.Const || e.Op == plan.OpLit || e.Type.IsNested() { // a nested value has no plan.Value: kept as its kernel
		return e
	}
	return &Expr{Op: plan.OpLit, Type: e.Type, Col: -1, Const: true, Lit: plan.Constants().Fold(e), Text: e.Text, Node: e.Node, JSON: e.JSON}
}

// coerce converts e to t when the conversion is implicit (NULL to anything, BIGINT
// to DOUBLE, a nested value to the nested type commonType gives for it and
// others: catalog.LeastRestrictive); otherwise it returns e unchanged and the caller reports the mismatch.
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
	case e.Type.IsNested() && t.IsNested():
		if u, ok := catalog.LeastRestrictive(t, e.Type); ok && u == t { // (a widening: commonType's)
			return castTo(e, t)
		}
	}
	return e
}

func isNull(x *Expr, not bool) *Expr {
	return build(&Expr{Op: plan.OpIsNull, Type: catalog.Boolean, Args: []*Expr{x}, Flag: not})
}

func isTruth(x *Expr, want, not bool) *Expr {
	return build(&Expr{Op: plan.OpIsTruth, Type: catalog.Boolean, Args: []*Expr{x}, Want: want, Flag: not})
}

func notExpr(x *Expr) *Expr { return node(plan.OpNot, catalog.Boolean, x) }

// logic is AND / OR / XOR with SQL's three-valued logic.
func logic(op opcode.Op, l, r *Expr) *Expr {
	o := plan.OpXor
	switch op {
	case opcode.LogicAnd:
		o = plan.OpAnd
	case opcode.LogicOr:
		o = plan.OpOr
	}
	return node(o, catalog.Boolean, l, r)
}

// cmps maps TiDB's comparison operators to the plan's.
var cmps = map[opcode.Op]plan.Cmp{opcode.EQ: plan.EQ, opcode.NE: plan.NE, opcode.LT: plan.LT, opcode.LE: plan.LE,
	opcode.GT: plan.GT, opcode.GE: plan.GE, opcode.NullEQ: plan.NullEQ}

// compareExpr compares two operands of the same type (see unify).
func compareExpr(op opcode.Op, l, r *Expr) *Expr {
	return build(&Expr{Op: plan.OpCmp, Type: catalog.Boolean, Args: []*Expr{l, r}, Param: int64(cmps[op])})
}

// caseKernel picks, per row, the result of the first true condition, else the last
// result (ELSE, or NULL). results has one more entry than conds; all have type t.
func caseKernel(t catalog.Type, conds, results []*Expr) *Expr {
	args := make([]*Expr, 0, len(conds)+len(results))
	for k, c := range conds {
		args = append(args, c, results[k])
	}
	return node(plan.OpCase, t, append(args, results[len(conds)])...)
}

// inKernel is x IN (list) over n list elements (SPEC 2): eq(x', k) compiles the
// equality of element k with x', and the results are ORed in list order. When x
// is not constant, x' is an OpInArg that reads x's values of the current batch,
// so x is evaluated once per batch however long the list; a constant x is folded
// at planning time anyway and is used as it is. It returns eq's first error.
func inKernel(x *Expr, n int, eq func(x *Expr, k int) (*Expr, error)) (*Expr, error) {
	arg := x
	if !x.Const {
		arg = &Expr{Op: plan.OpInArg, Type: x.Type, Col: -1}
		inheritText(arg, x)
	}
	eqs := []*Expr{x}
	for k := 0; k < n; k++ {
		e, err := eq(arg, k)
		if err != nil {
			return nil, err
		}
		eqs = append(eqs, e)
	}
	if n == 0 {
		return nil, nil
	}
	if !x.Const {
		return &Expr{Op: plan.OpIn, Type: catalog.Boolean, Col: -1, Args: eqs}, nil
	}
	acc := eqs[1]
	for _, e := range eqs[2:] {
		acc = logic(opcode.LogicOr, acc, e)
	}
	return acc, nil
}
