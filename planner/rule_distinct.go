package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/parser"
)

// ruleDistinct plans SELECT DISTINCT as Flink does: a GROUP BY of every
// select expression with no aggregate, so it is SPEC 2.4's grouping (NULLs one
// group, text by bytes, DOUBLE as Double.equals): over a bounded input each
// distinct row once, at the end, in the order of first rows; over an
// unbounded one an updating query (SPEC 2.8) that inserts each new distinct
// row once. `*` (of a single relation) expands to its columns. DISTINCT with
// GROUP BY, HAVING or an aggregate is refused with what to write instead.
func ruleDistinct(sp *selectPlan) error {
	q := sp.q
	if !q.Distinct {
		return nil
	}
	pos := sp.topWord("DISTINCT", "DISTINCTROW")
	agg := q.GroupBy != nil || q.Having != nil
	for _, f := range q.Fields.Fields {
		if f.Expr != nil && (hasAgg(f.Expr) || hasWindowFunc(f.Expr)) {
			agg = true
		}
	}
	if agg {
		return parser.Errorf(pos, "SELECT DISTINCT with GROUP BY, HAVING or an aggregate is not supported: the groups are distinct already, or select DISTINCT from a subquery: SELECT DISTINCT … FROM (SELECT … GROUP BY …)")
	}
	if sp.win != nil || sp.unnest != nil {
		return parser.Errorf(pos, "SELECT DISTINCT over a window function or UNNEST is not supported: GROUP BY the columns instead")
	}
	var fields []*ast.SelectField
	items := []*ast.ByItem{}
	for _, f := range q.Fields.Fields {
		if f.WildCard == nil {
			fields = append(fields, f)
			items = append(items, &ast.ByItem{Expr: f.Expr})
			continue
		}
		if sp.both != nil || sp.st == nil {
			return parser.Errorf(sp.pos(f), "SELECT DISTINCT * over a join: list the columns, e.g. SELECT DISTINCT a.k, b.v")
		}
		for _, c := range sp.st.Columns {
			cn := &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: ast.NewCIStr(c.Name)}}
			if f.WildCard.Table.O != "" {
				cn.Name.Table = f.WildCard.Table
			}
			fields = append(fields, &ast.SelectField{Expr: cn})
			items = append(items, &ast.ByItem{Expr: cn})
		}
	}
	q.Fields.Fields = fields
	q.GroupBy = &ast.GroupByClause{Items: items}
	q.Distinct = false
	return nil
}

// hasWindowFunc reports whether n holds an OVER call.
func hasWindowFunc(n ast.Node) bool {
	f := &windowFuncFinder{}
	n.Accept(f)
	return f.found
}

type windowFuncFinder struct{ found bool }

func (w *windowFuncFinder) Enter(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(*ast.WindowFuncExpr); ok {
		w.found = true
		return n, true
	}
	return n, w.found
}

func (w *windowFuncFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
