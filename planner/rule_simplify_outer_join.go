package planner

import (
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/test_driver"

	"streamql/parser"
)

// simplifyOuterJoinsByWhere is Flink's outer-join simplification (Calcite's
// FilterJoinRule and JoinPushExpressionsRule, "simplifyJoin"; SPEC 2.7 with
// 2.6): a WHERE conjunct directly over an outer join that is false or NULL
// whenever the columns of a side the join pads are NULL (rejectsNulls)
// keeps none of the rows padded on that side, so the join is planned as the
// one that does not pad it: LEFT and RIGHT become INNER, FULL becomes LEFT,
// RIGHT or INNER (simplifyOuterJoins). The rows are the same; an INNER join
// is append-only where the outer one updates (SPEC 2.8), so an append-only
// sink takes its result, and it keeps no padded rows in state. EXPLAIN's
// Join node says what the join was and which conjuncts made it what it is:
// "type: LEFT -> INNER (WHERE b.x > 0 rejects NULL rows)".
//
// An INNER join's ON condition does the same to the outer joins inside
// its inputs (a LEFT JOIN b ON … JOIN c ON c.k = b.k: c.k = b.k is not
// TRUE for a row b pads, so the INNER join drops it): "(ON c.k = b.k
// rejects NULL rows)". So does an outer join's ON to the outer joins
// inside the input it does not preserve ((a LEFT JOIN b ON …) RIGHT JOIN
// c ON c.k = b.k: a padded row of b matches no c, and a RIGHT join outputs
// only the left rows that match; onRejects).
//
// It looks at sel's own WHERE over the joins of its FROM, and pushes it
// into the FROM entries that read a subquery or WITH name of one SELECT
// that only filters and projects an outer join (no GROUP BY, HAVING,
// DISTINCT, aggregate or window function, ORDER BY or LIMIT: pushing a
// filter into such a query keeps its rows): a conjunct on such an entry's
// columns rejects the NULLs of a side of the entry's join when the
// expressions its select list computes them by are NULL for that side's
// padded rows, unless an outer join of the query pads the entry itself.
// Such an entry then reads a copy of the relation with that
// join simplified (Planner.simplerRels, derivedSource); the WHERE stays
// the outer query's. Not a view: the side branches over a view and the
// main query over it share the view's rows by first match (SPEC 2.1), so
// their readers must read the one relation CREATE VIEW planned, which a
// side branch's WHERE (a routing condition) must not change.
//
// sel and the script's AST are never changed: it returns sel itself when
// nothing simplifies, a copy otherwise (the statement's text, which the
// Flink export prints, keeps the join as written).
func (p *Planner) simplifyOuterJoinsByWhere(sel *parser.Select) *parser.Select {
	q := sel.Query
	if q == nil || q.From == nil || q.From.TableRefs == nil {
		return sel
	}
	// (sel's subqueries and WITH names are in scope of the relations it reads)
	n := len(p.scopes)
	p.scopes = append(p.scopes, relScope{derived: sel.Derived, ctes: sel.With})
	defer func() { p.scopes = p.scopes[:n] }()
	var leaves []*ojLeaf
	var sides []ojSide
	p.ojLeaves(sel, q.From.TableRefs, &leaves, &sides)
	var conds []ast.ExprNode
	if q.Where != nil {
		conds = conjuncts(q.Where, nil)
	}
	rejects := map[joinSide][]string{}
	for _, s := range sides {
		for _, c := range conds {
			if rejectsNulls(c, func(col *ast.ColumnNameExpr) maybe {
				if l := resolveOJ(leaves, col); l != nil && slices.Contains(s.leaves, l) {
					return mayN
				}
				return anyValue
			}) {
				rejects[s.js] = append(rejects[s.js], "WHERE "+exprText(c, sel.Casts))
			}
		}
		if len(s.on) > 0 {
			rejects[s.js] = append(rejects[s.js], s.on...)
		}
	}
	padded := map[*ojLeaf]bool{} // (the entries an outer join of sel pads)
	for _, s := range sides {
		for _, l := range s.leaves {
			padded[l] = true
		}
	}
	for _, l := range leaves {
		if len(conds) > 0 && !padded[l] {
			// (not in a padded entry: its row padded by sel's join has a
			// NULL where its own query computes a value, 1 AS one, so the
			// WHERE may keep the padded row the simplified one leaves)
			p.simplifyRelation(sel, l, leaves, conds)
		}
	}
	if len(rejects) == 0 {
		return sel
	}
	return simplifyOuterJoins(sel, rejects)
}

