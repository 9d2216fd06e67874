package planner

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/test_driver"

	"streamql/catalog"
	"streamql/catalog/functions"
	"streamql/parser"
	"streamql/planner/plan"
)

// The event-time functions of SPEC 2.3: CURRENT_WATERMARK(col) and interval
// arithmetic (TiDB parses x ± INTERVAL 'v' UNIT as DATE_SUB / DATE_ADD). Both
// read their arguments' AST (a column name, a literal and a unit).
func init() {
	registerFunc(funcRule{raw: true, compile: func(c *funcCall) (*Expr, error) { return c.sc.currentWatermark(c.n) }}, "current_watermark")
	registerFunc(funcRule{raw: true, compile: func(c *funcCall) (*Expr, error) {
		return c.sc.interval(c.n, c.name == "date_sub" || c.name == "subdate")
	}}, "date_sub", "date_add", "subdate", "adddate")
}

// interval compiles x ± INTERVAL 'v' UNIT (TiDB's DATE_SUB / DATE_ADD): on BIGINT
// event time the interval is in milliseconds (SPEC 2.3), on TIMESTAMP it shifts time.
// A unit written MILLISECOND is a parser.MillisecondUnit.
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
	var unit *ast.TimeUnitExpr
	millis := false
	switch u := n.Args[2].(type) {
	case *ast.TimeUnitExpr:
		unit = u
	case *parser.MillisecondUnit:
		unit, millis = &u.TimeUnitExpr, true
	}
	if unit == nil {
		return nil, parser.Errorf(sc.pos(n), "an INTERVAL needs a unit")
	}
	text := lit.GetDatumString()
	if lit.Kind() != test_driver.KindString {
		text = fmt.Sprint(lit.GetValue()) // INTERVAL 5 SECOND, INTERVAL 0.5 SECOND
	}
	amount, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil && compoundUnit(unit.Unit) != "" {
		amount, err = 0, nil // (its text is read by intervalCompound)
	}
	if err != nil {
		return nil, parser.Errorf(sc.pos(n.Args[1]), "INTERVAL amount '%s' is not a number", text)
	}
	var ms string // milliseconds per unit
	unitName := unit.Unit.String()
	switch {
	case millis:
		ms, unitName = "1", "MILLISECOND"
	case unit.Unit == ast.TimeUnitMicrosecond:
		ms = "0.001"
	case unit.Unit == ast.TimeUnitSecond:
		ms = "1000"
	case unit.Unit == ast.TimeUnitMinute:
		ms = "60000"
	case unit.Unit == ast.TimeUnitHour:
		ms = "3600000"
	case unit.Unit == ast.TimeUnitDay:
		ms = "86400000"
	case unit.Unit == ast.TimeUnitWeek:
		ms = "604800000"
	case unit.Unit == ast.TimeUnitMonth || unit.Unit == ast.TimeUnitQuarter || unit.Unit == ast.TimeUnitYear:
		return sc.intervalMonths(n, x, text, amount, unit.Unit.String(), sub)
	case compoundUnit(unit.Unit) != "":
		return sc.intervalCompound(n, x, text, unit.Unit, sub)
	default:
		return nil, parser.Errorf(sc.pos(n), "INTERVAL unit %s is not supported; use MILLISECOND, SECOND, MINUTE, HOUR, DAY or WEEK", unit.Unit)
	}
	delta, ok := intervalMs(strings.TrimSpace(text), amount, ms)
	if !ok {
		iv := "INTERVAL '" + text + "' " + unitName
		return nil, parser.Errorf(sc.pos(n.Args[1]), "%s", parser.IntervalOverflow(iv))
	}
	if sub {
		delta = -delta
	}
	return sc.addInterval(n, x, delta)
}

// addInterval is x + delta milliseconds (OpAddInterval) for a BIGINT (epoch
// ms, SPEC 2.3) or TIMESTAMP x; a planning error at n for another type.
func (sc *scope) addInterval(n *ast.FuncCallExpr, x *Expr, delta int64) (*Expr, error) {
	switch x.Type {
	case catalog.Unknown:
		return x, nil
	case catalog.BigInt, catalog.Timestamp:
		return build(&Expr{Op: plan.OpAddInterval, Type: x.Type, Args: []*Expr{x}, Param: delta}), nil
	}
	return nil, parser.Errorf(sc.pos(n), "INTERVAL arithmetic needs a BIGINT (epoch ms) or TIMESTAMP, got %s", x.Type)
}

