package export

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/test_driver"

	"streamql/catalog"
	"streamql/catalog/textconv"
	"streamql/parser"
)

// scopeRel is a relation a name may refer to inside a query: the stream and
// the names (alias or stream name, lower case) that qualify it.
type scopeRel struct {
	st    *catalog.Stream
	quals map[string]bool
}

// printer prints TiDB's AST of one statement as Flink SQL (package doc: why
// from the AST). The probe relation's columns are re-qualified by outQual, so
// that one branch's predicate can be printed inside another branch's query
// (first-match routing, SPEC 2.1).
type printer struct {
	x       *exporter
	script  *parser.Script
	casts   parser.CastTypes
	joins   map[*ast.Join]parser.JoinKind
	locate  parser.Locator
	probe   *scopeRel
	outQual string
	scopes  []*scopeRel
	// window is the query's window TVF, nil when none; inGroupBy is set while
	// GROUP BY prints (window columns stay Flink's there).
	window    *parser.WindowTVF
	inGroupBy bool
	// sel is the statement printed (its subqueries and WITH definitions,
	// SPEC 2.6), nil for expressions of no query; with are the WITH
	// definitions of the query around it (a subquery's).
	sel  *parser.Select
	with []*parser.CTE
	// wm is set for a WATERMARK expression over a BIGINT column: INTERVALs
	// are milliseconds there (SPEC 2.3).
	wm bool
	// usesWatermark is set once CURRENT_WATERMARK was printed, wmPos is the
	// offset of its first call.
	usesWatermark bool
	wmPos         int
}

// plainPrinter prints expressions that read no stream (INSERT … VALUES rows).
func (x *exporter) plainPrinter(script *parser.Script, casts parser.CastTypes) *printer {
	return &printer{x: x, script: script, casts: casts}
}

// wmPrinter prints the WATERMARK expression of a stream's declaration.
func (x *exporter) wmPrinter(d *streamDecl) *printer {
	w := d.decl.Watermark
	return &printer{x: x, script: d.script, casts: w.Casts, locate: w.Locate,
		probe: &scopeRel{st: d.st, quals: map[string]bool{}}, wm: bigintTime(d.st)}
}

// errorf returns a positioned error at node n.
func (p *printer) errorf(n ast.Node, format string, args ...any) error {
	off := 0
	if p.locate != nil && n != nil {
		off = p.locate(n)
	}
	return parser.Errorf(off, format, args...)
}

// qualified renders a reference to column col of the probe relation.
func (p *printer) qualified(col string) string {
	if p.outQual == "" {
		return quote(col)
	}
	return quote(p.outQual) + "." + quote(col)
}

var windowCols = map[string]bool{"window_start": true, "window_end": true, "window_time": true}

// epochMillis turns a Flink TIMESTAMP_LTZ(3) into epoch milliseconds, as a
// window column over a BIGINT time column is in SPEC 2.4 (the exported script
// runs in UTC).
func epochMillis(ref string) string {
	return "(1000 * UNIX_TIMESTAMP(DATE_FORMAT(" + ref + ", 'yyyy-MM-dd HH:mm:ss')) + CAST(DATE_FORMAT(" + ref + ", 'SSS') AS BIGINT))"
}

// column prints a column reference with its declared spelling (Flink's names
// are case-sensitive, SPEC 1's are not).
func (p *printer) column(n *ast.ColumnNameExpr) (string, error) {
	tbl, col := n.Name.Table.O, n.Name.Name.O
	lt := strings.ToLower(tbl)
	onProbe := p.probe != nil && (tbl == "" || p.probe.quals[lt])
	if p.window != nil && onProbe && windowCols[strings.ToLower(col)] {
		ref := p.qualified(strings.ToLower(col))
		if p.bigintWindow() && !p.inGroupBy {
			return epochMillis(ref), nil
		}
		return ref, nil
	}
	if tbl != "" {
		if p.probe != nil && p.probe.quals[lt] {
			return p.probeCol(col), nil
		}
		for i := len(p.scopes) - 1; i >= 0; i-- {
			if s := p.scopes[i]; s.quals[lt] {
				if c := s.st.Column(col); c >= 0 {
					col = s.st.Columns[c].Name
				}
				return quote(tbl) + "." + quote(col), nil
			}
		}
		if p.probe != nil {
			if c := p.probe.st.Column(tbl); c >= 0 && p.probe.st.Columns[c].Type.IsNested() {
				// a ROW column's field (SPEC 2.10: dev.name)
				return p.probeCol(tbl) + "." + quote(col), nil
			}
		}
		return quote(tbl) + "." + quote(col), nil
	}
	for i := len(p.scopes) - 1; i >= 0; i-- {
		if c := p.scopes[i].st.Column(col); c >= 0 {
			return quote(p.scopes[i].st.Columns[c].Name), nil
		}
	}
	if p.probe != nil && p.probe.st.Column(col) >= 0 {
		return p.probeCol(col), nil
	}
	return quote(col), nil
}

