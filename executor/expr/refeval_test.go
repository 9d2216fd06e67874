package expr_test

// A reference interpreter of plan expressions (issue 10 item 2, as Vitess's
// evalengine keeps one): row at a time, over Go values, written from SPEC 2's
// rules and not from the kernels (big integers for overflow, a backtracking
// LIKE, decimal rounding with math/big). It is used only to check the
// compiled kernels (FuzzKernels).

import (
	"bytes"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"streamql/catalog"
	"streamql/catalog/textconv"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// val is one value of the reference interpreter.
type val struct {
	null bool
	i    int64
	f    float64
	b    bool
	s    []byte
	// a nested value (SPEC 2.10), boxed as the reference may be: an ARRAY's
	// elements or a ROW's fields in elems; a MAP's keys in elems, values in vals
	elems, vals []val
}

var null = val{null: true}

// refRow evaluates e for row r of batch b. inArg is the value of the
// innermost IN's operand.
func refEval(e *plan.Expr, b *vector.Batch, r int, inArg val) val {
	arg := func(k int) val { return refEval(e.Args[k], b, r, inArg) }
	switch e.Op {
	case plan.OpLit:
		if e.Lit.Null {
			return null
		}
		return val{i: e.Lit.I, f: e.Lit.F, b: e.Lit.B, s: e.Lit.S}
	case plan.OpCol:
		return fromVec(b.Cols[e.Col], r)
	case plan.OpCurrentWatermark:
		return fromVec(b.Cols[e.Param], r)
	case plan.OpInArg:
		return inArg
	case plan.OpIn:
		x := arg(0)
		acc := val{b: false}
		for _, eq := range e.Args[1:] {
			acc = or3(acc, refEval(eq, b, r, x))
		}
		return acc
	case plan.OpCast:
		return refCast(arg(0), e.Args[0].Type, e.Type)
	case plan.OpIsNull:
		return val{b: arg(0).null != e.Flag}
	case plan.OpIsTruth:
		x := arg(0)
		return val{b: (!x.null && x.b == e.Want) != e.Flag}
	case plan.OpNot:
		x := arg(0)
		if x.null {
			return null
		}
		return val{b: !x.b}
	case plan.OpAnd:
		l, rr := arg(0), arg(1)
		if (!l.null && !l.b) || (!rr.null && !rr.b) {
			return val{b: false}
		}
		if l.null || rr.null {
			return null
		}
		return val{b: true}
	case plan.OpOr:
		return or3(arg(0), arg(1))
	case plan.OpXor:
		l, rr := arg(0), arg(1)
		if l.null || rr.null {
			return null
		}
		return val{b: l.b != rr.b}
	case plan.OpCmp:
		return refCmp(plan.Cmp(e.Param), e.Args[0].Type, arg(0), arg(1))
	case plan.OpAdd, plan.OpSub, plan.OpMul, plan.OpDiv, plan.OpIntDiv, plan.OpMod:
		l, rr := arg(0), arg(1)
		if l.null || rr.null {
			return null
		}
		if e.Type == catalog.BigInt {
			return refIntArith(e.Op, l.i, rr.i)
		}
		return refFloatArith(e.Op, l.f, rr.f)
	case plan.OpNeg:
		x := arg(0)
		if x.null {
			return null
		}
		if e.Type == catalog.BigInt {
			return bigResult(new(big.Int).Neg(big.NewInt(x.i)))
		}
		return val{f: -x.f}
	case plan.OpAbs:
		x := arg(0)
		if x.null {
			return null
		}
		if e.Type == catalog.BigInt {
			return bigResult(new(big.Int).Abs(big.NewInt(x.i)))
		}
		return val{f: math.Abs(x.f)}
	case plan.OpFloor, plan.OpCeil:
		x := arg(0)
		if x.null {
			return null
		}
		if e.Op == plan.OpFloor {
			return val{f: math.Floor(x.f)}
		}
		return val{f: math.Ceil(x.f)}
	case plan.OpRound:
		x := arg(0)
		if x.null {
			return null
		}
		return val{f: refRound(x.f, int(e.Param))}
	case plan.OpRoundTens:
		x := arg(0)
		if x.null {
			return null
		}
		// exact decimal rounding with math/big, NULL outside int64
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(e.Param), nil)
		n := new(big.Int).Abs(big.NewInt(x.i))
		q, r := new(big.Int).QuoRem(n, p, new(big.Int))
		if new(big.Int).Lsh(r, 1).Cmp(p) >= 0 {
			q.Add(q, big.NewInt(1))
		}
		q.Mul(q, p)
		if x.i < 0 {
			q.Neg(q)
		}
		if !q.IsInt64() {
			return null
		}
		return val{i: q.Int64()}
	case plan.OpAddInterval:
		x := arg(0)
		if x.null {
			return null
		}
		return bigResult(new(big.Int).Add(big.NewInt(x.i), big.NewInt(e.Param)))
	case plan.OpCase:
		n := len(e.Args) / 2
		for k := 0; k < n; k++ {
			if c := arg(2 * k); !c.null && c.b {
				return arg(2*k + 1)
			}
		}
		return arg(2 * n)
	case plan.OpLike:
		x, p := arg(0), arg(1)
		if x.null || p.null {
			return null
		}
		return val{b: refLike(codePoints(x.s), codePoints(p.s), rune(e.Param), e.Flag)}
	case plan.OpCoalesce:
		for k := range e.Args {
			if v := arg(k); !v.null {
				return v
			}
		}
		return null
	case plan.OpConcat:
		var out []byte
		for k, a := range e.Args {
			v := arg(k)
			if v.null || a.Type == catalog.Unknown {
				return null
			}
			out = append(out, printed(a.Type, v)...)
		}
		return val{s: out}
	case plan.OpUpper, plan.OpLower, plan.OpTrim, plan.OpLTrim, plan.OpRTrim, plan.OpCharLength:
		x := arg(0)
		if x.null {
			return null
		}
		if len(e.Args) == 2 { // TRIM(... chars FROM s): chars as a set of code points
			set := arg(1)
			if set.null {
				return null
			}
			return refTrimSet(e.Op, x.s, set.s)
		}
		return refString(e.Op, x.s)
	case plan.OpSubstring:
		s, start := arg(0), arg(1)
		length := val{i: math.MaxInt64}
		if len(e.Args) == 3 {
			length = arg(2)
		}
		if s.null || start.null || length.null {
			return null
		}
		return val{s: refSubstring(s.s, start.i, length.i)}
	case plan.OpFunc:
		vs := make([]val, len(e.Args))
		ts := make([]catalog.Type, len(e.Args))
		for k, a := range e.Args {
			vs[k], ts[k] = arg(k), a.Type
		}
		if e.Fn == "JSON_ARRAY" || e.Fn == "JSON_OBJECT" {
			nested := make([]bool, len(e.Args))
			for k, a := range e.Args {
				call := a.Op == plan.OpFunc && (a.Fn == "JSON_ARRAY" || a.Fn == "JSON_OBJECT")
				nested[k] = call || (a.Op == plan.OpLit && a.JSON && !a.Lit.Null)
			}
			return refJSONBuild(e.Fn, vs, ts, nested)
		}
		return refFunc(e.Fn, vs, ts, e.Type)
	}
	panic("refEval: operator " + e.Op.String())
}

