package planner

import (
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/catalog/functions"
	"streamql/executor/expr"
	"streamql/planner/plan"
)

// countingEvaluator is the kernels' evaluator (executor/expr.Constants),
// counting what the planner asks of it; fold, when set, replaces Fold.
type countingEvaluator struct {
	folds, checks int
	fold          func(e *plan.Expr) plan.Value
}

func (c *countingEvaluator) Fold(e *plan.Expr) plan.Value {
	c.folds++
	if c.fold != nil {
		return c.fold(e)
	}
	return expr.Constants{}.Fold(e)
}

func (c *countingEvaluator) CheckCall(fn string, args []plan.Arg, result catalog.Type) error {
	c.checks++
	return expr.Constants{}.CheckCall(fn, args, result)
}

// TestConstantsThroughEvaluator: the planner computes every constant through
// the installed plan.Evaluator (issue 22 item 6: it imports no executor
// package): it folds constant calls with it, checks a call's constant
// arguments with it (an RE2 error is a planning error with a caret inside
// the pattern), and the values it returns are the plan's.
func TestConstantsThroughEvaluator(t *testing.T) {
	ev := &countingEvaluator{}
	defer plan.SetEvaluator(plan.SetEvaluator(ev))
	e, err := planText("UPPER(REGEXP_EXTRACT('abc', 'b'))")
	if err != nil {
		t.Fatal(err)
	}
	if e.Op != plan.OpLit || string(e.Lit.S) != "B" || ev.folds == 0 || ev.checks == 0 {
		t.Errorf("folded to %s with %d folds and %d checks", e.Tree(), ev.folds, ev.checks)
	}
	if _, err := planText("REGEXP_EXTRACT(s, 'a(?=b)')"); err == nil || !strings.Contains(err.Error(), "REGEXP_EXTRACT") {
		t.Errorf("a pattern RE2 cannot run planned: %v", err)
	}
	ev.fold = func(e *plan.Expr) plan.Value { return plan.Value{I: 41} }
	if e, err := planText("1 + 1"); err != nil || e.Op != plan.OpLit || e.Lit.I != 41 {
		t.Errorf("the evaluator's value is not the plan's: %v %v", e, err)
	}
	if f := functions.Lookup("regexp_extract"); f == nil || f.Rule {
		t.Errorf("REGEXP_EXTRACT is not a table function: %+v", f)
	}
}
