package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// sinkColumns applies the column list of INSERT INTO st (col, ...) SELECT
// (SPEC 3, Flink's form): the query's i-th column goes to the i-th named
// column of st, and every column of st not named gets NULL, so that the
// branch's columns stand in st's order for ruleSink's check by position.
// Errors (an unknown or repeated name, a count that differs) are
// *parser.Error at the name or at INSERT INTO's stream.
func sinkColumns(sp *selectPlan, st *catalog.Stream) error {
	sel, b := sp.sel, sp.b
	names := sel.InsertColumns
	if names == nil {
		return nil
	}
	if len(b.Columns) != len(names) {
		return parser.Errorf(sel.InsertPos, "INSERT INTO %s (%s): the query gives %d column(s) %s for %d named column(s); select one value per named column, in that order",
			st.Name, strings.Join(names, ", "), len(b.Columns), plan.SchemaText(b.Columns), len(names))
	}
	from := make([]int, len(st.Columns)) // st's column -> the query's, -1: NULL
	for i := range from {
		from[i] = -1
	}
	for i, n := range names {
		k := st.Column(n)
		if k < 0 {
			return parser.Errorf(sel.InsertColumnPos[i], "INSERT INTO %s: no column '%s'; columns: %s", st.Name, n, strings.Join(st.Names(), ", "))
		}
		if from[k] >= 0 {
			return parser.Errorf(sel.InsertColumnPos[i], "INSERT INTO %s: column '%s' is named twice", st.Name, n)
		}
		from[k] = i
	}
	project := make([]*Expr, len(st.Columns))
	cols := make([]catalog.Column, len(st.Columns))
	var fieldOf []ast.Node
	if len(sp.fieldOf) > 0 {
		fieldOf = make([]ast.Node, len(st.Columns))
	}
	for k, c := range st.Columns {
		i := from[k]
		if i < 0 {
			project[k], cols[k] = nullExpr(c.Type), catalog.Column{Name: c.Name, Type: c.Type}
			continue
		}
		project[k], cols[k] = b.Project[i], b.Columns[i]
		if fieldOf != nil && i < len(sp.fieldOf) {
			fieldOf[k] = sp.fieldOf[i]
		}
	}
	b.Project, b.Columns, sp.fieldOf = project, cols, fieldOf
	return nil
}
