package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// ruleProjection compiles the select list into the branch's output columns
// (SPEC 2: `*`, `s.*`, expressions and aliases with AS; a NULL literal is a
// VARCHAR). An unaliased column keeps its declared name, another expression is
// named by its text. s.* of a join's build side is refused (SPEC 2.2).
func ruleProjection(sp *selectPlan) error {
	if sp.agg != nil {
		return nil // planned by ruleAggregate (SPEC 2.4)
	}
	sc, b, st, name := sp.sc, sp.b, sp.st, sp.name
	var last ast.Node
	for _, f := range sp.q.Fields.Fields {
		for len(sp.fieldOf) < len(b.Columns) {
			sp.fieldOf = append(sp.fieldOf, last)
		}
		last = f
		if f.WildCard != nil && sp.both != nil {
			if err := sp.joinWildcard(f); err != nil {
				return err
			}
			continue
		}
		if f.WildCard != nil {
			tbl := f.WildCard.Table.O
			if sc.hidden != "" && strings.EqualFold(tbl, sc.hidden) {
				return parser.Errorf(sp.pos(f), "%s.* selects the join's build side: a semi or anti join outputs left rows only; write %s.* instead", catalog.QuoteName(tbl), catalog.QuoteName(name))
			}
			if tbl != "" && !strings.EqualFold(tbl, name) && !strings.EqualFold(tbl, st.Name) {
				return parser.Errorf(sp.pos(f), "unknown stream or alias '%s' in %s.*; the query reads %s; %s", tbl, tbl, relText(name, st), qualifyText(name, st, tbl, "*"))
			}
			for i, c := range st.Columns {
				idx := i
				sc.use(idx)
				b.Project = append(b.Project, &Expr{Op: plan.OpCol, Type: c.Type, Col: idx, Text: c.Name})
				b.Columns = append(b.Columns, c)
			}
			continue
		}
		e, err := sc.compile(f.Expr)
		if err != nil {
			return err
		}
		if e.Type == catalog.Unknown {
			e = coerce(e, catalog.Varchar)
			sp.markUntyped(e)
		}
		colName := f.AsName.O
		if colName == "" && sp.both != nil {
			if cn, ok := f.Expr.(*ast.ColumnNameExpr); ok {
				colName = bothOutputName(sc, cn)
			}
		}
		if colName == "" {
			if cn, ok := f.Expr.(*ast.ColumnNameExpr); ok && st.Column(cn.Name.Name.O) >= 0 {
				colName = st.Columns[st.Column(cn.Name.Name.O)].Name
			} else if ok { // a window column (SPEC 2.4): its own name
				colName = e.Text
			} else if t := strings.TrimSpace(f.Text()); t != "" {
				colName = t
			} else {
				colName = e.Text
			}
		}
		b.Project = append(b.Project, e)
		b.Columns = append(b.Columns, catalog.Column{Name: colName, Type: e.Type})
	}
	for len(sp.fieldOf) < len(b.Columns) {
		sp.fieldOf = append(sp.fieldOf, last)
	}
	return nil
}
