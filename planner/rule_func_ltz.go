package planner

import (
	"streamql/catalog"
	"streamql/executor/expr"
	"streamql/parser"
	"streamql/planner/plan"
)

// TO_TIMESTAMP_LTZ(n, precision) is Flink's epoch number to a time (issue 29:
// a Flink table's ts AS TO_TIMESTAMP_LTZ(ms, 3)): n BIGINT epoch milliseconds
// with precision 3 (the default), epoch seconds with precision 0. streamql's
// TIMESTAMP is UTC wall time in ms (SPEC 1), so the result is that
// TIMESTAMP; a NULL n, or seconds past the BIGINT range in ms, give NULL.
func init() {
	registerFunc(funcRule{compile: ruleToTimestampLTZ}, "to_timestamp_ltz")
}

func ruleToTimestampLTZ(c *funcCall) (*Expr, error) {
	if err := c.arity(1, 2); err != nil {
		return nil, err
	}
	n := c.args[0]
	precision := int64(3)
	if len(c.args) == 2 {
		p := c.args[1]
		if !p.Const || p.Type != catalog.BigInt {
			return nil, parser.Errorf(c.sc.pos(c.n.Args[1]), "TO_TIMESTAMP_LTZ's precision is 0 (epoch seconds) or 3 (epoch milliseconds)")
		}
		precision = expr.Fold(p).I
		if precision != 0 && precision != 3 {
			return nil, parser.Errorf(c.sc.pos(c.n.Args[1]), "TO_TIMESTAMP_LTZ's precision is 0 (epoch seconds) or 3 (epoch milliseconds), not %d", precision)
		}
	}
	switch n.Type {
	case catalog.Unknown:
		return castTo(n, catalog.Timestamp), nil
	case catalog.BigInt:
	default:
		return nil, parser.Errorf(c.sc.pos(c.n), "TO_TIMESTAMP_LTZ needs a BIGINT epoch (milliseconds with precision 3, seconds with 0), got %s; write CAST(x AS BIGINT)", n.Type)
	}
	if precision == 0 {
		n = node(plan.OpMul, catalog.BigInt, n, intConst(1000, "1000"))
	}
	return castTo(n, catalog.Timestamp), nil
}
