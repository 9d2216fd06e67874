package planner

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/test_driver"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/parser"
)

// call compiles the functions of SPEC 2.
func (sc *scope) call(n *ast.FuncCallExpr) (*Expr, error) {
	name := n.FnName.L
	if name == "current_watermark" {
		return sc.currentWatermark(n)
	}
	if name == "date_sub" || name == "date_add" || name == "subdate" || name == "adddate" {
		return sc.interval(n, name == "date_sub" || name == "subdate")
	}
	args := make([]*Expr, len(n.Args))
	for i, a := range n.Args {
		e, err := sc.compile(a)
		if err != nil {
			return nil, err
		}
		args[i] = e
	}
	arity := func(lo, hi int) error {
		if len(args) < lo || len(args) > hi {
			want := strconv.Itoa(lo)
			if hi != lo {
				want = strconv.Itoa(lo) + " to " + strconv.Itoa(hi)
			}
			return parser.Errorf(sc.pos(n), "%s takes %s arguments, got %d", strings.ToUpper(name), want, len(args))
		}
		return nil
	}
	needText := func(i int) error {
		args[i] = coerce(args[i], catalog.Varchar)
		if args[i].Type != catalog.Varchar {
			return parser.Errorf(sc.pos(n.Args[i]), "%s needs text, got %s (%s); use CAST(... AS VARCHAR)", strings.ToUpper(name), args[i].text(), args[i].Type)
		}
		return nil
	}
	needInt := func(i int) error {
		args[i] = coerce(args[i], catalog.BigInt)
		if args[i].Type != catalog.BigInt {
			return parser.Errorf(sc.pos(n.Args[i]), "%s needs a BIGINT here, got %s", strings.ToUpper(name), args[i].Type)
		}
		return nil
	}
	switch name {
	case "coalesce", "ifnull":
		if name == "ifnull" {
			if err := arity(2, 2); err != nil {
				return nil, err
			}
		} else if err := arity(1, 1<<20); err != nil {
			return nil, err
		}
		t, err := sc.commonType(n, args)
		if err != nil {
			return nil, err
		}
		for i := range args {
			args[i] = coerce(args[i], t)
		}
		return coalesceKernel(t, args), nil
	case "if":
		if err := arity(3, 3); err != nil {
			return nil, err
		}
		c := coerce(args[0], catalog.Boolean)
		if c.Type != catalog.Boolean {
			return nil, parser.Errorf(sc.pos(n.Args[0]), "IF needs a BOOLEAN condition, got %s", c.Type)
		}
		t, err := sc.commonType(n, args[1:])
		if err != nil {
			return nil, err
		}
		return caseKernel(t, []*Expr{c}, []*Expr{coerce(args[1], t), coerce(args[2], t)}), nil
	case "concat":
		if err := arity(1, 1<<20); err != nil {
			return nil, err
		}
		return concatKernel(args), nil
	case "upper", "ucase", "lower", "lcase":
		if err := arity(1, 1); err != nil {
			return nil, err
		}
		if err := needText(0); err != nil {
			return nil, err
		}
		f := unicode.ToUpper
		if name == "lower" || name == "lcase" {
			f = unicode.ToLower
		}
		return strMap(args[0], func(dst, s []byte) []byte {
			for len(s) > 0 {
				r, size := utf8.DecodeRune(s)
				if r == utf8.RuneError && size <= 1 {
					dst = append(dst, s[0])
					s = s[1:]
					continue
				}
				dst = utf8.AppendRune(dst, f(r))
				s = s[size:]
			}
			return dst
		}), nil
	case "trim", "ltrim", "rtrim":
		if len(args) != 1 {
			return nil, parser.Errorf(sc.pos(n), "%s(x) takes one argument (trimming other characters is not supported)", strings.ToUpper(name))
		}
		if err := needText(0); err != nil {
			return nil, err
		}
		return strMap(args[0], func(dst, s []byte) []byte {
			i, j := 0, len(s)
			if name != "rtrim" {
				for i < j && s[i] == ' ' {
					i++
				}
			}
			if name != "ltrim" {
				for j > i && s[j-1] == ' ' {
					j--
				}
			}
			return append(dst, s[i:j]...)
		}), nil
	case "substring", "substr":
		if err := arity(2, 3); err != nil {
			return nil, err
		}
		if err := needText(0); err != nil {
			return nil, err
		}
		for i := 1; i < len(args); i++ {
			if err := needInt(i); err != nil {
				return nil, err
			}
		}
		return substringKernel(args), nil
	case "char_length", "character_length":
		if err := arity(1, 1); err != nil {
			return nil, err
		}
		if err := needText(0); err != nil {
			return nil, err
		}
		x := args[0]
		return foldConst(derived(catalog.BigInt, x.Const, func(b *vector.Batch, sel []int32, out *vector.Vec) {
			in := x.Eval(b, sel)
			for _, i := range sel {
				out.Null[i] = in.Null[i]
				out.I[i] = int64(utf8.RuneCount(in.S[i]))
			}
		})), nil
	case "abs":
		if err := arity(1, 1); err != nil {
			return nil, err
		}
		switch args[0].Type {
		case catalog.BigInt:
			return mapInt(args[0], catalog.BigInt, func(a int64) (int64, bool) {
				if a < 0 {
					return -a, a != math.MinInt64
				}
				return a, true
			}), nil
		case catalog.Double:
			return mapFloat(args[0], math.Abs), nil
		case catalog.Unknown:
			return args[0], nil
		}
		return nil, parser.Errorf(sc.pos(n), "ABS needs a number, got %s", args[0].Type)
	case "floor", "ceil", "ceiling":
		if err := arity(1, 1); err != nil {
			return nil, err
		}
		switch args[0].Type {
		case catalog.BigInt, catalog.Unknown:
			return args[0], nil
		case catalog.Double:
			f := math.Floor
			if name != "floor" {
				f = math.Ceil
			}
			return mapFloat(args[0], f), nil
		}
		return nil, parser.Errorf(sc.pos(n), "%s needs a number, got %s", strings.ToUpper(name), args[0].Type)
	case "round":
		if err := arity(1, 2); err != nil {
			return nil, err
		}
		digits := int64(0)
		if len(args) == 2 {
			if !args[1].Const || args[1].Type != catalog.BigInt {
				return nil, parser.Errorf(sc.pos(n.Args[1]), "ROUND's second argument must be an integer literal")
			}
			v := args[1].Eval(nil, []int32{0})
			digits = v.I[0]
		}
		switch args[0].Type {
		case catalog.Unknown:
			return args[0], nil
		case catalog.BigInt:
			if digits >= 0 {
				return args[0], nil
			}
			p := math.Pow10(int(-digits))
			return castTo(mapFloat(castTo(args[0], catalog.Double), func(a float64) float64 { return roundHalfUp(a/p, 0) * p }), catalog.BigInt), nil
		case catalog.Double:
			return mapFloat(args[0], func(a float64) float64 { return roundHalfUp(a, int(digits)) }), nil
		}
		return nil, parser.Errorf(sc.pos(n), "ROUND needs a number, got %s", args[0].Type)
	}
	return nil, parser.Errorf(sc.pos(n), "unknown function %s; streamql has COALESCE, IF, CONCAT, UPPER, LOWER, TRIM, SUBSTRING, CHAR_LENGTH, ABS, ROUND, FLOOR, CEIL, CAST, CURRENT_WATERMARK", strings.ToUpper(name))
}

