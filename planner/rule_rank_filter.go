package planner

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

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
// written, selecting every column and the rank (a first-row deduplication
// only when the query reads it, Planner.rankReads: WHERE rn = 1 AND p > 0
// then filters the deduplicated rows, as Flink's Calc over its
// Deduplicate, not the rows before it); its kinds pass through the
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
	p.markRank(&topn, sel, rest, rn) // (without the rank when sel reads none: a deduplication keeping the first row gives none)
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

// rankReadAt returns where the query of sel over a Top-N, with the
// conditions rest in its WHERE, reads the rank rn, nil when it does not: a
// * in its select list, or the first reference to rn (by any qualifier) in
// its select list, rest, its FROM's ON conditions, GROUP BY, HAVING, ORDER
// BY or an aggregate's FILTER.
func rankReadAt(sel *parser.Select, rest []ast.ExprNode, rn ast.CIStr) ast.Node {
	q := sel.Query
	var c colCollector
	for _, f := range q.Fields.Fields {
		if f.WildCard != nil && f.WildCard.Table.L == "" {
			return f
		}
		if f.Expr != nil {
			f.Expr.Accept(&c)
		}
	}
	for _, f := range q.Fields.Fields {
		if f.WildCard != nil {
			return f // (t.*: maybe the Top-N's)
		}
	}
	for _, r := range rest {
		r.Accept(&c)
	}
	for _, n := range []ast.Node{q.From, q.GroupBy, q.Having, q.OrderBy} {
		if n != nil && !reflect.ValueOf(n).IsNil() {
			n.Accept(&c)
		}
	}
	for _, f := range sel.Filters {
		f.Expr.Accept(&c)
	}
	for _, col := range c.cols {
		if col.Name.Name.L == rn.L {
			return col
		}
	}
	return nil
}

