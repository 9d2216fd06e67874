package planner

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/test_driver"

	"streamql/catalog"
	"streamql/catalog/textconv"
	"streamql/parser"
	"streamql/planner/plan"
)

// exprTextOf returns e.Text, rendering it from the AST the first time it is needed for
// an inner expression (compile fills Text eagerly for whole expressions only).
func exprTextOf(e *Expr) string {
	if e.Text == "" && e.Node != nil {
		pt := e.Node.(pendingText)
		e.Text, e.Node = exprText(pt.n, pt.casts), nil
	}
	return e.Text
}

// pendingText is an inner expression's syntax node and the statement's CAST
// types, kept in Expr.Node until a message or EXPLAIN asks for its text.
type pendingText struct {
	n     ast.ExprNode
	casts parser.CastTypes
}

// ExprText returns e's text as written (EXPLAIN and messages; an inner
// expression's text is rendered from its syntax node at the first call).
func ExprText(e *Expr) string { return exprTextOf(e) }

// inheritText gives dst the text of src (a conversion shows as its operand).
func inheritText(dst, src *Expr) {
	dst.Text, dst.Node = src.Text, src.Node
}

// compile type-checks n within sc and compiles it. The whole expression (the
// outermost call) gets its Text at once; inner ones keep their node and render it
// only when a message asks (Expr.text), so that a deep expression is rendered
// once, not once per level (planning is linear in its size).
func (sc *scope) compile(n ast.ExprNode) (*Expr, error) {
	if err := sc.tick(); err != nil {
		return nil, err
	}
	sc.depth++
	e, err := sc.compile1(n)
	sc.depth--
	if err != nil {
		return nil, err
	}
	if sc.reads != nil && !sc.fails && (e.Op == plan.OpFunc || sc.depth == 0 && callsFunc(e)) {
		sc.fails = true
	}
	if e.Text == "" {
		if sc.depth == 0 {
			e.Text, e.Node = exprText(n, sc.casts), nil
		} else {
			e.Node = pendingText{n, sc.casts}
		}
	}
	return e, nil
}

// callsFunc reports whether e's tree calls a function of the function
// table (plan.OpFunc): the only operator whose evaluation can fail (SPEC 2:
// the others give NULL), sending the row to the errors output.
func callsFunc(e *Expr) bool {
	if e.Op == plan.OpFunc {
		return true
	}
	for _, a := range e.Args {
		if callsFunc(a) {
			return true
		}
	}
	return false
}

// exprText renders n for EXPLAIN and messages: TiDB's text when it kept one,
// else the expression restored from the AST (keywords upper case); either way
// with each CAST's target type as the user wrote it (casts, the statement's
// parser.CastTypes; nil: none), not the stand-in TiDB parsed, and the front
// end's stand-in calls in the syntax written (flinkSyntax).
func exprText(n ast.ExprNode, casts parser.CastTypes) string {
	if t := strings.TrimSpace(n.OriginalText()); t != "" {
		return flinkSyntax(castNames(t, n, casts))
	}
	if t := strings.TrimSpace(n.Text()); t != "" {
		return flinkSyntax(castNames(t, n, casts))
	}
	var sb strings.Builder
	ctx := format.NewRestoreCtx(format.RestoreStringSingleQuotes|format.RestoreStringWithoutCharset|format.RestoreKeyWordUppercase|format.RestoreSpacesAroundBinaryOperation, &sb)
	if err := n.Restore(ctx); err != nil {
		return ""
	}
	return flinkSyntax(castNames(sb.String(), n, casts))
}

// castCollector lists the CAST nodes of an expression in pre-order (the order
// their CAST keywords appear in its text).
type castCollector struct{ casts []*ast.FuncCastExpr }

func (c *castCollector) Enter(n ast.Node) (ast.Node, bool) {
	if fc, ok := n.(*ast.FuncCastExpr); ok && fc.FunctionType == ast.CastFunction {
		c.casts = append(c.casts, fc)
	}
	return n, false
}