// roundHalfUp rounds x to d decimal places, half away from zero, on the shortest
// decimal form of x (as Flink: ROUND(2.675, 2) = 2.68).
func roundHalfUp(x float64, d int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	s := strconv.FormatFloat(math.Abs(x), 'f', -1, 64)
	dot := strings.IndexByte(s, '.')
	if dot < 0 {
		dot = len(s)
		s += "."
	}
	frac := len(s) - dot - 1
	if d >= frac {
		return x
	}
	// digits without the point, keeping d fraction digits, and the next digit
	digits := []byte(s[:dot] + s[dot+1:])
	keep := dot + d // number of digits kept
	if keep < 0 {
		return math.Copysign(0, x)
	}
	up := digits[keep] >= '5'
	kept := digits[:keep]
	if up {
		i := len(kept) - 1
		for i >= 0 && kept[i] == '9' {
			kept[i] = '0'
			i--
		}
		if i < 0 {
			kept = append([]byte{'1'}, kept...)
			dot++
		} else {
			kept[i]++
		}
	}
	intPart := string(kept[:min(len(kept), dot)])
	for len(intPart) < dot {
		intPart += "0"
	}
	if intPart == "" {
		intPart = "0"
	}
	str := intPart
	if d > 0 {
		str += "." + string(kept[dot:])
	}
	v, _ := strconv.ParseFloat(str, 64)
	return math.Copysign(v, x)
}

