package planner

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/test_driver"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// ruleRank plans the shapes of SPEC 2.9 that end a main query with an
// operator of their own (plan.Rank), before the other rules:
//   - Top-N and deduplication: SELECT … FROM (SELECT …, ROW_NUMBER() OVER
//     (PARTITION BY … ORDER BY …) AS rn FROM …) [AS q] WHERE rn <= N (also
//     rn < N, rn = 1, RANK and DENSE_RANK); with window_start and
//     window_end in the PARTITION BY of a window query, a window Top-N; a
//     GROUP BY, HAVING or DISTINCT right over it is planned over the
//     bounded Top-N as a relation (groupsOverTopN, in PlanSelect), and a
//     ranking subquery or WITH name in a join's FROM (or a WITH name read
//     alone) whose rank the outer WHERE bounds is read as that Top-N
//     (topNInFrom, in PlanSelect);
//   - OVER aggregation: agg(x) OVER (PARTITION BY k ORDER BY t ROWS|RANGE
//     BETWEEN … PRECEDING AND CURRENT ROW) in the select list, or OVER w
//     with WINDOW w AS (…);
//   - ORDER BY … [LIMIT n] at the end of a query.
//
// The query under the operator is planned by the other rules as an ordinary
// query whose select list gains hidden columns (the keys the operator reads);
// the operator's output is mapped to the query's columns. It reports whether
// the select has one of these shapes.
func (p *Planner) ruleRank(sel *parser.Select) (*Branch, bool, error) {
	q := sel.Query
	if isel, sub, ok := rankSubquery(sel); ok {
		if sel.Late != "" { // (planTopN would plan the query without it: the name was dropped without a word)
			return nil, true, parser.Errorf(sel.LatePos, "LATE INTO SIDE does not name the late outputs of a Top-N, window Top-N or deduplication yet (SPEC 2.9): its late rows go to the default 'late' output, and those of a join in its subquery to late-<input>; remove the clause")
		}
		b, err := p.planTopN(sel, isel, sub)
		return b, true, err
	}
	if f := firstWindowFunc(q); f != nil {
		b, err := p.planOver(sel)
		return b, true, err
	}
	if q.OrderBy != nil {
		b, err := p.planOrderBy(sel)
		return b, true, err
	}
	return nil, false, nil
}

// rankFuncs are the ranking functions of a Top-N (SPEC 2.9).
var rankFuncs = map[string]int{"row_number": plan.RankRowNumber, "rank": plan.RankRank, "dense_rank": plan.RankDense}

// rankSubquery returns the subquery in FROM of sel's query when it selects a
// ranking function (the Top-N shape), with the parsed SELECT that holds it:
// the subquery's own (a derived relation of one SELECT, SPEC 2.6, as the
// front end parses subqueries), or sel when the subquery is inline.
func rankSubquery(sel *parser.Select) (*parser.Select, *ast.SelectStmt, bool) {
	q := sel.Query
	if q.From == nil || q.From.TableRefs == nil || q.From.TableRefs.Right != nil {
		return nil, nil, false
	}
	ts, ok := q.From.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return nil, nil, false
	}
	isel := sel
	var sub *ast.SelectStmt
	switch src := ts.Source.(type) {
	case *ast.SelectStmt:
		sub = src
	case *ast.TableName:
		rel := sel.Derived[src.Name.O]
		if rel == nil || len(rel.Selects) != 1 {
			return nil, nil, false
		}
		isel, sub = rel.Selects[0], rel.Selects[0].Query
	default:
		return nil, nil, false
	}
	for _, f := range sub.Fields.Fields {
		if w, ok := f.Expr.(*ast.WindowFuncExpr); ok {
			if _, ok := rankFuncs[strings.ToLower(w.Name)]; ok {
				return isel, sub, true
			}
		}
	}
	return nil, nil, false
}

// groupsOverTopN rewrites a GROUP BY, HAVING or DISTINCT right over a
// Top-N's subquery (SELECT aggs FROM (SELECT …, ROW_NUMBER() OVER (…) AS rn
// FROM …) WHERE rn <= N GROUP BY g HAVING h) as Flink plans it, the same
// query over the bounded Top-N as a relation (SPEC 2.6: WHERE applies before
// GROUP BY): SELECT aggs FROM (SELECT * FROM (…) WHERE rn <= N) GROUP BY g
// HAVING h. The inner query keeps the FROM and WHERE (and LATE INTO SIDE), the
// outer one everything else: its select list, GROUP BY, HAVING, DISTINCT,
// ORDER BY, LIMIT, side, sink and place. Both keep sel's positions, so every
// caret stays on the user's text. ok is false (sel as it is) for any other
// query.
func groupsOverTopN(sel *parser.Select) (*parser.Select, bool) {
	q := sel.Query
	if q == nil || q.GroupBy == nil && q.Having == nil && !q.Distinct {
		return sel, false
	}
	if _, _, ok := rankSubquery(sel); !ok {
		return sel, false
	}
	ts := q.From.TableRefs.Left.(*ast.TableSource) // (rankSubquery's shape)
	inner, iq := *sel, *q
	iq.Fields = &ast.FieldList{Fields: topNReads(sel)}
	iq.GroupBy, iq.Having, iq.OrderBy, iq.Limit, iq.WindowSpecs, iq.Distinct = nil, nil, nil, nil, nil, false
	inner.Query = &iq
	inner.Side, inner.Stream, inner.Insert, inner.InsertColumns, inner.InsertColumnPos = "", "", "", nil, nil
	name := "$topn" + strconv.Itoa(sel.Start)
	outer, oq := *sel, *q
	oq.Where = nil
	oq.From = &ast.TableRefsClause{TableRefs: &ast.Join{Left: &ast.TableSource{Source: &ast.TableName{Name: ast.NewCIStr(name)}, AsName: ts.AsName}}}
	outer.Query = &oq
	outer.Window, outer.Unnest, outer.Files, outer.FilePos = nil, nil, nil, nil // (the inner query's FROM)
	outer.Late, outer.LatePos, outer.Late2, outer.Late2Pos = "", 0, "", 0
	outer.Derived = map[string]*parser.Relation{name: {Selects: []*parser.Select{&inner}, Range: sel.Range}}
	for k, rel := range sel.Derived {
		outer.Derived[k] = rel
	}
	return &outer, true
}

// topNReads is the select list of groupsOverTopN's inner query: the
// columns of the Top-N that sel's query reads outside its WHERE, by name in
// order of first use (a deduplication keeping the first row refuses its rank
// column, so it is not passed on unless read; a name the Top-N does not give
// is the outer query's to bind or refuse), its first column when the query
// names none (COUNT(*)), the query's own * when it has one, or * when it
// reads the rank.
func topNReads(sel *parser.Select) []*ast.SelectField {
	q := sel.Query
	_, sub, _ := rankSubquery(sel)
	star := []*ast.SelectField{{WildCard: &ast.WildCardField{}}}
	for _, f := range q.Fields.Fields {
		if f.WildCard != nil {
			return []*ast.SelectField{f} // (the query's own *: a caret on it stays on it)
		}
	}
	rank, gives := "", map[string]bool{} // (the Top-N's columns)
	var first ast.CIStr                  // (its first one that is not the rank)
	for _, f := range sub.Fields.Fields {
		name := f.AsName
		switch e := f.Expr.(type) {
		case nil:
			return star // (a * of the Top-N's input)
		case *ast.WindowFuncExpr:
			if _, ok := rankFuncs[strings.ToLower(e.Name)]; ok {
				rank = f.AsName.L
				continue
			}
		case *ast.ColumnNameExpr:
			if name.L == "" {
				name = e.Name.Name
			}
		}
		if name.L != "" && !gives[name.L] {
			gives[name.L] = true
			if first.L == "" {
				first = name
			}
		}
	}
	c := &colCollector{}
	for _, f := range q.Fields.Fields {
		f.Expr.Accept(c)
	}
	if q.GroupBy != nil {
		q.GroupBy.Accept(c)
	}
	if q.Having != nil {
		q.Having.Accept(c)
	}
	if q.OrderBy != nil {
		q.OrderBy.Accept(c)
	}
	for _, f := range sel.Filters {
		f.Expr.Accept(c)
	}
	names := c.names()
	for _, n := range names {
		if n.L == rank {
			return star
		}
	}
	var fields []*ast.SelectField
	for _, n := range names {
		if gives[n.L] { // (not an alias of the query's own, or an unknown column: the query's to name)
			fields = append(fields, &ast.SelectField{Expr: &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: n}}})
		}
	}
	if len(fields) == 0 { // (COUNT(*) only: one column keeps the rows)
		if first.L == "" {
			return star
		}
		fields = append(fields, &ast.SelectField{Expr: &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: first}}})
	}
	return fields
}

