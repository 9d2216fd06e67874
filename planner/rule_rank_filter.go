package planner

import (
	"fmt"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"streamql/parser"
)

// topNThenFilter plans a Top-N whose outer WHERE holds conditions besides
// the rank's bound (WHERE rn <= 3 AND price > 10, which Flink accepts: its
// rank rule takes the bound on the rank and leaves the other conjuncts in
// a Calc over the Rank). The Top-N ranks every row of its subquery, and
// the other conditions filter its output: sel becomes a query over a
// derived relation (SPEC 2.6) that is the Top-N with the bound alone, as
// written, selecting every column and the rank; its kinds pass through the
// filter (SPEC 2.8: an update's old and new rows each as the condition
// says). It reports false when the WHERE holds only conditions on the rank
// (rankBound checks them) or none.
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
		if onRank {
			bound = append(bound, c)
		} else {
			rest = append(rest, c)
		}
	}
	if len(rest) == 0 || len(bound) != 1 {
		return nil, false, nil // (rankBound says what the rank's bound may be)
	}
	// the Top-N alone: SELECT * FROM (subquery) WHERE <bound>
	topn := *sel
	tq := *q
	tq.Where = bound[0]
	tq.Fields = &ast.FieldList{Fields: []*ast.SelectField{{WildCard: &ast.WildCardField{}}}}
	topn.Query = &tq
	// the query over it: the select list and the other conditions
	ts := q.From.TableRefs.Left.(*ast.TableSource)
	oq := *q
	oq.Where = rest[0]
	for _, c := range rest[1:] {
		oq.Where = &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: oq.Where, R: c}
	}
	b, err := p.planOverDerived(sel, &topn, &oq, "$topn", ts.AsName)
	return b, true, err
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
