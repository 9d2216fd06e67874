package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"streamql/catalog"
	"streamql/planner/plan"
)

// PushFiltersKey is the SET key that turns filter pushdown off
// ('planner.push-filters' = 'false'; 'true', the default, turns it on):
// Planner.KeepFilters. The outputs are the same either way; only the rows
// a join holds, and so its memory and time, change (rule_pushdown.go).
const PushFiltersKey = "planner.push-filters"

// rulePushdown moves, for a query that reads a join of two streams (SPEC
// 2.7), the conditions that read one input only below the join, into that
// input's filter (plan.JoinInput.Filter), as Flink's optimizer does
// (FlinkFilterJoinRule, after Calcite's FilterJoinRule):
//   - a conjunct of WHERE (and of an INNER join's ON, which the join's rule
//     has put with WHERE's) goes below an INNER join on the side it reads,
//     below a LEFT join only when it reads the left side (the preserved
//     one: a padded row has the same left columns, so WHERE would drop it
//     too), below a RIGHT join only on the right side, never below a FULL
//     join;
//   - a conjunct of an outer join's other ON terms (plan.BothJoin.Residual)
//     that reads the side that is not preserved (a LEFT join's right side)
//     goes below it: a row failing it would join nothing anyway, and the
//     preserved side's rows are padded as before.
//
// It never pushes a condition that calls a function reading the clock or
// drawing random numbers (Deterministic: the value would be taken at
// another moment), reads CURRENT_WATERMARK, holds a subquery, or reads no
// column; nor a condition on the right side of a temporal join (it would
// filter the versions, so a left row could find an older version than
// the one valid at its time: Flink's rule keeps such conditions above the
// join too). The executor keeps a late row of an input whatever its
// filter says (SPEC 2.7: a late row goes to the late output as it reaches
// the join), so the late outputs do not change either.
//
// A column read only by a pushed WHERE conjunct or ON term is not marked as read by
// the joined rows' readers (scope.uses), so column pruning
// (rule_prune_columns.go) does not keep it in the join's state. SET
// 'planner.push-filters' = 'false' (Planner.KeepFilters) turns it off.
func rulePushdown(sp *selectPlan) error {
	both := sp.both
	if sp.p.KeepFilters || both == nil || sp.sc == nil || both.Type == plan.FullJoin {
		return nil
	}
	lw := len(both.Inputs[0].Types)
	may := func(s int) bool { // the WHERE conjuncts' sides
		switch {
		case s == 1 && both.Temporal:
			return false
		case both.Type == plan.LeftJoin:
			return s == 0
		case both.Type == plan.RightJoin:
			return s == 1
		}
		return true
	}
	var pushed [2][]*Expr
	var kept []ast.ExprNode
	uses := append([]bool(nil), sp.sc.uses...)
	reads := append([]bool(nil), sp.sc.reads...)
	for _, c := range sp.rest {
		if hasSubquery(c) {
			kept = append(kept, c)
			continue
		}
		e, err := sp.sc.compile(c)
		if err != nil {
			// WHERE's own rule reports it, as it would without this rule
			copy(sp.sc.uses, uses)
			copy(sp.sc.reads, reads)
			return nil
		}
		e = coerce(e, catalog.Boolean)
		if s := filterSide(e, lw); s >= 0 && e.Type == catalog.Boolean && may(s) {
			exprTextOf(e)
			pushed[s] = append(pushed[s], e)
			continue
		}
		kept = append(kept, c)
	}
	copy(sp.sc.uses, uses)
	copy(sp.sc.reads, reads)
	if both.Type != plan.InnerJoin && !both.Temporal {
		ns := 1 // the side that is not preserved
		if both.Type == plan.RightJoin {
			ns = 0
		}
		var res []*Expr
		for _, e := range both.Residual {
			if e.Type == catalog.Boolean && filterSide(e, lw) == ns {
				exprTextOf(e)
				pushed[ns] = append(pushed[ns], e)
				continue
			}
			res = append(res, e)
		}
		both.Residual = res
	}
	sp.unmarkPushed(pushed)
	sp.rest = kept
	for s := range pushed {
		if len(pushed[s]) == 0 {
			continue
		}
		off := 0
		if s == 1 {
			off = lw
		}
		terms := make([]*Expr, len(pushed[s]))
		var acc *Expr
		for k, e := range pushed[s] {
			terms[k] = shiftCols(e, off)
			if acc == nil {
				acc = terms[k]
			} else {
				acc = logic(opcode.LogicAnd, acc, terms[k])
			}
		}
		if len(terms) > 1 {
			acc.Text = plan.AndText(terms)
		}
		both.Inputs[s].Filter = acc
	}
	return nil
}

// unmarkPushed takes the columns the pushed WHERE conjuncts and outer ON
// terms read (over the joined layout) out of the joined rows' reads
// (scope.uses), which the join's rule marked as it looked for keys and time
// bounds among them, and marks again those another reader compiled so far
// reads: an outer join's other ON terms that stay in the join and a semi
// join's probe keys and condition (the keys, event times and
// CURRENT_WATERMARK columns a join keeps anyway: pruneJoin). The conjuncts that stay WHERE's mark theirs in ruleWhere.
func (sp *selectPlan) unmarkPushed(pushed [2][]*Expr) {
	uses := sp.sc.uses
	reads := make([]bool, len(uses))
	for _, es := range pushed {
		for _, e := range es {
			exprReads(e, reads)
		}
	}
	for c, r := range reads {
		if r {
			uses[c] = false
		}
	}
	for _, e := range sp.both.Residual {
		exprReads(e, uses)
	}
	if sp.j != nil {
		exprReads(sp.j.ProbeFilter, uses)
		for _, k := range sp.j.ProbeKeys {
			exprReads(k, uses)
		}
	}
}

// filterSide returns the input (0 left, 1 right) a condition e over the
// joined layout (lw: the left input's width) may be evaluated on alone, -1
// when none: it reads both inputs or none, reads CURRENT_WATERMARK, or is
// not deterministic.
func filterSide(e *Expr, lw int) int {
	if !Deterministic(e) || plan.ReadsWatermark(e) {
		return -1
	}
	return exprSide(e, lw)
}

// shiftCols returns a copy of e whose columns are off less (a condition over
// the joined layout made one over its right input's); e itself when off is 0.
func shiftCols(e *Expr, off int) *Expr {
	if off == 0 || e == nil {
		return e
	}
	c := *e
	if c.Op == plan.OpCol {
		c.Col -= off
	}
	if len(e.Args) > 0 {
		c.Args = make([]*Expr, len(e.Args))
		for i, a := range e.Args {
			c.Args[i] = shiftCols(a, off)
		}
	}
	return &c
}
