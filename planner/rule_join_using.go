package planner

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"streamql/catalog"
	"streamql/parser"
)

// ruleJoinUsing rewrites FROM l [LEFT|RIGHT|FULL] JOIN r USING (c, ...) and
// FROM l NATURAL [LEFT|RIGHT|FULL] JOIN r (Flink's, as Calcite validates them)
// into the join ON l.c = r.c AND ..., before the join is planned:
//   - USING's columns must be columns of both sides (a name written twice
//     counts once); NATURAL's are the left side's columns that the right side
//     has too (by name, case-insensitive), in the left side's order;
//   - each such column appears once in the output: `*` expands to the common
//     columns first (in USING's or the left side's order), then the left
//     side's other columns, then the right side's (Calcite's Permute), and an
//     unqualified name of a common column anywhere in the query (select list,
//     WHERE, GROUP BY, HAVING, ORDER BY) is the joined key: the left side's
//     column for INNER and LEFT, the right side's for RIGHT, and
//     COALESCE(l.c, r.c) for FULL (Calcite's COALESCE(l.c, r.c), which equals
//     these since the keys are equal wherever both sides are present);
//   - a SEMI or ANTI JOIN's output is the left side's rows, so its * stays
//     the left side's columns;
//   - l.c and r.c still name each side's own column (Flink's conformance
//     allows qualifying a common column), and l.* and r.* all of a side's.
//
// It returns a planning error for a USING column missing from a side, a
// NATURAL JOIN whose sides share no column name, and USING or NATURAL on a
// side that is itself a join (write ON there).
func ruleJoinUsing(sp *selectPlan) error {
	q := sp.q
	if q.From == nil || q.From.TableRefs == nil {
		return nil
	}
	top := q.From.TableRefs
	if err := sp.usingInside(top.Left); err != nil {
		return err
	}
	if err := sp.usingInside(top.Right); err != nil {
		return err
	}
	if !top.NaturalJoin && len(top.Using) == 0 {
		return nil
	}
	var sides [2]fromLeaf
	for s, n := range []ast.ResultSetNode{top.Left, top.Right} {
		ls, err := sp.leaves(n)
		if err != nil {
			return err
		}
		if len(ls) != 1 {
			return parser.Errorf(sp.pos(top.Right), "USING and NATURAL JOIN join two relations here; join more with ON (a JOIN b ON a.k = b.k JOIN c ON b.k = c.k)")
		}
		sides[s] = ls[0]
	}
	l, r := sides[0], sides[1]
	var common []string // each common column as the left side declares it
	if top.NaturalJoin {
		for _, c := range l.st.Columns {
			if r.st.Column(c.Name) >= 0 {
				common = append(common, c.Name)
			}
		}
		if len(common) == 0 {
			return parser.Errorf(sp.pos(top.Right), "NATURAL JOIN joins on the columns both sides have, and %s and %s have none of the same name: write the condition with ON (%s JOIN %s ON %s.k = %s.k)", l.name, r.name, l.name, r.name, l.name, r.name)
		}
	} else {
		seen := map[string]bool{}
		for _, u := range top.Using {
			for _, side := range sides {
				if side.st.Column(u.Name.O) < 0 {
					return parser.Errorf(sp.usingPos(top, u.Name.O), "USING column '%s' is not a column of %s (its columns: %s); USING names columns both sides have, else write ON", u.Name.O, side.name, strings.Join(side.st.Names(), ", "))
				}
			}
			name := l.st.Columns[l.st.Column(u.Name.O)].Name
			if !seen[catalog.FoldName(name)] {
				seen[catalog.FoldName(name)] = true
				common = append(common, name)
			}
		}
	}
	kind := sp.sel.Joins[top]
	var on ast.ExprNode
	for _, c := range common {
		eq := &ast.BinaryOperationExpr{Op: opcode.EQ, L: qualified(l.name, c), R: qualified(r.name, c)}
		if on == nil {
			on = eq
		} else {
			on = &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: on, R: eq}
		}
	}
	top.On = &ast.OnCondition{Expr: on}
	top.Using, top.NaturalJoin = nil, false
	if top.Tp == 0 {
		top.Tp = ast.CrossJoin // (TiDB's NATURAL JOIN has no type: an inner join)
	}
	// the joined key each common column stands for
	key := func(c string) ast.ExprNode {
		switch {
		case kind == parser.FullJoin:
			return &ast.FuncCallExpr{FnName: ast.NewCIStr("COALESCE"), Args: []ast.ExprNode{qualified(l.name, c), qualified(r.name, c)}}
		case top.Tp == ast.RightJoin:
			return qualified(r.name, c)
		}
		return qualified(l.name, c)
	}
	isCommon := map[string]string{}
	for _, c := range common {
		isCommon[catalog.FoldName(c)] = c
	}
	rw := &commonRewriter{key: key, common: isCommon}
	semi := kind == parser.SemiJoin || kind == parser.AntiJoin // (* is the left side's columns)
	var fields []*ast.SelectField
	for _, f := range q.Fields.Fields {
		switch {
		case f.WildCard != nil && f.WildCard.Table.O == "" && !semi:
			for _, c := range common {
				fields = append(fields, &ast.SelectField{Expr: key(c), AsName: ast.NewCIStr(c)})
			}
			for _, side := range sides {
				for _, c := range side.st.Columns {
					if _, ok := isCommon[catalog.FoldName(c.Name)]; !ok {
						fields = append(fields, &ast.SelectField{Expr: qualified(side.name, c.Name)})
					}
				}
			}
			continue
		case f.WildCard != nil:
		case f.AsName.O == "":
			if cn, ok := f.Expr.(*ast.ColumnNameExpr); ok && cn.Name.Table.O == "" {
				if c, ok := isCommon[catalog.FoldName(cn.Name.Name.O)]; ok {
					f.AsName = ast.NewCIStr(c) // (the key keeps the column's name)
				}
			}
			f.Expr = rw.rewrite(f.Expr)
		default:
			f.Expr = rw.rewrite(f.Expr)
		}
		fields = append(fields, f)
	}
	q.Fields.Fields = fields
	q.Where = rw.rewrite(q.Where)
	if q.GroupBy != nil {
		for _, it := range q.GroupBy.Items {
			it.Expr = rw.rewrite(it.Expr)
		}
	}
	if q.Having != nil {
		q.Having.Expr = rw.rewrite(q.Having.Expr)
	}
	if q.OrderBy != nil {
		for _, it := range q.OrderBy.Items {
			it.Expr = rw.rewrite(it.Expr)
		}
	}
	return nil
}

