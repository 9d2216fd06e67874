package textconv

import (
	"encoding/binary"
	"math"
	"strconv"
)

// AppendDouble appends f as Java 19+ Double.toString prints it (SPEC 4) and returns
// the extended buffer:
//
//   - digits: the shortest decimal that reads back to f; when that has a single
//     significant digit, the closest decimal of one or two digits that reads back
//     (4.9E-324, not 5.0E-324; 2.0 stays 2.0);
//   - layout: when the chosen decimal d has 1.0E-3 <= |d| < 1.0E7, plain decimal
//     with at least one fraction digit ("10.0", "0.001", "1234567.0"), otherwise
//     computerized scientific notation "d.dddE±n" with at least one fraction
//     digit and no '+' ("1.0E7", "1.0E-4", "-3.0E-5");
//   - "NaN", "Infinity", "-Infinity", "0.0", "-0.0".
//
// It allocates nothing when dst has room (25 bytes suffice for any double).
func AppendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	if f >= 1e-3 && f < 1e7 {
		// Plain layout. The decimal Java picks lies in [1.0E-3, 1.0E7) exactly
		// when f does: rounding to a double is monotonic and both bounds are
		// doubles whose shortest decimal is the bound itself.
		if m, k, ok := fewFractionDigits(f); ok {
			return appendFixed(dst, m, k)
		}
		start := len(dst)
		dst = strconv.AppendFloat(dst, f, 'f', -1, 64) // shortest digits, never an exponent
		for _, c := range dst[start:] {
			if c == '.' {
				return dst
			}
		}
		return append(dst, '.', '0')
	}
	var digs [24]byte
	nd, exp := shortestDigits(&digs, f)
	return appendJavaLayout(dst, digs[:nd], exp)
}

// shortestDigits writes the significant digits of the positive finite f chosen by
// Java's Double.toString into digs and returns their count and the decimal exponent
// exp of the first digit (f ≈ d.ddd × 10^exp). Trailing zeros are removed.
func shortestDigits(digs *[24]byte, f float64) (nd, exp int) {
	var buf [32]byte
	s := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // d[.ddd]e±xx
	nd, exp = splitE(digs, s)
	if nd == 1 && f < 0x1p-1022 {
		// Java considers candidates of one or two digits and picks the closest.
		// The closest two-digit decimal is f correctly rounded to two digits. It
		// is never farther from f than the one-digit shortest, which reads back
		// to f, and among subnormals the rounding interval is symmetric (ends
		// included alike), so it reads back to f as well. For a normal double a
		// one-digit shortest lies within a relative 2^-53 of f, far closer than
		// any other two-digit decimal, so Java picks that same number.
		var buf2 [32]byte
		s2 := strconv.AppendFloat(buf2[:0], f, 'e', 1, 64) // d.de±xx
		nd, exp = splitE(digs, s2)
	}
	return nd, exp
}

// splitE parses strconv's 'e' output "d[.ddd]e±xx" into digits without trailing
// zeros and the exponent.
func splitE(digs *[24]byte, s []byte) (nd, exp int) {
	i := 0
	for ; i < len(s) && s[i] != 'e'; i++ {
		if s[i] != '.' {
			digs[nd] = s[i]
			nd++
		}
	}
	for nd > 1 && digs[nd-1] == '0' {
		nd--
	}
	neg := s[i+1] == '-'
	for _, c := range s[i+2:] {
		exp = exp*10 + int(c-'0')
	}
	if neg {
		exp = -exp
	}
	return nd, exp
}