func (c *castCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// castNames returns text (n's text) with the target type of each CAST
// replaced by the SPEC type the user wrote (casts), since the front end hands
// TiDB a stand-in (CAST(x AS INT) parses as CAST(x AS SIGNED)). The k-th CAST
// keyword outside quotes is n's k-th CAST node; when the counts differ, text
// is returned unchanged.
func castNames(text string, n ast.ExprNode, casts parser.CastTypes) string {
	if len(casts) == 0 || !strings.Contains(strings.ToUpper(text), "CAST") {
		return text
	}
	var c castCollector
	n.Accept(&c)
	if len(c.casts) == 0 {
		return text
	}
	type span struct {
		from, to int
		name     string
	}
	var spans []span
	k := 0
	for i := 0; i < len(text); i++ {
		switch ch := text[i]; {
		case ch == '\'' || ch == '"' || ch == '`':
			i = skipQuoted(text, i)
			continue
		case !hasWordAt(text, i, "CAST"):
			continue
		}
		j := i + 4
		for j < len(text) && text[j] == ' ' {
			j++
		}
		if j == len(text) || text[j] != '(' {
			continue
		}
		if k == len(c.casts) {
			return text
		}
		as, end := castTarget(text, j)
		if as < 0 {
			return text
		}
		if name, ok := casts[c.casts[k]]; ok {
			spans = append(spans, span{as, end, name})
		}
		k++
		i += 3
	}
	if k != len(c.casts) {
		return text
	}
	sort.Slice(spans, func(a, b int) bool { return spans[a].from < spans[b].from }) // an outer CAST's type comes after its inner ones'
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		b.WriteString(text[at:sp.from])
		b.WriteString(sp.name)
		at = sp.to
	}
	b.WriteString(text[at:])
	return b.String()
}

// hasWordAt reports whether text holds the keyword w (any case) at i, not as
// part of a longer name.
func hasWordAt(text string, i int, w string) bool {
	if i+len(w) > len(text) || !strings.EqualFold(text[i:i+len(w)], w) {
		return false
	}
	word := func(b byte) bool {
		return b == '_' || b == '$' || b >= '0' && b <= '9' || b|0x20 >= 'a' && b|0x20 <= 'z' || b >= 0x80
	}
	return (i == 0 || !word(text[i-1])) && (i+len(w) == len(text) || !word(text[i+len(w)]))
}

// skipQuoted returns the index of the quote that closes the quoted text that
// starts at i (a doubled quote is part of the text), or len(text)-1.
func skipQuoted(text string, i int) int {
	q := text[i]
	for j := i + 1; j < len(text); j++ {
		if text[j] == q {
			if j+1 < len(text) && text[j+1] == q {
				j++
				continue
			}
			return j
		}
	}
	return len(text) - 1
}

// castTarget returns, for the CAST whose '(' is at open, the span of its
// target type: from after the last top-level AS to the closing ')' (trailing
// spaces of the stand-in excluded), or -1 when text does not hold one.
func castTarget(text string, open int) (from, to int) {
	depth, as := 0, -1
	for j := open; j < len(text); j++ {
		switch text[j] {
		case '\'', '"', '`':
			j = skipQuoted(text, j)
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				if as < 0 {
					return -1, -1
				}
				end := j
				for end > as && text[end-1] == ' ' {
					end--
				}
				return as, end
			}
		default:
			if depth == 1 && hasWordAt(text, j, "AS") {
				as = j + 2
				for as < len(text) && text[as] == ' ' {
					as++
				}
			}
		}
	}
	return -1, -1
}