// usingInside returns an error when n, a side of the query's join, is itself a
// join with USING or NATURAL (only a join of two relations takes them).
func (sp *selectPlan) usingInside(n ast.ResultSetNode) error {
	j, ok := joinTree(n).(*ast.Join)
	if !ok || j == nil {
		return nil
	}
	if j.NaturalJoin || len(j.Using) > 0 {
		return parser.Errorf(sp.pos(j.Right), "USING and NATURAL JOIN join two relations here; join more with ON (a JOIN b ON a.k = b.k JOIN c ON b.k = c.k)")
	}
	if err := sp.usingInside(j.Left); err != nil {
		return err
	}
	return sp.usingInside(j.Right)
}

// usingPos returns the script offset of the column name of j's USING list
// (TiDB's USING names carry no position), or of j's right side when it is
// not found.
func (sp *selectPlan) usingPos(j *ast.Join, name string) int {
	start := sp.pos(j.Right)
	if start < 0 || start > len(sp.p.Source) {
		return start
	}
	using := false
	for _, t := range parser.Tokens(sp.p.Source[start:]) {
		switch {
		case t.Kind == parser.TokOp && t.Text == ";":
			return start
		case t.Kind == parser.TokIdent && strings.EqualFold(t.Text, "USING"):
			using = true
		case using && (t.Kind == parser.TokIdent || t.Kind == parser.TokQuotedIdent) && catalog.FoldName(t.Value()) == catalog.FoldName(name):
			return start + t.Offset
		}
	}
	return start
}

// qualified returns the column reference rel.col.
func qualified(rel, col string) *ast.ColumnNameExpr {
	return &ast.ColumnNameExpr{Name: &ast.ColumnName{Table: ast.NewCIStr(rel), Name: ast.NewCIStr(col)}}
}

// commonRewriter replaces each unqualified reference to a common column of a
// USING or NATURAL join (common: folded name -> declared name) by its joined
// key, outside subqueries (their names are their own scope's).
type commonRewriter struct {
	key    func(c string) ast.ExprNode
	common map[string]string
}

// rewrite returns e with its common column references replaced (nil for nil).
func (w *commonRewriter) rewrite(e ast.ExprNode) ast.ExprNode {
	if e == nil {
		return nil
	}
	n, _ := e.Accept(w)
	return n.(ast.ExprNode)
}

// Enter skips subqueries.
func (w *commonRewriter) Enter(n ast.Node) (ast.Node, bool) {
	switch n.(type) {
	case *ast.SubqueryExpr, *ast.SelectStmt:
		return n, true
	}
	return n, false
}

// Leave replaces an unqualified common column by its key.
func (w *commonRewriter) Leave(n ast.Node) (ast.Node, bool) {
	if cn, ok := n.(*ast.ColumnNameExpr); ok && cn.Name.Table.O == "" {
		if c, ok := w.common[catalog.FoldName(cn.Name.Name.O)]; ok {
			return w.key(c), true
		}
	}
	return n, true
}
