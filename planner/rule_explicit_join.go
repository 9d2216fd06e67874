package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// ruleExplicitJoin builds the join of FROM l SEMI JOIN r ON ... or ANTI JOIN
// (SPEC 2.2) and hides r's columns from the select list (a semi or anti join
// outputs left rows only).
func ruleExplicitJoin(sp *selectPlan) error {
	if sp.rightTS == nil {
		return nil
	}
	p := sp.p
	rst, rname, err := p.source(sp.rightTS, sp.pos)
	if err != nil {
		return err
	}
	two := p.twoScope(sp.sc, rst, rname, false)
	var on ast.ExprNode
	if sp.join.On != nil {
		on = sp.join.On.Expr
	}
	word := "SEMI JOIN"
	if sp.joinMode == Anti {
		word = "ANTI JOIN"
	}
	if sp.j, err = p.buildJoin(two, sp.joinMode, on, nil, false, sp.pos(sp.rightTS), sp.name+" "+word+" "+rname, sp.wm); err != nil {
		return err
	}
	sp.sc.hidden = rname
	return nil
}