func (sc *scope) compile1(n ast.ExprNode) (*Expr, error) {
	if sc.hook != nil {
		if e, err := sc.hook(n); e != nil || err != nil {
			return e, err
		}
	}
	switch n := n.(type) {
	case *ast.ParenthesesExpr:
		e, err := sc.compile(n.Expr)
		if err != nil {
			return nil, err
		}
		paren := *e
		paren.Text, paren.Node = "", nil // compile renders "(...)" from n when needed
		return &paren, nil
	case *ast.ColumnNameExpr:
		if e, err := sc.rowField(n); e != nil || err != nil {
			return e, err // row.field (SPEC 2.10)
		}
		idx, t, err := sc.column(n)
		if err != nil {
			return nil, err
		}
		sc.use(idx)
		return &Expr{Op: plan.OpCol, Type: t, Col: idx}, nil
	case *test_driver.ValueExpr:
		return sc.literal(n)
	case *ast.UnaryOperationExpr:
		return sc.unary(n)
	case *ast.BinaryOperationExpr:
		return sc.binary(n)
	case *ast.IsNullExpr:
		x, err := sc.compile(n.Expr)
		if err != nil {
			return nil, err
		}
		return isNull(x, n.Not), nil
	case *ast.IsTruthExpr:
		x, err := sc.compile(n.Expr)
		if err != nil {
			return nil, err
		}
		if x.Type != catalog.Boolean && x.Type != catalog.Unknown {
			return nil, parser.Errorf(sc.pos(n), "IS TRUE/FALSE needs a BOOLEAN, got %s", x.Type)
		}
		return isTruth(x, n.True != 0, n.Not), nil
	case *ast.BetweenExpr:
		return sc.between(n)
	case *ast.PatternInExpr:
		if n.Sel != nil {
			return nil, parser.Errorf(sc.pos(n), "IN (subquery) must be a term of WHERE joined by AND (not inside OR, NOT, CASE or a select list): it becomes a semi join; split an OR into side branches")
		}
		return sc.inList(n)
	case *ast.ExistsSubqueryExpr:
		return nil, parser.Errorf(sc.pos(n), "EXISTS (subquery) must be a term of WHERE joined by AND (not inside OR, CASE or a select list): it becomes a semi join; split an OR into side branches")
	case *ast.SubqueryExpr:
		return nil, parser.Errorf(sc.pos(n), "a scalar subquery (a SELECT in an expression) is not supported: join it in FROM instead (FROM s JOIN (SELECT MAX(x) AS m FROM t) q ON s.x = q.m), or filter with IN (SELECT ...) or EXISTS")
	case *ast.PatternLikeOrIlikeExpr:
		return sc.like(n)
	case *ast.PatternRegexpExpr:
		return sc.regexpMatch(n)
	case *ast.CaseExpr:
		return sc.caseExpr(n)
	case *ast.FuncCastExpr:
		return sc.cast(n)
	case *ast.FuncCallExpr:
		return sc.call(n)
	case *ast.DefaultExpr:
		return nil, parser.Errorf(sc.pos(n), "DEFAULT is not supported in a stream query")
	case *ast.AggregateFuncExpr:
		return nil, misplacedAgg(sc.pos(n), strings.ToUpper(n.F))
	case *ast.WindowFuncExpr:
		return nil, parser.Errorf(sc.pos(n), "window functions are not supported: a stream query works row by row")
	}
	return nil, parser.Errorf(sc.pos(n), "this kind of expression is not supported here")
}

func constExpr(t catalog.Type, v Value, text string) *Expr {
	return &Expr{Op: plan.OpLit, Type: t, Const: true, Col: -1, Text: text, Lit: v}
}

// nullExpr is the NULL literal, of type Unknown until coerced.
func nullExpr(t catalog.Type) *Expr {
	return constExpr(t, Value{Null: true}, "NULL")
}

func intConst(x int64, text string) *Expr { return constExpr(catalog.BigInt, Value{I: x}, text) }

func doubleConst(x float64, text string) *Expr { return constExpr(catalog.Double, Value{F: x}, text) }

func boolConst(x bool, text string) *Expr { return constExpr(catalog.Boolean, Value{B: x}, text) }

func strConst(s string, text string) *Expr {
	return constExpr(catalog.Varchar, Value{S: []byte(s)}, text)
}