// firstWindowFunc returns q's first select field holding an OVER call.
func firstWindowFunc(q *ast.SelectStmt) *ast.SelectField {
	if q.Fields == nil {
		return nil
	}
	for _, f := range q.Fields.Fields {
		if _, ok := f.Expr.(*ast.WindowFuncExpr); ok {
			return f
		}
	}
	return nil
}

// asMainQuery says what to do with a branch query (into, its INTO clause as
// written) that holds an operator only a main query may end with: run it
// as a main query of its own.
func asMainQuery(into string) string {
	return "write it without " + into + ", as a main query of its own (a job of its own, whose rows go to stdout)"
}

// inner is the query under a Rank: its plan, and the column of each hidden
// expression.
type inner struct {
	sp      *selectPlan
	b       *Branch
	visible int   // the query's own columns
	hidden  []int // per hidden expression, its column
}

// planInner plans q (a copy of sel's query, or its subquery) as a main query
// whose select list gains the hidden expressions hide (their columns come
// after the query's own), without the window function fields drop.
func (p *Planner) planInner(sel *parser.Select, q *ast.SelectStmt, hide []ast.ExprNode, drop map[*ast.SelectField]bool) (*inner, error) {
	nq := *q
	nq.OrderBy, nq.Limit, nq.WindowSpecs = nil, nil, nil
	fields := &ast.FieldList{}
	for _, f := range q.Fields.Fields {
		if !drop[f] {
			fields.Fields = append(fields.Fields, f)
		}
	}
	for k, e := range hide {
		fields.Fields = append(fields.Fields, &ast.SelectField{Expr: e, AsName: ast.NewCIStr(fmt.Sprintf("$rank%d", k))})
	}
	nq.Fields = fields
	ns := *sel
	ns.Insert, ns.InsertColumns, ns.Stream = "", nil, "" // (a Top-N's sink takes the operator's output: rankSink)
	ns.Query = &nq
	if ns.Window != nil && ns.Window.InSubquery && q != sel.Query { // (the subquery's window: here its own)
		w := *ns.Window
		w.InSubquery = false
		ns.Window = &w
	}
	defer p.enterScope(sel)() // (the subquery's own relations: a subquery or WITH in its FROM)
	sp := &selectPlan{p: p, sel: &ns, q: &nq, ticks: &ticker{ctx: p.Ctx}, route: q == sel.Query && p.selects == 1}
	sp.start, _ = sel.Span()
	for _, r := range selectRules {
		if err := r.apply(sp); err != nil {
			return nil, err
		}
	}
	b := sp.b
	in := &inner{sp: sp, b: b, visible: len(b.Columns) - len(hide)}
	for k := range hide {
		in.hidden = append(in.hidden, in.visible+k)
	}
	return in, nil
}

// stamp adds the CURRENT_WATERMARK column (SPEC 2.3) to in's projection when
// it reads its stream's rows (not an aggregate's) with event time, and
// returns its column, or -1.
func (in *inner) stamp() int {
	sp := in.sp
	if in.b.Agg != nil || sp.wm < 0 || sp.st.Watermark == nil {
		return -1
	}
	sp.sc.use(sp.wm)
	t := sp.st.Columns[sp.st.EventTime].Type
	in.b.Project = append(in.b.Project, &Expr{Op: plan.OpCol, Col: sp.wm, Type: t, Text: "CURRENT_WATERMARK(" + sp.st.Columns[sp.st.EventTime].Name + ")"})
	in.b.Columns = append(in.b.Columns, catalog.Column{Name: "$watermark", Type: t})
	return len(in.b.Project) - 1
}

// types are the types of in's projected columns (the operator's input).
func (in *inner) types() []catalog.Type {
	ts := make([]catalog.Type, len(in.b.Project))
	for i, e := range in.b.Project {
		ts[i] = e.Type
	}
	return ts
}

// eventTimeCol reports whether n names the event-time column of in's stream
// (its WATERMARK FOR column) in a query over the stream's rows.
func (in *inner) eventTimeCol(n ast.ExprNode) bool {
	st := in.sp.st
	cn, ok := n.(*ast.ColumnNameExpr)
	return ok && in.b.Agg == nil && st.Watermark != nil && strings.EqualFold(cn.Name.Name.O, st.Columns[st.EventTime].Name)
}

// procTimeCol reports whether in's projected column col is processing time
// (SPEC 2.10, Flink's proctime attribute): PROCTIME() itself, or a column of
// in's stream computed AS PROCTIME() (plan.IsProcTime: also a view's), in a
// query over the stream's own rows (no aggregate, no join, whose rows are
// not read when they are made).
func (in *inner) procTimeCol(col int) bool {
	if in.b.Agg != nil || in.sp.both != nil || col < 0 || col >= len(in.b.Project) {
		return false
	}
	e := in.b.Project[col]
	return e.Op == plan.OpFunc && strings.EqualFold(e.Fn, "PROCTIME") || e.Op == plan.OpCol && plan.IsProcTime(in.sp.st, e.Col)
}

// arrivalOrder makes r, a ROW_NUMBER or an ORDER BY whose keys include a
// processing-time column (procTimeCol), rank rows in arrival order there, as
// Flink's proctime deduplication and Top-N do (SPEC 2.9): the keys after that
// one can never decide (no two rows arrive at once), and it becomes a
// constant column, so rows equal in the keys before it tie and ties go in
// arrival order, the newer first for DESC (NewerFirst: each key's last
// rows). Rows read in one millisecond tie on PROCTIME(), and a wall clock
// set back would rank a later row first; arrival order has neither fault,
// and reads no clock per row. It reports whether r ranks by arrival only
// (the processing time is its one key); r is unchanged when no key is
// processing time.
func (in *inner) arrivalOrder(r *plan.Rank) (only, found bool) {
	for k, key := range r.Order {
		if !in.procTimeCol(key.Col) {
			continue
		}
		e := in.b.Project[key.Col]
		lit := &Expr{Op: plan.OpLit, Type: e.Type, Const: true, Col: -1, Text: e.Text + " (arrival order)"}
		if key.Col >= in.visible { // (a hidden column of the order's own)
			in.b.Project[key.Col] = lit
		} else { // (a column the query selects: ORDER BY an alias or a position)
			in.b.Project = append(in.b.Project, lit)
			in.b.Columns = append(in.b.Columns, catalog.Column{Name: fmt.Sprintf("$arrival%d", k), Type: e.Type})
			r.Order[k].Col = len(in.b.Project) - 1
		}
		r.Order = r.Order[:k+1]
		r.NewerFirst = key.Desc
		return k == 0, true
	}
	return false, false
}

// readsChanges reports whether the rows in's operator ranks are changes
// (SPEC 2.8: -U/+U/-D): its stream's or relation's (readsChanges), or its
// own query's updating GROUP BY's (ORDER BY … LIMIT over it: a Top-N that
// takes the old row of each -U back, as Flink's retracting Rank does).
func (in *inner) readsChanges() bool {
	return in.sp.st != nil && readsChanges(in.sp.st) || in.b.Agg != nil && in.b.Agg.Updating
}