// markRank records, for the Top-N query top that the planner wrote for
// the query sel over it (topNThenFilter, topNInFrom), where sel reads its
// rank (Planner.rankReads): a first-row deduplication's * then gives the
// rank only when sel reads it, and an error about the rank points there.
func (p *Planner) markRank(top, sel *parser.Select, rest []ast.ExprNode, rn ast.CIStr) {
	if p.rankReads == nil {
		p.rankReads = map[*parser.Select]ast.Node{}
	}
	p.rankReads[top] = rankReadAt(sel, rest, rn)
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

// boundTopN is a relation a FROM entry reads instead of the one it names
// (Planner.boundTopNs, topNInFrom): rel, planned as kind and name (what
// the entry named: "subquery", or "WITH" and the definition's name).
type boundTopN struct {
	rel        *parser.Relation
	kind, name string
}

// rankLeaf is a FROM entry of topNInFrom that reads a ranked subquery or
// WITH definition: its name node, the name the query qualifies its columns
// by (lower case, as written in qualCase), its rank column's name, the
// relation, and whether an outer join pads its rows (nullable): pads are
// the outer joins above it that pad its side (its side of each: 0 left, 1
// right), semi whether it is the filtering side of a SEMI or ANTI join,
// whose rows the output does not hold.
type rankLeaf struct {
	tn         *ast.TableName
	qual       string
	qualCase   string
	rn         ast.CIStr
	rel        *parser.Relation
	kind, name string
	nullable   bool
	pads       []joinSide
	semi       bool
	bound      []ast.ExprNode // the WHERE conjuncts on its rank alone
}

// topNInFrom plans a ranked subquery or WITH definition (SELECT …,
// ROW_NUMBER() OVER (PARTITION BY … ORDER BY …) AS rn FROM …) read by a
// join, or a WITH name read alone, whose rank the outer query's WHERE
// bounds (FROM (SELECT …) t JOIN u ON … WHERE t.rn <= 2): as SQL has
// WHERE filter the FROM's rows, the Top-N of the bound's rows is the same
// as the relation with the bound inside it (SELECT * FROM (SELECT …) t
// WHERE t.rn <= 2), which Flink's rank rule also finds through the join
// (SPEC 2.6, 2.9). The WHERE conjuncts that read only the entry's rank
// become that relation's (Planner.boundTopNs: the entry reads it; its
// other conditions, a rank range's start included, filter the Top-N's
// rows there, topNThenFilter), the others stay the outer query's. An
// entry an outer join pads (the right side of a LEFT JOIN, either side of
// a FULL one) is bound so when the conjunct rejects NULL ranks
// (rejectsNulls): it drops every padded row, so the joins that pad the
// entry are planned as the ones that do not (simplifyOuterJoins, Flink's
// outer-join simplification) and the entry is bound as an INNER join's
// is. Otherwise it is not bound: a padded row's rank is NULL, and the WHERE
// may drop it, which a bound inside would not; that is a planning error at
// the conjunct that says what to write (an INNER JOIN gives those rows). A subquery read alone is
// rankSubquery's. It returns sel as it is when nothing is bound.
func (p *Planner) topNInFrom(sel *parser.Select) (*parser.Select, error) {
	q := sel.Query
	if q == nil || q.Where == nil || q.From == nil || q.From.TableRefs == nil {
		return sel, nil
	}
	var leaves []*rankLeaf
	p.rankLeaves(sel, q.From.TableRefs, nil, false, &leaves)
	if len(leaves) == 0 {
		return sel, nil
	}
	if q.From.TableRefs.Right == nil && parser.IsPlaceholder(leaves[0].tn.Name.O) {
		return sel, nil // (a subquery read alone: rankSubquery's)
	}
	ranks := map[string]int{} // how many entries have a rank of that name
	for _, l := range leaves {
		ranks[l.rn.L]++
	}
	var rest []ast.ExprNode
	bound := false
	rejects := map[joinSide][]string{} // (each side's rejecting conjuncts, as written: EXPLAIN shows them)
	for _, c := range conjuncts(q.Where, nil) {
		var cc colCollector
		c.Accept(&cc)
		var on *rankLeaf
		for i, col := range cc.cols {
			var l *rankLeaf
			for _, x := range leaves {
				if col.Name.Name.L == x.rn.L && (col.Name.Table.L == x.qual || col.Name.Table.L == "" && ranks[x.rn.L] == 1) {
					l = x
				}
			}
			if l == nil || i > 0 && l != on {
				on = nil
				break
			}
			on = l
		}
		if on == nil {
			rest = append(rest, c)
			continue
		}
		if on.nullable && !on.semi && rejectsNulls(c, func(*ast.ColumnNameExpr) maybe { return mayN }) {
			// Flink's outer-join simplification: this condition drops
			// every row the outer joins above the entry pad on its side
			for _, js := range on.pads {
				rejects[js] = append(rejects[js], "WHERE "+exprText(c, sel.Casts))
			}
			continue
		}
		if x, ok := unparen(c).(*ast.IsNullExpr); ok && x.Not && !on.nullable {
			continue // (rn IS NOT NULL: a rank never is, so it holds for every row; the padded ones it rejected made the join INNER)
		}
		if on.nullable {
			return nil, parser.Errorf(sel.Locate(c), "this WHERE condition bounds the rank %s of %s, whose rows an outer join pads (a padded row's rank is NULL, and a NULL rank may pass this condition, so it neither bounds the Top-N nor drops the padded rows): write an INNER JOIN for the same rows, or bound the rank inside: (SELECT * FROM (…) WHERE %s <= N) AS %s", on.rn.O, on.qualCase, on.rn.O, on.qualCase)
		}
		on.bound = append(on.bound, c)
		bound = true
	}
	if len(rejects) > 0 {
		// the outer joins that pad those entries become the joins that
		// do not (LEFT or RIGHT: INNER; FULL: the other side's outer
		// join), and the entries are bound as an INNER join's are
		return p.topNInFrom(simplifyOuterJoins(sel, rejects))
	}
	if !bound {
		return sel, nil
	}
	for _, l := range leaves {
		if len(l.bound) == 0 {
			continue
		}
		// the relation: SELECT * FROM <the ranked one> AS <qualifier> WHERE <its bound>
		ph := l.tn.Name.O
		if !parser.IsPlaceholder(ph) {
			ph = "$with-" + l.name
		}
		inner := *sel
		iq := *q
		iq.Fields = &ast.FieldList{Fields: []*ast.SelectField{{WildCard: &ast.WildCardField{}}}}
		iq.From = &ast.TableRefsClause{TableRefs: &ast.Join{Left: &ast.TableSource{Source: &ast.TableName{Name: ast.NewCIStr(ph)}, AsName: ast.NewCIStr(l.qualCase)}}}
		iq.Where = andOf(l.bound)
		iq.GroupBy, iq.Having, iq.OrderBy, iq.Limit, iq.WindowSpecs, iq.Distinct = nil, nil, nil, nil, nil, false
		inner.Query = &iq
		inner.Side, inner.Stream, inner.Insert, inner.InsertColumns, inner.InsertColumnPos = "", "", "", nil, nil
		inner.Window, inner.Unnest, inner.Files, inner.FilePos = nil, nil, nil, nil
		inner.Late, inner.LatePos, inner.Late2, inner.Late2Pos = "", 0, "", 0
		inner.Derived = map[string]*parser.Relation{ph: l.rel}
		inner.With, inner.Joins, inner.AsOf, inner.Filters = nil, nil, nil, nil
		if p.boundTopNs == nil {
			p.boundTopNs = map[*ast.TableName]boundTopN{}
		}
		p.markRank(&inner, sel, rest, l.rn)
		p.boundTopNs[l.tn] = boundTopN{rel: &parser.Relation{Selects: []*parser.Select{&inner}, Range: l.rel.Range}, kind: l.kind, name: l.name}
	}
	out, oq := *sel, *q
	oq.Where = andOf(rest)
	out.Query = &oq
	return &out, nil
}

// andOf is the AND of conds in order, nil for none.
func andOf(conds []ast.ExprNode) ast.ExprNode {
	var w ast.ExprNode
	for _, c := range conds {
		if w == nil {
			w = c
			continue
		}
		w = &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: w, R: c}
	}
	return w
}