func (sc *scope) literal(n *test_driver.ValueExpr) (*Expr, error) {
	text := exprText(n, sc.casts)
	switch n.Kind() {
	case test_driver.KindNull:
		return nullExpr(catalog.Unknown), nil
	case test_driver.KindInt64:
		x := n.GetInt64()
		if sc.isBoolWord(n) {
			return boolConst(x != 0, text), nil
		}
		return intConst(x, text), nil
	case test_driver.KindUint64:
		u := n.GetUint64()
		if u > math.MaxInt64 {
			return nil, parser.Errorf(sc.pos(n), "integer literal %d is out of BIGINT range; write it as a DOUBLE (e.g. %d.0)", u, u)
		}
		return intConst(int64(u), text), nil
	case test_driver.KindFloat64, test_driver.KindFloat32:
		return doubleConst(n.GetFloat64(), text), nil
	case test_driver.KindMysqlDecimal:
		f, err := strconv.ParseFloat(n.GetMysqlDecimal().String(), 64)
		if err != nil {
			return nil, parser.Errorf(sc.pos(n), "bad number %s", text)
		}
		return doubleConst(f, text), nil
	case test_driver.KindString, test_driver.KindBytes:
		return strConst(n.GetString(), text), nil
	}
	return nil, parser.Errorf(sc.pos(n), "unsupported literal %s", text)
}

// isBoolWord reports whether an integer literal was written TRUE or FALSE (TiDB
// reads both as 1 and 0).
func (sc *scope) isBoolWord(n *test_driver.ValueExpr) bool {
	t := strings.ToUpper(strings.TrimSpace(n.OriginalText()))
	if t == "" && sc.locate != nil {
		p := sc.locate(n)
		if p >= 0 && p < len(sc.src) {
			rest := strings.ToUpper(sc.src[p:min(len(sc.src), p+5)])
			if strings.HasPrefix(rest, "TRUE") {
				t = "TRUE"
			} else if strings.HasPrefix(rest, "FALSE") {
				t = "FALSE"
			}
		}
	}
	return t == "TRUE" || t == "FALSE"
}

func (sc *scope) unary(n *ast.UnaryOperationExpr) (*Expr, error) {
	if v, ok := n.V.(*test_driver.ValueExpr); ok && n.Op == opcode.Minus && v.Kind() == test_driver.KindUint64 && v.GetUint64() == 1<<63 {
		return intConst(math.MinInt64, "-9223372036854775808"), nil // the smallest BIGINT
	}
	x, err := sc.compile(n.V)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case opcode.Not, opcode.Not2:
		if x.Type == catalog.Unknown {
			x = coerce(x, catalog.Boolean)
		}
		if x.Type != catalog.Boolean {
			return nil, parser.Errorf(sc.pos(n), "NOT needs a BOOLEAN operand, got %s", x.Type)
		}
		return notExpr(x), nil
	case opcode.Plus:
		if !x.Type.IsNumeric() && x.Type != catalog.Unknown {
			return nil, parser.Errorf(sc.pos(n), "unary + needs a number, got %s", x.Type)
		}
		return x, nil
	case opcode.Minus:
		switch x.Type {
		case catalog.BigInt, catalog.Double:
			return node(plan.OpNeg, x.Type, x), nil
		case catalog.Unknown:
			return x, nil
		}
		return nil, parser.Errorf(sc.pos(n), "unary - needs a number, got %s", x.Type)
	}
	return nil, parser.Errorf(sc.pos(n), "operator %s is not supported", n.Op)
}

func (sc *scope) binary(n *ast.BinaryOperationExpr) (*Expr, error) {
	l, err := sc.compile(n.L)
	if err != nil {
		return nil, err
	}
	r, err := sc.compile(n.R)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case opcode.LogicAnd, opcode.LogicOr, opcode.LogicXor:
		l, r = coerce(l, catalog.Boolean), coerce(r, catalog.Boolean)
		if l.Type != catalog.Boolean || r.Type != catalog.Boolean {
			return nil, parser.Errorf(sc.pos(n), "%s needs BOOLEAN operands, got %s and %s", strings.ToUpper(n.Op.String()), l.Type, r.Type)
		}
		return logic(n.Op, l, r), nil
	case opcode.EQ, opcode.NE, opcode.LT, opcode.LE, opcode.GT, opcode.GE, opcode.NullEQ:
		return sc.compare(n, n.Op, l, r)
	case opcode.Plus, opcode.Minus, opcode.Mul, opcode.Div, opcode.IntDiv, opcode.Mod:
		return sc.arith(n, n.Op, l, r)
	}
	return nil, parser.Errorf(sc.pos(n), "operator %s is not supported", n.Op)
}

