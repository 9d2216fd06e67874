package planner

import (
	"fmt"
	"strconv"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/test_driver"

	"streamql/parser"
)

// topNThenFilter plans a Top-N whose outer WHERE holds conditions besides
// the rank's bound (WHERE rn <= 3 AND price > 10, which Flink accepts: its
// rank rule takes the bound on the rank and leaves the other conjuncts in
// a Calc over the Rank), or whose outer select list computes an expression
// (SELECT k, n * 2 AS m: the Calc's projection; computes). The Top-N ranks every row of its subquery, and
// the other conditions filter its output: sel becomes a query over a
// derived relation (SPEC 2.6) that is the Top-N with the bound alone, as
// written, selecting every column and the rank; its kinds pass through the
// filter (SPEC 2.8: an update's old and new rows each as the condition
// says). So does a query over a Top-N that ends with ORDER BY or LIMIT
// (SPEC 2.9: they apply to the query's rows, the Top-N's result, as in
// DuckDB and Flink's batch mode, where the Sort or Limit sits over the
// Rank): over bounded input the Top-N's final table is sorted and cut at
// its end; over unbounded input ORDER BY … LIMIT is a Top-N of the Top-N's
// changes, and LIMIT alone takes its first changes. It reports false when
// the WHERE holds only conditions on the rank (rankBound checks them) or
// none, the select list only columns and there is no ORDER BY or LIMIT. The
// INSERT INTO of sel is the outer query's.
func (p *Planner) topNThenFilter(sel *parser.Select, rn ast.CIStr) (*Branch, bool, error) {
	q := sel.Query
	if q.Where == nil {
		return nil, false, nil
	}
	var bound, rest []ast.ExprNode
	for _, c := range conjuncts(q.Where, nil) {
		var cc colCollector
		c.Accept(&cc)
		onRank := false
		for _, col := range cc.cols {
			onRank = onRank || col.Name.Name.L == rn.L
		}
		if !onRank {
			rest = append(rest, c)
			continue
		}
		upper, lower := rankRange(c, rn)
		if upper != nil {
			bound = append(bound, upper)
		}
		if lower != nil {
			rest = append(rest, lower) // (a rank range: the ranks below its start filtered out after the Top-N)
		}
	}
	if len(rest) == 0 && !computes(q) && q.OrderBy == nil && q.Limit == nil || len(bound) != 1 {
		return nil, false, nil // (rankBound says what the rank's bound may be)
	}
	// the Top-N alone: SELECT * FROM (subquery) WHERE <bound> (the query
	// over it writes the sink)
	topn := *sel
	topn.Insert, topn.InsertColumns = "", nil
	tq := *q
	tq.Where = bound[0]
	tq.OrderBy, tq.Limit = nil, nil // (the query over it sorts and cuts the Top-N's rows)
	tq.Fields = &ast.FieldList{Fields: []*ast.SelectField{{WildCard: &ast.WildCardField{}}}}
	topn.Query = &tq
	// the query over it: the select list and the other conditions
	ts := q.From.TableRefs.Left.(*ast.TableSource)
	oq := *q
	oq.Where = nil
	for _, c := range rest {
		if oq.Where == nil {
			oq.Where = c
			continue
		}
		oq.Where = &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: oq.Where, R: c}
	}
	b, err := p.planOverDerived(sel, &topn, &oq, "$topn", ts.AsName)
	return b, true, err
}

// computes reports whether q's select list holds an expression, not only
// columns and * (SELECT k, n * 2 AS m over a Top-N: Flink's Calc over the
// Rank, which topNThenFilter plans as a query over the Top-N).
func computes(q *ast.SelectStmt) bool {
	for _, f := range q.Fields.Fields {
		if _, ok := f.Expr.(*ast.ColumnNameExpr); !ok && f.WildCard == nil {
			return true
		}
	}
	return false
}

