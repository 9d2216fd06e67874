package planner

import (
	"math"
	"strconv"
	"strings"

	"streamql/catalog"
	"streamql/parser"
)

// The numeric functions of SPEC 2: ABS, FLOOR/CEIL and ROUND (half-up on the
// shortest decimal form, as Flink).
func init() {
	registerFunc(funcRule{compile: ruleAbs}, "abs")
	registerFunc(funcRule{compile: ruleFloorCeil}, "floor", "ceil", "ceiling")
	registerFunc(funcRule{compile: ruleRound}, "round")
}

// ruleAbs is ABS(x) on a BIGINT (NULL for the smallest BIGINT, whose absolute
// value overflows) or a DOUBLE (SPEC 2).
func ruleAbs(c *funcCall) (*Expr, error) {
	if err := c.arity(1, 1); err != nil {
		return nil, err
	}
	switch c.args[0].Type {
	case catalog.BigInt:
		return mapInt(c.args[0], catalog.BigInt, func(a int64) (int64, bool) {
			if a < 0 {
				return -a, a != math.MinInt64
			}
			return a, true
		}), nil
	case catalog.Double:
		return mapFloat(c.args[0], math.Abs), nil
	case catalog.Unknown:
		return c.args[0], nil
	}
	return nil, parser.Errorf(c.sc.pos(c.n), "ABS needs a number, got %s", c.args[0].Type)
}

// ruleFloorCeil is FLOOR and CEIL/CEILING: a BIGINT is its own value, a DOUBLE
// rounds down or up (SPEC 2).
func ruleFloorCeil(c *funcCall) (*Expr, error) {
	if err := c.arity(1, 1); err != nil {
		return nil, err
	}
	switch c.args[0].Type {
	case catalog.BigInt, catalog.Unknown:
		return c.args[0], nil
	case catalog.Double:
		f := math.Floor
		if c.name != "floor" {
			f = math.Ceil
		}
		return mapFloat(c.args[0], f), nil
	}
	return nil, parser.Errorf(c.sc.pos(c.n), "%s needs a number, got %s", strings.ToUpper(c.name), c.args[0].Type)
}

// ruleRound is ROUND(x[, d]) with an integer literal d (SPEC 2: half-up on the
// shortest decimal form; a negative d rounds a BIGINT to tens, hundreds, ...).
func ruleRound(c *funcCall) (*Expr, error) {
	if err := c.arity(1, 2); err != nil {
		return nil, err
	}
	args := c.args
	digits := int64(0)
	if len(args) == 2 {
		if !args[1].Const || args[1].Type != catalog.BigInt {
			return nil, parser.Errorf(c.sc.pos(c.n.Args[1]), "ROUND's second argument must be an integer literal")
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
	return nil, parser.Errorf(c.sc.pos(c.n), "ROUND needs a number, got %s", args[0].Type)
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