// interval compiles x ± INTERVAL 'v' UNIT (TiDB's DATE_SUB / DATE_ADD): on BIGINT
// event time the interval is in milliseconds (SPEC 2.3), on TIMESTAMP it shifts time.
func (sc *scope) interval(n *ast.FuncCallExpr, sub bool) (*Expr, error) {
	if len(n.Args) != 3 {
		return nil, parser.Errorf(sc.pos(n), "write intervals as x - INTERVAL '5' SECOND")
	}
	x, err := sc.compile(n.Args[0])
	if err != nil {
		return nil, err
	}
	lit, ok := n.Args[1].(*test_driver.ValueExpr)
	if !ok {
		return nil, parser.Errorf(sc.pos(n.Args[1]), "an INTERVAL needs a literal amount, like INTERVAL '5' SECOND")
	}
	unit, ok := n.Args[2].(*ast.TimeUnitExpr)
	if !ok {
		return nil, parser.Errorf(sc.pos(n), "an INTERVAL needs a unit")
	}
	text := lit.GetDatumString()
	if lit.Kind() != test_driver.KindString {
		text = fmt.Sprint(lit.GetValue()) // INTERVAL 5 SECOND, INTERVAL 0.5 SECOND
	}
	amount, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil {
		return nil, parser.Errorf(sc.pos(n.Args[1]), "INTERVAL amount '%s' is not a number", text)
	}
	var ms float64
	switch unit.Unit {
	case ast.TimeUnitMicrosecond:
		ms = 0.001
	case ast.TimeUnitSecond:
		ms = 1000
	case ast.TimeUnitMinute:
		ms = 60_000
	case ast.TimeUnitHour:
		ms = 3_600_000
	case ast.TimeUnitDay:
		ms = 86_400_000
	case ast.TimeUnitWeek:
		ms = 7 * 86_400_000
	default:
		return nil, parser.Errorf(sc.pos(n), "INTERVAL unit %s is not supported; use SECOND, MINUTE, HOUR, DAY or WEEK", unit.Unit)
	}
	delta := int64(math.Round(amount * ms))
	if sub {
		delta = -delta
	}
	switch x.Type {
	case catalog.Unknown:
		return x, nil
	case catalog.BigInt, catalog.Timestamp:
		return mapInt(x, x.Type, func(a int64) (int64, bool) {
			s := a + delta
			return s, (a >= 0) != (delta >= 0) || (s >= 0) == (a >= 0)
		}), nil
	}
	return nil, parser.Errorf(sc.pos(n), "INTERVAL arithmetic needs a BIGINT (epoch ms) or TIMESTAMP, got %s", x.Type)
}

func (sc *scope) currentWatermark(n *ast.FuncCallExpr) (*Expr, error) {
	if len(n.Args) != 1 {
		return nil, parser.Errorf(sc.pos(n), "CURRENT_WATERMARK takes the event-time column, e.g. CURRENT_WATERMARK(ts)")
	}
	col, ok := n.Args[0].(*ast.ColumnNameExpr)
	if !ok {
		return nil, parser.Errorf(sc.pos(n.Args[0]), "CURRENT_WATERMARK takes the event-time column, e.g. CURRENT_WATERMARK(ts)")
	}
	idx, t, err := sc.column(col)
	if err != nil {
		return nil, err
	}
	for ri, r := range sc.rels {
		if idx < r.offset || idx >= r.offset+len(r.stream.Columns) {
			continue
		}
		if r.stream.EventTime != idx-r.offset {
			return nil, parser.Errorf(sc.pos(col), "CURRENT_WATERMARK(%s): %s has no watermark on '%s'; declare WATERMARK FOR %s AS ... in CREATE STREAM", col.Name.Name.O, r.stream.Name, col.Name.Name.O, col.Name.Name.O)
		}
		wm := sc.watermark(ri)
		if wm < 0 {
			return nil, parser.Errorf(sc.pos(n), "CURRENT_WATERMARK is not available here")
		}
		sc.use(wm)
		return &Expr{Type: t, Col: -1, Eval: func(b *vector.Batch, _ []int32) *vector.Vec { return b.Cols[wm] }}, nil
	}
	return nil, parser.Errorf(sc.pos(n), "CURRENT_WATERMARK: column not found")
}