// finish makes in's branch the query's: its visible columns are those output
// picks from the operator's output (names given), the operator is r.
func (in *inner) finish(r *plan.Rank, names []string, outTypes []catalog.Type) *Branch {
	b := in.b
	cols := make([]catalog.Column, len(r.Output))
	for i, o := range r.Output {
		cols[i] = catalog.Column{Name: names[i], Type: outTypes[o]}
	}
	r.Types = in.types()
	r.InColumns = b.Columns
	b.Columns = cols
	if r.Kind == plan.RankTopN && in.readsChanges() {
		r.Retract = true // (SPEC 2.8: its input's -U and -D take rows back)
		r.State = "every live row of its input (an updating input: a row taken back lets the next one in)"
	}
	b.Rank = r
	b.Limit = -1
	return b
}

// windowSpec resolves an OVER's window: its own, or a named WINDOW w AS
// (…) of q. Errors name the unknown window.
func (sp *selectPlan) windowSpec(q *ast.SelectStmt, w *ast.WindowFuncExpr) (*ast.WindowSpec, error) {
	spec := &w.Spec
	if spec.Name.O == "" && spec.Ref.O == "" {
		return spec, nil
	}
	name := spec.Name
	if spec.Ref.O != "" {
		name = spec.Ref
	}
	for i := range q.WindowSpecs {
		if q.WindowSpecs[i].Name.L == name.L {
			return &q.WindowSpecs[i], nil
		}
	}
	return nil, parser.Errorf(sp.pos(w), "unknown window '%s': define it with WINDOW %s AS (PARTITION BY … ORDER BY …) after the query's WHERE", name.O, name.O)
}