// unify brings two operands to one comparable type (SPEC 2: BIGINT with DOUBLE as
// DOUBLE; a string literal with a TIMESTAMP read as TIMESTAMP; NULL takes the other
// side's type; two ARRAY, MAP or ROW values their common type,
// catalog.LeastRestrictive). ok is false for other mixes.
func unify(l, r *Expr) (*Expr, *Expr, bool) {
	switch {
	case l.Type.IsNested() && l.Type == r.Type:
		return l, r, true // = and <> (compare checks the operator)
	case l.Type.IsNested() && r.Type.IsNested():
		if t, ok := catalog.LeastRestrictive(l.Type, r.Type); ok { // (ROW field names, BIGINT/DOUBLE parts: their common type)
			return castTo(l, t), castTo(r, t), true
		}
		return l, r, false // two nested types of other shapes: CAST one side
	case l.Type.IsNested() && r.Type == catalog.Unknown:
		return l, coerce(r, l.Type), true
	case r.Type.IsNested() && l.Type == catalog.Unknown:
		return coerce(l, r.Type), r, true
	case l.Type.IsNested() || r.Type.IsNested():
		return l, r, false // two nested types: CAST one side
	case l.Type == r.Type:
		return l, r, true
	case l.Type == catalog.Unknown:
		return coerce(l, r.Type), r, true
	case r.Type == catalog.Unknown:
		return l, coerce(r, l.Type), true
	case l.Type.IsNumeric() && r.Type.IsNumeric():
		return coerce(l, catalog.Double), coerce(r, catalog.Double), true
	case l.Type == catalog.Timestamp && r.Type == catalog.Varchar && r.Const:
		return l, castTo(r, catalog.Timestamp), true
	case r.Type == catalog.Timestamp && l.Type == catalog.Varchar && l.Const:
		return castTo(l, catalog.Timestamp), r, true
	}
	return l, r, false
}

func mismatch(sc *scope, n ast.Node, what string, l, r *Expr) error {
	hint := ""
	if (l.Type.IsNumeric() && r.Type == catalog.Varchar) || (r.Type.IsNumeric() && l.Type == catalog.Varchar) {
		hint = "; use CAST(... AS BIGINT|DOUBLE|VARCHAR) to compare a number with text"
	} else {
		hint = "; use CAST to convert one side"
	}
	return parser.Errorf(sc.pos(n), "cannot %s %s (%s) with %s (%s)%s", what, exprTextOf(l), l.Type, exprTextOf(r), r.Type, hint)
}

func (sc *scope) compare(n ast.Node, op opcode.Op, l, r *Expr) (*Expr, error) {
	if err := sc.timestampLiteral(n, l, r); err != nil {
		return nil, err
	}
	l2, r2, ok := unify(l, r)
	if !ok {
		return nil, mismatch(sc, n, "compare", l, r)
	}
	if l2.Type.IsNested() && op != opcode.EQ && op != opcode.NE && op != opcode.NullEQ {
		// SPEC 2.10 (as Flink): ARRAY, MAP and ROW values have = and <> and
		// IS [NOT] DISTINCT FROM, no order
		return nil, parser.Errorf(sc.pos(n), "%s values (%s) have no order: compare them with =, <> or IS [NOT] DISTINCT FROM, or compare their parts (x[1], x['k'], x.field)", l2.Type, exprTextOf(l))
	}
	if l2.Type == catalog.Unknown {
		if op == opcode.NullEQ {
			return boolConst(true, ""), nil
		}
		return nullExpr(catalog.Boolean), nil
	}
	return compareExpr(op, l2, r2), nil
}