// simplifyRelation records in Planner.simplerRels a copy of the relation
// that FROM entry l of sel reads (a subquery or WITH name of one SELECT
// that only filters and projects an outer join) whose outer joins WHERE
// conjuncts conds of sel simplify (simplifyOuterJoinsByWhere); nothing when
// none does.
func (p *Planner) simplifyRelation(sel *parser.Select, l *ojLeaf, leaves []*ojLeaf, conds []ast.ExprNode) {
	if l.rel == nil || len(l.rel.Selects) != 1 || l.fields == nil {
		return
	}
	in := l.rel.Selects[0]
	rejects := map[joinSide][]string{}
	for _, s := range l.sides {
		padded := func(col *ast.ColumnNameExpr) maybe {
			if x := resolveOJ(l.leaves, col); x != nil && slices.Contains(s.leaves, x) {
				return mayN
			}
			return anyValue
		}
		for _, c := range conds {
			if rejectsNulls(c, func(col *ast.ColumnNameExpr) maybe {
				if resolveOJ(leaves, col) != l {
					return anyValue
				}
				e, ok := l.fields[col.Name.Name.L]
				if !ok || e == nil {
					return anyValue
				}
				return nullness(e, padded)
			}) {
				rejects[s.js] = append(rejects[s.js], "WHERE "+exprText(c, sel.Casts))
			}
		}
	}
	if len(rejects) == 0 {
		return
	}
	if p.simplerRels == nil {
		p.simplerRels = map[*ast.TableName]*parser.Relation{}
	}
	rel := *l.rel
	rel.Selects = []*parser.Select{simplifyOuterJoins(in, rejects)}
	p.simplerRels[l.tn] = &rel
}

// ojLeaf is a FROM entry for simplifyOuterJoinsByWhere: the name the query
// qualifies its columns by (lower case), its columns' names (lower case;
// nil when unknown: a subquery's, WITH name's or table function's without
// a select list to read them from), and for a subquery or WITH name of one
// filtering and projecting SELECT over an outer join, its relation, the
// expression of each output column (nil for a column it does not know),
// and that SELECT's FROM entries and padded sides.
type ojLeaf struct {
	tn     *ast.TableName
	qual   string
	cols   map[string]bool
	rel    *parser.Relation
	fields map[string]ast.ExprNode
	leaves []*ojLeaf
	sides  []ojSide
}

// ojSide is a side of an outer join that pads it (js) and the FROM entries
// under it, whose columns are all NULL in a padded row; on are the
// conditions of the INNER joins above it in its FROM that reject those
// NULLs ("ON c.k = b.k", as written).
type ojSide struct {
	js     joinSide
	leaves []*ojLeaf
	on     []string
}

// onRejects returns the range [lo, hi) of the padded sides (ojLeaves'
// sides) that join x's ON may reject the NULL rows of: first to midSide
// are the sides of the outer joins inside x's left input, midSide to end
// those inside its right input. An INNER join drops a row of either input
// that its ON is not TRUE for; a LEFT join does so only to its right
// input's rows, a RIGHT join only to its left input's (the preserved input
// keeps every row, padded when the ON matches nothing); a FULL join
// preserves both (SQL's outer joins, SPEC 2.7).
func onRejects(x *ast.Join, full bool, first, midSide, end int) (lo, hi int) {
	switch {
	case x.On == nil || full:
		return 0, 0
	case x.Tp == ast.LeftJoin:
		return midSide, end
	case x.Tp == ast.RightJoin:
		return first, midSide
	}
	return first, end
}