// planTopN plans the Top-N shape: sel's FROM is the subquery sub holding a
// ranking function (SPEC 2.9), sel's query selects and bounds the rank (a
// GROUP BY, HAVING or DISTINCT over it was rewritten by groupsOverTopN).
func (p *Planner) planTopN(sel, isel *parser.Select, sub *ast.SelectStmt) (*Branch, error) {
	q := sel.Query
	loc := &selectPlan{p: p, sel: sel, q: q}
	loc.start, _ = sel.Span()
	iloc := loc // (positions of the subquery's nodes)
	if isel != sel {
		iloc = &selectPlan{p: p, sel: isel, q: sub}
		iloc.start, _ = isel.Span()
	}
	var rf *ast.SelectField
	var wf *ast.WindowFuncExpr
	for _, f := range sub.Fields.Fields {
		if w, ok := f.Expr.(*ast.WindowFuncExpr); ok {
			if _, ok := rankFuncs[strings.ToLower(w.Name)]; ok && rf == nil {
				rf, wf = f, w
				continue
			}
			return nil, parser.Errorf(iloc.pos(f), "a Top-N's subquery has one ranking function (ROW_NUMBER, RANK or DENSE_RANK) and no other OVER call")
		}
	}
	if rf.AsName.O == "" {
		return nil, parser.Errorf(iloc.pos(wf), "name the rank with AS, e.g. %s() OVER (…) AS rn, and keep the rows with WHERE rn <= N", strings.ToUpper(wf.Name))
	}
	rn := rf.AsName
	// (a GROUP BY, HAVING or DISTINCT over the Top-N is groupsOverTopN's)
	if q.WindowSpecs != nil {
		return nil, parser.Errorf(loc.topWord("WINDOW"), "a WINDOW clause belongs to the subquery that uses it")
	}
	if b, ok, err := p.topNThenFilter(sel, rn); ok {
		return b, err
	}
	n, err := loc.rankBound(q.Where, rn)
	if err != nil {
		return nil, err
	}
	spec, err := iloc.windowSpec(sub, wf)
	if err != nil {
		return nil, err
	}
	if spec.OrderBy == nil || len(spec.OrderBy.Items) == 0 {
		return nil, parser.Errorf(iloc.pos(wf), "%s() OVER (…) needs an ORDER BY: it ranks the rows of each partition by it", strings.ToUpper(wf.Name))
	}
	if spec.Frame != nil {
		return nil, parser.Errorf(iloc.pos(wf), "a ranking function takes no ROWS or RANGE frame")
	}
	var hide []ast.ExprNode
	var parts []ast.ExprNode
	if spec.PartitionBy != nil {
		for _, it := range spec.PartitionBy.Items {
			parts = append(parts, it.Expr)
			hide = append(hide, it.Expr)
		}
	}
	for _, it := range spec.OrderBy.Items {
		if pe, ok := it.Expr.(*ast.PositionExpr); ok {
			return nil, parser.Errorf(iloc.pos(it.Expr), "a Top-N's ORDER BY needs a column or an expression of the input, not the position %d: name the column, e.g. ORDER BY price DESC", pe.N)
		}
		if v, ok := it.Expr.(ast.ValueExpr); ok {
			return nil, parser.Errorf(iloc.pos(it.Expr), "a Top-N's ORDER BY needs a column or an expression of the input, not the constant %v: rank by a column, e.g. ORDER BY price DESC", v.GetValue())
		}
		hide = append(hide, it.Expr)
	}
	in, err := p.planInner(isel, sub, hide, map[*ast.SelectField]bool{rf: true})
	if err != nil {
		return nil, err
	}
	r := &plan.Rank{Kind: plan.RankTopN, N: n, Func: rankFuncs[strings.ToLower(wf.Name)], Time: -1, Stamp: -1, Start: -1, End: -1, Limit: -1, LateOutput: -1}
	for k, it := range spec.OrderBy.Items {
		r.Order = append(r.Order, plan.RankKey{Col: in.hidden[len(parts)+k], Desc: it.Desc})
	}
	// the kind (SPEC 2.9)
	start, end := -1, -1
	for k, e := range parts {
		if cn, ok := e.(*ast.ColumnNameExpr); ok {
			switch cn.Name.Name.L {
			case "window_start":
				start = in.hidden[k]
				continue
			case "window_end":
				end = in.hidden[k]
				continue
			}
		}
		r.Keys = append(r.Keys, in.hidden[k])
	}
	windowed := in.sp.win != nil || in.b.Agg != nil && in.b.Agg.Window != nil
	arrival := false // (ROW_NUMBER by processing time: arrivalOrder)
	switch {
	case start >= 0 && end >= 0 && windowed:
		r.Kind, r.Start, r.End = plan.RankWindowTopN, start, end // (Stamp -1: its own watermark decides)
		if in.b.Agg != nil && !in.b.Agg.Grouped {                // a TVF's rows: a row of a fired window is late, as the stream's row
			for c, col := range in.sp.st.Columns {
				in.b.Project = append(in.b.Project, &Expr{Op: plan.OpCol, Col: c, Type: col.Type, Text: col.Name})
				in.b.Columns = append(in.b.Columns, catalog.Column{Name: "$late" + col.Name, Type: col.Type})
				r.LateCols = append(r.LateCols, len(in.b.Project)-1)
			}
			if sp := in.sp; sp.wm >= 0 { // each row's CURRENT_WATERMARK (the windowed batch keeps the source's columns)
				t := sp.st.Columns[sp.st.EventTime].Type
				in.b.Project = append(in.b.Project, &Expr{Op: plan.OpCol, Col: sp.wm, Type: t, Text: "CURRENT_WATERMARK(" + sp.st.Columns[sp.st.EventTime].Name + ")"})
				in.b.Columns = append(in.b.Columns, catalog.Column{Name: "$watermark", Type: t})
				r.Stamp = len(in.b.Project) - 1
			}
		}
	case r.Func == plan.RankRowNumber && n == 1 && len(r.Order) == 1 && in.eventTimeCol(spec.OrderBy.Items[0].Expr):
		r.Time = r.Order[0].Col
		if spec.OrderBy.Items[0].Desc {
			r.NewerFirst = true // the last row: updating
		} else {
			// (it keeps each key's first row by event time, emitted as the
			// watermark passes it, its late rows to the late output: over
			// rows not in event-time order it would call rows late and
			// leave them out, over changes count a -D as a row; Flink's
			// Deduplicate takes no update either)
			if err := refuseTimeReader(iloc.pos(wf), in.sp.st, "a deduplication keeping the first row", "deduplicate the stream it reads before the relation updates, or rank by another column (a Top-N, which takes updates)"); err != nil {
				return nil, err
			}
			r.Kind = plan.RankDedup
			r.Keys = append(r.Keys, keysOf(start, end)...)
			r.Stamp = in.stamp()
		}
	default:
		r.Keys = append(r.Keys, keysOf(start, end)...)
		if r.Func == plan.RankRowNumber {
			arrival, _ = in.arrivalOrder(r)
		}
	}
	r.Updating = r.Kind == plan.RankTopN
	r.Bounded = in.sp.st.Bounded() && !p.Streaming // (SET 'execution.runtime-mode' = 'streaming': updating over a bounded input too, as GROUP BY)
	// the outer select list: the subquery's columns and the rank
	rankCol := len(in.b.Project)
	var names []string
	var rankField ast.Node // (the field that selects the rank: the first)
	for _, f := range q.Fields.Fields {
		if f.WildCard != nil {
			for c := 0; c < in.visible; c++ {
				r.Output = append(r.Output, c)
				names = append(names, in.b.Columns[c].Name)
			}
			at, wrote := p.rankReads[sel] // (a Top-N the planner wrote for a query over it: markRank)
			if wrote && at == nil {
				// its reader reads no rank: a first-row deduplication
				// cannot give one, and a Top-N without it emits -D for the
				// row leaving the top and +I for the row entering, not
				// -U/+U per rank (Flink's outputRankNumber=false; SPEC 2.9)
				continue
			}
			r.Output = append(r.Output, rankCol)
			names = append(names, rn.O)
			r.RankNumber = true
			if rankField == nil {
				rankField = f
				if wrote {
					rankField = at
				}
			}
			continue
		}
		cn, ok := f.Expr.(*ast.ColumnNameExpr)
		if !ok {
			return nil, parser.Errorf(loc.pos(f.Expr), "the query over a Top-N's subquery selects its columns by name (compute expressions inside the subquery)")
		}
		name := f.AsName.O
		if name == "" {
			name = cn.Name.Name.O
		}
		if cn.Name.Name.L == rn.L {
			r.Output = append(r.Output, rankCol)
			names = append(names, name)
			r.RankNumber = true
			if rankField == nil {
				rankField = f.Expr
			}
			continue
		}
		c := -1
		for i := 0; i < in.visible; i++ {
			if catalog.FoldName(in.b.Columns[i].Name) == catalog.FoldName(cn.Name.Name.O) {
				c = i
			}
		}
		if c < 0 {
			var have []string
			for i := 0; i < in.visible; i++ {
				have = append(have, in.b.Columns[i].Name)
			}
			return nil, parser.Errorf(loc.pos(f.Expr), "unknown column '%s': the subquery gives %s and %s", cn.Name.Name.O, strings.Join(have, ", "), rn.O)
		}
		if f.AsName.O == "" {
			name = in.b.Columns[c].Name
		}
		r.Output = append(r.Output, c)
		names = append(names, name)
	}
	if r.Kind == plan.RankDedup && r.RankNumber {
		r.Kind, r.Updating = plan.RankTopN, true // (a rank column needs the Top-N: always 1)
		if !r.Bounded {
			return nil, parser.Errorf(loc.pos(rankField), "select the rows without %s: deduplication keeping the first row gives each key one row, whose rank is always 1", rn.O)
		}
	}
	p.pruneRankInput(in, r)
	inTypes := in.types()
	outTypes := append(append([]catalog.Type{}, inTypes...), catalog.BigInt)
	if !r.RankNumber {
		outTypes = inTypes
	}
	r.Text, r.State = rankText(r, in, spec, rn.O, wf.Name)
	b := in.finish(r, names, outTypes)
	if arrival && !r.NewerFirst && r.N == 1 && !r.RankNumber && !r.Retract {
		// each key's first row by processing time never changes: Flink's
		// proctime deduplication keeping the first row is insert-only
		r.Updating = false
	}
	if sel.Side != "" { // (a side branch: it takes its rows by the subquery's WHERE, first match, SPEC 2.1)
		b.Side, b.SidePos = sel.Side, sel.SidePos
	}
	if sel.Insert != "" || sel.Stream != "" {
		if err := p.rankSink(sel, in, b); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// rankSink binds the sink of INSERT INTO s SELECT … over a Top-N, an OVER
// aggregation or ORDER BY, or of such a side branch INTO STREAM s (SPEC
// 2.5, 2.9): the operator's output columns go to s's by
// position, each of the same type, and an updating Top-N needs a sink that
// takes changes (SPEC 2.8: upsert-kafka, or a changelog format), as
// ruleSink checks a query's. A column list after s is refused (select the
// columns in s's order). Errors are *parser.Error at s's name.
func (p *Planner) rankSink(sel *parser.Select, in *inner, b *Branch) error {
	name, pos, what := sel.Insert, sel.InsertPos, "INSERT INTO "
	if sel.Stream != "" { // (a side branch into a sink, SPEC 2.5: its rows or changes go there)
		name, pos, what = sel.Stream, sel.StreamPos, "INTO STREAM "
		b.Side, b.SidePos = sel.Stream, sel.StreamPos
	}
	st, err := p.sinkStream(name, pos)
	if err != nil {
		return err
	}
	what, op := what+st.Name, "a Top-N"
	over, sorted := b.Rank.Kind == plan.RankOver, b.Rank.Kind == plan.RankSort || b.Rank.Kind == plan.RankTimeSort
	switch {
	case over:
		op = "an OVER aggregation"
	case sorted:
		op = "ORDER BY"
	}
	if sel.InsertColumns != nil {
		return parser.Errorf(pos, "%s (%s) over %s: name no columns; select its columns in the order of %s's", what, strings.Join(sel.InsertColumns, ", "), op, st.Name)
	}
	if st == in.sp.st || in.sp.j != nil && st == in.sp.j.Build {
		return parser.Errorf(pos, "stream %s cannot be both a sink and a source of one job; write into another stream", st.Name)
	}
	st = st.Physical()
	if len(b.Columns) != len(st.Columns) {
		return parser.Errorf(pos, "%s: the query gives %d column(s) %s but %s has %d %s; select one value per column of %s, in its order",
			what, len(b.Columns), plan.SchemaText(b.Columns), st.Name, len(st.Columns), plan.SchemaText(st.Columns), st.Name)
	}
	for i, c := range st.Columns {
		if got := b.Columns[i]; got.Type != c.Type {
			hint := fmt.Sprintf("write CAST(%s AS %s) in the Top-N's subquery", got.Name, c.Type)
			switch {
			case over:
				hint = fmt.Sprintf("declare %s.%s as %s", st.Name, c.Name, got.Type)
			case sorted:
				hint = fmt.Sprintf("write CAST(%s AS %s) in the select list", got.Name, c.Type)
			}
			return parser.Errorf(pos, "%s: column %d (%s) is %s but %s.%s is %s; %s", what, i+1, got.Name, got.Type, st.Name, c.Name, c.Type, hint)
		}
	}
	if r := b.Rank; r.Updating && !r.Bounded && !st.TakesChanges() {
		return parser.Errorf(pos, "%s: the query's result is updating (the Top-N over the unbounded stream %s emits -U/+U/-D changes, SPEC 2.8), and stream %s (connector '%s', format '%s') accepts only inserts: write it to a stream with 'format'='debezium-json' or with 'connector'='upsert-kafka' and a PRIMARY KEY (...) NOT ENFORCED, or show it on stdout or in --side-dir, whose outputs carry the change in an op column",
			what, in.sp.st.Name, st.Name, st.Connector.Name, st.Shared().Format)
	}
	b.Columns = append([]catalog.Column(nil), st.Columns...)
	b.Sink, b.SinkPos = st, pos
	return nil
}

func keysOf(cols ...int) []int {
	var out []int
	for _, c := range cols {
		if c >= 0 {
			out = append(out, c)
		}
	}
	return out
}

// rankBound reads a Top-N's outer WHERE: rn <= N, rn < N, rn = 1 or rn
// BETWEEN 1 AND N (also written N >= rn, in parentheses or not), and
// returns N. (A rank range that starts above 1, rn > 1 AND rn <= 3, is
// topNThenFilter's.)
func (sp *selectPlan) rankBound(where ast.ExprNode, rn ast.CIStr) (int64, error) {
	bad := func(n ast.Node) error {
		return parser.Errorf(sp.pos(n), "a Top-N keeps the rows whose rank is at most N: write WHERE %s <= N (or %s < N, %s = 1, or a range such as %s > 1 AND %s <= N)", rn.O, rn.O, rn.O, rn.O, rn.O)
	}
	if where == nil {
		return 0, parser.Errorf(sp.start, "a Top-N needs WHERE %s <= N in the query over its subquery: without it every row is kept and every rank changes", rn.O)
	}
	for {
		p, ok := where.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		where = p.Expr
	}
	if up, lo := rankRange(where, rn); up != nil && lo == nil {
		where = up // (rn BETWEEN 1 AND N is rn <= N)
	}
	be, ok := where.(*ast.BinaryOperationExpr)
	if !ok {
		return 0, bad(where)
	}
	op := be.Op
	col, lit := be.L, be.R
	if _, ok := col.(*ast.ColumnNameExpr); !ok {
		col, lit, op = be.R, be.L, mirrorCmp(op) // N >= rn is rn <= N
	}
	cn, ok := col.(*ast.ColumnNameExpr)
	if !ok || cn.Name.Name.L != rn.L {
		return 0, bad(where)
	}
	v, ok := lit.(*test_driver.ValueExpr)
	if !ok {
		return 0, bad(lit)
	}
	n, err := strconv.ParseInt(fmt.Sprint(v.GetValue()), 10, 64)
	if err != nil {
		return 0, bad(lit)
	}
	switch op {
	case opcode.LT:
		n--
	case opcode.LE:
	case opcode.EQ:
		if n > 1 {
			return 0, parser.Errorf(sp.pos(where), "%s = %d keeps one rank other than the first: write %s <= %d for the top %d, or %s = 1", rn.O, n, rn.O, n, n, rn.O)
		}
	default:
		return 0, bad(where)
	}
	if n < 1 {
		return 0, parser.Errorf(sp.pos(lit), "the Top-N keeps no row (N is %d): N must be at least 1", n)
	}
	return n, nil
}

// mirrorCmp returns the comparison op with its operands swapped (a >= b is
// b <= a); other operators as they are.
func mirrorCmp(op opcode.Op) opcode.Op {
	switch op {
	case opcode.GE:
		return opcode.LE
	case opcode.GT:
		return opcode.LT
	case opcode.LE:
		return opcode.GE
	case opcode.LT:
		return opcode.GT
	}
	return op
}

// rankText is EXPLAIN's line and state for a Top-N's operator.
func rankText(r *plan.Rank, in *inner, spec *ast.WindowSpec, rn, fn string) (string, string) {
	var parts, ord []string
	if spec.PartitionBy != nil {
		for _, it := range spec.PartitionBy.Items {
			parts = append(parts, exprText(it.Expr, in.sp.sc.casts))
		}
	}
	for _, it := range spec.OrderBy.Items {
		s := exprText(it.Expr, in.sp.sc.casts)
		if it.Desc {
			s += " DESC"
		}
		ord = append(ord, s)
	}
	by := ""
	if len(parts) > 0 {
		by = " per " + strings.Join(parts, ", ")
	}
	switch r.Kind {
	case plan.RankDedup:
		return fmt.Sprintf("first row%s by %s (append-only: emitted as the watermark passes its time)", by, ord[0]), "the held row and the emitted keys"
	case plan.RankWindowTopN:
		return fmt.Sprintf("%s() <= %d%s order by %s, at each window's firing", strings.ToUpper(fn), r.N, by, strings.Join(ord, ", ")), "the open windows' top rows"
	}
	what := fmt.Sprintf("%s() <= %d%s order by %s", strings.ToUpper(fn), r.N, by, strings.Join(ord, ", "))
	if r.NewerFirst {
		what = fmt.Sprintf("last row%s by %s", by, ord[0])
	}
	if !r.RankNumber {
		what += ", without " + rn
	}
	if r.Bounded {
		what += " (a bounded input: the final result once, at its end)"
	}
	return what, "each partition's top rows"
}

// planOver plans a select list with OVER aggregates (SPEC 2.9).
func (p *Planner) planOver(sel *parser.Select) (*Branch, error) {
	q := sel.Query
	loc := &selectPlan{p: p, sel: sel, q: q}
	loc.start, _ = sel.Span()
	first := firstWindowFunc(q)
	fw := first.Expr.(*ast.WindowFuncExpr)
	if _, ok := rankFuncs[strings.ToLower(fw.Name)]; ok {
		return nil, parser.Errorf(loc.pos(fw), "%s() OVER (…) ranks rows for a Top-N: write SELECT … FROM (SELECT …, %s() OVER (PARTITION BY … ORDER BY …) AS rn FROM …) WHERE rn <= N (in a join, or over a WITH name or a view, the reader's WHERE may bound it: … t JOIN u ON … WHERE t.rn <= N, SELECT … FROM v WHERE rn <= N)", strings.ToUpper(fw.Name), strings.ToUpper(fw.Name))
	}
	switch {
	case q.GroupBy != nil || q.Having != nil:
		return nil, parser.Errorf(loc.pos(fw), "an OVER aggregation gives one row per input row: it does not mix with GROUP BY")
	case q.OrderBy != nil || q.Limit != nil:
		return p.overThenOrder(sel)
	}
	spec, err := loc.windowSpec(q, fw)
	if err != nil {
		return nil, err
	}
	specText := restoreText(spec)
	drop := map[*ast.SelectField]bool{}
	var calls []*ast.WindowFuncExpr
	var hide []ast.ExprNode
	for _, f := range q.Fields.Fields {
		w, ok := f.Expr.(*ast.WindowFuncExpr)
		if !ok {
			continue
		}
		s, err := loc.windowSpec(q, w)
		if err != nil {
			return nil, err
		}
		if restoreText(s) != specText {
			return nil, parser.Errorf(loc.pos(w), "the OVER aggregates of one query share one window: give them the same PARTITION BY, ORDER BY and frame (or OVER w with one WINDOW w AS (…))")
		}
		if _, ok := overFuncs[strings.ToLower(w.Name)]; !ok {
			return nil, parser.Errorf(loc.pos(w), "%s is not an aggregate that OVER computes; use one of %s", strings.ToUpper(w.Name), aggList)
		}
		if w.Distinct && !strings.EqualFold(w.Name, "count") {
			return nil, parser.Errorf(loc.pos(w), "DISTINCT is supported in COUNT(DISTINCT x) only, not in %s", strings.ToUpper(w.Name))
		}
		drop[f] = true
		calls = append(calls, w)
	}
	// the window: PARTITION BY, ORDER BY the event time, the frame
	nparts := 0
	if spec.PartitionBy != nil {
		for _, it := range spec.PartitionBy.Items {
			hide = append(hide, it.Expr)
			nparts++
		}
	}
	if spec.OrderBy == nil || len(spec.OrderBy.Items) != 1 {
		return nil, parser.Errorf(loc.pos(fw), "an OVER window is ordered by the event time, ascending: write ORDER BY <its WATERMARK FOR column>")
	}
	ob := spec.OrderBy.Items[0]
	hide = append(hide, ob.Expr)
	seps := make([]string, len(calls))
	for k, w := range calls {
		if strings.EqualFold(w.Name, "group_concat") { // (LISTAGG: parser's rewrite)
			c, sep, err := loc.overListAgg(w)
			if err != nil {
				return nil, err
			}
			calls[k], w, seps[k] = c, c, sep
		}
		if len(w.Args) > 1 {
			return nil, parser.Errorf(loc.pos(w), "%s takes one argument in an OVER aggregation", strings.ToUpper(w.Name))
		}
		if len(w.Args) == 1 && !isStar(w.Args[0]) {
			hide = append(hide, w.Args[0])
		}
	}
	in, err := p.planInner(sel, q, hide, drop)
	if err != nil {
		return nil, err
	}
	st := in.sp.st
	if err := refuseTimeReader(loc.pos(fw), st, "an OVER aggregation", "aggregate the relation it reads before it updates, or use a GROUP BY without OVER"); err != nil {
		return nil, err
	}
	arrival := false // (ORDER BY a processing-time column: Flink's proctime OVER)
	if !in.eventTimeCol(ob.Expr) {
		if in.procTimeCol(in.hidden[nparts]) {
			arrival = true
		} else if st.Watermark == nil {
			return nil, parser.Errorf(loc.pos(ob.Expr), "an OVER window is ordered by the event time, and %s has none: %s", st.Name, addWatermarkHint(st, ""))
		} else {
			et := st.Columns[st.EventTime].Name
			return nil, parser.Errorf(loc.pos(ob.Expr), "an OVER window is ordered by the event time of %s, which is %s (its WATERMARK FOR column), not %s: write ORDER BY %s", st.Name, et, restoreText(ob.Expr), et)
		}
	}
	if ob.Desc {
		return nil, parser.Errorf(loc.pos(ob.Expr), "an OVER window is ordered by its time ascending: drop DESC")
	}
	r := &plan.Rank{Kind: plan.RankOver, Time: in.hidden[nparts], Start: -1, End: -1, Limit: -1, LateOutput: -1, Preceding: math.MaxInt64, Arrival: arrival}
	r.Keys = append(r.Keys, in.hidden[:nparts]...)
	if fr := spec.Frame; fr != nil {
		if fr.Type == ast.Groups {
			return nil, parser.Errorf(loc.pos(fw), "GROUPS frames are not supported: use ROWS or RANGE")
		}
		if fr.Extent.End.Type != ast.CurrentRow {
			return nil, parser.Errorf(loc.pos(fw), "an OVER frame ends at the current row (Flink's rule): write … PRECEDING AND CURRENT ROW")
		}
		r.Range = fr.Type == ast.Ranges
		sb := fr.Extent.Start
		switch {
		case sb.Type == ast.CurrentRow:
			r.Preceding = 0
		case sb.Type != ast.Preceding:
			return nil, parser.Errorf(loc.pos(fw), "an OVER frame starts before the current row: write n PRECEDING or UNBOUNDED PRECEDING")
		case sb.UnBounded:
		case r.Range && arrival:
			r.Preceding = 0 // (refused below: a bounded RANGE over processing time)
		case r.Range:
			ms, err := loc.frameInterval(sb, st.Columns[st.EventTime].Type)
			if err != nil {
				return nil, err
			}
			r.Preceding = ms
		default:
			v, ok := sb.Expr.(*test_driver.ValueExpr)
			n, err := strconv.ParseInt(fmt.Sprint(valueOf(v, ok)), 10, 64)
			if !ok || err != nil || n < 0 {
				return nil, parser.Errorf(loc.pos(sb.Expr), "ROWS BETWEEN n PRECEDING needs a whole number n >= 0")
			}
			r.Preceding = n
		}
	} else {
		r.Range = true // (Flink's default frame: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
	}
	if arrival {
		// Flink's proctime OVER handles each row as it arrives
		// (ProcTimeRowsBoundedPrecedingFunction, ProcTimeUnboundedPrecedingFunction):
		// an unbounded frame is every row before it, RANGE or ROWS alike.
		// A bounded RANGE takes the rows of the last n of processing time,
		// with the rows of the current row's millisecond that arrive after
		// it (Flink's timer); not yet here
		if r.Range && r.Preceding != math.MaxInt64 {
			return nil, parser.Errorf(loc.pos(fw), "an OVER window ordered by the processing time %s takes a ROWS frame or an unbounded one (RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW); RANGE BETWEEN INTERVAL … PRECEDING is not supported yet over processing time: use ROWS BETWEEN n PRECEDING AND CURRENT ROW, or order it by an event time", restoreText(ob.Expr))
		}
		r.Range, r.Stamp = false, -1
	} else {
		r.Stamp = in.stamp()
	}
	types := in.types()
	outTypes := append([]catalog.Type{}, types...)
	arg := nparts + 1
	for k, w := range calls {
		c := plan.OverCall{Arg: -1}
		c.Spec.Func = overFuncs[strings.ToLower(w.Name)]
		c.Spec.Distinct, c.Spec.Sep = w.Distinct, seps[k]
		if len(w.Args) == 1 && !isStar(w.Args[0]) {
			c.Arg = in.hidden[arg]
			c.Spec.Arg = types[c.Arg]
			arg++
			if c.Spec.Func.Numeric() && c.Spec.Arg != catalog.BigInt && c.Spec.Arg != catalog.Double {
				return nil, parser.Errorf(loc.pos(w.Args[0]), "%s takes a number, and %s is %s", strings.ToUpper(w.Name), restoreText(w.Args[0]), c.Spec.Arg)
			}
		} else if c.Spec.Func == plan.AggCount {
			c.Spec.Func = plan.AggCountStar
		} else {
			return nil, parser.Errorf(loc.pos(w), "%s(*) is not an aggregate: give it a column", strings.ToUpper(w.Name))
		}
		r.Calls = append(r.Calls, c)
		outTypes = append(outTypes, c.Spec.ResultType())
	}
	// the query's columns: the select list in order, OVER calls in place
	var names []string
	vis, call := 0, 0
	for _, f := range q.Fields.Fields {
		if drop[f] {
			r.Output = append(r.Output, len(types)+call)
			name := f.AsName.O
			if name == "" {
				name = strings.TrimSpace(sel.FieldText[f])
			}
			if name == "" {
				name = restoreText(f.Expr)
			}
			names = append(names, name)
			call++
			continue
		}
		for vis < in.visible && (len(in.sp.fieldOf) <= vis || in.sp.fieldOf[vis] == f) {
			r.Output = append(r.Output, vis)
			names = append(names, in.b.Columns[vis].Name)
			vis++
		}
	}
	for vis < in.visible {
		r.Output = append(r.Output, vis)
		names = append(names, in.b.Columns[vis].Name)
		vis++
	}
	frame := "RANGE UNBOUNDED PRECEDING"
	if spec.Frame != nil {
		frame = restoreText(spec.Frame)
	}
	var parts []string
	if spec.PartitionBy != nil {
		for _, it := range spec.PartitionBy.Items {
			parts = append(parts, restoreText(it.Expr))
		}
	}
	var aggs []string
	for _, w := range calls {
		arg := "*"
		if len(w.Args) == 1 && !isStar(w.Args[0]) {
			arg = restoreText(w.Args[0])
		}
		name := strings.ToUpper(w.Name)
		if name == "GROUP_CONCAT" {
			name = "LISTAGG"
		}
		if w.Distinct {
			arg = "DISTINCT " + arg
		}
		aggs = append(aggs, fmt.Sprintf("%s(%s)", name, arg))
	}
	per := ""
	if len(parts) > 0 {
		per = " per " + strings.Join(parts, ", ")
	}
	r.Text = fmt.Sprintf("%s%s order by %s %s", strings.Join(aggs, ", "), per, restoreText(ob.Expr), frame)
	r.State = "the rows held until the watermark passes them, and each partition's rows in its frame"
	if arrival {
		r.Text += " (processing time: in arrival order)"
		r.State = "each partition's rows in its frame"
	}
	b := in.finish(r, names, outTypes)
	if sel.Insert != "" || sel.Stream != "" {
		if err := p.rankSink(sel, in, b); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// overFuncs are the aggregates an OVER computes (SPEC 2.9: those of 2.4).
var overFuncs = map[string]plan.AggFunc{
	"count": plan.AggCount, "sum": plan.AggSum, "avg": plan.AggAvg, "min": plan.AggMin, "max": plan.AggMax,
	"first_value": plan.AggFirst, "last_value": plan.AggLast, "sq_firstval": plan.AggFirst, "sq_lastval": plan.AggLast,
	"group_concat": plan.AggListAgg, // (LISTAGG … OVER, as the parser gives it)
	"var_pop":      plan.AggVarPop, "var_samp": plan.AggVarSamp, "stddev_pop": plan.AggStddevPop, "stddev_samp": plan.AggStddevSamp,
}

func valueOf(v *test_driver.ValueExpr, ok bool) any {
	if !ok {
		return nil
	}
	return v.GetValue()
}

// frameInterval reads RANGE BETWEEN INTERVAL '…' unit PRECEDING as ms.
func (sp *selectPlan) frameInterval(b ast.FrameBound, t catalog.Type) (int64, error) {
	v, ok := b.Expr.(*test_driver.ValueExpr)
	if !ok {
		return 0, parser.Errorf(sp.pos(b.Expr), "a RANGE frame is an INTERVAL: write RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW")
	}
	text := strings.TrimSpace(fmt.Sprint(v.GetValue()))
	if v.Kind() == test_driver.KindString {
		text = strings.TrimSpace(v.GetDatumString())
	}
	amount, err := strconv.ParseFloat(text, 64)
	if err != nil || amount < 0 {
		return 0, parser.Errorf(sp.pos(b.Expr), "INTERVAL amount '%s' is not a number >= 0", text)
	}
	ms := map[ast.TimeUnitType]string{ast.TimeUnitInvalid: "1", ast.TimeUnitMicrosecond: "0.001", ast.TimeUnitSecond: "1000", ast.TimeUnitMinute: "60000",
		ast.TimeUnitHour: "3600000", ast.TimeUnitDay: "86400000", ast.TimeUnitWeek: "604800000"}[b.Unit]
	if ms == "" {
		return 0, parser.Errorf(sp.pos(b.Expr), "INTERVAL unit %s is not supported; use SECOND, MINUTE, HOUR, DAY or WEEK", b.Unit)
	}
	if b.Unit == ast.TimeUnitInvalid && t == catalog.Timestamp {
		return 0, parser.Errorf(sp.pos(b.Expr), "a RANGE frame over a TIMESTAMP is an INTERVAL: write RANGE BETWEEN INTERVAL '%s' SECOND PRECEDING AND CURRENT ROW", text)
	}
	d, ok := intervalMs(text, amount, ms)
	if !ok {
		return 0, parser.Errorf(sp.pos(b.Expr), "%s", parser.IntervalOverflow("INTERVAL '"+text+"' "+b.Unit.String()))
	}
	return d, nil
}

// planOrderBy plans ORDER BY … [LIMIT n] at the end of a query (SPEC 2.9).
func (p *Planner) planOrderBy(sel *parser.Select) (*Branch, error) {
	q := sel.Query
	loc := &selectPlan{p: p, sel: sel, q: q}
	loc.start, _ = sel.Span()
	obPos := loc.pos(q.OrderBy)
	if err := branchLimit(loc); err != nil {
		return nil, err
	}
	var hide []ast.ExprNode
	items := orderItemsByAlias(q)
	// an item naming a select alias, or a position, reads that column
	alias := map[int]int{}    // item -> select list field (-1 - its index)
	position := map[int]int{} // item -> output column (from 1; resolved once * is expanded)
	for k, it := range items {
		if pe, ok := it.Expr.(*ast.PositionExpr); ok {
			position[k] = pe.N
			continue
		}
		if cn, ok := it.Expr.(*ast.ColumnNameExpr); ok && cn.Name.Table.O == "" {
			found := -1
			for i, f := range q.Fields.Fields {
				if f.AsName.L != "" && f.AsName.L == cn.Name.Name.L {
					found = i
				}
			}
			if found >= 0 {
				alias[k] = -(found + 1)
				continue
			}
		}
		if v, ok := it.Expr.(ast.ValueExpr); ok {
			return nil, parser.Errorf(loc.pos(it.Expr), "ORDER BY needs a column or an expression, not the constant %v", v.GetValue())
		}
		hide = append(hide, it.Expr)
	}
	var limit int64 = -1
	if q.Limit != nil {
		if q.Limit.Offset != nil {
			return nil, parser.Errorf(loc.pos(q.Limit), "%s", offsetText(q.Limit))
		}
		v, ok := q.Limit.Count.(*test_driver.ValueExpr)
		n, err := strconv.ParseInt(fmt.Sprint(valueOf(v, ok)), 10, 64)
		if !ok || err != nil || n < 0 {
			return nil, parser.Errorf(loc.pos(q.Limit), "LIMIT needs a non-negative integer")
		}
		limit = n
	}
	in, err := p.planInner(sel, q, hide, nil)
	if err != nil {
		return nil, err
	}
	r := &plan.Rank{Kind: plan.RankSort, Time: -1, Stamp: -1, Start: -1, End: -1, Limit: limit, LateOutput: -1, Func: plan.RankRowNumber}
	h := 0
	var ord []string
	for k, it := range items {
		col := -1
		if n, ok := position[k]; ok {
			// a position counts the output's columns, a * expanded (Flink's
			// sort by ordinal), so it also orders a UNION ALL's rows
			if n < 1 || n > in.visible {
				return nil, parser.Errorf(loc.pos(it.Expr), "ORDER BY %d: the select list has no column %d (it has %d)", n, n, in.visible)
			}
			col = n - 1
		} else if a, ok := alias[k]; ok {
			f := q.Fields.Fields[-a-1]
			for i := 0; i < in.visible; i++ {
				if in.sp.fieldOf[i] == f {
					col = i
				}
			}
		} else {
			col = in.hidden[h]
			h++
		}
		r.Order = append(r.Order, plan.RankKey{Col: col, Desc: it.Desc})
		s := exprText(it.Expr, sel.Casts)
		if it.Desc {
			s += " DESC"
		}
		ord = append(ord, s)
	}
	for i := 0; i < in.visible; i++ {
		r.Output = append(r.Output, i)
	}
	r.Bounded = in.sp.st.Bounded()
	st := in.sp.st
	if _, found := in.arrivalOrder(r); found {
		ord = ord[:len(r.Order)] // (the keys after the processing time never decide)
	}
	lim := ""
	if limit >= 0 {
		lim = fmt.Sprintf(" limit %d", limit)
	}
	changes := in.readsChanges() // (SPEC 2.8: its rows are -U/+U/-D changes, not a table's rows)
	if r.Bounded && p.Streaming && (limit >= 0 || changes) {
		r.Bounded = false // SET 'execution.runtime-mode' = 'streaming': a Top-N, updating, as over an unbounded input
	}
	switch {
	case r.Bounded && changes:
		// over a bounded changelog (a CDC file, an updating GROUP BY or
		// Top-N of one) the order is its final table's: a Top-N over the
		// whole input that takes rows back (finish: Retract) and gives its
		// result once at the end, every row without a LIMIT; a sort of the
		// changes themselves would print each change as a row (-D rows too)
		n := limit
		if n < 0 {
			n = math.MaxInt64
		}
		r.Kind, r.N, r.Limit, r.Updating = plan.RankTopN, n, -1, true
		r.Text = fmt.Sprintf("order by %s%s of the changes' final table, at the input's end (its -U and -D rows take rows back)", strings.Join(ord, ", "), lim)
		r.State = "every live row of its input"
	case r.Bounded:
		r.Text = fmt.Sprintf("order by %s%s, at the input's end", strings.Join(ord, ", "), lim)
		r.State = "the rows"
		if limit >= 0 {
			r.State = "the first rows in the order"
		}
	case !changes && len(q.OrderBy.Items) == 1 && !q.OrderBy.Items[0].Desc && len(hide) == 1 && in.eventTimeCol(q.OrderBy.Items[0].Expr):
		// (released as the watermark passes, late rows to the late output:
		// refused over rows not in event-time order, as the deduplication)
		if err := refuseTimeReader(obPos, st, "an ORDER BY on the event time over an unbounded input", "sort a bounded input, whose rows it sorts at their end"); err != nil {
			return nil, err
		}
		r.Kind, r.Time = plan.RankTimeSort, r.Order[0].Col
		r.Stamp = in.stamp()
		r.Text = fmt.Sprintf("order by %s%s, released as the watermark passes", strings.Join(ord, ", "), lim)
		r.State = "the rows the watermark has not passed"
	case limit >= 0:
		// SPEC 2.9: any other ORDER BY with LIMIT over an unbounded input is
		// a Top-N over the whole stream (one partition), updating (SPEC 2.8):
		// ROW_NUMBER() OVER (ORDER BY …) <= n without the rank column, as
		// Flink plans it (its Rank node without partition keys)
		r.Kind, r.N, r.Limit, r.Updating = plan.RankTopN, limit, -1, true
		r.Text = fmt.Sprintf("ROW_NUMBER() <= %d over the whole stream order by %s (ORDER BY … LIMIT %d, updating), without the rank", limit, strings.Join(ord, ", "), limit)
		r.State = "the top rows"
	default:
		if changes && st.Bounded() && p.Streaming {
			what := "stream " + st.Name
			if d := plan.DerivedOf(st); d != nil {
				what = relationText(st, d)
			}
			return nil, parser.Errorf(obPos, "ORDER BY over %s, whose rows are changes (-U, +U, -D) in streaming mode (SET 'execution.runtime-mode' = 'streaming', SPEC 2.8), cannot sort them: add a LIMIT (ORDER BY … LIMIT n keeps the first n rows of the current result as it changes), or leave streaming mode (then the final table of the bounded input is sorted once)", what)
		}
		if changes && plan.DerivedOf(st) == nil {
			return nil, parser.Errorf(obPos, "ORDER BY over the unbounded stream %s, whose rows are changes (%s, SPEC 2.8), would wait for the stream's end, which never comes: add a LIMIT (ORDER BY … LIMIT n keeps the first n rows of the current result as it changes), or read a bounded input (then its final table is sorted once)", st.Name, st.Updating())
		}
		if d := plan.DerivedOf(st); d != nil && d.Updating() {
			// (SPEC 2.8: its rows are changes, a Top-N's or an updating
			// GROUP BY's; no order of them ends)
			return nil, parser.Errorf(obPos, "ORDER BY over %s, whose result changes as the unbounded input goes on (SPEC 2.8), would wait for the input's end, which never comes: add a LIMIT (ORDER BY … LIMIT n keeps the first n rows of the current result as it changes), or read a bounded input (then the final result is sorted once)", relationText(st, d))
		}
		why := "stream " + st.Name + " has no event time"
		if st.Watermark != nil {
			why = "only its event time " + st.Columns[st.EventTime].Name + " ascending can be released as the watermark passes"
		}
		return nil, parser.Errorf(obPos, "ORDER BY over the unbounded stream %s would wait for the stream's end, which never comes (%s): order by the event time ascending, add a LIMIT (a Top-N), or read a bounded input", st.Name, why)
	}
	names := make([]string, in.visible)
	types := in.types()
	for i := range names {
		names[i] = in.b.Columns[i].Name
	}
	b := in.finish(r, names, types)
	if sel.Insert != "" || sel.Stream != "" { // (its rows, in order, or a Top-N's changes: rankSink)
		if err := p.rankSink(sel, in, b); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// orderItemsByAlias gives the final ORDER BY's items with the null-ordering
// keys the parser adds for NULLS FIRST / NULLS LAST (`y IS NULL`, see
// parser.orderNulls) read through a select alias: `SELECT x AS y … ORDER BY y
// NULLS LAST` sorts by `x IS NULL`, as ORDER BY y reads the alias (Flink
// resolves an ORDER BY name to the select list's alias first). The query's
// own items are not changed.
func orderItemsByAlias(q *ast.SelectStmt) []*ast.ByItem {
	items, copied := q.OrderBy.Items, false
	for k, it := range q.OrderBy.Items {
		in, ok := it.Expr.(*ast.IsNullExpr)
		if !ok || in.Not {
			continue
		}
		cn, ok := in.Expr.(*ast.ColumnNameExpr)
		if !ok || cn.Name.Table.O != "" {
			continue
		}
		for _, f := range q.Fields.Fields {
			if f.AsName.L != "" && f.AsName.L == cn.Name.Name.L && f.Expr != nil {
				if !copied {
					items, copied = append([]*ast.ByItem(nil), items...), true
				}
				items[k] = &ast.ByItem{Expr: &ast.IsNullExpr{Expr: f.Expr}, Desc: it.Desc}
				break
			}
		}
	}
	return items
}

// ruleRankJob gives the job's Rank operators that route late rows (Dedup,
// Over, TimeSort, and a window Top-N over a window TVF: SPEC 2.9) the job's
// default late output (SPEC 2.4's 'late',
// shared with the windowed queries), with the stream's columns, or the
// relation's a deduplication planned over its stream reads
// (plan.Rank.LateColumns).
func ruleRankJob(j *Job) {
	for _, b := range j.AllBranches() { // (the main query's, and a side branch's: SPEC 2.1 with 2.9)
		rankLateOutput(j, b)
	}
}

// rankLateOutput gives branch b of j, when its Rank routes late rows, the
// job's default late output (ruleRankJob).
func rankLateOutput(j *Job, b *Branch) {
	if b.Rank == nil {
		return
	}
	switch b.Rank.Kind {
	case plan.RankDedup, plan.RankOver, plan.RankTimeSort:
		if b.Rank.Stamp < 0 {
			return
		}
	case plan.RankWindowTopN:
		if b.Rank.LateCols == nil {
			return
		}
	default:
		return
	}
	cols := j.Stream.Columns
	if b.Rank.LateColumns != nil { // (a relation's rows: ruleInlineView)
		cols = b.Rank.LateColumns
	}
	for k, o := range j.Outputs {
		if o.Name == DefaultLate && o.Late {
			b.Rank.LateOutput = k
			return
		}
	}
	b.Rank.LateOutput = len(j.Outputs)
	j.Outputs = append(j.Outputs, Output{Name: DefaultLate, Columns: cols, Late: true})
}

// overListAgg reads LISTAGG(x [, 'sep']) OVER (…), which the parser gives
// as TiDB's GROUP_CONCAT (its arguments, then TiDB's own separator): it
// returns a copy of w with the value alone, and the separator (',' by
// default, SPEC 2.4).
func (sp *selectPlan) overListAgg(w *ast.WindowFuncExpr) (*ast.WindowFuncExpr, string, error) {
	args := w.Args
	if len(args) > 0 {
		args = args[:len(args)-1] // (TiDB's separator)
	}
	if len(args) < 1 || len(args) > 2 || w.Distinct {
		return nil, "", parser.Errorf(sp.pos(w), "LISTAGG takes a value and an optional separator: LISTAGG(x [, ', '])")
	}
	sep := ","
	if len(args) == 2 {
		v, ok := args[1].(*test_driver.ValueExpr)
		if !ok || v.Kind() != test_driver.KindString {
			return nil, "", parser.Errorf(sp.pos(args[1]), "LISTAGG's separator is a string literal, e.g. LISTAGG(x, ' > ')")
		}
		sep = v.GetString()
	}
	c := *w
	c.Args = args[:1]
	return &c, sep, nil
}