// rankLeaves appends to out the entries of FROM tree n (of sel) that read a
// ranked subquery of sel or a WITH definition in scope (rankedRelation);
// nullable: an outer join above pads n's rows.
func (p *Planner) rankLeaves(sel *parser.Select, n ast.ResultSetNode, pads []joinSide, semiSide bool, out *[]*rankLeaf) {
	switch x := n.(type) {
	case *ast.Join:
		if x.Right == nil {
			p.rankLeaves(sel, x.Left, pads, semiSide, out)
			return
		}
		k := sel.Joins[x]
		full, semi := k == parser.FullJoin, k == parser.SemiJoin || k == parser.AntiJoin
		left, right := pads, pads
		if full || x.Tp == ast.RightJoin {
			left = append(slices.Clip(pads), joinSide{x, 0})
		}
		if full || x.Tp == ast.LeftJoin {
			right = append(slices.Clip(pads), joinSide{x, 1})
		}
		p.rankLeaves(sel, x.Left, left, semiSide, out)
		p.rankLeaves(sel, x.Right, right, semiSide || semi, out)
	case *ast.TableSource:
		tn, ok := x.Source.(*ast.TableName)
		if !ok || tn.Schema.O != "" {
			return
		}
		l := p.rankedRelation(sel, tn)
		if l == nil {
			return
		}
		l.qualCase = tn.Name.O
		if x.AsName.O != "" {
			l.qualCase = x.AsName.O
		}
		l.qual, l.nullable, l.pads, l.semi = strings.ToLower(l.qualCase), len(pads) > 0 || semiSide, pads, semiSide
		*out = append(*out, l)
	}
}

// rankedRelation returns the FROM entry tn of sel when it names a subquery
// of sel or a WITH definition in scope (sel's own, then the enclosing
// queries') of one SELECT whose select list names a ranking function's
// result (… ROW_NUMBER() OVER (…) AS rn), nil otherwise.
func (p *Planner) rankedRelation(sel *parser.Select, tn *ast.TableName) *rankLeaf {
	name := tn.Name.O
	var l *rankLeaf
	switch rel, cte := p.scopeRelation(sel, name); {
	case rel != nil && cte == nil:
		l = &rankLeaf{tn: tn, rel: rel, kind: "subquery", name: "subquery"}
	case rel != nil:
		l = &rankLeaf{tn: tn, rel: rel, kind: "WITH", name: cte.Name}
	}
	if l == nil && !parser.IsPlaceholder(name) && p.Cat != nil {
		if v := p.Cat.LookupView(name); v != nil {
			if rv, ok := v.Query.(*viewQuery); ok { // (a view read where its rank is bounded: its query planned here)
				l = &rankLeaf{tn: tn, rel: rv.rel, kind: "view", name: v.Name}
				p.readView(rv, rv.rel)
			}
		}
	}
	if l == nil {
		return nil
	}
	rn, ok := rankColumn(l.rel)
	if !ok {
		return nil
	}
	l.rn = rn
	return l
}

// joinSide is one side (0 left, 1 right) of join j of a FROM tree.
type joinSide struct {
	j    *ast.Join
	side int
}