// intervalMonths compiles ts ± INTERVAL 'n' MONTH | QUARTER | YEAR (Flink's
// year-month intervals) as TIMESTAMPADD(unit, ±n, ts): calendar months, the
// day clamped to the month's last (Jan 31 + 1 month = Feb 28). The amount
// must be a whole number; a month has no fixed length, so a BIGINT (epoch ms)
// operand is a planning error that suggests a TIMESTAMP.
func (sc *scope) intervalMonths(n *ast.FuncCallExpr, x *Expr, text string, amount float64, unit string, sub bool) (*Expr, error) {
	iv := "INTERVAL '" + text + "' " + unit
	if amount != math.Trunc(amount) || math.Abs(amount) > 1e9 {
		return nil, parser.Errorf(sc.pos(n.Args[1]), "%s: a %s interval takes a whole number", iv, unit)
	}
	if x.Type != catalog.Timestamp && x.Type != catalog.Unknown {
		return nil, parser.Errorf(sc.pos(n), "%s has no fixed length in milliseconds, so it applies to a TIMESTAMP only, got %s; use TO_TIMESTAMP_LTZ(x, 3) or a DAY interval", iv, x.Type)
	}
	k := int64(amount)
	if sub {
		k = -k
	}
	c := &funcCall{sc: sc, name: "timestampadd", n: n, args: []*Expr{strConst(unit, unit), intConst(k, strconv.FormatInt(k, 10)), x}}
	return c.bindTable(functions.Lookup("TIMESTAMPADD"))
}

// compoundUnit returns the Flink spelling of TiDB's compound unit u (the
// parser's rewrite of INTERVAL '…' A TO B), "" for a simple unit.
func compoundUnit(u ast.TimeUnitType) string {
	return map[ast.TimeUnitType]string{ast.TimeUnitYearMonth: "YEAR TO MONTH", ast.TimeUnitDayHour: "DAY TO HOUR",
		ast.TimeUnitDayMinute: "DAY TO MINUTE", ast.TimeUnitDaySecond: "DAY TO SECOND", ast.TimeUnitHourMinute: "HOUR TO MINUTE",
		ast.TimeUnitHourSecond: "HOUR TO SECOND", ast.TimeUnitMinuteSecond: "MINUTE TO SECOND"}[u]
}

// compoundFields are the fields of a compound interval's text, in order,
// with their milliseconds (0: months, for YEAR TO MONTH) and separators:
// Flink's forms '[-]y-m', '[-]d h', '[-]d h:m', '[-]d h:m:s[.fff]', 'h:m',
// 'h:m:s[.fff]', 'm:s[.fff]'.
var compoundFields = map[ast.TimeUnitType]struct {
	ms   []int64
	seps string
}{
	ast.TimeUnitYearMonth: {[]int64{0, 0}, "-"}, ast.TimeUnitDayHour: {[]int64{86_400_000, 3_600_000}, " "},
	ast.TimeUnitDayMinute: {[]int64{86_400_000, 3_600_000, 60_000}, " :"}, ast.TimeUnitDaySecond: {[]int64{86_400_000, 3_600_000, 60_000, 1000}, " ::"},
	ast.TimeUnitHourMinute: {[]int64{3_600_000, 60_000}, ":"}, ast.TimeUnitHourSecond: {[]int64{3_600_000, 60_000, 1000}, "::"},
	ast.TimeUnitMinuteSecond: {[]int64{60_000, 1000}, ":"},
}