// timestampLiteral returns a planning error when one side is a TIMESTAMP and
// the other a text literal that is no TIMESTAMP (SPEC 1's forms): read as a
// TIMESTAMP (SPEC 2) it would be NULL, and the comparison would drop every
// row without a word. The error points at the literal and says how to write
// one.
func (sc *scope) timestampLiteral(n ast.Node, l, r *Expr) error {
	for _, p := range [2][2]*Expr{{l, r}, {r, l}} {
		ts, lit := p[0], p[1]
		if ts.Type != catalog.Timestamp || lit.Type != catalog.Varchar || !lit.Const {
			continue
		}
		v := plan.Constants().Fold(lit)
		if v.Null {
			continue
		}
		if _, ok := textconv.ParseTimestamp(v.S); !ok {
			at := n
			if be, isBin := n.(*ast.BinaryOperationExpr); isBin {
				at = be.L // (the literal's side)
				if lit == r {
					at = be.R
				}
			}
			return parser.Errorf(sc.pos(at), "'%s' is not a TIMESTAMP to compare %s with: write 2021-01-17 12:48:29[.123], ISO-8601 with T (2021-01-17T12:48[:29][Z|+01:00]) or epoch milliseconds", v.S, exprTextOf(ts))
		}
	}
	return nil
}

// arithHint is what the error of an arithmetic operator over a non-number
// says to do: for a TIMESTAMP operand, Flink's time arithmetic (there is no
// TIMESTAMP - TIMESTAMP or TIMESTAMP + number in Flink SQL either: the time
// between two timestamps is TIMESTAMPDIFF, a timestamp moves by an INTERVAL
// or TIMESTAMPADD, SPEC 2.10); otherwise CAST, or || for text.
func arithHint(op opcode.Op, l, r *Expr) string {
	lt, rt := l.Type == catalog.Timestamp, r.Type == catalog.Timestamp
	switch {
	case lt && rt && op == opcode.Minus:
		return "the time between two TIMESTAMPs is TIMESTAMPDIFF(SECOND, " + exprTextOf(r) + ", " + exprTextOf(l) + ") (or MILLISECOND, MINUTE, …)"
	case lt || rt:
		return "move a TIMESTAMP by an INTERVAL (ts + INTERVAL '5' SECOND) or with TIMESTAMPADD(SECOND, n, ts); the time between two is TIMESTAMPDIFF(unit, t1, t2)"
	}
	return "use CAST, or CONCAT / || to join text"
}

func (sc *scope) arith(n ast.Node, op opcode.Op, l, r *Expr) (*Expr, error) {
	if l.Type == catalog.Unknown {
		l = coerce(l, catalog.BigInt)
	}
	if r.Type == catalog.Unknown {
		r = coerce(r, catalog.BigInt)
	}
	if !l.Type.IsNumeric() || !r.Type.IsNumeric() {
		return nil, parser.Errorf(sc.pos(n), "arithmetic %s needs numbers, got %s (%s) and %s (%s); %s", op, exprTextOf(l), l.Type, exprTextOf(r), r.Type, arithHint(op, l, r))
	}
	bothInt := l.Type == catalog.BigInt && r.Type == catalog.BigInt
	ops := map[opcode.Op]plan.Op{opcode.Plus: plan.OpAdd, opcode.Minus: plan.OpSub, opcode.Mul: plan.OpMul,
		opcode.Div: plan.OpDiv, opcode.IntDiv: plan.OpIntDiv, opcode.Mod: plan.OpMod}
	switch {
	case op == opcode.Div:
		return node(plan.OpDiv, catalog.Double, coerce(l, catalog.Double), coerce(r, catalog.Double)), nil
	case bothInt:
		return node(ops[op], catalog.BigInt, l, r), nil
	case op == opcode.IntDiv:
		return castTo(node(plan.OpIntDiv, catalog.Double, coerce(l, catalog.Double), coerce(r, catalog.Double)), catalog.BigInt), nil
	}
	return node(ops[op], catalog.Double, coerce(l, catalog.Double), coerce(r, catalog.Double)), nil
}

func (sc *scope) between(n *ast.BetweenExpr) (*Expr, error) {
	x, err := sc.compile(n.Expr)
	if err != nil {
		return nil, err
	}
	lo, err := sc.compile(n.Left)
	if err != nil {
		return nil, err
	}
	hi, err := sc.compile(n.Right)
	if err != nil {
		return nil, err
	}
	a, err := sc.compare(n, opcode.GE, x, lo)
	if err != nil {
		return nil, err
	}
	b, err := sc.compare(n, opcode.LE, x, hi)
	if err != nil {
		return nil, err
	}
	e := logic(opcode.LogicAnd, a, b)
	if n.Not {
		e = notExpr(e)
	}
	return e, nil
}

