package export

import (
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/test_driver"

	"streamql/catalog"
	"streamql/parser"
	"streamql/planner"
	"streamql/planner/plan"
)

// branchQuery is one statement planned as a branch, ready to print: its
// printer (probe relation re-qualified by outQual) and its statement.
type branchQuery struct {
	sel   *parser.Select
	p     *printer
	probe *catalog.Stream
	alias string // the probe's alias as written, "" when none
}

// newBranchQuery prepares sel, whose probe stream is probe, for printing with
// the probe qualified by outQual.
func (x *exporter) newBranchQuery(script *parser.Script, sel *parser.Select, probe *catalog.Stream, outQual string) *branchQuery {
	if ts := leftmost(sel.Query); ts != nil {
		if tn, ok := ts.Source.(*ast.TableName); ok && (parser.IsPlaceholder(tn.Name.O) || cteOf(sel.With, tn.Name.O) >= 0 ||
			x.views[strings.ToLower(tn.Name.O)] != nil && x.cat.Lookup(tn.Name.O) == nil) {
			probe = nil // (a subquery, WITH name or view: its columns by their names)
		}
	}
	bq := &branchQuery{sel: sel, probe: probe}
	quals := map[string]bool{}
	if probe != nil {
		quals[strings.ToLower(probe.Name)] = true
		if ts := leftmost(sel.Query); ts != nil && ts.AsName.O != "" {
			bq.alias = ts.AsName.O
			quals = map[string]bool{strings.ToLower(ts.AsName.O): true}
		}
	}
	var rel *scopeRel
	if probe != nil {
		rel = &scopeRel{st: probe, quals: quals}
	}
	bq.p = &printer{x: x, script: script, casts: sel.Casts, joins: sel.Joins, locate: sel.Locate,
		probe: rel, outQual: outQual, window: sel.Window, sel: sel}
	return bq
}

// leftmost returns the first table of a SELECT's FROM, nil when none.
func leftmost(sel *ast.SelectStmt) *ast.TableSource {
	if sel.From == nil || sel.From.TableRefs == nil {
		return nil
	}
	var n ast.ResultSetNode = sel.From.TableRefs
	for {
		switch t := n.(type) {
		case *ast.Join:
			n = t.Left
		case *ast.TableSource:
			return t
		default:
			return nil
		}
	}
}

// defaultQual is the qualifier a branch's own query gives its probe: its
// alias, else the stream's table name.
func (bq *branchQuery) defaultQual() string {
	if bq.alias != "" {
		return bq.alias
	}
	if bq.probe != nil {
		return bq.p.x.tableOf[bq.probe]
	}
	return ""
}

// from prints the FROM clause and returns it with the predicates that the
// SEMI and ANTI joins of SPEC 2.2 become ([NOT] EXISTS).
func (bq *branchQuery) from() (string, []string, error) {
	sel := bq.sel.Query
	if sel.From == nil || sel.From.TableRefs == nil {
		return "", nil, nil
	}
	from, preds, err := bq.p.fromNode(sel.From.TableRefs, true)
	if err != nil {
		return "", nil, err
	}
	u, err := bq.unnest()
	return from + u, preds, err
}

// fromNode prints one node of a FROM clause; top marks the probe's branch of
// the top query.
func (p *printer) fromNode(n ast.ResultSetNode, top bool) (string, []string, error) {
	switch t := n.(type) {
	case *ast.TableSource:
		return p.tableSource(t, top)
	case *ast.Join:
		left, preds, err := p.fromNode(t.Left, top)
		if err != nil || t.Right == nil {
			return left, preds, err
		}
		if k := p.joins[t]; k == parser.SemiJoin || k == parser.AntiJoin {
			rel, err := p.scopeOf(t.Right)
			if err != nil {
				return "", nil, err
			}
			right, _, err := p.fromNode(t.Right, false)
			if err != nil {
				return "", nil, err
			}
			p.scopes = append(p.scopes, rel)
			cond := "TRUE"
			if t.On != nil {
				cond, err = p.expr(t.On.Expr)
			}
			p.scopes = p.scopes[:len(p.scopes)-1]
			if err != nil {
				return "", nil, err
			}
			return left, append(preds, not(k == parser.AntiJoin)+"EXISTS (SELECT 1 FROM "+right+" WHERE "+cond+")"), nil
		}
		rel, err := p.scopeOf(t.Right)
		if err != nil {
			return "", nil, err
		}
		right, rpreds, err := p.fromNode(t.Right, false)
		if err != nil {
			return "", nil, err
		}
		p.scopes = append(p.scopes, rel)
		kind := "CROSS JOIN"
		switch {
		case p.joins[t] == parser.FullJoin: // (TiDB has no FULL JOIN: the parser marks it, parser/tidb.go)
			kind = "FULL JOIN"
		case t.Tp == ast.LeftJoin:
			kind = "LEFT JOIN"
		case t.Tp == ast.RightJoin:
			kind = "RIGHT JOIN"
		}
		s := left + " " + kind + " " + right
		if t.On != nil {
			if kind == "CROSS JOIN" {
				kind = "JOIN"
				s = left + " " + kind + " " + right
			}
			c, err := p.expr(t.On.Expr)
			if err != nil {
				return "", nil, err
			}
			s += " ON " + c
		}
		return s, append(preds, rpreds...), nil
	}
	return "", nil, p.errorf(n, "this FROM clause has no Flink SQL translation yet")
}

