package planner

import (
	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// The conditional functions of SPEC 2: COALESCE, IFNULL and IF. Their arguments
// convert to one common type (BIGINT with DOUBLE as DOUBLE; NULL to anything).
func init() {
	registerFunc(funcRule{compile: ruleCoalesce}, "coalesce", "ifnull")
	registerFunc(funcRule{compile: ruleIf}, "if")
}

// ruleCoalesce is COALESCE(x, ...) and IFNULL(x, y): the first argument that is
// not NULL (SPEC 2).
func ruleCoalesce(c *funcCall) (*Expr, error) {
	if c.name == "ifnull" {
		if err := c.arity(2, 2); err != nil {
			return nil, err
		}
	} else if err := c.arity(1, 1<<20); err != nil {
		return nil, err
	}
	t, err := c.sc.commonType(c.n, c.args)
	if err != nil {
		return nil, err
	}
	for i := range c.args {
		c.args[i] = coerce(c.args[i], t)
	}
	return coalesceKernel(t, c.args), nil
}

// ruleIf is IF(cond, then, else) on a BOOLEAN cond (SPEC 2), compiled as a CASE.
func ruleIf(c *funcCall) (*Expr, error) {
	if err := c.arity(3, 3); err != nil {
		return nil, err
	}
	cond := coerce(c.args[0], catalog.Boolean)
	if cond.Type != catalog.Boolean {
		return nil, parser.Errorf(c.sc.pos(c.n.Args[0]), "IF needs a BOOLEAN condition, got %s", cond.Type)
	}
	t, err := c.sc.commonType(c.n, c.args[1:])
	if err != nil {
		return nil, err
	}
	return caseKernel(t, []*Expr{cond}, []*Expr{coerce(c.args[1], t), coerce(c.args[2], t)}), nil
}

func coalesceKernel(t catalog.Type, args []*Expr) *Expr { return node(plan.OpCoalesce, t, args...) }
