package planner

import (
	"errors"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/test_driver"

	"streamql/catalog"
	"streamql/catalog/functions"
	"streamql/catalog/textconv"
	"streamql/parser"
	"streamql/planner/plan"
)

// The functions of the function table (catalog/functions.Functions, SPEC 2.10)
// that no rule of their own binds: their call is bound by the table's
// signatures, here. The rules below are the table's Rule functions whose
// syntax TiDB rewrites (EXTRACT, TIMESTAMPADD/DIFF with a time unit, the
// DATE/TIME/TIMESTAMP literals, s REGEXP p).
func init() {
	registerFunc(funcRule{raw: true, compile: ruleExtract}, "extract")
	registerFunc(funcRule{raw: true, compile: ruleExtractNamed}, "sq_extract")
	registerFunc(funcRule{raw: true, compile: ruleTimestampUnit}, "timestampadd", "timestampdiff")
	registerFunc(funcRule{raw: true, compile: ruleTimeLiteral}, "'tidb`.(dateliteral", "'tidb`.(timeliteral", "'tidb`.(timestampliteral")
	registerFunc(funcRule{compile: ruleJSONValue}, "json_value")
}

// ruleJSONValue is JSON_VALUE(s, path [RETURNING type] [DEFAULT d ON EMPTY]
// [DEFAULT e ON ERROR]) (the parser writes RETURNING t as an argument 't',
// DEFAULT d ON EMPTY as the arguments 'DEFAULT ON EMPTY', d): the table's
// text result, converted to the type as CAST converts (a value that does not
// convert is NULL). The DEFAULT clauses are Flink's SqlJsonUtils.jsonValue
// in lax mode: JSON text that does not parse gives e (ON ERROR), a path
// that finds nothing, JSON null, an object or an array gives d (ON EMPTY),
// each converted to the type; NULL without the clause, and NULL for NULL
// text. The call is then a CASE over the table's JSON_VALUE and IS_JSON.
func ruleJSONValue(c *funcCall) (*Expr, error) {
	t, typed := catalog.Varchar, false
	var onEmpty, onError *Expr
	for k := 2; k < len(c.args); {
		lit, ok := c.n.Args[k].(*test_driver.ValueExpr)
		if !ok || lit.Kind() != test_driver.KindString {
			return nil, parser.Errorf(c.sc.pos(c.n.Args[k]), "JSON_VALUE takes RETURNING type and DEFAULT … ON EMPTY / ON ERROR clauses after the path")
		}
		switch v := lit.GetString(); {
		case (v == "DEFAULT ON EMPTY" || v == "DEFAULT ON ERROR") && k+1 < len(c.args):
			if v == "DEFAULT ON EMPTY" {
				onEmpty = c.args[k+1]
			} else {
				onError = c.args[k+1]
			}
			k += 2
		case k == 2:
			var err error
			if t, err = catalog.ParseType(v); err != nil {
				return nil, parser.Errorf(c.sc.pos(c.n.Args[2]), "JSON_VALUE ... RETURNING: %v", err)
			}
			typed = true
			k++
		default:
			return nil, parser.Errorf(c.sc.pos(c.n.Args[k]), "JSON_VALUE takes RETURNING type as its first clause")
		}
	}
	c.args = c.args[:2]
	raw, err := c.bindTable(functions.Lookup("JSON_VALUE"))
	if err != nil {
		return nil, err
	}
	e := raw
	if typed {
		e = castTo(raw, t)
	}
	if onEmpty == nil && onError == nil {
		return e, nil
	}
	null := &Expr{Op: plan.OpLit, Type: t, Col: -1, Const: true, Lit: plan.Value{Null: true}}
	behave := func(d *Expr) *Expr {
		if d == nil {
			return null
		}
		return castTo(d, t)
	}
	isJSON, err := c.sc.tableCall(c.n, functions.Lookup("IS_JSON"), catalog.Boolean, []*Expr{c.args[0]})
	if err != nil {
		return nil, err
	}
	return node(plan.OpCase, t,
		node(plan.OpIsNull, catalog.Boolean, c.args[0]), null,
		node(plan.OpNot, catalog.Boolean, isJSON), behave(onError),
		node(plan.OpIsNull, catalog.Boolean, raw), behave(onEmpty),
		e), nil
}