func fromVec(v *vector.Vec, r int) val {
	if v.Null[r] {
		return null
	}
	switch v.Type {
	case catalog.BigInt, catalog.Timestamp:
		return val{i: v.I[r]}
	case catalog.Double:
		return val{f: v.F[r]}
	case catalog.Boolean:
		return val{b: v.B[r]}
	case catalog.Varchar:
		return val{s: v.S[r]}
	}
	if v.Type.IsNested() {
		return refFromNested(v, r)
	}
	return null
}

// or3 is SQL's OR: true wins over NULL.
func or3(l, r val) val {
	if (!l.null && l.b) || (!r.null && r.b) {
		return val{b: true}
	}
	if l.null || r.null {
		return null
	}
	return val{b: false}
}

// bigResult is x as a BIGINT, NULL when it overflows (SPEC 2).
func bigResult(x *big.Int) val {
	if !x.IsInt64() {
		return null
	}
	return val{i: x.Int64()}
}

func refIntArith(op plan.Op, a, b int64) val {
	x, y := big.NewInt(a), big.NewInt(b)
	switch op {
	case plan.OpAdd:
		return bigResult(x.Add(x, y))
	case plan.OpSub:
		return bigResult(x.Sub(x, y))
	case plan.OpMul:
		return bigResult(x.Mul(x, y))
	case plan.OpIntDiv:
		if b == 0 {
			return null
		}
		return bigResult(x.Quo(x, y)) // truncated
	case plan.OpMod:
		if b == 0 {
			return null
		}
		return bigResult(x.Rem(x, y)) // the sign of the dividend
	}
	panic("int arith")
}

func refFloatArith(op plan.Op, a, b float64) val {
	switch op {
	case plan.OpAdd:
		return val{f: a + b}
	case plan.OpSub:
		return val{f: a - b}
	case plan.OpMul:
		return val{f: a * b}
	}
	if b == 0 {
		return null
	}
	switch op {
	case plan.OpDiv:
		return val{f: a / b}
	case plan.OpIntDiv:
		return val{f: math.Trunc(a / b)}
	}
	return val{f: math.Mod(a, b)}
}

