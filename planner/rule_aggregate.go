package planner

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/test_driver"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner/plan"
)

// Aggregate, AggCall and Window are the plan's (planner/plan, SPEC 2.4).
type (
	Aggregate = plan.Aggregate
	AggCall   = plan.AggCall
	Window    = plan.Window
)

// DefaultLate is plan.DefaultLate: the shared late output's name (SPEC 2.4).
const DefaultLate = plan.DefaultLate

// aggFuncs maps TiDB's aggregate names (and the front-end's stand-ins) to SPEC
// 2.4's functions.
var aggFuncs = map[string]plan.AggFunc{
	"count": plan.AggCount, "sum": plan.AggSum, "avg": plan.AggAvg, "min": plan.AggMin, "max": plan.AggMax,
	"sq_firstval": plan.AggFirst, "sq_lastval": plan.AggLast, "listagg": plan.AggListAgg,
	"var_pop": plan.AggVarPop, "variance": plan.AggVarPop, "var_samp": plan.AggVarSamp,
	"stddev_pop": plan.AggStddevPop, "stddev": plan.AggStddevPop, "std": plan.AggStddevPop, "stddev_samp": plan.AggStddevSamp,
}

const aggList = "COUNT, SUM, AVG, MIN, MAX, FIRST_VALUE, LAST_VALUE, LISTAGG, VAR_POP, VAR_SAMP, STDDEV_POP, STDDEV_SAMP"

func init() {
	// outside an aggregating select list or HAVING, the non-TiDB aggregates
	// are misplaced (the TiDB ones are refused by compile1)
	misplaced := funcRule{raw: true, compile: func(c *funcCall) (*Expr, error) {
		return nil, misplacedAgg(c.sc.pos(c.n), aggName(c.n))
	}}
	registerFunc(misplaced, "listagg", "sq_firstval", "sq_lastval")
}

// aggName is an aggregate call's name as SPEC 2.4 writes it.
func aggName(n ast.ExprNode) string {
	switch x := n.(type) {
	case *ast.AggregateFuncExpr:
		return strings.ToUpper(x.F)
	case *ast.FuncCallExpr:
		switch x.FnName.L {
		case "sq_firstval":
			return "FIRST_VALUE"
		case "sq_lastval":
			return "LAST_VALUE"
		}
		return strings.ToUpper(x.FnName.L)
	}
	return ""
}

func misplacedAgg(pos int, name string) error {
	return parser.Errorf(pos, "aggregate %s is not allowed here: WHERE, GROUP BY and aggregate arguments work on single rows; filter groups with HAVING", name)
}

// isAggCall reports whether n is an aggregate function call.
func isAggCall(n ast.Node) bool {
	switch x := n.(type) {
	case *ast.AggregateFuncExpr:
		return true
	case *ast.FuncCallExpr:
		_, ok := aggFuncs[x.FnName.L]
		return ok && x.FnName.L != "count" && x.FnName.L != "sum" && x.FnName.L != "min" && x.FnName.L != "max" && x.FnName.L != "avg"
	}
	return false
}

// aggFinder finds an aggregate call in an AST (not inside subqueries).
type aggFinder struct{ found ast.Node }

func (f *aggFinder) Enter(n ast.Node) (ast.Node, bool) {
	if f.found != nil {
		return n, true
	}
	if isAggCall(n) {
		f.found = n
		return n, true
	}
	if _, ok := n.(*ast.SubqueryExpr); ok {
		return n, true
	}
	return n, false
}