// intervalCompound compiles x ± INTERVAL 'text' A TO B: the fields of text
// (compoundFields), the last SECOND field with up to three decimals; YEAR TO
// MONTH as calendar months (intervalMonths), the others in milliseconds.
func (sc *scope) intervalCompound(n *ast.FuncCallExpr, x *Expr, text string, u ast.TimeUnitType, sub bool) (*Expr, error) {
	name := compoundUnit(u)
	f := compoundFields[u]
	bad := func() error {
		return parser.Errorf(sc.pos(n.Args[1]), "INTERVAL '%s' %s: write %s", text, name,
			map[ast.TimeUnitType]string{ast.TimeUnitYearMonth: "'1-2' (years-months)", ast.TimeUnitDayHour: "'1 02' (days hours)",
				ast.TimeUnitDayMinute: "'1 02:03'", ast.TimeUnitDaySecond: "'1 02:03:04.005'", ast.TimeUnitHourMinute: "'02:03'",
				ast.TimeUnitHourSecond: "'02:03:04.005'", ast.TimeUnitMinuteSecond: "'03:04.005'"}[u])
	}
	s := strings.TrimSpace(text)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	var parts []string
	for k := 0; k < len(f.seps); k++ {
		i := strings.IndexByte(s, f.seps[k])
		if i < 0 {
			return nil, bad()
		}
		parts, s = append(parts, s[:i]), s[i+1:]
	}
	parts = append(parts, s)
	var total int64
	for k, p := range parts {
		last := k == len(parts)-1
		ms := f.ms[k]
		if u == ast.TimeUnitYearMonth {
			ms = map[int]int64{0: 12, 1: 1}[k] // (months)
		}
		var v int64
		if last && ms == 1000 && strings.Contains(p, ".") {
			whole, frac, _ := strings.Cut(p, ".")
			if len(frac) == 0 || len(frac) > 3 || strings.Trim(frac, "0123456789") != "" {
				return nil, bad()
			}
			fr, _ := strconv.ParseInt((frac + "00")[:3], 10, 64)
			w, err := strconv.ParseInt(whole, 10, 64)
			if err != nil || w < 0 || w > 1e12 {
				return nil, bad()
			}
			v = w*1000 + fr
		} else {
			w, err := strconv.ParseInt(p, 10, 64)
			if err != nil || w < 0 || w > 1e12 || strings.Trim(p, "0123456789") != "" {
				return nil, bad()
			}
			v = w * ms
		}
		total += v
	}
	if neg {
		total = -total
	}
	if u == ast.TimeUnitYearMonth {
		return sc.intervalMonths(n, x, strconv.FormatInt(total, 10), float64(total), "MONTH", sub)
	}
	if sub {
		total = -total
	}
	return sc.addInterval(n, x, total)
}

// intervalMs is the INTERVAL amount (as written, and as parsed) times ms
// milliseconds (a decimal), rounded half away from zero, exactly (a float
// rounds near 2^63); false when it does not fit in int64.
func intervalMs(text string, amount float64, ms string) (int64, bool) {
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		r = new(big.Rat)
		if r.SetFloat64(amount) == nil { // Inf or NaN
			return 0, false
		}
	}
	m, _ := new(big.Rat).SetString(ms)
	r.Mul(r, m)
	neg := r.Sign() < 0
	r.Abs(r)
	q, rem := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if rem.Lsh(rem, 1).Cmp(r.Denom()) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if neg {
		q.Neg(q)
	}
	return q.Int64(), q.IsInt64() && q.Int64() != math.MinInt64 // negated when subtracted
}

// currentWatermark is CURRENT_WATERMARK(col) on the event-time column of a
// stream with a WATERMARK (SPEC 2.3): the watermark before the row, read from
// the batch column the job fills.
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
			return nil, parser.Errorf(sc.pos(col), "CURRENT_WATERMARK(%s): %s has no watermark on '%s'; %s", col.Name.Name.O, r.stream.Name, col.Name.Name.O, addWatermarkHint(r.stream, col.Name.Name.O))
		}
		wm := sc.watermark(ri)
		if wm < 0 {
			return nil, parser.Errorf(sc.pos(n), "CURRENT_WATERMARK is not available here")
		}
		sc.use(wm)
		return &Expr{Op: plan.OpCurrentWatermark, Type: t, Col: -1, Param: int64(wm)}, nil
	}
	return nil, parser.Errorf(sc.pos(n), "CURRENT_WATERMARK: column not found")
}