func refCmp(op plan.Cmp, t catalog.Type, l, r val) val {
	if op == plan.NullEQ && (l.null || r.null) {
		return val{b: l.null && r.null}
	}
	if l.null || r.null {
		return null
	}
	if t.IsNested() {
		return val{b: refNestedEqual(t, l, r) == (op != plan.NE)}
	}
	var lt, eq bool
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		lt, eq = l.i < r.i, l.i == r.i
	case catalog.Double:
		lt, eq = l.f < r.f, l.f == r.f
		if math.IsNaN(l.f) || math.IsNaN(r.f) { // NaN compares false, except <>
			return val{b: op == plan.NE}
		}
	case catalog.Boolean:
		lt, eq = !l.b && r.b, l.b == r.b
	case catalog.Varchar:
		c := bytes.Compare(l.s, r.s)
		lt, eq = c < 0, c == 0
	}
	switch op {
	case plan.EQ, plan.NullEQ:
		return val{b: eq}
	case plan.NE:
		return val{b: !eq}
	case plan.LT:
		return val{b: lt}
	case plan.LE:
		return val{b: lt || eq}
	case plan.GT:
		return val{b: !lt && !eq}
	}
	return val{b: !lt}
}

// refCast is CAST (SPEC 2): a value that does not convert gives NULL.
func refCast(x val, from, to catalog.Type) val {
	if x.null || from == to {
		return x
	}
	if to.IsNested() && from.IsNested() {
		return refCastNested(x, from, to)
	}
	if to.IsNested() {
		return refFromJSON(to, x.s)
	}
	switch to {
	case catalog.Varchar:
		return val{s: printed(from, x)}
	case catalog.BigInt, catalog.Timestamp:
		switch from {
		case catalog.BigInt, catalog.Timestamp:
			return val{i: x.i}
		case catalog.Boolean:
			if to == catalog.Timestamp {
				return null
			}
			if x.b {
				return val{i: 1}
			}
			return val{i: 0}
		case catalog.Double:
			limit := 9223372036854775808.0
			if to == catalog.Timestamp {
				limit = 9.2e18
			}
			if math.IsNaN(x.f) || math.Abs(x.f) >= limit && !(to == catalog.BigInt && x.f == -limit) {
				return null
			}
			return val{i: int64(x.f)}
		case catalog.Varchar:
			if to == catalog.Timestamp {
				v, ok := textconv.ParseTimestamp(x.s)
				return okVal(ok, val{i: v})
			}
			v, ok := textconv.ParseInt(x.s)
			return okVal(ok, val{i: v})
		}
	case catalog.Double:
		switch from {
		case catalog.BigInt, catalog.Timestamp:
			return val{f: float64(x.i)}
		case catalog.Boolean:
			if x.b {
				return val{f: 1}
			}
			return val{f: 0}
		case catalog.Varchar:
			v, ok := textconv.ParseDouble(x.s)
			return okVal(ok, val{f: v})
		}
	case catalog.Boolean:
		switch from {
		case catalog.BigInt, catalog.Timestamp:
			return val{b: x.i != 0}
		case catalog.Double:
			return val{b: x.f != 0}
		case catalog.Varchar:
			v, ok := textconv.ParseBool(x.s)
			return okVal(ok, val{b: v})
		}
	}
	return null
}

func okVal(ok bool, v val) val {
	if !ok {
		return null
	}
	return v
}

// printed is v as SPEC 4 prints it (the text rule CONCAT and CAST use).
func printed(t catalog.Type, v val) []byte {
	if t.IsNested() {
		return []byte(refPrintNested(t, v))
	}
	switch t {
	case catalog.BigInt:
		return strconv.AppendInt(nil, v.i, 10)
	case catalog.Double:
		return textconv.AppendDouble(nil, v.f)
	case catalog.Boolean:
		return strconv.AppendBool(nil, v.b)
	case catalog.Varchar:
		return append([]byte(nil), v.s...)
	}
	vec := vector.NewVec(t) // TIMESTAMP: the one printing rule of vector
	vec.I[0] = v.i
	return vector.AppendValue(nil, t, vec, 0)
}