// bigintWindow reports whether the query's window reads a BIGINT column
// (epoch ms): its window columns are BIGINT in SPEC 2.4, TIMESTAMP_LTZ in Flink.
func (p *printer) bigintWindow() bool {
	c := p.probe.st.Column(p.window.TimeCol)
	return c >= 0 && p.probe.st.Columns[c].Type == catalog.BigInt
}

// probeCol prints column col of the probe relation, qualified by outQual.
func (p *printer) probeCol(col string) string {
	if c := p.probe.st.Column(col); c >= 0 {
		col = p.probe.st.Columns[c].Name
	}
	return p.qualified(col)
}

// typeOf returns the SPEC 1 type of e where it is known without planning (a
// column, a literal, a CAST), else Unknown.
func (p *printer) typeOf(e ast.ExprNode) catalog.Type {
	switch n := e.(type) {
	case *ast.ParenthesesExpr:
		return p.typeOf(n.Expr)
	case *ast.ColumnNameExpr:
		col := n.Name.Name.O
		for i := len(p.scopes) - 1; i >= 0; i-- {
			if c := p.scopes[i].st.Column(col); c >= 0 {
				return p.scopes[i].st.Columns[c].Type
			}
		}
		if p.probe != nil {
			if c := p.probe.st.Column(col); c >= 0 {
				return p.probe.st.Columns[c].Type
			}
		}
	case *test_driver.ValueExpr:
		switch n.Kind() {
		case test_driver.KindInt64, test_driver.KindUint64:
			return catalog.BigInt
		case test_driver.KindFloat64, test_driver.KindFloat32, test_driver.KindMysqlDecimal:
			return catalog.Double
		case test_driver.KindString, test_driver.KindBytes:
			return catalog.Varchar
		}
	case *ast.FuncCastExpr:
		if t, err := catalog.ParseType(p.casts[n]); err == nil {
			return t
		}
	}
	return catalog.Unknown
}

// literal prints a literal by its kind: a decimal literal is a DOUBLE in SPEC 2
// (1.5E0 in Calcite), TRUE and FALSE stay words.
func (p *printer) literal(n *test_driver.ValueExpr) (string, error) {
	switch n.Kind() {
	case test_driver.KindNull:
		return "NULL", nil
	case test_driver.KindInt64:
		t := strings.ToUpper(strings.TrimSpace(n.OriginalText()))
		if t == "TRUE" || t == "FALSE" {
			return t, nil
		}
		return strconv.FormatInt(n.GetInt64(), 10), nil
	case test_driver.KindUint64:
		return strconv.FormatUint(n.GetUint64(), 10), nil
	case test_driver.KindFloat64, test_driver.KindFloat32:
		return strconv.FormatFloat(n.GetFloat64(), 'E', -1, 64), nil
	case test_driver.KindMysqlDecimal:
		s := n.GetMysqlDecimal().String()
		if !strings.ContainsAny(s, "eE") {
			s += "E0"
		}
		return s, nil
	case test_driver.KindString, test_driver.KindBytes:
		return str(n.GetString()), nil
	}
	return "", p.errorf(n, "this literal has no Flink SQL form")
}

var binOps = map[opcode.Op]string{
	opcode.LogicAnd: "AND", opcode.LogicOr: "OR", opcode.EQ: "=", opcode.NE: "<>", opcode.LT: "<",
	opcode.LE: "<=", opcode.GT: ">", opcode.GE: ">=", opcode.NullEQ: "IS NOT DISTINCT FROM",
	opcode.Plus: "+", opcode.Minus: "-", opcode.Mul: "*",
}

// isBigintWatermark reports whether e is CURRENT_WATERMARK of a BIGINT event
// time column, which Flink gives as TIMESTAMP_LTZ(3).
func (p *printer) isBigintWatermark(e ast.ExprNode) bool {
	for {
		pe, ok := e.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		e = pe.Expr
	}
	f, ok := e.(*ast.FuncCallExpr)
	return ok && f.FnName.L == "current_watermark" && p.probe != nil && bigintTime(p.probe.st)
}

