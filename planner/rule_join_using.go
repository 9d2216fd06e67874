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
//   - a side may itself be a join (a JOIN b USING (k) JOIN c USING (k), as
//     Flink takes it): its columns are those of its output, as above, so the
//     outer join's l.c is the inner join's key and `*` lists k once;
//   - a SEMI or ANTI JOIN's output is the left side's rows, so its * stays
//     the left side's columns;
//   - l.c and r.c still name each side's own column (Flink's conformance
//     allows qualifying a common column), and l.* and r.* all of a side's.
//
// It returns a planning error for a USING column missing from a side or
// found twice in a side that is a join, and a NATURAL JOIN whose sides share
// no column name.
func ruleJoinUsing(sp *selectPlan) error {
	q := sp.q
	if q.From == nil || q.From.TableRefs == nil {
		return nil
	}
	cols, any, err := sp.usingColumns(q.From.TableRefs)
	if err != nil || !any {
		return err
	}
	// the joined keys an unqualified name stands for: each common column of
	// the output, once (a name the output has twice stays as written, and
	// the scope reports it as ambiguous)
	count := map[string]int{}
	for _, c := range cols {
		count[catalog.FoldName(c.name)]++
	}
	isCommon := map[string]string{}
	exprs := map[string]ast.ExprNode{}
	for _, c := range cols {
		if f := catalog.FoldName(c.name); c.merged && count[f] == 1 {
			isCommon[f], exprs[c.name] = c.name, c.expr
		}
	}
	rw := &commonRewriter{key: func(c string) ast.ExprNode { return exprs[c] }, common: isCommon}
	// a SEMI or ANTI JOIN's * is its left side's columns: as written when
	// that side is a relation
	expand := len(isCommon) > 0
	if j, ok := joinTree(q.From.TableRefs).(*ast.Join); ok {
		kind := sp.sel.Joins[j]
		expand = expand || kind != parser.SemiJoin && kind != parser.AntiJoin
	}
	var fields []*ast.SelectField
	for _, f := range q.Fields.Fields {
		switch {
		case f.WildCard != nil && f.WildCard.Table.O == "" && expand:
			for _, c := range cols {
				if c.merged {
					fields = append(fields, &ast.SelectField{Expr: c.expr, AsName: ast.NewCIStr(c.name)})
				} else {
					fields = append(fields, &ast.SelectField{Expr: c.expr})
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

// usingCol is one output column of a FROM tree as ruleJoinUsing sees it:
// its name, the expression that gives it (a side's qualified column, or a
// USING or NATURAL join's key), and whether it is such a key.
type usingCol struct {
	name   string
	expr   ast.ExprNode
	merged bool
}

// usingColumns returns the output columns of the FROM tree n in `*`'s
// order, rewriting each USING or NATURAL join in it (innermost first) into
// its ON condition, and whether there was one.
func (sp *selectPlan) usingColumns(n ast.ResultSetNode) ([]usingCol, bool, error) {
	j, ok := joinTree(n).(*ast.Join)
	if !ok {
		ls, err := sp.leaves(n)
		if err != nil || len(ls) != 1 {
			return nil, false, err
		}
		cols := make([]usingCol, len(ls[0].st.Columns))
		for k, c := range ls[0].st.Columns {
			cols[k] = usingCol{name: c.Name, expr: qualified(ls[0].name, c.Name)}
		}
		return cols, false, nil
	}
	var sides [2][]usingCol
	var any [2]bool
	for s, side := range []ast.ResultSetNode{j.Left, j.Right} {
		var err error
		if sides[s], any[s], err = sp.usingColumns(side); err != nil {
			return nil, false, err
		}
	}
	l, r := sides[0], sides[1]
	kind := sp.sel.Joins[j]
	semi := kind == parser.SemiJoin || kind == parser.AntiJoin // (* is the left side's columns)
	if !j.NaturalJoin && len(j.Using) == 0 {
		if semi {
			return l, any[0], nil
		}
		return append(l, r...), any[0] || any[1], nil
	}
	// find returns the column of side s named c, or an error when the side
	// has none or (a join) two
	find := func(s int, c string, pos int) (usingCol, error) {
		at := -1
		for k, col := range sides[s] {
			if catalog.FoldName(col.name) != catalog.FoldName(c) {
				continue
			}
			if at >= 0 {
				return usingCol{}, parser.Errorf(pos, "USING column '%s' is ambiguous: %s has two (%s and %s); join with ON, naming which", c, sp.sideName(s, j), colText(sides[s][at].expr), colText(col.expr))
			}
			at = k
		}
		if at < 0 {
			names := make([]string, len(sides[s]))
			for k, col := range sides[s] {
				names[k] = col.name
			}
			return usingCol{}, parser.Errorf(pos, "USING column '%s' is not a column of %s (its columns: %s); USING names columns both sides have, else write ON", c, sp.sideName(s, j), strings.Join(names, ", "))
		}
		return sides[s][at], nil
	}
	var common [][2]usingCol // each common column: the left side's, the right side's
	seen := map[string]bool{}
	if j.NaturalJoin {
		for _, c := range l {
			f := catalog.FoldName(c.name)
			if seen[f] {
				continue
			}
			for _, d := range r {
				if catalog.FoldName(d.name) == f {
					seen[f] = true
					lc, err := find(0, c.name, sp.pos(j.Right))
					if err != nil {
						return nil, false, err
					}
					rc, err := find(1, c.name, sp.pos(j.Right))
					if err != nil {
						return nil, false, err
					}
					common = append(common, [2]usingCol{lc, rc})
					break
				}
			}
		}
		if len(common) == 0 {
			ln, rn := sp.sideName(0, j), sp.sideName(1, j)
			from, q := [2]string{ln, rn}, [2]string{ln, rn}
			l, errL := sp.leaves(j.Left)
			r, errR := sp.leaves(j.Right)
			if errL == nil && errR == nil && len(l) == 1 && len(r) == 1 { // (a subquery without an alias given one)
				from, q = exampleRels([2]string{l[0].name, r[0].name}, [2]*catalog.Stream{l[0].st, r[0].st})
			}
			return nil, false, parser.Errorf(sp.pos(j.Right), "NATURAL JOIN joins on the columns both sides have, and %s and %s have none of the same name: write the condition with ON (%s JOIN %s ON %s.k = %s.k)", ln, rn, from[0], from[1], q[0], q[1])
		}
	} else {
		for _, u := range j.Using {
			pos := sp.usingPos(j, u.Name.O)
			lc, err := find(0, u.Name.O, pos)
			if err != nil {
				return nil, false, err
			}
			rc, err := find(1, u.Name.O, pos)
			if err != nil {
				return nil, false, err
			}
			if f := catalog.FoldName(lc.name); !seen[f] {
				seen[f] = true
				common = append(common, [2]usingCol{lc, rc})
			}
		}
	}
	var on ast.ExprNode
	for _, c := range common {
		eq := &ast.BinaryOperationExpr{Op: opcode.EQ, L: c[0].expr, R: c[1].expr}
		if on == nil {
			on = eq
		} else {
			on = &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: on, R: eq}
		}
	}
	j.On = &ast.OnCondition{Expr: on}
	j.Using, j.NaturalJoin = nil, false
	if j.Tp == 0 {
		j.Tp = ast.CrossJoin // (TiDB's NATURAL JOIN has no type: an inner join)
	}
	if semi {
		return l, true, nil
	}
	// the joined key of each common column
	var out []usingCol
	for _, c := range common {
		key := c[0].expr
		switch {
		case kind == parser.FullJoin:
			key = &ast.FuncCallExpr{FnName: ast.NewCIStr("COALESCE"), Args: []ast.ExprNode{c[0].expr, c[1].expr}}
		case j.Tp == ast.RightJoin:
			key = c[1].expr
		}
		out = append(out, usingCol{name: c[0].name, expr: key, merged: true})
	}
	for _, side := range sides {
		for _, c := range side {
			if !seen[catalog.FoldName(c.name)] {
				out = append(out, c)
			}
		}
	}
	return out, true, nil
}

// colText is a usingCol's expression as a message shows it: rel.col, or
// "a joined key".
func colText(e ast.ExprNode) string {
	if cn, ok := e.(*ast.ColumnNameExpr); ok {
		return cn.Name.Table.O + "." + cn.Name.Name.O
	}
	return "a joined key"
}

// sideName names side s of the join j in messages: its relation's name, or
// its relations' names joined.
func (sp *selectPlan) sideName(s int, j *ast.Join) string {
	ls, err := sp.leaves([]ast.ResultSetNode{j.Left, j.Right}[s])
	if err != nil {
		return "that side"
	}
	names := make([]string, len(ls))
	for k, l := range ls {
		names[k] = relText(l.name, l.st)
	}
	if len(names) == 1 {
		return names[0]
	}
	return "the join of " + strings.Join(names, ", ")
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