// unknownFunction is the error of a call of a function streamql lacks: it
// names the closest ones it has (SPEC 2.10).
func (sc *scope) unknownFunction(n *ast.FuncCallExpr) error {
	name := sc.writtenName(n)
	if why, ok := notYet[name]; ok {
		return parser.Errorf(sc.pos(n), "%s is a Flink function streamql does not have yet: %s", name, why)
	}
	if use, ok := otherDialects[strings.ToUpper(name)]; ok {
		return parser.Errorf(sc.pos(n), "unknown function %s; streamql has %s (SHOW FUNCTIONS lists them all)", name, use)
	}
	if near := functions.Closest(name); len(near) > 0 {
		return parser.Errorf(sc.pos(n), "unknown function %s; did you mean %s? (SHOW FUNCTIONS lists them all)", name, strings.Join(near, ", "))
	}
	return parser.Errorf(sc.pos(n), "unknown function %s; the nearest names streamql has are %s (SHOW FUNCTIONS lists them all)", name, strings.Join(functions.Nearest(name, 3), ", "))
}

// otherDialects are functions of other SQL dialects (MySQL, PostgreSQL,
// Oracle, SQL Server, Spark) that streamql lacks, with the function of
// streamql that does the same: the closest one by meaning, which spelling
// distance would not find (SPEC 2.10).
var otherDialects = map[string]string{
	"LENGTH": "CHAR_LENGTH(s)", "LEN": "CHAR_LENGTH(s)", "DATALENGTH": "CHAR_LENGTH(s)",
	"NVL": "COALESCE(x, y) and IFNULL(x, y)", "ISNULL": "COALESCE(x, y) and IFNULL(x, y)", "NVL2": "CASE WHEN x IS NOT NULL THEN a ELSE b END",
	"IIF": "IF(cond, a, b)", "DECODE": "CASE x WHEN … THEN … END",
	"DATEDIFF": "TIMESTAMPDIFF(DAY, t1, t2)", "DATE_DIFF": "TIMESTAMPDIFF(unit, t1, t2)", "DATEADD": "TIMESTAMPADD(unit, n, ts) and ts + INTERVAL 'n' unit",
	"GETDATE": "CURRENT_TIMESTAMP and NOW()", "SYSDATETIME": "CURRENT_TIMESTAMP and NOW()", "STR_TO_DATE": "TO_TIMESTAMP(s, fmt)",
	"TO_CHAR": "DATE_FORMAT(ts, fmt) and CAST(x AS VARCHAR)", "TO_NUMBER": "CAST(s AS BIGINT) and CAST(s AS DOUBLE)",
	"CHARINDEX": "POSITION(a IN s) and LOCATE(a, s)", "STRPOS": "POSITION(a IN s) and LOCATE(a, s)",
	"SUBSTRING_INDEX": "SPLIT_INDEX(s, sep, i)", "SPLIT_PART": "SPLIT_INDEX(s, sep, i) (0-based)",
	"ARRAY_LENGTH": "CARDINALITY(arr)", "SIZE": "CARDINALITY(x)",
	"REGEXP_LIKE": "REGEXP(s, p) and s SIMILAR TO p",
	"WEEKDAY":     "DAYOFWEEK(ts) and EXTRACT(ISODOW FROM ts)", "DAYNAME": "DATE_FORMAT(ts, 'EEEE')", "MONTHNAME": "DATE_FORMAT(ts, 'MMMM')",
	"SPACE": "REPEAT(' ', n)", "FIND_IN_SET": "ARRAY_POSITION(SPLIT(list, ','), s)",
}

// notYet are Flink functions that streamql does not have yet, with what to
// use instead.
var notYet = map[string]string{
	"PRINTF": "CONCAT, CAST and LPAD/RPAD build formatted text",
}

// takesNested are the table functions (lower case) whose ANY arguments may
// be ARRAY, MAP or ROW values (SPEC 2.10): they write them as nested JSON.
// NULLIF compares its arguments with = (Flink: any two types with a common
// type), which nested values have (catalog.LeastRestrictive, then
// element by element as =); GREATEST and LEAST order theirs, which nested
// values lack (as <: ruleExtreme's error).
var takesNested = map[string]bool{"json_string": true, "json_array": true, "json_object": true, "nullif": true}