// expr prints e as Flink SQL, parenthesised so that no precedence rule of the
// two dialects matters.
func (p *printer) expr(e ast.ExprNode) (string, error) {
	switch n := e.(type) {
	case *ast.ParenthesesExpr:
		s, err := p.expr(n.Expr)
		return "(" + s + ")", err
	case *ast.PatternRegexpExpr: // s [NOT] REGEXP p: Flink's REGEXP(s, p) function
		parts, err := p.exprs(n.Expr, n.Pattern)
		if err != nil {
			return "", err
		}
		return not(n.Not) + "REGEXP(" + parts[0] + ", " + parts[1] + ")", nil
	case *ast.TimeUnitExpr: // TIMESTAMPADD(HOUR, n, ts)'s unit
		return strings.ToUpper(n.Unit.String()), nil
	case *parser.MillisecondUnit: // (the parser's MILLISECOND stand-in)
		return "MILLISECOND", nil
	case *ast.ColumnNameExpr:
		return p.column(n)
	case *test_driver.ValueExpr:
		return p.literal(n)
	case *ast.UnaryOperationExpr:
		s, err := p.expr(n.V)
		if err != nil {
			return "", err
		}
		switch n.Op {
		case opcode.Not, opcode.Not2:
			return "NOT (" + s + ")", nil
		case opcode.Minus:
			return "-(" + s + ")", nil
		case opcode.Plus:
			return s, nil
		}
		return "", p.errorf(n, "operator %s has no Flink SQL form", n.Op)
	case *ast.BinaryOperationExpr:
		l, err := p.expr(n.L)
		if err != nil {
			return "", err
		}
		r, err := p.expr(n.R)
		if err != nil {
			return "", err
		}
		switch n.Op {
		case opcode.Div: // SPEC 2: '/' gives DOUBLE, NULL on zero
			return "(CAST(" + l + " AS DOUBLE) / NULLIF(CAST(" + r + " AS DOUBLE), 0))", nil
		case opcode.IntDiv:
			return "CAST((" + l + ") / NULLIF(" + r + ", 0) AS BIGINT)", nil
		case opcode.Mod:
			return "MOD(" + l + ", NULLIF(" + r + ", 0))", nil
		}
		op, ok := binOps[n.Op]
		if !ok {
			return "", p.errorf(n, "operator %s has no Flink SQL form", n.Op)
		}
		if p.isBigintWatermark(n.R) && !p.isBigintWatermark(n.L) {
			l = "TO_TIMESTAMP_LTZ(" + l + ", 3)"
		} else if p.isBigintWatermark(n.L) && !p.isBigintWatermark(n.R) {
			r = "TO_TIMESTAMP_LTZ(" + r + ", 3)"
		}
		return "(" + l + ") " + op + " (" + r + ")", nil
	case *ast.IsNullExpr:
		s, err := p.expr(n.Expr)
		return "(" + s + ") IS " + not(n.Not) + "NULL", err
	case *ast.IsTruthExpr:
		s, err := p.expr(n.Expr)
		w := "TRUE"
		if n.True == 0 {
			w = "FALSE"
		}
		return "(" + s + ") IS " + not(n.Not) + w, err
	case *ast.BetweenExpr:
		parts, err := p.exprs(n.Expr, n.Left, n.Right)
		if err != nil {
			return "", err
		}
		return "(" + parts[0] + ") " + not(n.Not) + "BETWEEN (" + parts[1] + ") AND (" + parts[2] + ")", nil
	case *ast.PatternInExpr:
		s, err := p.expr(n.Expr)
		if err != nil {
			return "", err
		}
		if n.Sel != nil {
			q, err := p.expr(n.Sel)
			return "(" + s + ") " + not(n.Not) + "IN " + q, err
		}
		list, err := p.exprs(n.List...)
		return "(" + s + ") " + not(n.Not) + "IN (" + strings.Join(list, ", ") + ")", err
	case *ast.ExistsSubqueryExpr:
		q, err := p.expr(n.Sel)
		return not(n.Not) + "EXISTS " + q, err
	case *ast.SubqueryExpr:
		sel, ok := n.Query.(*ast.SelectStmt)
		if !ok {
			return "", p.errorf(n, "this subquery has no Flink SQL form")
		}
		q, err := p.subquery(sel)
		return "(" + q + ")", err
	case *ast.PatternLikeOrIlikeExpr:
		parts, err := p.exprs(n.Expr, n.Pattern)
		if err != nil {
			return "", err
		}
		w := "LIKE"
		if !n.IsLike {
			w = "ILIKE"
		}
		s := "(" + parts[0] + ") " + not(n.Not) + w + " (" + parts[1] + ")"
		if n.EscapeExplicit && n.Escape != 0 {
			s += " ESCAPE " + str(string(rune(n.Escape)))
		}
		return s, nil
	case *ast.CaseExpr:
		var b strings.Builder
		b.WriteString("CASE")
		if n.Value != nil {
			s, err := p.expr(n.Value)
			if err != nil {
				return "", err
			}
			b.WriteString(" " + s)
		}
		for _, w := range n.WhenClauses {
			parts, err := p.exprs(w.Expr, w.Result)
			if err != nil {
				return "", err
			}
			b.WriteString(" WHEN " + parts[0] + " THEN " + parts[1])
		}
		if n.ElseClause != nil {
			s, err := p.expr(n.ElseClause)
			if err != nil {
				return "", err
			}
			b.WriteString(" ELSE " + s)
		}
		b.WriteString(" END")
		return b.String(), nil
	case *ast.FuncCastExpr:
		s, err := p.expr(n.Expr)
		if err != nil {
			return "", err
		}
		t, terr := catalog.ParseType(p.casts[n])
		if terr != nil {
			return "", p.errorf(n, "CAST to %s has no Flink SQL form", p.casts[n])
		}
		return "TRY_CAST(" + s + " AS " + flinkType(t) + ")", nil // SPEC 1: a failing CAST gives NULL
	case *ast.FuncCallExpr:
		return p.call(n)
	case *ast.AggregateFuncExpr:
		return p.aggregate(n)
	case *ast.WindowFuncExpr:
		return p.windowFunc(n)
	}
	return "", p.errorf(e, "this expression (%T) has no Flink SQL translation yet", e)
}

