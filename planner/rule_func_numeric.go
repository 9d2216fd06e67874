package planner

import (
	"strings"

	"streamql/catalog"
	"streamql/catalog/functions"
	"streamql/parser"
	"streamql/planner/plan"
)

// The numeric functions of SPEC 2: ABS, FLOOR/CEIL and ROUND (half-up on the
// shortest decimal form, as Flink).
func init() {
	registerFunc(funcRule{compile: ruleAbs}, "abs")
	registerFunc(funcRule{compile: ruleFloorCeil}, "floor", "ceil", "ceiling")
	registerFunc(funcRule{compile: ruleRound}, "round")
}

// ruleAbs is ABS(x) on a BIGINT (NULL for the smallest BIGINT, whose absolute
// value overflows) or a DOUBLE (SPEC 2).
func ruleAbs(c *funcCall) (*Expr, error) {
	if err := c.arity(1, 1); err != nil {
		return nil, err
	}
	switch c.args[0].Type {
	case catalog.BigInt, catalog.Double:
		return node(plan.OpAbs, c.args[0].Type, c.args[0]), nil
	case catalog.Unknown:
		return c.args[0], nil
	}
	return nil, parser.Errorf(c.sc.pos(c.n), "ABS needs a number, got %s", c.args[0].Type)
}

// ruleFloorCeil is FLOOR and CEIL/CEILING: a BIGINT is its own value, a DOUBLE
// rounds down or up (SPEC 2); FLOOR(ts TO unit) is the function table's.
func ruleFloorCeil(c *funcCall) (*Expr, error) {
	if err := c.arity(1, 2); err != nil {
		return nil, err
	}
	if len(c.args) == 2 { // FLOOR(ts TO unit), which the parser writes FLOOR(ts, 'unit')
		return c.bindTable(functions.Lookup(c.name))
	}
	switch c.args[0].Type {
	case catalog.BigInt, catalog.Unknown:
		return c.args[0], nil
	case catalog.Double:
		op := plan.OpFloor
		if c.name != "floor" {
			op = plan.OpCeil
		}
		return node(op, catalog.Double, c.args[0]), nil
	}
	return nil, parser.Errorf(c.sc.pos(c.n), "%s needs a number, got %s", strings.ToUpper(c.name), c.args[0].Type)
}

// ruleRound is ROUND(x[, d]) with an integer literal d (SPEC 2: half-up on the
// shortest decimal form; a negative d rounds a BIGINT to tens, hundreds, ...).
func ruleRound(c *funcCall) (*Expr, error) {
	if err := c.arity(1, 2); err != nil {
		return nil, err
	}
	args := c.args
	digits := int64(0)
	if len(args) == 2 {
		if !args[1].Const || args[1].Type != catalog.BigInt {
			return nil, parser.Errorf(c.sc.pos(c.n.Args[1]), "ROUND's second argument must be an integer literal")
		}
		digits = plan.Constants().Fold(args[1]).I
	}
	switch args[0].Type {
	case catalog.Unknown:
		return args[0], nil
	case catalog.BigInt:
		if digits >= 0 {
			return args[0], nil
		}
		// exact, as Flink's BigDecimal.setScale (no DOUBLE: BIGINTs past 2^53)
		return build(&Expr{Op: plan.OpRoundTens, Type: catalog.BigInt, Args: []*Expr{args[0]}, Param: -digits}), nil
	case catalog.Double:
		return build(&Expr{Op: plan.OpRound, Type: catalog.Double, Args: []*Expr{args[0]}, Param: digits}), nil
	}
	return nil, parser.Errorf(c.sc.pos(c.n), "ROUND needs a number, got %s", args[0].Type)
}