// scopeOf returns the relation a table source names.
func (p *printer) scopeOf(n ast.ResultSetNode) (*scopeRel, error) {
	ts, ok := n.(*ast.TableSource)
	if !ok {
		return nil, p.errorf(n, "this FROM clause has no Flink SQL translation yet")
	}
	tn, ok := ts.Source.(*ast.TableName)
	if !ok {
		return nil, p.errorf(n, "a subquery in FROM has no Flink SQL translation yet")
	}
	if st, _, err := p.derived(ts, tn); st != nil || err != nil {
		q := map[string]bool{strings.ToLower(ts.AsName.O): true}
		if ts.AsName.O == "" {
			q = map[string]bool{strings.ToLower(tn.Name.O): true}
		}
		return &scopeRel{st: st, quals: q}, err
	}
	st := p.x.cat.Lookup(tn.Name.O)
	if st == nil {
		return nil, p.errorf(n, "unknown stream '%s'", tn.Name.O)
	}
	q := map[string]bool{strings.ToLower(tn.Name.O): true}
	if ts.AsName.O != "" {
		q = map[string]bool{strings.ToLower(ts.AsName.O): true}
	}
	return &scopeRel{st: st, quals: q}, nil
}

// tableSource prints a table of FROM: the probe (with its window TVF and the
// qualifier outQual) or another stream.
func (p *printer) tableSource(ts *ast.TableSource, top bool) (string, []string, error) {
	tn, ok := ts.Source.(*ast.TableName)
	if !ok {
		return "", nil, p.errorf(ts, "a subquery in FROM has no Flink SQL translation yet")
	}
	if st, rel, body, err := p.derivedRel(ts, tn); st != nil || err != nil {
		text := "(" + body + ")"
		if err == nil && top && p.window != nil {
			// a window TVF over a view or a WITH name (SPEC 2.6): the
			// relation as a CREATE TEMPORARY VIEW, read as TABLE name, as
			// Flink's docs and tests write a window over a view; named
			// after the relation in the query
			// (a subquery written in the TVF's argument, whose name is the
			// parser's placeholder, is named "subquery")
			name := tn.Name.O
			if parser.IsPlaceholder(name) {
				name = "subquery"
			}
			view, ok := p.x.tvfViews[rel]
			if !ok {
				view = p.x.uniqueName(name)
				p.x.tvfViews[rel] = view
				p.x.tvfViewDDLs = append(p.x.tvfViewDDLs, "CREATE TEMPORARY VIEW "+quote(view)+" AS\n  "+body+";\n")
			}
			alias := ts.AsName.O
			if alias == "" {
				alias = name
				if parser.IsPlaceholder(tn.Name.O) {
					alias = view
				}
			}
			return p.windowTVF(st, "TABLE "+quote(view), false) + " AS " + quote(alias), nil, nil
		}
		if ts.AsName.O == "" && !parser.IsPlaceholder(tn.Name.O) {
			text += " AS " + quote(tn.Name.O) // (a WITH name or a view read by its name)
		}
		if ts.AsName.O != "" {
			text += " AS " + quote(ts.AsName.O)
		}
		return text, nil, err
	}
	st := p.x.cat.Lookup(tn.Name.O)
	if st == nil {
		return "", nil, p.errorf(ts, "unknown stream '%s'", tn.Name.O)
	}
	name := quote(p.x.tableOf[st])
	if top && p.window != nil {
		name = p.windowTVF(st, "TABLE "+name, true)
	}
	if a, ok := asOfOf(p.sel, tn); ok && p.procTimeAsOf(a) {
		// a processing-time temporal join against a bounded stream is
		// streamql's lookup join (SPEC 2.7); Flink runs FOR SYSTEM_TIME AS OF a
		// PROCTIME() column only against a lookup source, which filesystem is
		// not: a plain join gives the same rows
		p.x.diff(p.script, a.Pos, "the processing-time temporal join against %s (FOR SYSTEM_TIME AS OF %s) is streamql's lookup join of a table read whole first; Flink's filesystem connector is no lookup source, so it is exported as a regular join of the same rows (Flink's outer one updates: -D/+I as partners come)", tn.Name.O, a.Col)
	} else if ok { // a temporal join's right side (SPEC 2.7)
		col, err := p.asOfColumn(a)
		if err != nil {
			return "", nil, err
		}
		name += " FOR SYSTEM_TIME AS OF " + col
	}
	alias := tn.Name.O
	if ts.AsName.O != "" {
		alias = ts.AsName.O
	}
	if preds, ok := p.x.routed[strings.ToLower(alias)]; ok && st.Derived == nil {
		// a joined stream's rows no side branch takes (SPEC 2.1, 2.7)
		return "(SELECT * FROM " + name + " AS " + quote(alias) + " WHERE " + strings.Join(preds, " AND ") + ") AS " + quote(alias), nil, nil
	}
	if top && p.outQual != "" {
		return name + " AS " + quote(p.outQual), nil, nil
	}
	if ts.AsName.O != "" {
		return name + " AS " + quote(ts.AsName.O), nil, nil
	}
	return name, nil, nil
}

