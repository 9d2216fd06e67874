package planner

import (
	"fmt"
	"math"
	"strconv"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/test_driver"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// offsetText is the message of LIMIT with an offset (LIMIT n OFFSET m,
// LIMIT m, n), which streamql does not run: what to write instead, a Top-N's
// rank range (SPEC 2.9), which keeps the same rows of a bounded input: rn
// BETWEEN m + 1 AND m + n, with the numbers written when they are literals.
func offsetText(l *ast.Limit) string {
	from, to := "m + 1", "m + n"
	m, okm := l.Offset.(*test_driver.ValueExpr)
	n, okn := l.Count.(*test_driver.ValueExpr)
	if okm && okn {
		mi, errm := strconv.ParseInt(fmt.Sprint(m.GetValue()), 10, 64)
		ni, errn := strconv.ParseInt(fmt.Sprint(n.GetValue()), 10, 64)
		if errm == nil && errn == nil && mi >= 0 && ni >= 0 && mi < math.MaxInt64/2 && ni < math.MaxInt64/2 {
			from, to = strconv.FormatInt(mi+1, 10), strconv.FormatInt(mi+ni, 10)
		}
	}
	return "LIMIT with an offset is not supported on a stream: number the rows and keep a range of them instead, SELECT … FROM (SELECT …, ROW_NUMBER() OVER (ORDER BY …) AS rn FROM …) WHERE rn BETWEEN " + from + " AND " + to
}

// branchLimit refuses the LIMIT of a side branch's query sp (SPEC 2.1:
// LIMIT is the main query's only), also one after its ORDER BY, with an
// error at LIMIT; nil for a main query or one without LIMIT.
func branchLimit(sp *selectPlan) error {
	q, sel := sp.q, sp.sel
	switch {
	case q.Limit == nil:
		return nil
	case sel.Side != "":
		return parser.Errorf(sp.pos(q.Limit), "LIMIT is allowed on the main query only, not on side branch '%s': %s", sel.Side, asMainQuery("INTO SIDE '"+sel.Side+"'"))
	case sel.Stream != "":
		return parser.Errorf(sp.pos(q.Limit), "LIMIT is allowed on the main query only, not on the branch INTO STREAM %s: %s", sel.Stream, asMainQuery("INTO STREAM "+sel.Stream))
	}
	return nil
}

// ruleLimit compiles LIMIT n of the main query (SPEC 2: a non-negative integer
// literal, no offset; side branches have none) into Branch.Limit.
func ruleLimit(sp *selectPlan) error {
	q := sp.q
	if q.Limit == nil {
		return nil
	}
	if err := branchLimit(sp); err != nil {
		return err
	}
	what := updatingOperator(sp)
	if d := plan.DerivedOf(sp.st); what == "" && d != nil && readsOnlyChanges(sp) {
		// (an updating relation it reads: its first n changes are not its
		// first n rows; a changelog stream's own error is ruleUpdatingSource's)
		what = relationText(sp.st, d) + ", which the query reads (updating: " + updatingWhy(sp.st) + ")"
	}
	if what != "" {
		return parser.Errorf(sp.pos(q.Limit), "LIMIT on an updating result (%s, SPEC 2.8) would be a Top-N over the changes, which is not supported yet: drop the LIMIT, or aggregate per window (an append-only result)", what)
	}
	if q.Limit.Offset != nil {
		return parser.Errorf(sp.pos(q.Limit), "%s", offsetText(q.Limit))
	}
	if v, ok := q.Limit.Count.(*test_driver.ValueExpr); ok && v.Kind() == test_driver.KindUint64 {
		if u := v.GetUint64(); u > math.MaxInt64 {
			return parser.Errorf(sp.pos(q.Limit.Count), "LIMIT's count is at most 9223372036854775807")
		}
	}
	n, err := sp.sc.compile(q.Limit.Count)
	if err != nil {
		return err
	}
	if !n.Const || n.Type != catalog.BigInt {
		return parser.Errorf(sp.pos(q.Limit), "LIMIT needs a non-negative integer")
	}
	sp.b.Limit = plan.Constants().Fold(n).I
	if sp.b.Limit < 0 {
		return parser.Errorf(sp.pos(q.Limit), "LIMIT needs a non-negative integer")
	}
	return nil
}
