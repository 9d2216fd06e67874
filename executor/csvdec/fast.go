package csvdec

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"streamql/catalog"
	"streamql/executor/vector"
)

// Fast paths of the decoder's hot loop for the common shapes of CSV text:
// records without quotes, and numbers written as plain digits. Anything else
// goes the general way (splitQuoted, textconv's parsers), which gives the same
// results for these shapes.

const (
	swarLo = 0x0101010101010101
	swar7f = 0x7f7f7f7f7f7f7f7f
	swarHi = 0x8080808080808080
)

// zeroBytes returns a word with the high bit set in exactly the bytes of x
// that are zero (no false positives: no carry crosses a byte).
func zeroBytes(x uint64) uint64 {
	return ^(((x & swar7f) + swar7f) | x) & swarHi
}

// setPlain stores field text b (not escaped; the stream has no null literal) as
// row row of v when it has a common shape that needs none of setField's rules:
// VARCHAR text that is valid UTF-8 (spaces kept, SPEC 1); BIGINT digits; DOUBLE digits[.digits]. It reports false, storing
// nothing, for anything else: setField then decides, with the same result for
// these shapes.
func setPlain(v *vector.Vec, row int, b []byte, quoted bool) bool {
	switch v.Type {
	case catalog.Varchar:
		if !utf8.Valid(b) {
			return false
		}
		v.S[row] = b[:len(b):len(b)]
	case catalog.BigInt:
		x, ok := digitsInt(b)
		if !ok {
			return false
		}
		v.I[row] = x
	case catalog.Double:
		x, ok := plainDecimal(b)
		if !ok {
			return false
		}
		v.F[row] = x
	default:
		return false
	}
	v.Null[row] = false
	return true
}

// splitUnquoted appends the fields of rec, a record without quoted fields,
// split at delim, to fs. It stores at most ncols fields and returns fs and the
// number of fields rec has (more than ncols when it has extra ones).
func splitUnquoted(fs []field, rec []byte, delim byte, ncols int) ([]field, int) {
	pat := uint64(delim) * swarLo
	start, i := 0, 0
	for ; i+8 <= len(rec); i += 8 {
		z := zeroBytes(binary.LittleEndian.Uint64(rec[i:]) ^ pat)
		for z != 0 {
			j := i + bits.TrailingZeros64(z)>>3
			fs = append(fs, field{b: rec[start:j]})
			start = j + 1
			if len(fs) == ncols {
				return fs, ncols + 1 + countByte(rec[start:], delim)
			}
			z &= z - 1
		}
	}
	for ; i < len(rec); i++ {
		if rec[i] == delim {
			fs = append(fs, field{b: rec[start:i]})
			start = i + 1
			if len(fs) == ncols {
				return fs, ncols + 1 + countByte(rec[start:], delim)
			}
		}
	}
	fs = append(fs, field{b: rec[start:]})
	return fs, len(fs)
}

func countByte(b []byte, c byte) int {
	n := 0
	for _, x := range b {
		if x == c {
			n++
		}
	}
	return n
}

// digitsInt reads b when it is 1 to 18 ASCII digits (no sign, no spaces: the
// value cannot overflow); ok is false for anything else.
func digitsInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + int64(d)
	}
	return n, true
}

// fastPow10 are the powers of ten plainDecimal divides by, exact in float64.
var fastPow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// plainDecimal reads b when it is digits[.digits] with at most 15 digits in all
// (no sign, no spaces, no exponent): the digits and the power of ten are exact
// in float64, so one division is correctly rounded (Clinger's fast path, as
// textconv.ParseDouble's). ok is false for anything else.
func plainDecimal(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var mant uint64
	frac := -1
	for i, c := range b {
		d := c - '0'
		if d <= 9 {
			mant = mant*10 + uint64(d)
			continue
		}
		if c != '.' || frac >= 0 || i == 0 || i == len(b)-1 {
			return 0, false
		}
		frac = i
	}
	if frac < 0 {
		if len(b) > 15 {
			return 0, false
		}
		return float64(mant), true
	}
	return float64(mant) / fastPow10[len(b)-frac-1], true
}