// windowTVF prints the query's window TVF (SPEC 2.4) over table, the TVF's
// table argument as Flink reads it (TABLE name for a stream's table, the
// relation's text in parentheses for a subquery, WITH name or view, SPEC
// 2.6), whose columns st holds: TUMBLE(table, DESCRIPTOR(col), size …)
// inside TABLE(…), SESSION's keys as PARTITION BY. stream says table is a
// stream's: a BIGINT time column is then read through its rowtime (or
// time) column, which only a stream's table has.
func (p *printer) windowTVF(st *catalog.Stream, table string, stream bool) string {
	w := p.window
	col := w.TimeCol
	if c := st.Column(w.TimeCol); c >= 0 {
		col = st.Columns[c].Name
		if stream && bigintTime(st) && c == st.EventTime {
			col = rowtimeName(st)
		} else if stream && st.Columns[c].Type == catalog.BigInt {
			col = timeColName(st, c)
			if !slices.Contains(p.x.windowTime[st], c) {
				p.x.windowTime[st] = append(p.x.windowTime[st], c)
			}
			p.x.windowTimeAt = append(p.x.windowTimeAt, windowUse{p.script, w.TimeColPos, st.Columns[c].Name})
		} else if !stream && st.Columns[c].Type == catalog.BigInt {
			// (a relation's BIGINT column has no rowtime column beside it)
			p.x.diff(p.script, w.TimeColPos, "the window's time column %s is BIGINT (epoch ms) in the relation the window reads: Flink windows only a TIMESTAMP time attribute and refuses it; window the stream itself (its export windows the TIMESTAMP rowtime column it adds)", col)
		}
	}
	args := []string{table}
	if w.Func == "SESSION" {
		var keys []string
		for _, k := range w.Partition {
			if c := st.Column(k); c >= 0 {
				k = st.Columns[c].Name
			}
			keys = append(keys, quote(k))
		}
		args[0] += " PARTITION BY " + strings.Join(keys, ", ")
	}
	args = append(args, "DESCRIPTOR("+quote(col)+")")
	for _, a := range w.Args {
		args = append(args, a.Text) // SPEC 2.4 writes Flink's INTERVAL literals
	}
	return "TABLE(" + w.Func + "(" + strings.Join(args, ", ") + "))"
}

// asOf returns the FOR SYSTEM_TIME AS OF clause written after tn, if any
// (nil-safe).
func asOfOf(sel *parser.Select, tn *ast.TableName) (parser.AsOf, bool) {
	if sel == nil || sel.AsOf == nil {
		return parser.AsOf{}, false
	}
	a, ok := sel.AsOf[tn]
	return a, ok
}

// procTimeAsOf reports whether a's column is a PROCTIME() column of its
// stream (a processing-time temporal join, planner's procTimeJoin).
func (p *printer) procTimeAsOf(a parser.AsOf) bool {
	qual, col := asOfQualCol(a)
	for _, st := range p.fromStreams(qual) {
		if c := st.Column(col); c >= 0 && plan.IsProcTime(st, c) {
			return true
		}
	}
	return false
}

// asOfQualCol splits the column of FOR SYSTEM_TIME AS OF into its qualifier
// ("" when none) and its name.
func asOfQualCol(a parser.AsOf) (qual, col string) {
	if qual, col, ok := strings.Cut(a.Col, "."); ok {
		return qual, col
	}
	return "", a.Col
}