func not(b bool) string {
	if b {
		return "NOT "
	}
	return ""
}

// exprs prints each of es.
func (p *printer) exprs(es ...ast.ExprNode) ([]string, error) {
	out := make([]string, len(es))
	for i, e := range es {
		s, err := p.expr(e)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

var intervalMs = map[string]int64{"MICROSECOND": 0, "MILLISECOND": 1, "SECOND": 1000, "MINUTE": 60_000, "HOUR": 3_600_000, "DAY": 86_400_000, "WEEK": 7 * 86_400_000}

// call prints a scalar function call, mapping what differs (SPEC 2, 2.10).
func (p *printer) call(n *ast.FuncCallExpr) (string, error) {
	name := n.FnName.L
	switch name {
	case "date_add", "date_sub", "adddate", "subdate": // x ± INTERVAL 'v' UNIT (parser/tidb.go)
		if len(n.Args) != 3 {
			return "", p.errorf(n, "write intervals as x - INTERVAL '5' SECOND")
		}
		x, err := p.expr(n.Args[0])
		if err != nil {
			return "", err
		}
		v, ok := n.Args[1].(*test_driver.ValueExpr)
		u, ok2 := n.Args[2].(*ast.TimeUnitExpr)
		if !ok || !ok2 {
			return "", p.errorf(n, "write intervals as x - INTERVAL '5' SECOND")
		}
		op := "+"
		if name == "date_sub" || name == "subdate" {
			op = "-"
		}
		vs := strings.TrimSpace(fmt.Sprint(v.GetValue()))
		if d, ok := v.GetValue().(interface{ String() string }); ok {
			vs = d.String()
		}
		unit := strings.ToUpper(u.Unit.String())
		if a, b, ok := strings.Cut(unit, "_"); ok { // INTERVAL '1 02:03' DAY TO MINUTE, which TiDB calls DAY_MINUTE
			unit = a + " TO " + b
		}
		if p.wm || p.typeOf(n.Args[0]) == catalog.BigInt { // SPEC 2.3: milliseconds on a BIGINT
			r, ok := new(big.Rat).SetString(vs)
			ms, ok2 := intervalMs[unit]
			if !ok || !ok2 || ms == 0 {
				return "", p.errorf(n, "INTERVAL '%s' %s has no millisecond form", vs, unit)
			}
			r.Mul(r, new(big.Rat).SetInt64(ms))
			if !r.IsInt() {
				return "", p.errorf(n, "INTERVAL '%s' %s is not a whole number of milliseconds", vs, unit)
			}
			return "(" + x + ") " + op + " " + r.Num().String(), nil
		}
		return "(" + x + ") " + op + " INTERVAL " + str(vs) + " " + unit, nil
	case "trim": // TiDB's (s, chars[, direction]) of TRIM([dir] [chars FROM] s): Flink's own syntax
		if len(n.Args) < 2 {
			break
		}
		a, err := p.exprs(n.Args[:2]...)
		if err != nil {
			return "", err
		}
		dir := "BOTH"
		if len(n.Args) == 3 {
			if d, ok := n.Args[2].(*ast.TrimDirectionExpr); ok {
				switch d.Direction {
				case ast.TrimLeading:
					dir = "LEADING"
				case ast.TrimTrailing:
					dir = "TRAILING"
				}
			}
		}
		return "TRIM(" + dir + " " + a[1] + " FROM " + a[0] + ")", nil
	case "current_watermark":
		if !p.usesWatermark && p.locate != nil {
			p.wmPos = p.locate(n)
		}
		p.usesWatermark = true
		if len(n.Args) != 1 || p.probe == nil {
			return "", p.errorf(n, "CURRENT_WATERMARK takes the stream's event-time column")
		}
		if bigintTime(p.probe.st) {
			return "CURRENT_WATERMARK(" + p.qualified(rowtimeName(p.probe.st)) + ")", nil
		}
		s, err := p.expr(n.Args[0])
		return "CURRENT_WATERMARK(" + s + ")", err
	case "if":
		if len(n.Args) != 3 {
			return "", p.errorf(n, "IF takes a condition and two values")
		}
		parts, err := p.exprs(n.Args...)
		if err != nil {
			return "", err
		}
		return "CASE WHEN (" + parts[0] + ") IS TRUE THEN " + parts[1] + " ELSE " + parts[2] + " END", nil
	case "concat":
		var parts []string
		for _, a := range n.Args {
			s, err := p.expr(a)
			if err != nil {
				return "", err
			}
			if p.typeOf(a) != catalog.Varchar { // SPEC 2: numbers convert to text
				s = "CAST(" + s + " AS STRING)"
			}
			parts = append(parts, s)
		}
		return "CONCAT(" + strings.Join(parts, ", ") + ")", nil
	case "listagg":
		parts, err := p.exprs(n.Args...)
		if err != nil {
			return "", err
		}
		if len(parts) > 0 && p.typeOf(n.Args[0]) != catalog.Varchar {
			parts[0] = "CAST(" + parts[0] + " AS STRING)"
		}
		return "LISTAGG(" + strings.Join(parts, ", ") + ")", nil
	case "sq_firstval", "sq_lastval":
		parts, err := p.exprs(n.Args...)
		f := "FIRST_VALUE"
		if name == "sq_lastval" {
			f = "LAST_VALUE"
		}
		return f + "(" + strings.Join(parts, ", ") + ")", err
	case "item": // a[i], m['k'] (SPEC 2.10; parser/tidb.go)
		parts, err := p.exprs(n.Args...)
		if err != nil || len(parts) != 2 {
			return "", err
		}
		return "(" + parts[0] + ")[" + parts[1] + "]", nil
	case "position", "similar_to", "is_json", "json_value", "json_query", "json_object", "array_value_constructor", "map_value_constructor", "row_value_constructor":
		if out, ok, err := p.flinkSyntax(name, n); ok || err != nil {
			return out, err
		}
	case "extract": // EXTRACT(unit FROM ts): TiDB's extract(unit, ts)
		if len(n.Args) != 2 {
			break
		}
		parts, err := p.exprs(n.Args...)
		if err != nil {
			return "", err
		}
		return "EXTRACT(" + parts[0] + " FROM " + parts[1] + ")", nil
	case "sq_extract": // EXTRACT(EPOCH FROM ts) and the other units TiDB lacks (parser/tidb.go)
		v, ok := n.Args[0].(*test_driver.ValueExpr)
		if len(n.Args) != 2 || !ok {
			return "", p.errorf(n, "write EXTRACT(EPOCH FROM ts)")
		}
		ts, err := p.expr(n.Args[1])
		return "EXTRACT(" + v.GetString() + " FROM " + ts + ")", err
	case "floor", "ceil", "ceiling": // FLOOR(ts TO unit), which the parser writes FLOOR(ts, 'unit') (parser/funcsyntax.go)
		if v, ok := n.Args[len(n.Args)-1].(*test_driver.ValueExpr); ok && len(n.Args) == 2 && v.Kind() == test_driver.KindString {
			ts, err := p.expr(n.Args[0])
			return strings.ToUpper(strings.TrimSuffix(name, "ing")) + "(" + ts + " TO " + strings.ToUpper(v.GetString()) + ")", err
		}
		if name == "ceiling" {
			name = "ceil"
		}
	case "sq_cardinal":
		name = "cardinality"
	case "sq_sp": // SPLIT, a TiDB keyword (parser/funcsyntax.go)
		name = "split"
	case "current_date", "current_time", "localtime", "current_timestamp", "localtimestamp": // Flink's niladic spelling: no parentheses
		if len(n.Args) == 0 {
			return strings.ToUpper(name), nil
		}
	case "overlay": // Flink parses only OVERLAY(s PLACING r FROM i [FOR n])
		parts, err := p.exprs(n.Args...)
		if err != nil || len(parts) < 3 {
			return "", err
		}
		out := "OVERLAY(" + parts[0] + " PLACING " + parts[1] + " FROM " + parts[2]
		if len(parts) == 4 {
			out += " FOR " + parts[3]
		}
		return out + ")", nil
	case "ifnull":
		name = "coalesce"
	case "substr":
		name = "substring"
	default:
		if lit, ok := timeLiteral(n); ok {
			return lit, nil
		}
	}
	parts, err := p.exprs(n.Args...)
	if err != nil {
		return "", err
	}
	return strings.ToUpper(name) + "(" + strings.Join(parts, ", ") + ")", nil
}

// flinkSyntax prints the calls the parser made of Flink's own syntax
// (parser/funcsyntax.go) in that syntax again, which is the only one Flink's
// SQL parser takes: POSITION(a IN s), s SIMILAR TO p, s IS JSON [kind],
// JSON_VALUE(s, p RETURNING t DEFAULT d ON EMPTY ...), JSON_QUERY(s, p WITH
// CONDITIONAL ARRAY WRAPPER EMPTY ARRAY ON EMPTY ...), JSON_OBJECT(KEY k VALUE v, ...), ARRAY[...],
// MAP[...], ROW(...). false when n's arguments are not of that form.
func (p *printer) flinkSyntax(name string, n *ast.FuncCallExpr) (string, bool, error) {
	parts, err := p.exprs(n.Args...)
	if err != nil {
		return "", false, err
	}
	lit := func(k int) (string, bool) {
		v, ok := n.Args[k].(*test_driver.ValueExpr)
		if !ok || v.Kind() != test_driver.KindString {
			return "", false
		}
		return v.GetString(), true
	}
	switch name {
	case "position":
		if len(parts) == 2 {
			return "POSITION(" + parts[0] + " IN " + parts[1] + ")", true, nil
		}
	case "similar_to":
		if len(parts) == 2 {
			return "(" + parts[0] + ") SIMILAR TO (" + parts[1] + ")", true, nil
		}
	case "is_json":
		if len(parts) == 1 {
			return "(" + parts[0] + ") IS JSON", true, nil
		}
		if kind, ok := lit(1); ok && len(parts) == 2 {
			return "(" + parts[0] + ") IS JSON " + strings.ToUpper(kind), true, nil
		}
	case "json_value":
		// RETURNING t, DEFAULT d ON EMPTY / ON ERROR: 't', 'DEFAULT ON EMPTY', d
		if len(parts) < 3 {
			break
		}
		out, ok := clauseCall("JSON_VALUE", parts, lit, func(k int, v string) (string, int, bool) {
			switch {
			case (v == "DEFAULT ON EMPTY" || v == "DEFAULT ON ERROR") && k+1 < len(parts):
				return " DEFAULT (" + parts[k+1] + ")" + strings.TrimPrefix(v, "DEFAULT"), 2, true
			case k == 2 && strings.EqualFold(v, "VARCHAR"):
				return " RETURNING STRING", 1, true
			case k == 2:
				return " RETURNING " + strings.ToUpper(v), 1, true
			}
			return "", 0, false
		})
		return out, ok, nil
	case "json_query":
		// the clauses, 'WRAPPER=…', 'EMPTY=…', 'ERROR=…', in the order written
		if len(parts) < 3 {
			break
		}
		out, ok := clauseCall("JSON_QUERY", parts, lit, func(_ int, v string) (string, int, bool) {
			switch key, what, _ := strings.Cut(v, "="); {
			case key == "WRAPPER" && what == "WITHOUT":
				return " WITHOUT ARRAY WRAPPER", 1, true
			case key == "WRAPPER":
				return " WITH " + what + " ARRAY WRAPPER", 1, true
			case key == "EMPTY" || key == "ERROR":
				return " " + what + " ON " + key, 1, true
			}
			return "", 0, false
		})
		return out, ok, nil
	case "json_object":
		if len(parts)%2 == 0 {
			var kv []string
			for k := 0; k < len(parts); k += 2 {
				kv = append(kv, "KEY "+parts[k]+" VALUE "+parts[k+1])
			}
			return "JSON_OBJECT(" + strings.Join(kv, ", ") + ")", true, nil
		}
	case "array_value_constructor":
		return "ARRAY[" + strings.Join(parts, ", ") + "]", true, nil
	case "map_value_constructor":
		return "MAP[" + strings.Join(parts, ", ") + "]", true, nil
	case "row_value_constructor":
		return "ROW(" + strings.Join(parts, ", ") + ")", true, nil
	}
	return "", false, nil
}

// clauseCall prints name(parts[0], parts[1] clauses) for a call whose
// arguments from 2 on are the parser's clause literals (lit reads one):
// each prints the clause at argument k of text v and says how many
// arguments it takes; false when one is not a clause.
func clauseCall(name string, parts []string, lit func(int) (string, bool), each func(k int, v string) (string, int, bool)) (string, bool) {
	var sb strings.Builder
	sb.WriteString(name + "(" + parts[0] + ", " + parts[1])
	for k := 2; k < len(parts); {
		v, ok := lit(k)
		if !ok {
			return "", false
		}
		text, n, ok := each(k, v)
		if !ok {
			return "", false
		}
		sb.WriteString(text)
		k += n
	}
	return sb.String() + ")", true
}

// timeLiteral prints DATE 'd', TIME 't' and TIMESTAMP 'ts' (TiDB's
// dateliteral, timeliteral, timestampliteral calls) as the TIMESTAMP literal
// each is in SPEC 2.10 (streamql has no DATE or TIME type: a date is its
// midnight, a time is on 1970-01-01), so Flink computes what streamql does;
// false for any other call.
func timeLiteral(n *ast.FuncCallExpr) (string, bool) {
	kind := ""
	switch {
	case strings.Contains(n.FnName.L, "timestampliteral"):
		kind = "TIMESTAMP"
	case strings.Contains(n.FnName.L, "dateliteral"):
		kind = "DATE"
	case strings.Contains(n.FnName.L, "timeliteral"):
		kind = "TIME"
	default:
		return "", false
	}
	if len(n.Args) != 1 {
		return "", false
	}
	v, ok := n.Args[0].(*test_driver.ValueExpr)
	if !ok || v.Kind() != test_driver.KindString {
		return "", false
	}
	text := strings.TrimSpace(v.GetString())
	switch kind {
	case "DATE":
		text += " 00:00:00"
	case "TIME":
		text = "1970-01-01 " + text
	}
	if ms, ok := textconv.ParseTimestamp([]byte(text)); ok { // ISO-8601 'T' and offsets: Flink's literal takes 'yyyy-MM-dd HH:mm:ss.SSS' only
		text = time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000")
	}
	return "TIMESTAMP " + str(text), true
}

var aggNames = map[string]string{"variance": "VAR_POP", "stddev": "STDDEV_POP", "std": "STDDEV_POP"}

// aggregate prints an aggregate call (SPEC 2.4): AVG of a BIGINT is a DOUBLE.
func (p *printer) aggregate(n *ast.AggregateFuncExpr) (string, error) {
	name := strings.ToLower(n.F)
	if f, ok := aggNames[name]; ok {
		name = f
	}
	d := ""
	if n.Distinct {
		d = "DISTINCT "
	}
	parts, err := p.exprs(n.Args...)
	if err != nil {
		return "", err
	}
	if name == "avg" && len(parts) == 1 {
		parts[0] = "CAST(" + parts[0] + " AS DOUBLE)"
	}
	call := strings.ToUpper(name) + "(" + d + strings.Join(parts, ", ") + ")"
	if name == "count" && len(n.Args) == 1 && !n.Distinct {
		if v, ok := n.Args[0].(*test_driver.ValueExpr); ok && v.Kind() == test_driver.KindInt64 && v.GetInt64() == 1 {
			call = "COUNT(*)"
		}
	}
	return p.filtered(n, call)
}

// filtered appends to call, the aggregate n printed, its FILTER (WHERE
// cond) clause (SPEC 2.9), which the parser keeps apart from TiDB's AST
// (parser.Select.Filters, by the offset of the call).
func (p *printer) filtered(n ast.Node, call string) (string, error) {
	if p.sel == nil || p.locate == nil || len(p.sel.Filters) == 0 {
		return call, nil
	}
	f := p.sel.Filters[p.locate(n)]
	if f == nil {
		return call, nil
	}
	casts, locate := p.casts, p.locate
	if f.Casts != nil {
		p.casts = f.Casts
	}
	if f.Locate != nil {
		p.locate = f.Locate
	}
	c, err := p.expr(f.Expr)
	p.casts, p.locate = casts, locate
	if err != nil {
		return "", err
	}
	return call + " FILTER (WHERE " + c + ")", nil
}

// window prints an OVER call (SPEC 2.9: ROW_NUMBER, RANK, DENSE_RANK, an
// aggregate over a ROWS or RANGE frame) with its window written inline: a
// named WINDOW w AS (…) is inlined at each OVER w (namedWindow).
func (p *printer) windowFunc(n *ast.WindowFuncExpr) (string, error) {
	parts, err := p.exprs(n.Args...)
	if err != nil {
		return "", err
	}
	d := ""
	if n.Distinct {
		d = "DISTINCT "
	}
	name := strings.ToUpper(n.Name)
	if f, ok := aggNames[strings.ToLower(n.Name)]; ok {
		name = f
	}
	if name == "GROUP_CONCAT" && len(parts) > 1 { // LISTAGG(x [, sep]) OVER, as the parser gives it: TiDB's separator last
		name, parts = "LISTAGG", parts[:len(parts)-1]
	}
	if n.Distinct && p.x != nil && p.script != nil && p.locate != nil {
		p.x.diff(p.script, p.locate(n), "%s(DISTINCT …) OVER: SPEC 2.9's OVER takes every aggregate of 2.4, COUNT(DISTINCT x) included; Flink's validator refuses DISTINCT in an OVER aggregate (\"Distinct not supported in Windowing function\")", name)
	}
	if strings.EqualFold(n.Name, "avg") && len(parts) == 1 {
		parts[0] = "CAST(" + parts[0] + " AS DOUBLE)"
	}
	if strings.EqualFold(n.Name, "count") && len(parts) == 0 {
		parts = []string{"*"}
	}
	spec, err := p.namedWindow(n)
	if err != nil {
		return "", err
	}
	var w []string
	if spec.PartitionBy != nil {
		keys, err := p.byItems(spec.PartitionBy.Items)
		if err != nil {
			return "", err
		}
		w = append(w, "PARTITION BY "+keys)
	}
	if spec.OrderBy != nil {
		var keys []string
		for _, it := range spec.OrderBy.Items {
			s, err := p.expr(it.Expr)
			if err != nil {
				return "", err
			}
			if p.eventTimeRef(it.Expr) && bigintTime(p.probe.st) {
				s = p.qualified(rowtimeName(p.probe.st)) // Flink orders an OVER window by its time attribute
			}
			if it.Desc {
				s += " DESC"
			}
			keys = append(keys, s)
		}
		w = append(w, "ORDER BY "+strings.Join(keys, ", "))
	}
	if f := spec.Frame; f != nil {
		kind := "ROWS"
		if f.Type == ast.Ranges {
			kind = "RANGE"
		}
		start, err := p.frameBound(f.Extent.Start)
		if err != nil {
			return "", err
		}
		end, err := p.frameBound(f.Extent.End)
		if err != nil {
			return "", err
		}
		w = append(w, kind+" BETWEEN "+start+" AND "+end)
	}
	return name + "(" + d + strings.Join(parts, ", ") + ") OVER (" + strings.Join(w, " ") + ")", nil
}

// byItems prints the expressions of a GROUP BY or PARTITION BY, comma
// separated.
func (p *printer) byItems(items []*ast.ByItem) (string, error) {
	keys := make([]string, len(items))
	for k, it := range items {
		s, err := p.expr(it.Expr)
		if err != nil {
			return "", err
		}
		keys[k] = s
	}
	return strings.Join(keys, ", "), nil
}

// eventTimeRef reports whether e is a reference to the probe stream's
// event-time column (the column its WATERMARK is declared on).
func (p *printer) eventTimeRef(e ast.ExprNode) bool {
	cn, ok := unparen(e).(*ast.ColumnNameExpr)
	return ok && p.probe != nil && p.probe.st.EventTime >= 0 && p.probe.st.Watermark != nil &&
		p.probe.st.Column(cn.Name.Name.O) == p.probe.st.EventTime && (cn.Name.Table.O == "" || p.probe.quals[cn.Name.Table.L])
}

// namedWindow returns the window of OVER call n written out: its own, or,
// for OVER w and OVER (w …), the WINDOW w AS (…) of the query it is in, with
// what the OVER adds (ORDER BY, a frame) where the named window has none
// (SQL's rule; planner/rule_rank.go resolves the name the same way). The
// export never writes a WINDOW clause: Flink 2.3 planned one for an OVER
// aggregate and in a Top-N's subquery (bench/flink-export/RESULTS.md), but an
// inline window is what every Flink SQL position takes. Errors name an
// unknown window.
func (p *printer) namedWindow(n *ast.WindowFuncExpr) (ast.WindowSpec, error) {
	spec := n.Spec
	name := spec.Name
	if spec.Ref.O != "" {
		name = spec.Ref
	}
	if name.O == "" {
		return spec, nil
	}
	if p.sel != nil {
		for _, w := range p.sel.Query.WindowSpecs {
			if w.Name.L != name.L {
				continue
			}
			out := w
			out.Name, out.Ref = ast.CIStr{}, ast.CIStr{}
			if out.PartitionBy == nil {
				out.PartitionBy = spec.PartitionBy
			}
			if out.OrderBy == nil {
				out.OrderBy = spec.OrderBy
			}
			if out.Frame == nil {
				out.Frame = spec.Frame
			}
			return out, nil
		}
	}
	return spec, p.errorf(n, "unknown window '%s': define it with WINDOW %s AS (PARTITION BY … ORDER BY …) after the query's WHERE", name.O, name.O)
}

// frameBound prints one bound of an OVER frame.
func (p *printer) frameBound(b ast.FrameBound) (string, error) {
	if b.Type == ast.CurrentRow {
		return "CURRENT ROW", nil
	}
	dir := " PRECEDING"
	if b.Type == ast.Following {
		dir = " FOLLOWING"
	}
	if b.UnBounded {
		return "UNBOUNDED" + dir, nil
	}
	if b.Unit != ast.TimeUnitInvalid {
		v, ok := b.Expr.(*test_driver.ValueExpr)
		if !ok {
			return "", p.errorf(b.Expr, "a RANGE frame takes INTERVAL 'n' UNIT")
		}
		return "INTERVAL " + str(strings.TrimSpace(fmt.Sprint(v.GetValue()))) + " " + strings.ToUpper(b.Unit.String()) + dir, nil
	}
	s, err := p.expr(b.Expr)
	return s + dir, err
}
