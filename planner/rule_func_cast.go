package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// cast compiles CAST(x AS type) (SPEC 2: BIGINT, DOUBLE, VARCHAR, BOOLEAN or
// TIMESTAMP; the parser records the target type as written in sc.casts).
func (sc *scope) cast(n *ast.FuncCastExpr) (*Expr, error) {
	x, err := sc.compile(n.Expr)
	if err != nil {
		return nil, err
	}
	name, ok := sc.casts[n]
	if !ok {
		return nil, parser.Errorf(sc.pos(n), "CAST target type not recognised; use BIGINT, DOUBLE, VARCHAR, BOOLEAN or TIMESTAMP")
	}
	t, err := catalog.ParseType(name)
	if err != nil {
		return nil, parser.Errorf(sc.pos(n), "%v", err)
	}
	if (t.IsNested() || x.Type.IsNested()) && !catalog.NestedCastable(x.Type, t) {
		// SPEC 2.10: a nested value casts to VARCHAR (as it prints), text
		// (JSON) to a nested type, and a nested value to one of its kind
		// element by element (Flink's ArrayToArray, MapToMap, RowToRow rules)
		return nil, parser.Errorf(sc.pos(n), "CAST from %s to %s is not supported: a nested value casts to VARCHAR, JSON text (VARCHAR) to ARRAY, MAP or ROW, and an ARRAY, MAP or ROW to one of its kind whose elements cast (a ROW to a ROW of as many fields)", x.Type, t)
	}
	r := castTo(x, t)
	if r != x && r.Op == plan.OpCast {
		r.Text, r.Node = "", nil // an explicit CAST shows as written (compile renders it), not as its operand
	}
	return r, nil
}

// castTo is CAST(e AS t) with SPEC 2's rules: failures give NULL (Flink's TRY_CAST).
// The executor picks the conversion loop once, from e's type and t, not per row.
func castTo(e *Expr, t catalog.Type) *Expr {
	if e.Type == t {
		return e
	}
	if e.Type == catalog.Unknown {
		return coerce(e, t)
	}
	r := &Expr{Op: plan.OpCast, Type: t, Args: []*Expr{e}}
	inheritText(r, e)
	return build(r)
}