// asOfColumn prints the time column of FOR SYSTEM_TIME AS OF: a BIGINT event
// time (epoch ms) as its rowtime column, Flink's time attribute.
func (p *printer) asOfColumn(a parser.AsOf) (string, error) {
	qual, col := asOfQualCol(a)
	cn := &ast.ColumnNameExpr{Name: &ast.ColumnName{Table: ast.NewCIStr(qual), Name: ast.NewCIStr(col)}}
	for _, st := range p.fromStreams(qual) {
		if c := st.Column(col); c >= 0 && c == st.EventTime && bigintTime(st) {
			if qual == "" {
				return quote(rowtimeName(st)), nil
			}
			return quote(qual) + "." + quote(rowtimeName(st)), nil
		}
	}
	return p.column(cn)
}

// fromStreams returns the streams of the printed query's FROM named qual
// (by alias, else by name; every one when qual is "").
func (p *printer) fromStreams(qual string) []*catalog.Stream {
	var out []*catalog.Stream
	if p.sel == nil || p.sel.Query.From == nil {
		return nil
	}
	var walk func(n ast.ResultSetNode)
	walk = func(n ast.ResultSetNode) {
		switch t := n.(type) {
		case *ast.Join:
			walk(t.Left)
			if t.Right != nil {
				walk(t.Right)
			}
		case *ast.TableSource:
			tn, ok := t.Source.(*ast.TableName)
			if !ok {
				return
			}
			name := t.AsName.O
			if name == "" {
				name = tn.Name.O
			}
			if st := p.x.cat.Lookup(tn.Name.O); st != nil && (qual == "" || strings.EqualFold(name, qual)) {
				out = append(out, st)
			}
		}
	}
	walk(p.sel.Query.From.TableRefs)
	return out
}

// unnest prints the query's CROSS JOIN UNNEST (SPEC 2.10), "" when none.
func (bq *branchQuery) unnest() (string, error) {
	u := bq.sel.Unnest
	if u == nil {
		return "", nil
	}
	if len(u.Columns) == 0 {
		return "", parser.Errorf(u.Pos, "UNNEST needs its columns named for Flink: CROSS JOIN UNNEST(x) AS t (name)")
	}
	parts := make([]string, len(u.Path))
	for k, part := range u.Path {
		parts[k] = quote(part)
	}
	if p := bq.p; len(u.Path) > 0 && p.probe != nil && p.probe.st.Column(u.Path[0]) >= 0 {
		parts[0] = p.probeCol(u.Path[0])
	}
	if f := u.Expr; f != nil { // UNNEST(ARRAY[a, b]), UNNEST(STR_TO_MAP(s)): an expression of its own fragment
		p := bq.p
		casts, locate := p.casts, p.locate
		if f.Casts != nil {
			p.casts = f.Casts
		}
		if f.Locate != nil {
			p.locate = f.Locate
		}
		x, err := p.expr(f.Expr)
		p.casts, p.locate = casts, locate
		if err != nil {
			return "", err
		}
		parts = []string{x}
	}
	alias := u.Alias
	if alias == "" {
		alias = "u"
	}
	cols := make([]string, len(u.Columns))
	for k, c := range u.Columns {
		cols[k] = quote(c)
	}
	ord := ""
	if u.Ordinality {
		ord = " WITH ORDINALITY"
	}
	if u.Left { // LEFT JOIN UNNEST … ON TRUE keeps a row whose x is NULL or empty (Flink's own form)
		return " LEFT JOIN UNNEST(" + strings.Join(parts, ".") + ")" + ord + " AS " + quote(alias) + " (" + strings.Join(cols, ", ") + ") ON TRUE", nil
	}
	return " CROSS JOIN UNNEST(" + strings.Join(parts, ".") + ")" + ord + " AS " + quote(alias) + " (" + strings.Join(cols, ", ") + ")", nil
}

// take returns the predicate under which a branch takes a row (SPEC 2.1: its
// join matches and its WHERE is true), "" when it takes every row.
func (bq *branchQuery) take() (string, error) {
	_, preds, err := bq.from()
	if err != nil {
		return "", err
	}
	if w := bq.sel.Query.Where; w != nil {
		s, err := bq.p.expr(w)
		if err != nil {
			return "", err
		}
		preds = append(preds, s)
	}
	if len(preds) == 0 {
		return "", nil
	}
	return "(" + strings.Join(preds, ") AND (") + ")", nil
}

