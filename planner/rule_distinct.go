package planner

import (
	"strconv"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/parser"
)

// distinctOverGroups rewrites SELECT DISTINCT … GROUP BY … (or with HAVING
// or an aggregate) as Flink plans it, DISTINCT over the grouped rows: SELECT
// DISTINCT * FROM (the query without DISTINCT), the grouped query a
// subquery (SPEC 2.6) whose output columns keep their names; the outer query
// keeps the statement's side, sink and place, and its ORDER BY and LIMIT
// (whose items then name the output's columns, as Flink's ORDER BY after
// DISTINCT does). ok is false (sel as it is) for any other query.
func distinctOverGroups(sel *parser.Select) (*parser.Select, bool) {
	q := sel.Query
	if q == nil || !q.Distinct || q.Fields == nil {
		return sel, false
	}
	agg := q.GroupBy != nil || q.Having != nil
	for _, f := range q.Fields.Fields {
		if f.Expr != nil && hasWindowFunc(f.Expr) {
			return sel, false
		}
		agg = agg || f.Expr != nil && hasAgg(f.Expr)
	}
	if !agg {
		return sel, false
	}
	inner, iq := *sel, *q
	iq.Distinct, iq.OrderBy, iq.Limit = false, nil, nil
	inner.Query = &iq
	inner.Side, inner.Stream, inner.Insert, inner.InsertColumns, inner.InsertColumnPos = "", "", "", nil, nil
	name := "$distinct" + strconv.Itoa(sel.Start)
	start := sel.Start
	outer := &parser.Select{Range: sel.Range, Side: sel.Side, SidePos: sel.SidePos, Stream: sel.Stream, StreamPos: sel.StreamPos,
		Insert: sel.Insert, InsertPos: sel.InsertPos, InsertColumns: sel.InsertColumns, InsertColumnPos: sel.InsertColumnPos,
		Derived: map[string]*parser.Relation{name: {Selects: []*parser.Select{&inner}, Range: sel.Range}},
		Casts:   parser.CastTypes{}, Joins: map[*ast.Join]parser.JoinKind{}, FieldText: map[*ast.SelectField]string{},
		Locate: func(ast.Node) int { return start },
		Query: &ast.SelectStmt{
			SelectStmtOpts: &ast.SelectStmtOpts{SQLCache: true},
			Kind:           ast.SelectStmtKindSelect,
			Distinct:       true,
			OrderBy:        q.OrderBy,
			Limit:          q.Limit,
			Fields:         &ast.FieldList{Fields: []*ast.SelectField{{WildCard: &ast.WildCardField{}}}},
			From:           &ast.TableRefsClause{TableRefs: &ast.Join{Left: &ast.TableSource{Source: &ast.TableName{Name: ast.NewCIStr(name)}}}},
		},
	}
	inner.Late, inner.LatePos, inner.Late2, inner.Late2Pos = sel.Late, sel.LatePos, sel.Late2, sel.Late2Pos
	return outer, true
}

// ruleDistinct plans SELECT DISTINCT as Flink does: a GROUP BY of every
// select expression with no aggregate, so it is SPEC 2.4's grouping (NULLs one
// group, text by bytes, DOUBLE as Double.equals): over a bounded input each
// distinct row once, at the end, in the order of first rows; over an
// unbounded one an updating query (SPEC 2.8) that inserts each new distinct
// row once. `*` (of a single relation) expands to its columns. DISTINCT with
// GROUP BY, HAVING or an aggregate is distinctOverGroups's.
func ruleDistinct(sp *selectPlan) error {
	q := sp.q
	if !q.Distinct {
		return nil
	}
	pos := sp.topWord("DISTINCT", "DISTINCTROW")
	agg, win := q.GroupBy != nil || q.Having != nil, false
	for _, f := range q.Fields.Fields {
		agg = agg || f.Expr != nil && hasAgg(f.Expr)
		win = win || f.Expr != nil && hasWindowFunc(f.Expr)
	}
	if agg && !win {
		// (the grouped query itself is distinctOverGroups's: an aggregate
		// here is an ORDER BY key after it)
		return parser.Errorf(pos, "ORDER BY after SELECT DISTINCT with GROUP BY orders the distinct rows: name a column of the select list (give the aggregate an alias and order by it)")
	}
	if win || sp.win != nil || sp.unnest != nil {
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
	sp.distinct = true
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