func (f *aggFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

func hasAgg(n ast.Node) bool {
	if n == nil {
		return false
	}
	f := &aggFinder{}
	n.Accept(f)
	return f.found != nil
}

// ruleAggregate plans SPEC 2.4's aggregation of a branch: GROUP BY keys,
// aggregate calls, HAVING and the select list over the aggregate row; or, for a
// window TVF without aggregation, the select list over the windowed batch. It
// refuses GROUP BY on an unbounded stream without a window, a window without
// window_start and window_end in GROUP BY, a column neither grouped nor
// aggregated, and LATE INTO SIDE without a window. It leaves plain queries to
// ruleProjection.
func ruleAggregate(sp *selectPlan) error {
	q, sel := sp.q, sp.sel
	grouped := q.GroupBy != nil || q.Having != nil
	for _, f := range q.Fields.Fields {
		if f.Expr != nil && hasAgg(f.Expr) {
			grouped = true
		}
	}
	if sp.win == nil && grouped {
		sp.win = cascadeWindow(sp) // GROUP BY window_start, window_end of a windowed relation (SPEC 2.6)
	}
	if sp.win == nil && !grouped {
		if err := unusedFilter(sel, nil); err != nil {
			return err
		}
		if sel.Late != "" && sp.both == nil { // (a join's late outputs: ruleBothJoin)
			return parser.Errorf(sel.LatePos, "LATE INTO SIDE needs a window function: only rows for windows that already fired are late (FROM TABLE(TUMBLE(TABLE s, DESCRIPTOR(ts), INTERVAL '1' MINUTE)))")
		}
		return nil
	}
	st := sp.st
	a := &Aggregate{Window: sp.win, Grouped: grouped, WmCol: sp.wm, LateOutput: -1, WindowBase: len(sp.sc.uses)}
	if sp.win != nil {
		if sel.Late2 != "" && sp.both == nil { // (a second name names a join's right input's late output: ruleBothJoin)
			return parser.Errorf(sel.Late2Pos, "LATE INTO SIDE names two late outputs only for a join of two relations in this query's FROM, one per input (SPEC 2.7); a window's late rows go to one: remove '%s'", sel.Late2)
		}
		a.Late, a.LatePos, a.LateNamed = DefaultLate, sp.start, sel.Late != ""
		if a.LateNamed {
			a.Late, a.LatePos = sel.Late, sel.LatePos
		}
		for i := range st.Columns { // late rows go out whole (SPEC 2.4: as SELECT *)
			sp.sc.use(i)
		}
		sp.sc.use(sp.wm) // the lateness test and, behind an event-time join, firing read it
	} else if sel.Late != "" && sp.both == nil {
		return parser.Errorf(sel.LatePos, "LATE INTO SIDE needs a window function: GROUP BY without a window has no late rows")
	}
	// SPEC 2.8: GROUP BY without a window (and a global aggregate) over an
	// unbounded stream, or over an updating relation (a regular outer
	// join), is an updating aggregate: each row that changes a group emits
	// the change (rule_changelog.go). A window aggregate fires once, final,
	// so it cannot take back what an updating input retracts (Flink refuses
	// it too).
	updIn := sp.both != nil && sp.both.Updating() || sp.both == nil && sp.st != nil && readsChanges(sp.st)
	if updIn && sp.win != nil && sp.both != nil {
		return parser.Errorf(sp.groupPos(), "a window aggregate emits each window once, final, and cannot consume the updating result of a regular %s JOIN (SPEC 2.8): aggregate without a window (GROUP BY keys only, an updating result), or make the join an interval join (ON ... AND l.t BETWEEN r.t - INTERVAL '1' MINUTE AND r.t)", sp.both.Type)
	}
	a.Updating = sp.win == nil && (!st.Bounded() || updIn || sp.p.Streaming)
	sp.agg = a
	sp.b.Agg = a
	if !grouped {
		if sp.win.Func == "SESSION" {
			return parser.Errorf(sel.Window.Pos, "SESSION windows need aggregation: add GROUP BY %s, window_start, window_end and aggregates such as COUNT(*)", partitionText(sp.win))
		}
		return ruleWindowProjection(sp)
	}
	ap := &aggPlan{sp: sp, a: a, seen: map[string]int{}}
	if err := ap.plan(); err != nil {
		return err
	}
	if err := unusedFilter(sel, ap.filtered); err != nil {
		return err
	}
	if updIn {
		// every call retracts; MIN, MAX, FIRST_VALUE, LAST_VALUE, LISTAGG
		// and COUNT(DISTINCT) keep their values for it (SPEC 2.8)
		for c := range a.Calls {
			a.Calls[c].Spec.Retracting = true
		}
	}
	return nil
}

// groupPos is the offset of GROUP BY, else of the first aggregate, else the statement.
func (sp *selectPlan) groupPos() int {
	if sp.q.GroupBy != nil {
		return sp.pos(sp.q.GroupBy)
	}
	for _, f := range sp.q.Fields.Fields {
		fd := &aggFinder{}
		if f.Expr != nil {
			f.Expr.Accept(fd)
		}
		if fd.found != nil {
			return sp.pos(fd.found)
		}
	}
	return sp.start
}

func partitionText(w *Window) string {
	var k []string
	for _, e := range w.Partition {
		k = append(k, e.Text)
	}
	return strings.Join(k, ", ")
}

// aggPlan is the state of planning one aggregation.
type aggPlan struct {
	sp       *selectPlan
	a        *Aggregate
	keyNodes []ast.ExprNode
	keyText  []string
	seen     map[string]int // aggregate call text -> index in a.Calls
	row      *scope         // the scope over the aggregate row
	having   bool           // compiling HAVING (a select alias may be named)
	aliases  map[string]*Expr
	wcols    [3]bool      // window_start, window_end, window_time in GROUP BY
	filtered map[int]bool // the FILTER clauses (parser.Select.Filters) an aggregate took
}

// unusedFilter returns the error for a FILTER (WHERE ...) clause of sel that
// no aggregate call took (used: the offsets of those taken): it stood after
// a function that is not an aggregate (SPEC 2.9: FILTER belongs to
// aggregates).
func unusedFilter(sel *parser.Select, used map[int]bool) error {
	first := -1
	for call := range sel.Filters {
		if !used[call] && (first < 0 || call < first) {
			first = call
		}
	}
	if first < 0 {
		return nil
	}
	if f := sel.Filters[first]; f != nil && f.File != nil && f.Pos+len(f.Text) <= len(f.File.Source()) {
		// SUM(x) FILTER (WHERE cond) OVER (…): the word after the clause
		rest := strings.TrimLeft(f.File.Source()[f.Pos+len(f.Text):], " \t\r\n")
		rest = strings.TrimLeft(strings.TrimPrefix(rest, ")"), " \t\r\n")
		if len(rest) >= 4 && strings.EqualFold(rest[:4], "OVER") {
			return parser.Errorf(first, "FILTER (WHERE ...) does not apply to an OVER aggregate (nor in Flink): put the condition in the argument, e.g. SUM(CASE WHEN cond THEN x END) OVER (...), or COUNT(CASE WHEN cond THEN 1 END) OVER (...)")
		}
	}
	return parser.Errorf(first, "FILTER (WHERE ...) applies to aggregate functions only (COUNT, SUM, AVG, MIN, MAX, ...), not to this call: move the condition into WHERE or into a CASE")
}

// restoreText renders n from the AST alone (not the text as written), so that
// two spellings of one expression compare equal (GROUP BY keys and their uses).
func restoreText(n ast.Node) string {
	var sb strings.Builder
	ctx := format.NewRestoreCtx(format.RestoreStringSingleQuotes|format.RestoreKeyWordUppercase|format.RestoreNameLowercase|format.RestoreStringWithoutCharset, &sb)
	if err := n.Restore(ctx); err != nil {
		return fmt.Sprintf("%p", n)
	}
	return sb.String()
}

// windowCol returns the index (0 window_start, 1 window_end, 2 window_time) of a
// window column reference, or -1.
func (ap *aggPlan) windowCol(n ast.ExprNode) int {
	c, ok := n.(*ast.ColumnNameExpr)
	if !ok || ap.a.Window == nil {
		return -1
	}
	if t := c.Name.Table.O; t != "" && !strings.EqualFold(t, ap.sp.name) {
		return -1
	}
	if ap.sp.st.Column(c.Name.Name.O) >= 0 {
		return -1 // a column of the stream with that name wins
	}
	for k, w := range WindowColumns {
		if strings.EqualFold(c.Name.Name.O, w) {
			return k
		}
	}
	return -1
}

func (ap *aggPlan) plan() error {
	sp, a := ap.sp, ap.a
	q := sp.q
	// the source scope refuses aggregates (in keys and arguments)
	src := sp.sc
	if q.GroupBy != nil {
		for _, it := range q.GroupBy.Items {
			if k := ap.windowCol(it.Expr); k >= 0 {
				ap.wcols[k] = true
				continue
			}
			switch v := it.Expr.(type) {
			case *ast.PositionExpr:
				return parser.Errorf(sp.pos(v), "positional GROUP BY (GROUP BY %d) is not supported: write the column's name or expression", v.N)
			case *test_driver.ValueExpr:
				return parser.Errorf(sp.pos(v), "GROUP BY takes columns or expressions, not constants: write the column's name or expression")
			}
			if hasAgg(it.Expr) {
				f := &aggFinder{}
				it.Expr.Accept(f)
				return misplacedAgg(sp.pos(f.found), aggName(f.found.(ast.ExprNode)))
			}
			e, err := src.compile(it.Expr)
			if err != nil {
				return err
			}
			if e.Type == catalog.Unknown {
				e = coerce(e, catalog.Varchar)
			}
			if e.Type.IsNested() {
				if sp.distinct { // (SELECT DISTINCT is a GROUP BY of its columns: say what the query wrote)
					return parser.Errorf(sp.pos(it.Expr), "SELECT DISTINCT over %s (%s) is not supported: select its parts (x[1], x['k'], x.field) or CAST(x AS VARCHAR)", exprTextOf(e), e.Type)
				}
				return parser.Errorf(sp.pos(it.Expr), "GROUP BY %s (%s) is not supported: group by its parts (x[1], x['k'], x.field) or by CAST(x AS VARCHAR)", exprTextOf(e), e.Type)
			}
			if cn, ok := it.Expr.(*ast.ColumnNameExpr); ok {
				e.Text, _ = sp.declaredName(cn)
			}
			ap.keyNodes = append(ap.keyNodes, it.Expr)
			ap.keyText = append(ap.keyText, restoreText(it.Expr))
			a.Keys = append(a.Keys, e)
		}
	}
	if w := a.Window; w != nil && w.Of == nil {
		if !ap.wcols[0] || !ap.wcols[1] {
			for _, w := range WindowColumns[:2] {
				if c := sp.st.Column(w); c >= 0 { // (it hides the window's: windowCol)
					return parser.Errorf(sp.groupPos(), "%s already has a column %s, which hides the window's own: rename it where %s is defined (%s AS %s1, …), as Flink's cascading window aggregation does, then GROUP BY window_start, window_end", sp.st.Name, sp.st.Columns[c].Name, sp.st.Name, sp.st.Columns[c].Name, sp.st.Columns[c].Name)
				}
			}
			return parser.Errorf(sp.groupPos(), "aggregating a window needs GROUP BY window_start, window_end (then the grouping keys): each window gives its own rows")
		}
		for _, pk := range w.Partition {
			found := false
			for _, k := range a.Keys {
				if k.Col == pk.Col {
					found = true
				}
			}
			if !found {
				return parser.Errorf(sp.groupPos(), "a SESSION window partitioned by %s needs GROUP BY %s, window_start, window_end", partitionText(w), partitionText(w))
			}
		}
	}
	// the aggregate row: window columns, keys, then the calls (found while
	// compiling the select list and HAVING)
	if a.Window != nil {
		a.RowTypes = append(a.RowTypes, a.Window.TimeType, a.Window.TimeType, a.Window.TimeType)
	}
	a.KeyBase = len(a.RowTypes)
	for _, k := range a.Keys {
		a.RowTypes = append(a.RowTypes, k.Type)
	}
	a.CallBase = len(a.RowTypes)
	ap.row = &scope{rels: src.rels, locate: src.locate, casts: src.casts, src: src.src,
		watermark: func(int) int { return -1 }, ticks: src.ticks, funcs: src.funcs}
	ap.row.hook = ap.hook
	b := sp.b
	for _, f := range q.Fields.Fields {
		if f.WildCard != nil {
			return parser.Errorf(sp.pos(f), "SELECT * of an aggregating query: list the grouping keys and aggregates instead, e.g. SELECT window_start, window_end, COUNT(*)")
		}
		e, err := ap.row.compile(f.Expr)
		if err != nil {
			return err
		}
		if e.Type == catalog.Unknown {
			e = coerce(e, catalog.Varchar)
			sp.markUntyped(e)
		}
		name := f.AsName.O
		if name == "" {
			if cn, ok := f.Expr.(*ast.ColumnNameExpr); ok {
				if k := ap.windowCol(f.Expr); k >= 0 {
					name = WindowColumns[k]
				} else if n, ok := sp.declaredName(cn); ok {
					name = n
				}
			}
		}
		if name == "" {
			if t := strings.TrimSpace(f.Text()); t != "" {
				name = t
			} else {
				name = e.Text
			}
		}
		if f.AsName.O != "" {
			if ap.aliases == nil {
				ap.aliases = map[string]*Expr{}
			}
			ap.aliases[catalog.FoldName(f.AsName.O)] = e
		}
		b.Project = append(b.Project, e)
		b.Columns = append(b.Columns, catalog.Column{Name: name, Type: e.Type})
		sp.fieldOf = append(sp.fieldOf, f)
	}
	if q.Having != nil {
		ap.having = true
		h, err := ap.row.compile(q.Having.Expr)
		if err != nil {
			return err
		}
		h = coerce(h, catalog.Boolean)
		if h.Type != catalog.Boolean {
			return parser.Errorf(sp.pos(q.Having.Expr), "HAVING needs a condition (BOOLEAN), got %s", h.Type)
		}
		a.Having = h
	}
	return nil
}

// hook compiles the nodes of the select list and HAVING that read the aggregate
// row: grouping keys, window columns, aggregate calls, and (in HAVING) select
// aliases; any other column is not grouped.
func (ap *aggPlan) hook(n ast.ExprNode) (*Expr, error) {
	a, sp := ap.a, ap.sp
	if _, ok := n.(*test_driver.ValueExpr); ok {
		return nil, nil
	}
	if k := ap.windowCol(n); k >= 0 {
		return rowCol(k, a.RowTypes[k], WindowColumns[k]), nil
	}
	if len(ap.keyText) > 0 {
		t := restoreText(n)
		for k, kt := range ap.keyText {
			if kt == t || sameColumn(sp, n, ap.keyNodes[k]) {
				return rowCol(a.KeyBase+k, a.Keys[k].Type, a.Keys[k].Text), nil
			}
		}
	}
	if isAggCall(n) {
		return ap.call(n)
	}
	if c, ok := n.(*ast.ColumnNameExpr); ok {
		if ap.having && c.Name.Table.O == "" {
			if e, ok := ap.aliases[catalog.FoldName(c.Name.Name.O)]; ok {
				return e, nil
			}
		}
		if _, ok := sp.declaredName(c); !ok {
			if _, _, err := sp.sc.column(c); err != nil {
				return nil, err
			}
		}
		return nil, parser.Errorf(sp.pos(c), "column '%s' is neither grouped nor aggregated: add it to GROUP BY or aggregate it, e.g. MAX(%s)", c.Name.Name.O, c.Name.Name.O)
	}
	return nil, nil
}

// sameColumn reports whether n and key are references to one stream column.
func sameColumn(sp *selectPlan, n, key ast.ExprNode) bool {
	a, ok1 := n.(*ast.ColumnNameExpr)
	b, ok2 := key.(*ast.ColumnNameExpr)
	if !ok1 || !ok2 {
		return false
	}
	i, _, err1 := sp.sc.column(a)
	j, _, err2 := sp.sc.column(b)
	return err1 == nil && err2 == nil && i == j
}

func rowCol(idx int, t catalog.Type, text string) *Expr {
	return &Expr{Op: plan.OpCol, Type: t, Col: idx, Text: text}
}

// call plans one aggregate call: its function, argument type rules, and its
// column of the aggregate row (one per distinct call text).
func (ap *aggPlan) call(n ast.ExprNode) (*Expr, error) {
	sp, a := ap.sp, ap.a
	name := aggName(n)
	var args []ast.ExprNode
	distinct := false
	var fn plan.AggFunc
	switch x := n.(type) {
	case *ast.AggregateFuncExpr:
		f, ok := aggFuncs[strings.ToLower(x.F)]
		if !ok {
			return nil, parser.Errorf(sp.pos(n), "aggregate %s is not supported; streamql has %s", name, aggList)
		}
		fn, args, distinct = f, x.Args, x.Distinct
		if x.Order != nil {
			return nil, parser.Errorf(sp.pos(n), "ORDER BY inside %s is not supported: values are taken in arrival order", name)
		}
	case *ast.FuncCallExpr:
		fn, args = aggFuncs[x.FnName.L], x.Args
	}
	text := restoreText(n)
	filter := sp.sel.Filters[sp.pos(n)] // agg(...) FILTER (WHERE cond) (SPEC 2.9), nil when none
	if filter != nil {
		text += " FILTER (WHERE " + restoreText(filter.Expr) + ")"
		if ap.filtered == nil {
			ap.filtered = map[int]bool{}
		}
		ap.filtered[sp.pos(n)] = true
	}
	if k, ok := ap.seen[text]; ok {
		c := a.Calls[k]
		return rowCol(a.CallBase+k, c.Spec.ResultType(), c.Text), nil
	}
	spec := plan.AggSpec{Func: fn, Distinct: distinct}
	if distinct && fn != plan.AggCount {
		return nil, parser.Errorf(sp.pos(n), "DISTINCT is supported in COUNT(DISTINCT x) only, not in %s", name)
	}
	var arg *Expr
	switch {
	case fn == plan.AggCount && len(args) == 1 && !distinct && isStar(args[0]):
		spec.Func = plan.AggCountStar
	case fn == plan.AggListAgg:
		if len(args) < 1 || len(args) > 2 {
			return nil, parser.Errorf(sp.pos(n), "LISTAGG takes a value and an optional separator: LISTAGG(x [, ', '])")
		}
		spec.Sep = ","
		if len(args) == 2 {
			v, ok := args[1].(*test_driver.ValueExpr)
			if !ok || v.Kind() != test_driver.KindString {
				return nil, parser.Errorf(sp.pos(args[1]), "LISTAGG's separator is a string literal, e.g. LISTAGG(x, ' > ')")
			}
			spec.Sep = v.GetString()
		}
		args = args[:1]
	default:
		if len(args) != 1 {
			return nil, parser.Errorf(sp.pos(n), "%s takes one argument", name)
		}
	}
	if spec.Func != plan.AggCountStar {
		if hasAgg(args[0]) {
			f := &aggFinder{}
			args[0].Accept(f)
			return nil, parser.Errorf(sp.pos(f.found), "aggregates cannot be nested: %s inside %s", aggName(f.found.(ast.ExprNode)), name)
		}
		e, err := sp.sc.compile(args[0])
		if err != nil {
			return nil, err
		}
		if e.Type == catalog.Unknown {
			t := catalog.Varchar
			if fn.Numeric() {
				t = catalog.Double
			}
			e = coerce(e, t)
		}
		if e.Type.IsNested() && name != "COUNT" {
			return nil, parser.Errorf(sp.pos(args[0]), "%s of %s (%s) is not supported: aggregate its parts (x[1], x['k'], x.field, CARDINALITY(x)) or CAST(x AS VARCHAR)", name, exprTextOf(e), e.Type)
		}
		if fn.Numeric() && !e.Type.IsNumeric() {
			return nil, parser.Errorf(sp.pos(args[0]), "%s needs a number (BIGINT or DOUBLE), got %s (%s); use CAST(... AS DOUBLE)", name, exprTextOf(e), e.Type)
		}
		arg = e
		spec.Arg = e.Type
	}
	if filter != nil {
		// FILTER (WHERE cond) takes the rows where cond is TRUE: as every
		// aggregate but COUNT(*) skips NULL arguments (SPEC 2.4), agg(x)
		// FILTER (WHERE c) is agg(CASE WHEN c THEN x END), and COUNT(*)
		// FILTER (WHERE c) is COUNT(CASE WHEN c THEN 1 END); so it holds for
		// windowed, unbounded and parallel aggregates alike
		if hasAgg(filter.Expr) {
			f := &aggFinder{}
			filter.Expr.Accept(f)
			return nil, misplacedAgg(sp.pos(f.found), aggName(f.found.(ast.ExprNode)))
		}
		cond, err := sp.sc.compile(filter.Expr)
		if err != nil {
			return nil, err
		}
		if cond = coerce(cond, catalog.Boolean); cond.Type != catalog.Boolean {
			return nil, parser.Errorf(filter.Pos, "FILTER (WHERE ...) needs a BOOLEAN condition, got %s (%s)", exprTextOf(cond), cond.Type)
		}
		if spec.Func == plan.AggCountStar {
			spec.Func, spec.Arg, arg = plan.AggCount, catalog.BigInt, intConst(1, "1")
		}
		arg = caseKernel(arg.Type, []*Expr{cond}, []*Expr{arg, nullExpr(arg.Type)})
	}
	k := len(a.Calls)
	ap.seen[text] = k
	ct := strings.TrimSpace(exprText(n, sp.sel.Casts))
	if spec.Func == plan.AggCountStar || filter != nil && fn == plan.AggCount && !distinct && isStar(args[0]) {
		ct = "COUNT(*)"
	}
	if filter != nil {
		ct += " FILTER (WHERE " + filter.Text + ")"
	}
	ct = strings.Replace(strings.Replace(ct, "SQ_FIRSTVAL", "FIRST_VALUE", 1), "sq_firstval", "FIRST_VALUE", 1)
	ct = strings.Replace(strings.Replace(ct, "SQ_LASTVAL", "LAST_VALUE", 1), "sq_lastval", "LAST_VALUE", 1)
	a.Calls = append(a.Calls, AggCall{Spec: spec, Arg: arg, Text: ct})
	a.RowTypes = append(a.RowTypes, spec.ResultType())
	return rowCol(a.CallBase+k, spec.ResultType(), ct), nil
}

// isStar reports whether a COUNT argument is TiDB's COUNT(*) (a constant 1).
func isStar(n ast.ExprNode) bool {
	v, ok := n.(*test_driver.ValueExpr)
	return ok && v.Kind() == test_driver.KindInt64 && v.GetInt64() == 1
}

// ruleWindowProjection compiles the select list of a window TVF without
// aggregation over the windowed batch: the source batch with window_start,
// window_end and window_time appended at WindowBase; * appends them after the
// stream's columns (SPEC 2.4).
func ruleWindowProjection(sp *selectPlan) error {
	a := sp.agg
	base := a.WindowBase
	w := a.Window
	sc := *sp.sc
	sc.hook = func(n ast.ExprNode) (*Expr, error) {
		c, ok := n.(*ast.ColumnNameExpr)
		if !ok || sp.st.Column(c.Name.Name.O) >= 0 || c.Name.Table.O != "" && !strings.EqualFold(c.Name.Table.O, sp.name) {
			return nil, nil
		}
		for k, name := range WindowColumns {
			if strings.EqualFold(c.Name.Name.O, name) {
				return rowCol(base+k, w.TimeType, name), nil
			}
		}
		return nil, nil
	}
	saved := sp.sc
	sp.sc, sp.agg = &sc, nil
	err := ruleProjection(sp)
	sp.sc, sp.agg = saved, a
	if err != nil {
		return err
	}
	// * gets the window columns after the stream's columns
	b := sp.b
	var proj []*Expr
	var cols []catalog.Column
	var of []ast.Node
	for i := range b.Project {
		proj, cols, of = append(proj, b.Project[i]), append(cols, b.Columns[i]), append(of, sp.fieldOf[i])
		f, _ := sp.fieldOf[i].(*ast.SelectField)
		last := i+1 == len(b.Project) || sp.fieldOf[i+1] != sp.fieldOf[i]
		if f != nil && f.WildCard != nil && last {
			for k, name := range WindowColumns {
				proj = append(proj, rowCol(base+k, w.TimeType, name))
				cols = append(cols, catalog.Column{Name: name, Type: w.TimeType})
				of = append(of, f)
			}
		}
	}
	b.Project, b.Columns, sp.fieldOf = proj, cols, of
	return nil
}

// lateColumns returns the columns of the late rows of windowed branch b
// (SPEC 2.4: the input row, as SELECT *): the relation's when b reads one
// planned over its stream (plan.Aggregate.LateColumns, ruleInlineView),
// else its stream's.
func lateColumns(b *Branch) []catalog.Column {
	if b.Agg.LateColumns != nil {
		return b.Agg.LateColumns
	}
	return b.Stream.Columns
}

// ruleAggregateJob adds the late outputs of a job's windowed branches (SPEC 2.4):
// a LATE INTO SIDE name is a side output like any other (2.1's name and schema
// rules); the default 'late' output is shared by every query without the clause,
// and then no side output may be named 'late'. Outputs come after the branches'
// own, in branch order; the default one last.
func ruleAggregateJob(j *Job) error {
	all := append(append([]*Branch{}, j.Branches...), j.Main)
	var dflt []*Branch
	var errSides map[string]*catalog.Stream // (the streams' errors side names, read at the first LATE INTO SIDE)
	for _, b := range all {
		if b == nil || b.Agg == nil || b.Agg.Window == nil {
			continue
		}
		a := b.Agg
		if !a.LateNamed {
			dflt = append(dflt, b)
			continue
		}
		found := -1
		for k, o := range j.Outputs {
			if o.Name == a.Late && o.Sink == nil && !(j.Main != nil && k == 0) {
				found = k
			}
		}
		if found >= 0 {
			if !sameSchema(j.Outputs[found].Columns, lateColumns(b)) {
				return parser.Errorf(a.LatePos, "late side output '%s' has the stream's columns %s but side output '%s' has %s; give one another name", a.Late, plan.SchemaText(lateColumns(b)), a.Late, plan.SchemaText(j.Outputs[found].Columns))
			}
			a.LateOutput = found
			continue
		}
		if errSides == nil {
			errSides = j.ErrorsSides()
		}
		if st := errSides[a.Late]; st != nil { // (also a stream under the view or join it reads, SPEC 2.6)
			return parser.Errorf(a.LatePos, "late side output '%s' has the name of the errors side output of stream %s; pick another name", a.Late, st.Name)
		}
		a.LateOutput = len(j.Outputs)
		j.Outputs = append(j.Outputs, Output{Name: a.Late, Columns: lateColumns(b)})
	}
	if len(dflt) == 0 {
		return nil
	}
	for k, o := range j.Outputs {
		if o.Name == DefaultLate && o.Sink == nil && !(j.Main != nil && k == 0) {
			pos := 0
			for _, b := range j.Branches {
				if b.Side == DefaultLate {
					pos = b.SidePos
				}
			}
			return parser.Errorf(pos, "side output 'late' has the name of the late output of a windowed query of the job: rename the side output, or name the late rows with LATE INTO SIDE 'name'")
		}
	}
	k := len(j.Outputs)
	cols := j.Stream.Columns
	if lc := dflt[0].Agg.LateColumns; lc != nil { // (a relation planned over its stream has one query: ruleInlineView)
		cols = lc
	}
	j.Outputs = append(j.Outputs, Output{Name: DefaultLate, Columns: cols, Late: true})
	for _, b := range dflt {
		b.Agg.LateOutput = k
	}
	return nil
}