// bindTable binds a call of table function f by its signatures: the first
// whose arguments the call's convert to (NULL to any type, BIGINT to DOUBLE, a
// text constant to TIMESTAMP) wins. Otherwise the error points at the
// argument that fits no signature and lists them.
func (c *funcCall) bindTable(f *functions.Function) (*Expr, error) {
	if c.name == "greatest" || c.name == "least" {
		for k, a := range c.args {
			if a.Type.IsNested() { // (as <: Flink's type check passes comparable ARRAYs, its code generation then fails)
				return nil, parser.Errorf(c.sc.pos(c.n.Args[k]), "%s values (%s) have no order: %s needs BIGINT, DOUBLE, VARCHAR, BOOLEAN or TIMESTAMP values; compare their parts (x[1], x['k'], x.field)", a.Type, exprTextOf(a), strings.ToUpper(c.name))
			}
		}
	}
	var best []*Expr
	var bestSig *functions.Sig
	failAt, arityOK := -1, false
	for k := range f.Sigs {
		s := &f.Sigs[k]
		if !sigArity(s, len(c.args)) {
			continue
		}
		arityOK = true
		args, bad := c.convertArgs(s)
		if bad < 0 {
			best, bestSig = args, s
			break
		}
		failAt = max(failAt, bad)
	}
	name := strings.ToUpper(c.name)
	if bestSig == nil {
		accepted := strings.Join(f.Signatures(), "; ")
		if !arityOK || failAt < 0 {
			args := strconv.Itoa(len(c.args)) + " arguments"
			if len(c.args) == 1 {
				args = "1 argument"
			}
			return nil, parser.Errorf(c.sc.pos(c.n), "%s does not take %s; it takes %s", name, args, accepted)
		}
		a := c.args[failAt]
		return nil, parser.Errorf(c.sc.pos(c.n.Args[failAt]), "%s does not take %s (%s) as argument %d; it takes %s", name, exprTextOf(a), a.Type, failAt+1, accepted)
	}
	t := bestSig.Result
	if t == catalog.Unknown { // the common type of the ANY arguments
		var anys []*Expr
		for k, a := range best {
			if sigArg(bestSig, k) == catalog.Unknown {
				anys = append(anys, a)
			}
		}
		var err error
		if t, err = c.sc.commonType(c.n, anys); err != nil {
			return nil, err
		}
		for k, a := range best {
			if sigArg(bestSig, k) == catalog.Unknown {
				best[k] = coerce(a, t)
			}
		}
	}
	return c.sc.tableCall(c.n, f, t, best)
}

// tableCall builds the OpFunc node of f over args, giving t, after checking
// its constant arguments (a regex RE2 lacks, a bad date format: an error
// with a caret in the argument). A volatile function is never folded.
func (sc *scope) tableCall(n *ast.FuncCallExpr, f *functions.Function, t catalog.Type, args []*Expr) (*Expr, error) {
	info := make([]plan.Arg, len(args))
	for k, a := range args {
		if f.FailsJob {
			exprTextOf(a) // (its kernel's message names the argument as written: plan.Arg.Text)
		}
		info[k] = plan.Arg{Type: a.Type, JSON: a.JSON, Text: a.Text}
		if a.Const {
			info[k].Const, info[k].Value = true, plan.Constants().Fold(a)
		}
	}
	if err := plan.Constants().CheckCall(f.Key(), info, t); err != nil {
		var ae *functions.ArgError
		if !errors.As(err, &ae) {
			return nil, parser.Errorf(sc.pos(n), "%s: %v", f.Name, err)
		}
		at := sc.pos(n)
		if ae.Arg < len(n.Args) {
			at = sc.pos(n.Args[ae.Arg])
			if v, ok := n.Args[ae.Arg].(*test_driver.ValueExpr); ok && v.Kind() == test_driver.KindString && ae.Offset >= 0 && !strings.Contains(v.GetString(), "'") {
				at += 1 + ae.Offset // inside the quotes
			}
		}
		return nil, parser.Errorf(at, "%s: %s", f.Name, ae.Msg)
	}
	e := &Expr{Op: plan.OpFunc, Fn: f.Key(), Type: t, Args: args, JSON: f.MakesJSON}
	if f.Volatile && (f.Name != "UNIX_TIMESTAMP" || len(args) == 0) {
		e.Col, e.Flag = -1, true
		return e, nil
	}
	if f.FailsJob { // (not constant: folded at planning, its failure would stop the next job run)
		e.Col = -1
		return e, nil
	}
	return build(e), nil
}