// refRound is ROUND half away from zero on x's shortest decimal form (SPEC 2),
// in exact decimal arithmetic, as Flink's BigDecimal.setScale: a decimal has
// no negative zero, so a zero result is 0.0.
func refRound(x float64, d int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || d > 400 { // a double has fewer than 400 decimals
		return x
	}
	if d < -400 { // every double is below 10^309: it rounds to 0
		return 0
	}
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(math.Abs(x), 'f', -1, 64))
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(d))), nil))
	if d >= 0 {
		r.Mul(r, scale)
	} else {
		r.Quo(r, scale)
	}
	r.Add(r, big.NewRat(1, 2))
	n := new(big.Int).Quo(r.Num(), r.Denom()) // floor of a non-negative
	q := new(big.Rat).SetInt(n)
	if d >= 0 {
		q.Quo(q, scale)
	} else {
		q.Mul(q, scale)
	}
	f, _ := q.Float64()
	if f == 0 {
		return 0
	}
	return math.Copysign(f, x)
}

func abs(d int) int {
	if d < 0 {
		return -d
	}
	return d
}

// codePoints splits s into its code points, each as its bytes (a byte that is
// not UTF-8 is one code point of its own).
func codePoints(s []byte) [][]byte {
	var out [][]byte
	for len(s) > 0 {
		_, n := utf8.DecodeRune(s)
		out, s = append(out, s[:n]), s[n:]
	}
	return out
}

// refLike matches s against p over code points by dynamic programming on
// (code points of s used, of p used): '%' any run, '_' one, esc makes the
// next pattern character literal; fold compares under simple case folding
// (ILIKE).
func refLike(s, p [][]byte, esc rune, fold bool) bool {
	// m[j] is whether p[j:] matches s[i:] for the i being filled, from the end
	next := make([]bool, len(p)+1) // for s[i+1:]
	cur := make([]bool, len(p)+1)
	for i := len(s); i >= 0; i-- {
		for j := len(p); j >= 0; j-- {
			if j == len(p) {
				cur[j] = i == len(s)
				continue
			}
			c, _ := utf8.DecodeRune(p[j])
			switch {
			case esc >= 0 && c == esc && j+1 < len(p):
				cur[j] = i < len(s) && same(s[i], p[j+1], fold) && next[j+2]
			case c == '%':
				cur[j] = cur[j+1] || (i < len(s) && next[j])
			case c == '_':
				cur[j] = i < len(s) && next[j+1]
			default:
				cur[j] = i < len(s) && same(s[i], p[j], fold) && next[j+1]
			}
		}
		next, cur = cur, next
	}
	return next[0]
}

func same(a, b []byte, fold bool) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if !fold {
		return false
	}
	ra, na := utf8.DecodeRune(a)
	rb, nb := utf8.DecodeRune(b)
	if (ra == utf8.RuneError && na <= 1) || (rb == utf8.RuneError && nb <= 1) {
		return false
	}
	for r := unicode.SimpleFold(ra); r != ra; r = unicode.SimpleFold(r) {
		if r == rb {
			return true
		}
	}
	return false
}

// refTrimSet trims the code points (of codePoints) of s found among those of
// set: from the left unless op is RTRIM, from the right unless it is LTRIM.
func refTrimSet(op plan.Op, s, set []byte) val {
	in := map[string]bool{}
	for _, c := range codePoints(set) {
		in[string(c)] = true
	}
	cs := codePoints(s)
	lo, hi := 0, len(cs)
	for op != plan.OpRTrim && lo < hi && in[string(cs[lo])] {
		lo++
	}
	for op != plan.OpLTrim && hi > lo && in[string(cs[hi-1])] {
		hi--
	}
	return val{s: bytes.Join(cs[lo:hi], nil)}
}

func refString(op plan.Op, s []byte) val {
	switch op {
	case plan.OpCharLength:
		return val{i: int64(len(codePoints(s)))}
	case plan.OpTrim:
		return val{s: []byte(strings.Trim(string(s), " "))}
	case plan.OpLTrim:
		return val{s: []byte(strings.TrimLeft(string(s), " "))}
	case plan.OpRTrim:
		return val{s: []byte(strings.TrimRight(string(s), " "))}
	}
	f := unicode.ToUpper
	if op == plan.OpLower {
		f = unicode.ToLower
	}
	var out []byte
	for _, c := range codePoints(s) {
		r, n := utf8.DecodeRune(c)
		if r == utf8.RuneError && n <= 1 {
			out = append(out, c...) // not UTF-8: kept
			continue
		}
		out = utf8.AppendRune(out, f(r))
	}
	return val{s: out}
}

// refSubstring is SUBSTRING on code points: start 1 is the first, a negative
// start counts from the end, start 0 or a length <= 0 gives ”.
func refSubstring(s []byte, start, length int64) []byte {
	cps := codePoints(s)
	n := int64(len(cps))
	if start < 0 {
		start = n + start + 1
		if start < 1 {
			return []byte{}
		}
	}
	if start == 0 || length <= 0 || start > n {
		return []byte{}
	}
	end := n
	if length < n-start+1 {
		end = start - 1 + length
	}
	return bytes.Join(cps[start-1:end], nil)
}