// fields prints the select list: * and probe.* expand to the stream's
// declared columns (the rowtime column must not leak into outputs), an
// unaliased expression is named by its text (SPEC 2).
func (bq *branchQuery) fields() (string, error) {
	p := bq.p
	var out []string
	grouped := bq.sel.Query.GroupBy != nil || hasAggregate(bq.sel.Query)
	for _, f := range bq.sel.Query.Fields.Fields {
		if f.WildCard != nil {
			tbl := strings.ToLower(f.WildCard.Table.O)
			if p.probe == nil || (tbl != "" && !p.probe.quals[tbl]) {
				if tbl != "" {
					out = append(out, quote(f.WildCard.Table.O)+".*")
				} else {
					out = append(out, "*")
				}
				continue
			}
			for _, c := range p.probe.st.Columns {
				out = append(out, p.qualified(c.Name))
			}
			if p.window != nil && !grouped && tbl == "" {
				for _, c := range []string{"window_start", "window_end", "window_time"} {
					s, _ := p.column(&ast.ColumnNameExpr{Name: &ast.ColumnName{Name: ast.NewCIStr(c)}})
					out = append(out, s+" AS "+quote(c))
				}
			}
			continue
		}
		s, err := p.expr(f.Expr)
		if err != nil {
			return "", err
		}
		switch {
		case f.AsName.O != "":
			s += " AS " + quote(f.AsName.O)
		case isColumn(f.Expr):
			if cn := unparen(f.Expr).(*ast.ColumnNameExpr); windowCols[cn.Name.Name.L] && p.window != nil {
				s += " AS " + quote(cn.Name.Name.L)
			}
		default:
			if t := strings.TrimSpace(bq.sel.FieldText[f]); t != "" {
				s += " AS " + quote(t)
			}
		}
		out = append(out, s)
	}
	return strings.Join(out, ", "), nil
}

func unparen(e ast.ExprNode) ast.ExprNode {
	for {
		p, ok := e.(*ast.ParenthesesExpr)
		if !ok {
			return e
		}
		e = p.Expr
	}
}

func isColumn(e ast.ExprNode) bool {
	_, ok := unparen(e).(*ast.ColumnNameExpr)
	return ok
}

// aggFinder finds an aggregate call.
type aggFinder struct{ found bool }