// ojLeaves appends the FROM entries of tree n (of sel) to leaves, and the
// sides of its outer joins that are padded to sides, each with the entries
// under it.
func (p *Planner) ojLeaves(sel *parser.Select, n ast.ResultSetNode, leaves *[]*ojLeaf, sides *[]ojSide) {
	switch x := n.(type) {
	case *ast.Join:
		if x.Right == nil {
			p.ojLeaves(sel, x.Left, leaves, sides)
			return
		}
		k := sel.Joins[x]
		if k == parser.SemiJoin || k == parser.AntiJoin {
			p.ojLeaves(sel, x.Left, leaves, sides) // (the other side's columns are not the output's)
			return
		}
		full := k == parser.FullJoin
		start, first := len(*leaves), len(*sides)
		p.ojLeaves(sel, x.Left, leaves, sides)
		mid, midSide := len(*leaves), len(*sides)
		p.ojLeaves(sel, x.Right, leaves, sides)
		if lo, hi := onRejects(x, full, first, midSide, len(*sides)); lo < hi {
			// an INNER join's ON filters the rows of its inputs as a WHERE
			// over them would: it rejects the padded rows of the outer
			// joins inside them as that WHERE would; an outer join's ON
			// does so in the input it does not preserve (a row of it the
			// ON is not TRUE for is not output)
			sub := (*leaves)[start:]
			for i := lo; i < hi; i++ {
				s := &(*sides)[i]
				for _, c := range conjuncts(x.On.Expr, nil) {
					if rejectsNulls(c, func(col *ast.ColumnNameExpr) maybe {
						if l := resolveOJ(sub, col); l != nil && slices.Contains(s.leaves, l) {
							return mayN
						}
						return anyValue
					}) {
						s.on = append(s.on, "ON "+exprText(c, sel.Casts))
					}
				}
			}
		}
		if full || x.Tp == ast.RightJoin {
			*sides = append(*sides, ojSide{js: joinSide{x, 0}, leaves: slices.Clone((*leaves)[start:mid])})
		}
		if full || x.Tp == ast.LeftJoin {
			*sides = append(*sides, ojSide{js: joinSide{x, 1}, leaves: slices.Clone((*leaves)[mid:])})
		}
	case *ast.TableSource:
		if j, ok := x.Source.(*ast.Join); ok {
			p.ojLeaves(sel, j, leaves, sides)
			return
		}
		tn, ok := x.Source.(*ast.TableName)
		if !ok {
			*leaves = append(*leaves, &ojLeaf{qual: strings.ToLower(x.AsName.O)})
			return
		}
		l := &ojLeaf{tn: tn, qual: tn.Name.L}
		if x.AsName.O != "" {
			l.qual = x.AsName.L
		}
		if tn.Schema.O == "" {
			p.ojColumns(sel, tn, l)
		}
		*leaves = append(*leaves, l)
	}
}

// ojColumns fills in the columns of FROM entry l (name tn, of sel): a
// stream's or view's from the catalog; a subquery's or WITH name's of one
// SELECT from its select list (a * over streams expanded), with the
// relation when that SELECT only filters and projects rows (no GROUP BY,
// HAVING, DISTINCT, aggregate or window function, ORDER BY, LIMIT, window
// TVF or UNNEST) of a join.
func (p *Planner) ojColumns(sel *parser.Select, tn *ast.TableName, l *ojLeaf) {
	rel, _ := p.scopeRelation(sel, tn.Name.O)
	if rel == nil {
		st := p.Cat.Lookup(tn.Name.O)
		if v := p.Cat.LookupView(tn.Name.O); v != nil {
			st = v.Stream
		}
		if st != nil {
			l.cols = map[string]bool{}
			for _, c := range st.Columns {
				l.cols[strings.ToLower(c.Name)] = true
			}
		}
		return
	}
	if len(rel.Selects) != 1 {
		return
	}
	in := rel.Selects[0]
	iq := in.Query
	if iq == nil || iq.From == nil || iq.From.TableRefs == nil || iq.Fields == nil {
		return
	}
	var inLeaves []*ojLeaf
	var inSides []ojSide
	p.ojLeaves(in, iq.From.TableRefs, &inLeaves, &inSides)
	fields := map[string]ast.ExprNode{}
	add := func(name string, e ast.ExprNode) {
		if _, dup := fields[name]; dup {
			e = nil // (two columns of that name: the query's reference is ambiguous)
		}
		fields[name] = e
	}
	for _, f := range iq.Fields.Fields {
		switch {
		case f.WildCard != nil:
			for _, x := range inLeaves {
				if f.WildCard.Table.O != "" && f.WildCard.Table.L != x.qual {
					continue
				}
				if x.cols == nil {
					return // (a * over an entry whose columns are unknown)
				}
				for c := range x.cols {
					add(c, &ast.ColumnNameExpr{Name: &ast.ColumnName{Table: ast.NewCIStr(x.qual), Name: ast.NewCIStr(c)}})
				}
			}
		case f.AsName.O != "":
			add(f.AsName.L, f.Expr)
		default:
			if c, ok := unparen(f.Expr).(*ast.ColumnNameExpr); ok {
				add(c.Name.Name.L, f.Expr)
			} else {
				return // (a column named by its text)
			}
		}
	}
	l.cols = map[string]bool{}
	for c := range fields {
		l.cols[c] = true
	}
	if len(inSides) > 0 && onlyFilters(in) {
		l.rel, l.fields, l.leaves, l.sides = rel, fields, inLeaves, inSides
	}
}