// inList is x IN (a, b, ...): an OR of equalities, each pair unified on its own
// (SPEC 2: mixed BIGINT/DOUBLE in IN lists compare pair by pair); x is evaluated
// once per batch, not once per list element (inKernel).
func (sc *scope) inList(n *ast.PatternInExpr) (*Expr, error) {
	x, err := sc.compile(n.Expr)
	if err != nil {
		return nil, err
	}
	acc, err := inKernel(x, len(n.List), func(x *Expr, k int) (*Expr, error) {
		v, err := sc.compile(n.List[k])
		if err != nil {
			return nil, err
		}
		return sc.compare(n.List[k], opcode.EQ, x, v)
	})
	if err != nil {
		return nil, err
	}
	if n.Not {
		acc = notExpr(acc)
	}
	return acc, nil
}

func (sc *scope) caseExpr(n *ast.CaseExpr) (*Expr, error) {
	var value *Expr
	var err error
	if n.Value != nil {
		if value, err = sc.compile(n.Value); err != nil {
			return nil, err
		}
	}
	var conds, results []*Expr
	for _, w := range n.WhenClauses {
		c, err := sc.compile(w.Expr)
		if err != nil {
			return nil, err
		}
		if value != nil {
			if c, err = sc.compare(w.Expr, opcode.EQ, value, c); err != nil {
				return nil, err
			}
		}
		c = coerce(c, catalog.Boolean)
		if c.Type != catalog.Boolean {
			return nil, parser.Errorf(sc.pos(w.Expr), "CASE WHEN needs a BOOLEAN condition, got %s", c.Type)
		}
		r, err := sc.compile(w.Result)
		if err != nil {
			return nil, err
		}
		conds, results = append(conds, c), append(results, r)
	}
	if n.ElseClause != nil {
		r, err := sc.compile(n.ElseClause)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	} else {
		results = append(results, nullExpr(catalog.Unknown))
	}
	t, err := sc.commonType(n, results)
	if err != nil {
		return nil, err
	}
	for i := range results {
		results[i] = coerce(results[i], t)
	}
	return caseKernel(t, conds, results), nil
}

// commonType is the type that all of es convert to (coerce): their shared
// type, DOUBLE for a BIGINT/DOUBLE mix, ARRAY, MAP and ROW types of their
// parts' common types (catalog.LeastRestrictive, a ROW named as the first),
// or an error.
func (sc *scope) commonType(n ast.Node, es []*Expr) (catalog.Type, error) {
	t := catalog.Unknown
	for _, e := range es {
		u, ok := catalog.LeastRestrictive(t, e.Type)
		if !ok {
			return 0, parser.Errorf(sc.pos(n), "values of types %s and %s cannot be mixed here; use CAST", t, e.Type)
		}
		t = u
	}
	return t, nil
}

func (sc *scope) like(n *ast.PatternLikeOrIlikeExpr) (*Expr, error) {
	x, err := sc.compile(n.Expr)
	if err != nil {
		return nil, err
	}
	p, err := sc.compile(n.Pattern)
	if err != nil {
		return nil, err
	}
	x, p = coerce(x, catalog.Varchar), coerce(p, catalog.Varchar)
	if x.Type != catalog.Varchar || p.Type != catalog.Varchar {
		return nil, parser.Errorf(sc.pos(n), "LIKE needs text operands, got %s and %s; use CAST(... AS VARCHAR)", x.Type, p.Type)
	}
	esc := rune(-1)
	if n.EscapeExplicit {
		esc = rune(n.Escape)
		if n.Escape == 0 {
			esc = -1
		}
	}
	e := build(&Expr{Op: plan.OpLike, Type: catalog.Boolean, Args: []*Expr{x, p}, Param: int64(esc), Flag: !n.IsLike})
	if n.Not {
		e = notExpr(e)
	}
	return e, nil
}