// planOverDerived plans oq, a rewrite of sel's query, over inner as a
// derived relation (SPEC 2.6) that oq's FROM reads by alias: the relation
// gets a name of its own (prefix and the scope depth), and the late output
// of what inner computes is the relation's, not the outer query's.
func (p *Planner) planOverDerived(sel, inner *parser.Select, oq *ast.SelectStmt, prefix string, alias ast.CIStr) (*Branch, error) {
	name := fmt.Sprintf("%s%d", prefix, len(p.scopes))
	oq.From = &ast.TableRefsClause{TableRefs: &ast.Join{Left: &ast.TableSource{Source: &ast.TableName{Name: ast.NewCIStr(name)}, AsName: alias}}}
	over := *sel
	over.Query = oq
	over.Late, over.Late2 = "", ""
	p.scopes = append(p.scopes, relScope{derived: map[string]*parser.Relation{name: {Selects: []*parser.Select{inner}, Range: sel.Range}}})
	defer func(n int) { p.scopes = p.scopes[:n] }(len(p.scopes) - 1)
	return p.PlanSelect(&over)
}

// overThenOrder plans an OVER aggregation whose query ends with ORDER BY or
// LIMIT (SPEC 2.9: each applies to the query's rows, as in Flink, where the
// Sort or Limit sits over the OverAggregate): sel becomes SELECT * FROM the
// OVER aggregation without them, a derived relation (SPEC 2.6) named as the
// query's FROM names its input, followed by the ORDER BY and LIMIT as
// written, so they read the select list's names and the input's.
func (p *Planner) overThenOrder(sel *parser.Select) (*Branch, error) {
	q := sel.Query
	inner := *sel
	iq := *q
	iq.OrderBy, iq.Limit = nil, nil
	inner.Query = &iq
	alias := ast.NewCIStr("")
	if ts, ok := q.From.TableRefs.Left.(*ast.TableSource); ok && q.From.TableRefs.Right == nil {
		alias = ts.AsName
		if tn, ok := ts.Source.(*ast.TableName); ok && alias.L == "" {
			alias = tn.Name
		}
	}
	oq := *q
	oq.Fields = &ast.FieldList{Fields: []*ast.SelectField{{WildCard: &ast.WildCardField{}}}}
	oq.Where, oq.GroupBy, oq.Having, oq.WindowSpecs, oq.Distinct = nil, nil, nil, nil, false
	return p.planOverDerived(sel, &inner, &oq, "$over", alias)
}

// rankRange splits a condition on the rank rn into the Top-N's bound and
// the start of a rank range (Flink's rank range: WHERE rn > 1 AND rn <= 3,
// rn BETWEEN 2 AND 3, rn = 2), which filters the Top-N's output: rn >= M
// or rn > M (also written M <= rn) is a start, with no bound of its own (nil
// upper: the condition is returned as lower); rn BETWEEN M AND N is the
// bound rn <= N and, for M > 1, the start rn >= M; rn = M for M > 1 is
// both. Any other condition is returned as the bound, for rankBound to
// read.
func rankRange(c ast.ExprNode, rn ast.CIStr) (upper, lower ast.ExprNode) {
	isRank := func(n ast.ExprNode) bool {
		cn, ok := n.(*ast.ColumnNameExpr)
		return ok && cn.Name.Name.L == rn.L
	}
	above1 := func(n ast.ExprNode) bool {
		v, ok := n.(*test_driver.ValueExpr)
		if !ok {
			return false
		}
		m, err := strconv.ParseInt(fmt.Sprint(v.GetValue()), 10, 64)
		return err == nil && m > 1
	}
	switch x := c.(type) {
	case *ast.BetweenExpr:
		if x.Not || !isRank(x.Expr) {
			return c, nil
		}
		upper = &ast.BinaryOperationExpr{Op: opcode.LE, L: x.Expr, R: x.Right}
		if above1(x.Left) {
			lower = &ast.BinaryOperationExpr{Op: opcode.GE, L: x.Expr, R: x.Left}
		}
		return upper, lower
	case *ast.BinaryOperationExpr:
		op, col, lit := x.Op, x.L, x.R
		if !isRank(col) {
			op, col, lit = mirrorCmp(op), x.R, x.L
		}
		if !isRank(col) {
			return c, nil
		}
		switch {
		case op == opcode.GE || op == opcode.GT:
			return nil, c
		case op == opcode.EQ && above1(lit):
			return &ast.BinaryOperationExpr{Op: opcode.LE, L: col, R: lit}, c
		}
	}
	return c, nil
}