// clauses writes the conditions why ("WHERE x", "ON y", each as written)
// as EXPLAIN names them: those of one clause after it, joined by AND, the
// clauses in order ("WHERE a AND b, ON c").
func clauses(why []string) string {
	var b strings.Builder
	clause := ""
	for _, w := range why {
		kw, cond, _ := strings.Cut(w, " ")
		switch {
		case kw == clause:
			b.WriteString(" AND ")
		case clause != "":
			b.WriteString(", ")
			fallthrough
		default:
			b.WriteString(kw + " ")
		}
		clause = kw
		b.WriteString(cond)
	}
	return b.String()
}

// simplifyOuterJoins returns sel with the join sides in rejects (each
// side's conditions, "WHERE x" or "ON y") no longer padded (Flink's outer-join simplification, SPEC 2.7 with 2.9: a WHERE
// that rejects NULLs of a padded side keeps no padded row of it): a LEFT
// JOIN whose right side is rejected, or a RIGHT JOIN whose left side is,
// becomes an INNER JOIN; a FULL JOIN becomes a LEFT JOIN when its left
// side is rejected (only its right side is padded still), a RIGHT JOIN
// when its right side is, an INNER JOIN when both are. The
// joins it changes are copies (sel's own tree is the script's, planned
// again by later statements); Locate finds a copy at its original's place.
// Each copy's Select.Simplified says what it was and which conjuncts of
// rejects (each side's, as written) made it what it is, for EXPLAIN:
// "LEFT -> INNER (WHERE t.rn <= 10 rejects NULL rows)".
func simplifyOuterJoins(sel *parser.Select, rejects map[joinSide][]string) *parser.Select {
	orig := map[ast.Node]ast.Node{}
	joins := maps.Clone(sel.Joins)
	simplified := maps.Clone(sel.Simplified)
	if simplified == nil {
		simplified = map[*ast.Join]string{}
	}
	var walk func(n ast.ResultSetNode) ast.ResultSetNode
	walk = func(n ast.ResultSetNode) ast.ResultSetNode {
		x, ok := n.(*ast.Join)
		if !ok || x.Right == nil {
			if ok {
				if l := walk(x.Left); l != x.Left {
					c := *x
					c.Left = l
					orig[&c] = x
					return &c
				}
			}
			return n
		}
		l, r := walk(x.Left), walk(x.Right)
		full := sel.Joins[x] == parser.FullJoin
		padL := full || x.Tp == ast.RightJoin
		padR := full || x.Tp == ast.LeftJoin
		padL = padL && rejects[joinSide{x, 0}] == nil
		padR = padR && rejects[joinSide{x, 1}] == nil
		if l == x.Left && r == x.Right && padL == (full || x.Tp == ast.RightJoin) && padR == (full || x.Tp == ast.LeftJoin) {
			return n
		}
		c := *x
		c.Left, c.Right = l, r
		orig[&c] = x
		if full || x.Tp == ast.LeftJoin || x.Tp == ast.RightJoin {
			delete(joins, x)
			was, now := "RIGHT", ""
			if full {
				was = "FULL"
			} else if x.Tp == ast.LeftJoin {
				was = "LEFT"
			}
			switch {
			case padL && padR:
				joins[&c] = parser.FullJoin
			case padL:
				c.Tp, now = ast.RightJoin, "RIGHT"
			case padR:
				c.Tp, now = ast.LeftJoin, "LEFT"
			default:
				c.Tp, now = ast.CrossJoin, "INNER"
			}
			why := slices.Clone(rejects[joinSide{x, 0}])
			for _, w := range rejects[joinSide{x, 1}] {
				if !slices.Contains(why, w) { // (a conjunct that rejects both sides, named once)
					why = append(why, w)
				}
			}
			if now != "" && now != was && len(why) > 0 {
				simplified[&c] = fmt.Sprintf("%s -> %s (%s rejects NULL rows)", was, now, clauses(why))
			}
		} else if k, ok := joins[x]; ok {
			delete(joins, x)
			joins[&c] = k
		}
		if w, ok := simplified[x]; ok && simplified[&c] == "" {
			simplified[&c] = w // (a join simplified by an earlier pass, copied again)
		}
		return &c
	}
	q := *sel.Query
	from := *q.From
	from.TableRefs = walk(q.From.TableRefs).(*ast.Join)
	q.From = &from
	out := *sel
	out.Query = &q
	out.Joins = joins
	out.Simplified = simplified
	locate := sel.Locate
	out.Locate = func(n ast.Node) int {
		if o, ok := orig[n]; ok {
			n = o
		}
		return locate(n)
	}
	return &out
}