// onlyFilters reports whether SELECT sel only filters and projects the
// rows of its FROM: no GROUP BY, HAVING, DISTINCT, aggregate or window
// function, ORDER BY, LIMIT, window TVF or UNNEST.
func onlyFilters(sel *parser.Select) bool {
	q := sel.Query
	if q == nil || q.Fields == nil || q.GroupBy != nil || q.Having != nil || q.Distinct || q.OrderBy != nil ||
		q.Limit != nil || q.WindowSpecs != nil || sel.Window != nil || sel.Unnest != nil {
		return false
	}
	for _, f := range q.Fields.Fields {
		if f.Expr != nil && (hasAgg(f.Expr) || hasWindowFunc(f.Expr)) {
			return false
		}
	}
	return true
}

// resolveOJ returns the FROM entry of leaves that column reference col
// reads: the one its qualifier names, or for an unqualified name the one
// entry whose known columns hold it; nil when none is certain (an
// unqualified name two entries hold is the query's ambiguity error).
func resolveOJ(leaves []*ojLeaf, col *ast.ColumnNameExpr) *ojLeaf {
	if col.Name.Schema.O != "" {
		return nil
	}
	if t := col.Name.Table.L; t != "" {
		for _, l := range leaves {
			if l.qual == t {
				return l
			}
		}
		return nil
	}
	var found *ojLeaf
	for _, l := range leaves {
		if l.cols[col.Name.Name.L] {
			if found != nil {
				return nil
			}
			found = l
		}
	}
	return found
}

// maybe is the set of values an expression may take in a padded row
// (nullness): mayT and mayF for a boolean's TRUE and FALSE (for any other
// type, both stand for a value that is not NULL), mayN for NULL.
type maybe uint8

const (
	mayT maybe = 1 << iota
	mayF
	mayN
	anyValue = mayT | mayF | mayN
)

// rejectsNulls reports whether WHERE conjunct c is FALSE or NULL (so WHERE
// drops the row) in every row where the columns col says are NULL are
// NULL: col gives a column reference's values there (mayN when NULL,
// anyValue when it may be anything). This is Calcite's Strong analysis
// that Flink's outer-join simplification asks: a comparison, BETWEEN, IN
// list, LIKE or arithmetic on such a column is NULL; IS NOT NULL is FALSE;
// an AND rejects when one of its terms does, an OR when each does, NOT
// when its operand is NULL or TRUE (NOT (x IS NULL)). IS NULL, IS
// [NOT] DISTINCT FROM (<=>), COALESCE, IFNULL, CASE and every function
// call but CAST and those of strictFuncs (NULL when an argument is NULL)
// may give a value for NULL, so they reject nothing.
func rejectsNulls(c ast.ExprNode, col func(*ast.ColumnNameExpr) maybe) bool {
	return nullness(c, col)&mayT == 0
}