func coalesceKernel(t catalog.Type, args []*Expr) *Expr {
	konst := true
	for _, a := range args {
		konst = konst && a.Const
	}
	vs := make([]*vector.Vec, len(args))
	return foldConst(derived(t, konst, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		for k, a := range args {
			vs[k] = a.Eval(b, sel)
		}
		for _, i := range sel {
			k := 0
			for k < len(vs)-1 && vs[k].Null[i] {
				k++
			}
			copyValue(t, vs[k], out, int(i))
		}
	}))
}

// concatKernel is CONCAT / ||: NULL if any argument is NULL; numbers and other
// values read as they print (SPEC 2).
func concatKernel(args []*Expr) *Expr {
	konst := true
	for _, a := range args {
		konst = konst && a.Const
	}
	vs := make([]*vector.Vec, len(args))
	return foldConst(derived(catalog.Varchar, konst, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		for k, a := range args {
			vs[k] = a.Eval(b, sel)
		}
		for _, i := range sel {
			null := false
			start := len(out.Arena)
			for k, v := range vs {
				if v.Null[i] || args[k].Type == catalog.Unknown {
					null = true
					break
				}
				out.Arena = vector.AppendValue(out.Arena, args[k].Type, v, int(i))
			}
			out.Null[i] = null
			if null {
				out.Arena = out.Arena[:start]
				continue
			}
			out.S[i] = out.Arena[start:len(out.Arena):len(out.Arena)]
		}
	}))
}

// strMap applies f (which appends the result for s to dst) to each text value.
func strMap(x *Expr, f func(dst, s []byte) []byte) *Expr {
	return foldConst(derived(catalog.Varchar, x.Const, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		in := x.Eval(b, sel)
		for _, i := range sel {
			if in.Null[i] {
				out.Null[i] = true
				continue
			}
			start := len(out.Arena)
			out.Arena = f(out.Arena, in.S[i])
			out.S[i] = out.Arena[start:len(out.Arena):len(out.Arena)]
			out.Null[i] = false
		}
	}))
}

// substringKernel is SUBSTRING(s, start[, len]) on code points: start 1 is the
// first character, a negative start counts from the end, start 0 or a negative
// length gives ” (SPEC 2).
func substringKernel(args []*Expr) *Expr {
	konst := true
	for _, a := range args {
		konst = konst && a.Const
	}
	vs := make([]*vector.Vec, len(args))
	return foldConst(derived(catalog.Varchar, konst, func(b *vector.Batch, sel []int32, out *vector.Vec) {
		for k, a := range args {
			vs[k] = a.Eval(b, sel)
		}
		for _, i := range sel {
			null := false
			for _, v := range vs {
				null = null || v.Null[i]
			}
			out.Null[i] = null
			if null {
				continue
			}
			s := vs[0].S[i]
			start := vs[1].I[i]
			length := int64(math.MaxInt64)
			if len(vs) == 3 {
				length = vs[2].I[i]
			}
			out.S[i] = substring(s, start, length)
		}
	}))
}

func substring(s []byte, start, length int64) []byte {
	if start == 0 || length <= 0 {
		return s[:0]
	}
	n := int64(utf8.RuneCount(s))
	if start < 0 {
		start = n + start + 1
		if start < 1 {
			return s[:0]
		}
	}
	if start > n {
		return s[:0]
	}
	// byte offset of code point start-1
	off := 0
	for k := int64(1); k < start; k++ {
		_, size := utf8.DecodeRune(s[off:])
		off += size
	}
	end := off
	for k := int64(0); k < length && end < len(s); k++ {
		_, size := utf8.DecodeRune(s[end:])
		end += size
	}
	return s[off:end]
}
