package expr

import (
	"bytes"
	crand "crypto/rand"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"streamql/catalog"
	"streamql/executor/vector"
)

// The number and condition functions of the function table (SPEC 2.10).

// prepF1 is a DOUBLE → DOUBLE function.
func prepF1(f func(float64) float64) func([]Arg, catalog.Type) (RowFunc, error) {
	return func([]Arg, catalog.Type) (RowFunc, error) {
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			out.F[i] = f(a[0].F[i])
			return true
		}, nil
	}
}

// prepF2 is a (DOUBLE, DOUBLE) → DOUBLE function.
func prepF2(f func(x, y float64) float64) func([]Arg, catalog.Type) (RowFunc, error) {
	return func([]Arg, catalog.Type) (RowFunc, error) {
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			out.F[i] = f(a[0].F[i], a[1].F[i])
			return true
		}, nil
	}
}

// prepConstF is a function of no arguments giving x (PI, E).
func prepConstF(x float64) func([]Arg, catalog.Type) (RowFunc, error) {
	return func([]Arg, catalog.Type) (RowFunc, error) {
		return func(_ []*vector.Vec, i int, out *vector.Vec) bool {
			out.F[i] = x
			return true
		}, nil
	}
}

func sqrt(x float64) float64    { return math.Sqrt(x) }
func exp(x float64) float64     { return math.Exp(x) }
func ln(x float64) float64      { return math.Log(x) }
func log10(x float64) float64   { return math.Log10(x) }
func log2(x float64) float64    { return math.Log2(x) }
func sin(x float64) float64     { return math.Sin(x) }
func cos(x float64) float64     { return math.Cos(x) }
func tan(x float64) float64     { return math.Tan(x) }
func degrees(x float64) float64 { return x * 180 / math.Pi }
func radians(x float64) float64 { return x / 180 * math.Pi }
func asin(x float64) float64    { return math.Asin(x) }
func acos(x float64) float64    { return math.Acos(x) }
func atan(x float64) float64    { return math.Atan(x) }
func sinh(x float64) float64    { return math.Sinh(x) }
func cosh(x float64) float64    { return math.Cosh(x) }
func tanh(x float64) float64    { return math.Tanh(x) }

// cot is Calcite's COT (SqlFunctions.cot): 1 / tan x.
func cot(x float64) float64 { return 1 / math.Tan(x) }

// atan2 is ATAN2(y, x): Java's Math.atan2.
func atan2(y, x float64) float64 { return math.Atan2(y, x) }

// prepUUID is UUID(): a random RFC 4122 version 4 UUID in lower-case hex
// (Java's UUID.randomUUID().toString()), drawn from a ChaCha8 generator
// seeded from the operating system's secure source (Flink uses a
// cryptographically strong generator); written into the arena.
func prepUUID([]Arg, catalog.Type) (RowFunc, error) {
	var seed [32]byte
	if _, err := crand.Read(seed[:]); err != nil {
		return nil, err
	}
	r := rand.NewChaCha8(seed)
	var b [16]byte
	return func(_ []*vector.Vec, i int, out *vector.Vec) bool {
		hi, lo := r.Uint64(), r.Uint64()
		for k := range 8 {
			b[k], b[8+k] = byte(hi>>(56-8*k)), byte(lo>>(56-8*k))
		}
		b[6] = b[6]&0x0f | 0x40 // version 4
		b[8] = b[8]&0x3f | 0x80 // variant 10
		start := len(out.Arena)
		for k, x := range b {
			if k == 4 || k == 6 || k == 8 || k == 10 {
				out.Arena = append(out.Arena, '-')
			}
			out.Arena = append(out.Arena, hexDigits[x>>4], hexDigits[x&15])
		}
		setText(out, i, start)
		return true
	}, nil
}

const hexDigits = "0123456789abcdef"

// powJava is Java's Math.pow: it differs from Go's math.Pow in that 1 to the
// power NaN and (-1) to the power ±Infinity are NaN in Java, 1 in Go.
func powJava(x, y float64) float64 {
	if math.IsNaN(y) || (math.IsInf(y, 0) && math.Abs(x) == 1) {
		return math.NaN()
	}
	return math.Pow(x, y)
}