// nullness returns the values e may take when the columns col says are
// NULL are (rejectsNulls).
func nullness(e ast.ExprNode, col func(*ast.ColumnNameExpr) maybe) maybe {
	switch x := e.(type) {
	case *ast.ParenthesesExpr:
		return nullness(x.Expr, col)
	case *ast.ColumnNameExpr:
		return col(x)
	case *test_driver.ValueExpr:
		if x.Kind() == test_driver.KindNull {
			return mayN
		}
		return anyValue &^ mayN
	case *ast.BinaryOperationExpr:
		l, r := nullness(x.L, col), nullness(x.R, col)
		switch x.Op {
		case opcode.LogicAnd, opcode.LogicOr, opcode.LogicXor:
			return logic3(x.Op, l, r)
		case opcode.NullEQ:
			return anyValue
		}
		if l == mayN || r == mayN {
			return mayN // (a comparison, arithmetic or bit operation of a NULL)
		}
		return anyValue
	case *ast.UnaryOperationExpr:
		v := nullness(x.V, col)
		if x.Op == opcode.Not || x.Op == opcode.Not2 {
			return not3(v)
		}
		if v == mayN {
			return mayN
		}
		return anyValue
	case *ast.IsNullExpr:
		return negIf(x.Not, isValue(nullness(x.Expr, col), mayN))
	case *ast.IsTruthExpr:
		want := mayF
		if x.True != 0 {
			want = mayT
		}
		return negIf(x.Not, isValue(nullness(x.Expr, col), want))
	case *ast.BetweenExpr:
		return negIf(x.Not, strict(nullness(x.Expr, col)))
	case *ast.PatternInExpr:
		if x.Sel != nil {
			return anyValue
		}
		return negIf(x.Not, strict(nullness(x.Expr, col)))
	case *ast.PatternLikeOrIlikeExpr:
		if v := nullness(x.Pattern, col); v == mayN {
			return mayN
		}
		return negIf(x.Not, strict(nullness(x.Expr, col)))
	case *ast.PatternRegexpExpr:
		if v := nullness(x.Pattern, col); v == mayN {
			return mayN
		}
		return negIf(x.Not, strict(nullness(x.Expr, col)))
	case *ast.FuncCastExpr:
		return strict(nullness(x.Expr, col))
	case *ast.FuncCallExpr:
		if !strictFuncs[x.FnName.L] {
			return anyValue
		}
		for _, a := range x.Args {
			if nullness(a, col) == mayN {
				return mayN
			}
		}
		return anyValue
	}
	return anyValue
}

// isValue is the values of "e IS want" (IS NULL, IS TRUE, IS FALSE; never
// NULL) for an e of values v.
func isValue(v, want maybe) maybe {
	var out maybe
	if v&want != 0 {
		out |= mayT
	}
	if v&^want != 0 {
		out |= mayF
	}
	return out
}

// strict is the values of an operator that is NULL when its operand is
// and may be anything otherwise, for an operand of values v.
func strict(v maybe) maybe {
	if v == mayN {
		return mayN
	}
	return anyValue
}

// negIf is NOT v when neg is set (NOT BETWEEN, NOT IN, NOT LIKE), v
// otherwise.
func negIf(neg bool, v maybe) maybe {
	if neg {
		return not3(v)
	}
	return v
}

// not3 is SQL's three-valued NOT over a set of values.
func not3(v maybe) maybe {
	out := v & mayN
	if v&mayT != 0 {
		out |= mayF
	}
	if v&mayF != 0 {
		out |= mayT
	}
	return out
}

// logic3 is SQL's three-valued AND, OR or XOR over every pair of values of
// l and r.
func logic3(op opcode.Op, l, r maybe) maybe {
	var out maybe
	for _, a := range []maybe{mayT, mayF, mayN} {
		for _, b := range []maybe{mayT, mayF, mayN} {
			if l&a == 0 || r&b == 0 {
				continue
			}
			switch {
			case op == opcode.LogicAnd && (a == mayF || b == mayF):
				out |= mayF
			case op == opcode.LogicOr && (a == mayT || b == mayT):
				out |= mayT
			case a == mayN || b == mayN:
				out |= mayN
			case op == opcode.LogicAnd:
				out |= mayT
			case op == opcode.LogicOr:
				out |= mayF
			case a == b:
				out |= mayF // (XOR)
			default:
				out |= mayT
			}
		}
	}
	return out
}
