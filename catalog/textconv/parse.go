// Package textconv owns the text→value rules of SPEC 1 ("Reading text into a typed
// column": CSV fields, JSON strings, CAST) and the value→text printing of SPEC 4
// ("Output", values: DOUBLE exactly like Java 19+ Double.toString, TIMESTAMP as
// 2021-01-17 12:48:29.123, BOOLEAN true/false).
//
// Every function works on byte slices, appends to caller-owned buffers and
// allocates nothing, so decoders and encoders can call it once per value on the hot
// path.
package textconv

import (
	"math"
	"strconv"
	"unsafe"
)

// Trim returns b without its surrounding spaces and tabs (' ' and '\t'), the
// trimming SPEC 1 applies before reading a non-VARCHAR value. The result shares b's
// memory.
func Trim(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\t') {
		j--
	}
	return b[i:j]
}

// ParseInt reads a BIGINT (SPEC 1): surrounding spaces and tabs are trimmed, then an
// optional '+' or '-' and one or more decimal digits whose value fits in int64. It
// reports false for anything else (empty text, other characters, overflow).
func ParseInt(b []byte) (int64, bool) {
	b = Trim(b)
	return parseIntTrimmed(b)
}

func parseIntTrimmed(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	neg := false
	switch b[0] {
	case '-':
		neg = true
		b = b[1:]
	case '+':
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var n uint64
	if len(b) <= 18 { // cannot overflow
		for _, c := range b {
			d := c - '0'
			if d > 9 {
				return 0, false
			}
			n = n*10 + uint64(d)
		}
	} else {
		for _, c := range b {
			d := c - '0'
			if d > 9 {
				return 0, false
			}
			if n > (math.MaxUint64-9)/10 {
				return 0, false
			}
			n = n*10 + uint64(d)
			if n > 1<<63 {
				return 0, false
			}
		}
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > math.MaxInt64 {
		return 0, false
	}
	return int64(n), true
}

// ParseDouble reads a DOUBLE (SPEC 1) the way Java's Double.parseDouble does, minus
// its d/f suffixes: surrounding spaces and tabs are trimmed, then an optional sign
// and either NaN, Infinity, or decimal digits with an optional '.' (at least one
// digit on either side: "5.", ".5") and an optional exponent [eE][+-]digits. Hex
// floats, '_' separators, "inf" and any other text make it report false. Values
// beyond the DOUBLE range read as ±Inf and tiny ones as ±0, like Java; the result is
// the correctly rounded nearest double.
func ParseDouble(b []byte) (float64, bool) {
	b = Trim(b)
	if !validDouble(b) {
		return 0, false
	}
	i := 0
	neg := false
	if b[0] == '+' || b[0] == '-' {
		neg = b[0] == '-'
		i = 1
	}
	switch b[i] {
	case 'N':
		return math.NaN(), true
	case 'I':
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	// Fast path: up to 15 significant digits and a small power of ten are exact in
	// float64 arithmetic, so one multiplication or division rounds correctly.
	if f, ok := fastDouble(b[i:]); ok {
		if neg {
			f = -f
		}
		return f, true
	}
	// Overflow is decided here: strconv would report it with an allocated error.
	if overflows(b[i:]) {
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	// The grammar is checked, so strconv sees only forms Java accepts. strconv does
	// not keep the string, so viewing b as a string is safe. Underflow gives ±0
	// without an error.
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(b), len(b)), 64)
	if err != nil {
		// Unreachable: the grammar is valid and overflow was handled above.
		if math.IsInf(f, 0) || f == 0 {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// maxHalfUlp holds the significant digits of MaxFloat64 + ulp/2 = 2^1024 - 2^970,
// the smallest value that rounds to +Inf, which is 0.<maxHalfUlp> × 10^309.
const maxHalfUlp = "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792"

// overflows reports whether the unsigned decimal b (grammar already checked, not
// NaN or Infinity) rounds to infinity as a float64.
func overflows(b []byte) bool {
	// Find the significant digits and the decimal exponent E with
	// value = 0.d1d2... × 10^E.
	mantEnd := len(b)
	var exp int64
	for i, c := range b {
		if c == 'e' || c == 'E' {
			mantEnd = i
			j := i + 1
			neg := false
			if b[j] == '+' || b[j] == '-' {
				neg = b[j] == '-'
				j++
			}
			for _, c := range b[j:] {
				if exp < 1e12 {
					exp = exp*10 + int64(c-'0')
				}
			}
			if neg {
				exp = -exp
			}
			break
		}
	}
	mant := b[:mantEnd]
	dot := len(mant)
	first := -1 // index of the first non-zero digit
	for i, c := range mant {
		if c == '.' {
			dot = i
		} else if c != '0' && first < 0 {
			first = i
		}
	}
	if first < 0 {
		return false // zero
	}
	var e int64 // value = 0.d1d2... × 10^e before the exponent part
	if first < dot {
		e = int64(dot - first)
	} else {
		e = -int64(first - dot - 1)
	}
	e += exp
	if e < 309 {
		return false
	}
	if e > 309 {
		return true
	}
	// Compare the significant digits with maxHalfUlp's.
	k := 0
	for i := first; i < len(mant); i++ {
		c := mant[i]
		if c == '.' {
			continue
		}
		if k == len(maxHalfUlp) {
			return true // equal so far, and at least as long: >= threshold
		}
		if c != maxHalfUlp[k] {
			return c > maxHalfUlp[k]
		}
		k++
	}
	return k == len(maxHalfUlp) // exactly the threshold ties to even: +Inf
}

// validDouble checks Java's decimal floating-point grammar (without suffixes):
// [+-]? (NaN | Infinity | (digits [. digits?] | . digits) ([eE] [+-]? digits)?).
func validDouble(b []byte) bool {
	i, n := 0, len(b)
	if n == 0 {
		return false
	}
	if b[0] == '+' || b[0] == '-' {
		i++
	}
	if i == n {
		return false
	}
	switch b[i] {
	case 'N':
		return string(b[i:]) == "NaN"
	case 'I':
		return string(b[i:]) == "Infinity"
	}
	digits := 0
	for i < n && b[i]-'0' <= 9 {
		i++
		digits++
	}
	if i < n && b[i] == '.' {
		i++
		for i < n && b[i]-'0' <= 9 {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		start := i
		for i < n && b[i]-'0' <= 9 {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == n
}

var pow10tab = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastDouble handles the common "digits[.digits]" form (validated, unsigned, no
// exponent) with at most 15 significant digits and at most 22 fraction digits:
// mantissa and power of ten are both exact, so a single division is correctly
// rounded (Clinger's fast path).
func fastDouble(b []byte) (float64, bool) {
	var mant uint64
	nd, frac := 0, -1
	for i, c := range b {
		switch {
		case c == '.':
			frac = i
		case c-'0' <= 9:
			if mant != 0 || c != '0' { // leading zeros are not significant
				nd++
				if nd > 15 {
					return 0, false
				}
			}
			mant = mant*10 + uint64(c-'0')
		default:
			return 0, false // exponent: leave to strconv
		}
	}
	if frac < 0 {
		return float64(mant), true
	}
	e := len(b) - frac - 1
	if e > 22 {
		return 0, false
	}
	return float64(mant) / pow10tab[e], true
}

// ParseBool reads a BOOLEAN (SPEC 1): surrounding spaces and tabs are trimmed, then
// "true" or "false" in any letter case. The second result is false for anything
// else.
func ParseBool(b []byte) (bool, bool) {
	b = Trim(b)
	switch len(b) {
	case 4:
		if b[0]|0x20 == 't' && b[1]|0x20 == 'r' && b[2]|0x20 == 'u' && b[3]|0x20 == 'e' {
			return true, true
		}
	case 5:
		if b[0]|0x20 == 'f' && b[1]|0x20 == 'a' && b[2]|0x20 == 'l' && b[3]|0x20 == 's' && b[4]|0x20 == 'e' {
			return false, true
		}
	}
	return false, false
}