// appendJavaLayout lays out d = 0.d1d2...dn × 10^(exp+1) as Java's Double.toString.
func appendJavaLayout(dst []byte, d []byte, exp int) []byte {
	nd := len(d)
	if exp >= -3 && exp < 7 {
		if exp < 0 {
			dst = append(dst, '0', '.')
			for i := -1; i > exp; i-- {
				dst = append(dst, '0')
			}
			return append(dst, d...)
		}
		intLen := exp + 1
		if nd <= intLen {
			dst = append(dst, d...)
			for i := nd; i < intLen; i++ {
				dst = append(dst, '0')
			}
			return append(dst, '.', '0')
		}
		dst = append(dst, d[:intLen]...)
		dst = append(dst, '.')
		return append(dst, d[intLen:]...)
	}
	dst = append(dst, d[0], '.')
	if nd == 1 {
		dst = append(dst, '0')
	} else {
		dst = append(dst, d[1:]...)
	}
	dst = append(dst, 'E')
	if exp < 0 {
		dst = append(dst, '-')
		exp = -exp
	}
	return strconv.AppendInt(dst, int64(exp), 10)
}

// fixedPow10 are the powers of ten fewFractionDigits tries, all exact in float64.
var fixedPow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8}

// fewFractionDigits finds, for 1e-3 <= f < 1e7, the decimal m × 10^-k with the
// fewest fraction digits k <= 8 that reads back to f, when m < 10^15; ok is false
// when there is none (f then needs more digits, and the caller falls back to
// strconv's shortest formatting).
//
// Why the result is the decimal Java prints: m and 10^k are exact doubles, so
// m / 10^k is correctly rounded, i.e. it equals f exactly when the decimal reads
// back to f. The rounding interval of f is narrower than ulp(f) <= 2^-29 < 10^-8,
// so at most one decimal with k fraction digits reads back to f, and the computed
// f×10^k lies within 0.1 + 0.07 of it, so rounding it finds it. The first k that
// works gives the fewest significant digits: a decimal of equal length with more
// fraction digits would have to sit just below a power of ten 10^q <= m×10^-k,
// at least 10^(q-15) away from it, far more than ulp(f) allows. A single
// significant digit is no exception for these normal doubles (see shortestDigits).
func fewFractionDigits(f float64) (m uint64, k int, ok bool) {
	if u := uint64(f); float64(u) == f { // an integer (f < 1e7)
		return u, 0, true
	}
	for k := 1; k < len(fixedPow10); k++ {
		p := fixedPow10[k]
		x := f * p
		if x >= 1e15 {
			return 0, 0, false
		}
		u := uint64(x + 0.5) // x + 0.5 is exact below 2^52: rounds half up
		if float64(u)/p == f {
			return u, k, true
		}
	}
	return 0, 0, false
}

// appendFixed appends m × 10^-k (m < 10^15, k <= 8) with exactly k fraction
// digits (k > 0), or m followed by ".0" (k = 0): the integer part by
// AppendInt, the fraction digits as one 8-byte store (eightDigits, the
// leading zeros of the group beyond k shifted out) when dst has room for
// them (the interval join's amounts, issue 23: half of the formatting's
// time was this function's digit loop).
func appendFixed(dst []byte, m uint64, k int) []byte {
	if k == 0 {
		return append(AppendInt(dst, int64(m)), '.', '0')
	}
	if k <= 8 {
		p := pow10[k]
		ip := m / p
		dst = AppendInt(dst, int64(ip))
		if l := len(dst); cap(dst)-l >= 9 {
			dst = dst[:l+1+k]
			dst[l] = '.'
			binary.LittleEndian.PutUint64(dst[l+1:l+9], eightDigits(m-ip*p)>>(8*(8-k)))
			return dst
		}
		dst = append(dst, '.')
		var buf [8]byte
		binary.LittleEndian.PutUint64(buf[:], eightDigits(m-ip*p)>>(8*(8-k)))
		return append(dst, buf[:k]...)
	}
	var buf [24]byte
	i := len(buf)
	if k == 0 {
		i -= 2
		buf[i], buf[i+1] = '.', '0'
	} else {
		for ; k > 0; k-- {
			i--
			buf[i] = byte('0' + m%10)
			m /= 10
		}
		i--
		buf[i] = '.'
	}
	for {
		i--
		buf[i] = byte('0' + m%10)
		m /= 10
		if m == 0 {
			break
		}
	}
	return append(dst, buf[i:]...)
}