// sigArity reports whether s takes n arguments.
func sigArity(s *functions.Sig, n int) bool {
	if s.Variadic {
		return n >= len(s.Args)
	}
	return n == len(s.Args)
}

// sigArg is the type s wants for argument k.
func sigArg(s *functions.Sig, k int) catalog.Type {
	if k >= len(s.Args) {
		return s.Args[len(s.Args)-1]
	}
	return s.Args[k]
}

// convertArgs converts the call's arguments to s's types; bad is the index of
// the first that does not convert, or -1.
func (c *funcCall) convertArgs(s *functions.Sig) (args []*Expr, bad int) {
	args = make([]*Expr, len(c.args))
	for k, a := range c.args {
		want := sigArg(s, k)
		switch {
		case a.Type.IsNested() && want == catalog.Unknown && !takesNested[c.name]:
			return nil, k // (GREATEST, LEAST, ... order values: nested ones have no order; NULLIF is in takesNested)
		case want == catalog.Unknown || a.Type == want:
			args[k] = a
		case a.Type == catalog.Unknown || (a.Type == catalog.BigInt && want == catalog.Double):
			args[k] = coerce(a, want)
		case a.Type == catalog.Varchar && want == catalog.Timestamp && a.Const:
			v := plan.Constants().Fold(a)
			if v.Null {
				args[k] = coerce(nullExpr(catalog.Unknown), want)
				continue
			}
			ms, ok := textconv.ParseTimestamp(v.S)
			if !ok {
				return nil, k
			}
			args[k] = constExpr(catalog.Timestamp, Value{I: ms}, exprTextOf(a))
		default:
			return nil, k
		}
	}
	return args, -1
}

// unitArg returns a time unit argument (TiDB's TimeUnitExpr) as a text
// constant for the kernel, or an error at it.
func (sc *scope) unitArg(n ast.ExprNode, fn string) (*Expr, error) {
	u, ok := n.(*ast.TimeUnitExpr)
	if !ok {
		return nil, parser.Errorf(sc.pos(n), "%s needs a time unit here (SECOND, MINUTE, HOUR, DAY, ...)", fn)
	}
	return strConst(u.Unit.String(), u.Unit.String()), nil
}

// ruleExtract is EXTRACT(unit FROM ts) (TiDB: extract(unit, ts)).
func ruleExtract(c *funcCall) (*Expr, error) {
	if len(c.n.Args) != 2 {
		return nil, parser.Errorf(c.sc.pos(c.n), "write EXTRACT(HOUR FROM ts)")
	}
	unit, err := c.sc.unitArg(c.n.Args[0], "EXTRACT")
	if err != nil {
		return nil, err
	}
	ts, err := c.sc.compile(c.n.Args[1])
	if err != nil {
		return nil, err
	}
	c.args = []*Expr{unit, ts}
	return c.bindTable(functions.Lookup("EXTRACT"))
}

// ruleExtractNamed is EXTRACT(unit FROM ts) for the units TiDB's grammar
// lacks (MILLISECOND, EPOCH, ISODOW, ...), which the parser writes as
// SQ_EXTRACT('unit', ts) (parser/tidb.go).
func ruleExtractNamed(c *funcCall) (*Expr, error) {
	lit, ok := c.n.Args[0].(*test_driver.ValueExpr)
	if len(c.n.Args) != 2 || !ok || lit.Kind() != test_driver.KindString {
		return nil, parser.Errorf(c.sc.pos(c.n), "write EXTRACT(EPOCH FROM ts)")
	}
	ts, err := c.sc.compile(c.n.Args[1])
	if err != nil {
		return nil, err
	}
	unit := lit.GetString()
	c.args = []*Expr{strConst(unit, unit), ts}
	e, err := c.bindTable(functions.Lookup("EXTRACT"))
	if err == nil && e.Op != plan.OpLit {
		e.Text = "EXTRACT(" + unit + " FROM " + exprTextOf(ts) + ")" // (EXPLAIN: the SQL as written, not the stand-in)
	}
	return e, err
}