// prepLog is LOG(x) (natural) and LOG(base, x): Flink throws for a base or x
// that is not positive and for base 1; that gives NULL here.
func prepLog(args []Arg, _ catalog.Type) (RowFunc, error) {
	if len(args) == 1 {
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			out.F[i] = math.Log(a[0].F[i])
			return true
		}, nil
	}
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		b, x := a[0].F[i], a[1].F[i]
		if !(b > 0) || !(x > 0) || b == 1 {
			return false
		}
		out.F[i] = math.Log(x) / math.Log(b)
		return true
	}, nil
}

// prepSign is SIGN of a BIGINT or a DOUBLE (NaN stays NaN, -0.0 stays -0.0, as Java's Math.signum).
func prepSign(args []Arg, _ catalog.Type) (RowFunc, error) {
	if args[0].Type == catalog.BigInt {
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			x := a[0].I[i]
			out.I[i] = b2i(x > 0) - b2i(x < 0)
			return true
		}, nil
	}
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		x := a[0].F[i]
		switch {
		case x > 0:
			out.F[i] = 1
		case x < 0:
			out.F[i] = -1
		default:
			out.F[i] = x // 0, -0 or NaN
		}
		return true
	}, nil
}

// prepTruncate is TRUNCATE(x[, d]): toward zero at d decimal places (d < 0:
// tens, hundreds), on the shortest decimal form of a DOUBLE as Flink's
// BigDecimal.setScale(d, DOWN).
func prepTruncate(args []Arg, _ catalog.Type) (RowFunc, error) {
	digits := func(a []*vector.Vec, i int) int64 {
		if len(a) == 2 {
			return a[1].I[i]
		}
		return 0
	}
	if args[0].Type == catalog.BigInt {
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			x, d := a[0].I[i], digits(a, i)
			if d >= 0 {
				out.I[i] = x
				return true
			}
			if d < -18 {
				out.I[i] = 0
				return true
			}
			p := int64(1)
			for range -d {
				p *= 10
			}
			out.I[i] = x / p * p
			return true
		}, nil
	}
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		out.F[i] = truncateDecimal(a[0].F[i], digits(a, i)) + 0 // (a decimal has no -0.0)
		return true
	}, nil
}

// truncateDecimal cuts x toward zero to d decimal places of its shortest
// decimal form (no negative zero, as a BigDecimal).
func truncateDecimal(x float64, d int64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || d > 340 {
		return x
	}
	var buf [32]byte
	s := strconv.AppendFloat(buf[:0], math.Abs(x), 'e', -1, 64)
	// s is d[.ddd]e±XX: the digits and the decimal exponent
	mant, e := s, 0
	for k := range s {
		if s[k] == 'e' {
			mant = s[:k]
			neg := s[k+1] == '-'
			for _, c := range s[k+2:] {
				e = e*10 + int(c-'0')
			}
			if neg {
				e = -e
			}
			break
		}
	}
	var digs [24]byte
	n := 0
	for _, c := range mant {
		if c != '.' {
			digs[n] = c
			n++
		}
	}
	// value = 0.digs × 10^(e+1); keep e+1+d digits
	keep := int64(e) + 1 + d
	if keep <= 0 {
		return 0
	}
	if keep >= int64(n) {
		return x
	}
	v := 0.0
	for _, c := range digs[:keep] {
		v = v*10 + float64(c-'0')
	}
	// v × 10^(e+1-keep), through text for exact rounding
	out := strconv.AppendInt(digs[:0:0], int64(v), 10)
	out = append(out, 'e')
	out = strconv.AppendInt(out, int64(e)+1-keep, 10)
	r, _ := strconv.ParseFloat(string(out), 64)
	return math.Copysign(r, x)
}

// prepRand is RAND() and RAND(seed): Flink's RAND(seed) repeats its sequence
// for a seed; a kernel draws from its own generator.
func prepRand(args []Arg, _ catalog.Type) (RowFunc, error) {
	var r *rand.Rand
	if len(args) == 1 && args[0].Const && !args[0].Value.Null {
		r = rand.New(rand.NewPCG(uint64(args[0].Value.I), 0))
	} else {
		r = rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	}
	return func(_ []*vector.Vec, i int, out *vector.Vec) bool {
		out.F[i] = r.Float64()
		return true
	}, nil
}

