package textconv

import (
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