// ruleTimestampUnit is TIMESTAMPADD(unit, n, ts) and TIMESTAMPDIFF(unit, t1, t2).
func ruleTimestampUnit(c *funcCall) (*Expr, error) {
	name := strings.ToUpper(c.name)
	if len(c.n.Args) != 3 {
		return nil, parser.Errorf(c.sc.pos(c.n), "%s takes (unit, x, y), e.g. %s(HOUR, ...)", name, name)
	}
	unit, err := c.sc.unitArg(c.n.Args[0], name)
	if err != nil {
		return nil, err
	}
	c.args = []*Expr{unit}
	for _, a := range c.n.Args[1:] {
		e, err := c.sc.compile(a)
		if err != nil {
			return nil, err
		}
		c.args = append(c.args, e)
	}
	return c.bindTable(functions.Lookup(name))
}

// ruleTimeLiteral is DATE 'yyyy-MM-dd', TIME 'HH:mm:ss' and TIMESTAMP '...'
// literals: TIMESTAMP values (SPEC 1 has no DATE or TIME type: a date is its
// midnight, a time is on 1970-01-01).
func ruleTimeLiteral(c *funcCall) (*Expr, error) {
	kind := "TIMESTAMP"
	switch {
	case strings.Contains(c.name, "dateliteral"):
		kind = "DATE"
	case strings.Contains(c.name, "timeliteral") && !strings.Contains(c.name, "timestamp"):
		kind = "TIME"
	}
	var lit *test_driver.ValueExpr
	if len(c.n.Args) == 1 {
		lit, _ = c.n.Args[0].(*test_driver.ValueExpr)
	}
	if lit == nil || lit.Kind() != test_driver.KindString {
		return nil, parser.Errorf(c.sc.pos(c.n), "%s needs a quoted literal, like %s", kind, map[string]string{"DATE": "DATE '2021-01-18'", "TIME": "TIME '13:08:29'", "TIMESTAMP": "TIMESTAMP '2021-01-18 13:08:29'"}[kind])
	}
	text := strings.TrimSpace(lit.GetString())
	full := text
	switch kind {
	case "DATE":
		full = text + " 00:00:00"
	case "TIME":
		full = "1970-01-01 " + text
	}
	ms, ok := textconv.ParseTimestamp([]byte(full))
	if !ok || (kind != "TIMESTAMP" && strings.ContainsAny(text, "T ")) {
		return nil, parser.Errorf(c.sc.pos(c.n), "'%s' is not a %s: write %s", text, kind, map[string]string{"DATE": "yyyy-MM-dd", "TIME": "HH:mm:ss[.SSS]", "TIMESTAMP": "yyyy-MM-dd HH:mm:ss[.SSS]"}[kind])
	}
	return constExpr(catalog.Timestamp, Value{I: ms}, kind+" '"+text+"'"), nil
}

func init() {
	// REGEXP(s, p): the parser writes the call SQ_REX (REGEXP is a TiDB
	// keyword; parser/funcsyntax.go), the table's REGEXP as s REGEXP p is
	registerFunc(funcRule{compile: func(c *funcCall) (*Expr, error) { return c.bindTable(functions.Lookup("REGEXP")) }}, "sq_rex")
}

// regexpMatch is s [NOT] REGEXP p (TiDB's PatternRegexpExpr): the table's REGEXP.
func (sc *scope) regexpMatch(n *ast.PatternRegexpExpr) (*Expr, error) {
	c := &funcCall{sc: sc, name: "regexp", n: &ast.FuncCallExpr{FnName: ast.NewCIStr("REGEXP"), Args: []ast.ExprNode{n.Expr, n.Pattern}}}
	c.n.SetOriginTextPosition(n.OriginTextPosition())
	for _, a := range c.n.Args {
		e, err := sc.compile(a)
		if err != nil {
			return nil, err
		}
		c.args = append(c.args, e)
	}
	e, err := c.bindTable(functions.Lookup("REGEXP"))
	if err != nil || !n.Not {
		return e, err
	}
	return notExpr(e), nil
}

// Deterministic reports whether e gives the same value for the same row every
// time: false when it calls a function of the table that reads the clock or
// draws random numbers (CURRENT_TIMESTAMP, NOW, PROCTIME, UNIX_TIMESTAMP(),
// RAND; SPEC 2.10; tableCall marks those calls), which EXPLAIN reports.
func Deterministic(e *plan.Expr) bool {
	if e == nil {
		return true
	}
	if e.Op == plan.OpFunc && e.Flag {
		return false
	}
	for _, a := range e.Args {
		if !Deterministic(a) {
			return false
		}
	}
	return true
}