// prepRandInteger is RAND_INTEGER([seed, ]n).
func prepRandInteger(args []Arg, _ catalog.Type) (RowFunc, error) {
	seed := uint64(time.Now().UnixNano())
	if len(args) == 2 && args[0].Const && !args[0].Value.Null {
		seed = uint64(args[0].Value.I)
	}
	r := rand.New(rand.NewPCG(seed, 0))
	last := len(args) - 1
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		n := a[last].I[i]
		if n <= 0 {
			return false
		}
		out.I[i] = r.Int64N(n)
		return true
	}, nil
}

// prepBin is BIN(x): Java's Long.toBinaryString.
func prepBin([]Arg, catalog.Type) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		start := len(out.Arena)
		out.Arena = strconv.AppendUint(out.Arena, uint64(a[0].I[i]), 2)
		setText(out, i, start)
		return true
	}, nil
}

const hexUpper = "0123456789ABCDEF"

// prepHex is HEX of a BIGINT (Java's Long.toHexString, upper case) or of a
// string's UTF-8 bytes.
func prepHex(args []Arg, _ catalog.Type) (RowFunc, error) {
	if args[0].Type == catalog.BigInt {
		return func(a []*vector.Vec, i int, out *vector.Vec) bool {
			start := len(out.Arena)
			out.Arena = strconv.AppendUint(out.Arena, uint64(a[0].I[i]), 16)
			for k := start; k < len(out.Arena); k++ {
				if c := out.Arena[k]; c >= 'a' {
					out.Arena[k] = c - 'a' + 'A'
				}
			}
			setText(out, i, start)
			return true
		}, nil
	}
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		start := len(out.Arena)
		for _, c := range a[0].S[i] {
			out.Arena = append(out.Arena, hexUpper[c>>4], hexUpper[c&15])
		}
		setText(out, i, start)
		return true
	}, nil
}

// prepGreatest and prepLeast are GREATEST / LEAST over arguments of one type
// (the planner converted them): NULL if any is (Flink); NaN is greater than
// every DOUBLE, as Java's Double.compareTo.
func prepGreatest(args []Arg, t catalog.Type) (RowFunc, error) { return prepExtreme(t, 1) }
func prepLeast(args []Arg, t catalog.Type) (RowFunc, error)    { return prepExtreme(t, -1) }

func prepExtreme(t catalog.Type, sign int) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		best := 0
		for k := 1; k < len(a); k++ {
			if compareAt(t, a[k], a[best], i)*sign > 0 {
				best = k
			}
		}
		copyValue(t, a[best], out, i)
		return true
	}, nil
}

// compareAt compares row i of x and y, of type t (Java's compareTo for DOUBLE:
// NaN above everything, -0.0 below 0.0).
func compareAt(t catalog.Type, x, y *vector.Vec, i int) int {
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		return cmpOrdered(x.I[i], y.I[i])
	case catalog.Double:
		return javaCompareDouble(x.F[i], y.F[i])
	case catalog.Boolean:
		return int(b2i(x.B[i]) - b2i(y.B[i]))
	case catalog.Varchar:
		return bytes.Compare(x.S[i], y.S[i])
	}
	return 0
}

func cmpOrdered(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// javaCompareDouble is Java's Double.compare.
func javaCompareDouble(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return cmpOrdered(int64(math.Float64bits(a)), int64(math.Float64bits(b))) // (-0.0 before 0.0: its sign bit makes it negative)
}

// prepNullIf is NULLIF(a, b): NULL when a is NULL or equals b (SPEC 2's =;
// ARRAY, MAP and ROW values, of their common type, by NestedEqual, as =
// compares them).
func prepNullIf(args []Arg, t catalog.Type) (RowFunc, error) {
	return func(a []*vector.Vec, i int, out *vector.Vec) bool {
		if a[0].Null[i] {
			return false
		}
		if !a[1].Null[i] && equalAt(t, a[0], a[1], i) {
			return false
		}
		copyValue(t, a[0], out, i)
		return true
	}, nil
}

// equalAt is SPEC 2's = of row i of x and y (NaN equals nothing, 0.0 = -0.0).
func equalAt(t catalog.Type, x, y *vector.Vec, i int) bool {
	if t == catalog.Double {
		return x.F[i] == y.F[i]
	}
	if t.IsNested() {
		return NestedEqual(x, i, y, i)
	}
	return compareAt(t, x, y, i) == 0
}