func (a *aggFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch t := n.(type) {
	case *ast.AggregateFuncExpr:
		a.found = true
		return n, true
	case *ast.SubqueryExpr:
		return n, true
	case *ast.FuncCallExpr:
		if f := t.FnName.L; f == "listagg" || f == "sq_firstval" || f == "sq_lastval" {
			a.found = true
			return n, true
		}
	}
	return n, false
}
func (a *aggFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// hasAggregate reports whether sel's select list or HAVING calls an aggregate.
func hasAggregate(sel *ast.SelectStmt) bool {
	f := &aggFinder{}
	for _, fl := range sel.Fields.Fields {
		if fl.Expr != nil {
			fl.Expr.Accept(f)
		}
	}
	if sel.Having != nil {
		sel.Having.Expr.Accept(f)
	}
	return f.found
}

// tail prints GROUP BY, HAVING and, when the query has no ORDER BY, LIMIT
// (a query's ORDER BY and its LIMIT are bq.sort's: where they go depends on
// Flink's runtime mode, which write knows once every query is printed).
func (bq *branchQuery) tail() (string, error) {
	p, sel := bq.p, bq.sel.Query
	var b strings.Builder
	if sel.GroupBy != nil {
		p.inGroupBy = true
		keys, err := p.byItems(sel.GroupBy.Items)
		p.inGroupBy = false
		if err != nil {
			return "", err
		}
		b.WriteString(" GROUP BY " + keys)
	}
	if sel.Having != nil {
		s, err := p.expr(sel.Having.Expr)
		if err != nil {
			return "", err
		}
		b.WriteString(" HAVING " + s)
	}
	if sel.OrderBy == nil {
		lim, err := bq.limit()
		if err != nil {
			return "", err
		}
		b.WriteString(lim)
	}
	return b.String(), nil
}

// limit prints the query's LIMIT (" LIMIT n"), "" when it has none.
func (bq *branchQuery) limit() (string, error) {
	p, sel := bq.p, bq.sel.Query
	if sel.Limit == nil || sel.Limit.Count == nil {
		return "", nil
	}
	v, ok := sel.Limit.Count.(*test_driver.ValueExpr)
	if !ok {
		return "", p.errorf(sel.Limit.Count, "LIMIT takes a number")
	}
	s, err := p.literal(v)
	if err != nil {
		return "", err
	}
	return " LIMIT " + s, nil
}

// sortClause is the ORDER BY [LIMIT] a query ends with (SPEC 2.9), printed
// for both of Flink's runtime modes: batch holds the keys as written (batch
// mode sorts on anything), stream the same keys with the event time as its
// Flink time attribute (the rowtime column of a BIGINT event time), "" when
// the first key is not the event time ascending, the only sort Flink's
// streaming mode runs without a LIMIT. limit is " LIMIT n" or "", at the
// offset of the first key (the difference's line).
type sortClause struct {
	batch, stream, limit string
	at                   int
}

// sort prints the query's ORDER BY and LIMIT, nil when it has no ORDER BY.
// A key that names a select-list alias (as the planner resolves it) prints
// as that alias.
func (bq *branchQuery) sort() (*sortClause, error) {
	p, sel := bq.p, bq.sel.Query
	if sel.OrderBy == nil {
		return nil, nil
	}
	sc := &sortClause{}
	var batch, stream []string
	for k, it := range sel.OrderBy.Items {
		if k == 0 && p.locate != nil {
			sc.at = p.locate(it.Expr)
		}
		var s string
		if cn, ok := unparen(it.Expr).(*ast.ColumnNameExpr); ok && cn.Name.Table.O == "" && selectAlias(sel, cn.Name.Name.L) {
			s = quote(cn.Name.Name.O)
		} else {
			var err error
			if s, err = p.expr(it.Expr); err != nil {
				return nil, err
			}
		}
		t := s
		if p.eventTimeRef(it.Expr) {
			t = p.qualified(rowtimeName(p.probe.st))
			if !bigintTime(p.probe.st) {
				t = s
			}
		}
		if it.Desc {
			s, t = s+" DESC", t+" DESC"
		}
		batch, stream = append(batch, s), append(stream, t)
	}
	sc.batch = strings.Join(batch, ", ")
	if first := sel.OrderBy.Items[0]; !first.Desc && p.eventTimeRef(first.Expr) {
		sc.stream = strings.Join(stream, ", ")
	}
	var err error
	sc.limit, err = bq.limit()
	return sc, err
}

// selectAlias reports whether sel's select list names a column name (lower
// case) with AS.
func selectAlias(sel *ast.SelectStmt, name string) bool {
	for _, f := range sel.Fields.Fields {
		if f.AsName.L != "" && f.AsName.L == name {
			return true
		}
	}
	return false
}

// subquery prints a SELECT inside an expression (IN, EXISTS): its tables are
// a new scope, the probe keeps its qualifier.
func (p *printer) subquery(sel *ast.SelectStmt) (string, error) {
	var from string
	var preds []string
	pushed := 0
	if sel.From != nil && sel.From.TableRefs != nil {
		var rels []*scopeRel
		var collect func(n ast.ResultSetNode) error
		collect = func(n ast.ResultSetNode) error {
			switch t := n.(type) {
			case *ast.Join:
				if err := collect(t.Left); err != nil {
					return err
				}
				if t.Right != nil {
					return collect(t.Right)
				}
			case *ast.TableSource:
				r, err := p.scopeOf(t)
				if err != nil {
					return err
				}
				rels = append(rels, r)
			}
			return nil
		}
		if err := collect(sel.From.TableRefs); err != nil {
			return "", err
		}
		p.scopes = append(p.scopes, rels...)
		pushed = len(rels)
		var err error
		from, preds, err = p.fromNode(sel.From.TableRefs, false)
		if err != nil {
			return "", err
		}
	}
	defer func() { p.scopes = p.scopes[:len(p.scopes)-pushed] }()
	var fields []string
	for _, f := range sel.Fields.Fields {
		if f.WildCard != nil {
			fields = append(fields, "*")
			continue
		}
		s, err := p.expr(f.Expr)
		if err != nil {
			return "", err
		}
		if f.AsName.O != "" {
			s += " AS " + quote(f.AsName.O)
		}
		fields = append(fields, s)
	}
	q := "SELECT " + strings.Join(fields, ", ")
	if from != "" {
		q += " FROM " + from
	}
	if sel.Where != nil {
		s, err := p.expr(sel.Where)
		if err != nil {
			return "", err
		}
		preds = append(preds, s)
	}
	if len(preds) > 0 {
		q += " WHERE (" + strings.Join(preds, ") AND (") + ")"
	}
	if sel.GroupBy != nil {
		keys, err := p.byItems(sel.GroupBy.Items)
		if err != nil {
			return "", err
		}
		q += " GROUP BY " + keys
	}
	if sel.Having != nil {
		s, err := p.expr(sel.Having.Expr)
		if err != nil {
			return "", err
		}
		q += " HAVING " + s
	}
	return q, nil
}

// derived returns the relation tn names when it is not a stream (SPEC
// 2.6): a subquery in FROM (its placeholder name), a WITH name in scope or a
// view; with its text in parentheses, each SELECT printed as the branch
// queries are (names quoted, SPEC 2's rewrites, BIGINT event time through
// its rowtime column), UNION ALL between them. A WITH name and a view are
// written inline, as the subquery they stand for (tableSource makes one a
// window TVF reads a CREATE TEMPORARY VIEW instead). nil when tn names a
// stream.
func (p *printer) derived(ts *ast.TableSource, tn *ast.TableName) (*catalog.Stream, string, error) {
	st, _, body, err := p.derivedRel(ts, tn)
	if st == nil || err != nil {
		return st, "", err
	}
	text := "(" + body + ")"
	if ts.AsName.O == "" && !parser.IsPlaceholder(tn.Name.O) {
		text += " AS " + quote(tn.Name.O) // (a WITH name or a view read by its name)
	}
	return st, text, nil
}

// derivedRel is derived's work: the relation tn names (nil when a
// stream), its parsed query and its text without parentheses.
func (p *printer) derivedRel(ts *ast.TableSource, tn *ast.TableName) (*catalog.Stream, *parser.Relation, string, error) {
	name := tn.Name.O
	script, with := p.script, p.with
	if p.sel != nil && p.sel.With != nil {
		with = p.sel.With
	}
	var rel *parser.Relation
	switch {
	case parser.IsPlaceholder(name):
		if p.sel != nil {
			rel = p.sel.Derived[name]
		}
		if rel == nil {
			return nil, nil, "", p.errorf(ts, "a subquery in FROM has no Flink SQL translation here")
		}
	case cteOf(with, name) >= 0:
		k := cteOf(with, name)
		rel, with = with[k].Rel, with[:k]
	case p.x.views[strings.ToLower(name)] != nil && p.x.cat.Lookup(name) == nil:
		v := p.x.views[strings.ToLower(name)]
		rel, script, with = v.decl.Rel, v.script, nil
	default:
		return nil, nil, "", nil
	}
	pl := &planner.Planner{Cat: p.x.cat, Source: script.Source, Funcs: p.x.funcs}
	st, err := pl.PlanRelation(rel, name, with)
	if err != nil {
		// the ranking subquery of a Top-N or a deduplication (SPEC 2.9)
		// plans only with the query around it, which the session planned:
		// its columns are enough to print the query that reads it
		if st = p.x.rankColumns(pl, rel, with); st == nil {
			return nil, nil, "", err
		}
	}
	text, perr := p.x.relation(script, rel, with)
	if perr != nil {
		text = script.Source[rel.Start:rel.End]
		p.x.diff(script, rel.Start, "this query is exported as written (%v): check its names and operators on Flink", perr)
	}
	return st, rel, text, nil
}

// cteOf returns the index of the WITH definition called name, -1 when none.
func cteOf(with []*parser.CTE, name string) int {
	for k := len(with) - 1; k >= 0; k-- {
		if strings.EqualFold(with[k].Name, name) {
			return k
		}
	}
	return -1
}

// relation prints rel (a subquery, WITH definition or view of script):
// each SELECT as a branch query, UNION ALL between them.
func (x *exporter) relation(script *parser.Script, rel *parser.Relation, with []*parser.CTE) (string, error) {
	var parts []string
	for _, sel := range rel.Selects {
		bq := x.newBranchQuery(script, sel, x.probeOf(sel), "")
		bq.p.with = with
		bq.p.outQual = bq.defaultQual()
		fields, err := bq.fields()
		if err != nil {
			return "", err
		}
		from, preds, err := bq.from()
		if err != nil {
			return "", err
		}
		if w := sel.Query.Where; w != nil {
			c, err := bq.p.expr(w)
			if err != nil {
				return "", err
			}
			preds = append(preds, c)
		}
		if len(rel.Selects) == 1 {
			preds = append(preds, x.routing[rel]...) // (a ranking branch's first match: exporter.routing)
		}
		if ob := sel.Query.OrderBy; ob != nil { // SPEC 2.9: never dropped silently
			return "", bq.p.errorf(ob.Items[0].Expr, "ORDER BY inside a subquery, a WITH definition or a view has no Flink SQL translation: order the outer query")
		}
		tail, err := bq.tail()
		if err != nil {
			return "", err
		}
		// what the query's own branch would list (branchDiffs), at this
		// query's line: CURRENT_WATERMARK, which also keeps the export in
		// Flink's streaming mode (its batch mode has no watermark), and LIMIT
		if bq.p.usesWatermark {
			x.relWatermark = true
			x.diff(script, max(sel.Start, bq.p.wmPos), watermarkDiff)
		}
		if sel.Query.Limit != nil {
			x.diff(script, sel.Start, "LIMIT in a subquery, a WITH definition or a view takes the first rows in input order in streamql; Flink takes any rows of its parallel instances")
		}
		q := "SELECT " + fields
		if from != "" {
			q += " FROM " + from
		}
		if len(preds) > 0 {
			q += " WHERE (" + strings.Join(preds, ") AND (") + ")"
		}
		parts = append(parts, q+tail)
	}
	return strings.Join(parts, " UNION ALL "), nil
}

// rankInner returns the ranking subquery a Top-N or deduplication query
// sel reads in its FROM (SPEC 2.9: SELECT … FROM (SELECT …, ROW_NUMBER()
// OVER (…) AS rn FROM s WHERE …) WHERE rn <= N) and its one SELECT, whose
// WHERE is the rows a side branch of that shape takes (SPEC 2.1); nil when
// sel is not of that shape.
func rankInner(sel *parser.Select) (*parser.Relation, *parser.Select) {
	ts := leftmost(sel.Query)
	if ts == nil {
		return nil, nil
	}
	tn, ok := ts.Source.(*ast.TableName)
	if !ok || !parser.IsPlaceholder(tn.Name.O) {
		return nil, nil
	}
	rel := sel.Derived[tn.Name.O]
	if rel == nil || len(rel.Selects) != 1 || rel.Selects[0].Query == nil || rel.Selects[0].Query.Fields == nil {
		return nil, nil
	}
	for _, f := range rel.Selects[0].Query.Fields.Fields {
		if w, ok := f.Expr.(*ast.WindowFuncExpr); ok {
			switch strings.ToLower(w.Name) {
			case "row_number", "rank", "dense_rank":
				return rel, rel.Selects[0]
			}
		}
	}
	return nil, nil
}

// probeOf returns the stream sel reads first (its window TVF's, or its
// leftmost table's), nil when that is not a stream (a subquery, a WITH
// name, a view).
func (x *exporter) probeOf(sel *parser.Select) *catalog.Stream {
	if sel.Window != nil {
		return x.cat.Lookup(sel.Window.Stream)
	}
	if ts := leftmost(sel.Query); ts != nil {
		if tn, ok := ts.Source.(*ast.TableName); ok && !parser.IsPlaceholder(tn.Name.O) && cteOf(sel.With, tn.Name.O) < 0 {
			return x.cat.Lookup(tn.Name.O)
		}
	}
	return nil
}

// rankColumns returns the columns of rel when it is one SELECT that ranks
// rows (ROW_NUMBER, RANK or DENSE_RANK OVER), as a relation of their names
// (types unknown): * and the select list's names over a stream, its window
// TVF, or a relation it reads (a subquery in FROM, a WITH name in with or a
// view, planned by pl, or itself a ranking); nil when rel is not that shape.
func (x *exporter) rankColumns(pl *planner.Planner, rel *parser.Relation, with []*parser.CTE) *catalog.Stream {
	if len(rel.Selects) != 1 {
		return nil
	}
	sel := rel.Selects[0]
	ranks := false
	var from *catalog.Stream
	if sel.Window != nil {
		from = x.cat.Lookup(sel.Window.Stream)
	} else if ts := leftmost(sel.Query); ts != nil {
		if tn, ok := ts.Source.(*ast.TableName); ok {
			from = x.readColumns(pl, sel, tn.Name.O, with)
		}
	}
	st := &catalog.Stream{Name: "ranked", EventTime: -1}
	for _, f := range sel.Query.Fields.Fields {
		switch {
		case f.WildCard != nil:
			if from == nil {
				return nil
			}
			st.Columns = append(st.Columns, from.Columns...)
			if sel.Window != nil {
				for _, c := range []string{"window_start", "window_end", "window_time"} {
					st.Columns = append(st.Columns, catalog.Column{Name: c})
				}
			}
		case f.AsName.O != "":
			st.Columns = append(st.Columns, catalog.Column{Name: f.AsName.O})
		default:
			cn, ok := unparen(f.Expr).(*ast.ColumnNameExpr)
			if !ok {
				return nil
			}
			st.Columns = append(st.Columns, catalog.Column{Name: cn.Name.Name.O})
		}
		if w, ok := f.Expr.(*ast.WindowFuncExpr); ok && rankNames[strings.ToLower(w.Name)] {
			ranks = true
		}
	}
	if !ranks {
		return nil
	}
	return st
}

// readColumns returns the relation called name that sel reads: a stream
// of the catalog, or sel's subquery in FROM, a WITH name of sel or with, or
// a view, planned by pl for its columns (a ranking one by rankColumns); nil
// when none plans.
func (x *exporter) readColumns(pl *planner.Planner, sel *parser.Select, name string, with []*parser.CTE) *catalog.Stream {
	if sel.With != nil {
		with = sel.With
	}
	var rel *parser.Relation
	switch {
	case parser.IsPlaceholder(name):
		rel = sel.Derived[name]
	case cteOf(with, name) >= 0:
		k := cteOf(with, name)
		rel, with = with[k].Rel, with[:k]
	case x.views[strings.ToLower(name)] != nil && x.cat.Lookup(name) == nil:
		rel, with = x.views[strings.ToLower(name)].decl.Rel, nil
	default:
		return x.cat.Lookup(name)
	}
	if rel == nil {
		return nil
	}
	if st, err := pl.PlanRelation(rel, name, with); err == nil {
		return st
	}
	return x.rankColumns(pl, rel, with)
}

// rankNames are the ranking functions of a Top-N (SPEC 2.9).
var rankNames = map[string]bool{"row_number": true, "rank": true, "dense_rank": true}
