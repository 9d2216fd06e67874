package agg

import (
	"math"
	"math/bits"
)

// A fixed-point front for the exact DOUBLE sums (SUM and AVG of DOUBLE, the
// OpSumF path; SPEC 2.4: the exact sum rounded once). A double x is m·2^e
// with m an integer below 2^53; when e ≥ −fixScale (after dropping zero low
// bits of m) and m·2^(e+fixScale) < 2^100 (|x| below about 2^36), x is an
// exact integer count of 2^−fixScale, and the state adds it to a 128-bit
// two's complement integer (fixLo, fixHi): a shift and an add with carry,
// where the partial sums cost a two-sum per partial and a compression. At
// most fixMaxN values go there (|sum| < 2^126: no overflow); the values
// that do not fit take the partials as before. The exact sum is the
// partials plus the fixed part, so before anything reads the partials
// (Result, Merge) the fixed part is moved into them exactly (flushFix: three
// pieces of at most 43 bits, each an exact double). The exact value, and so
// every result, is the one the partials alone give.

// fixScale is the fixed part's unit: 2^−fixScale.
const fixScale = 64

// fixMaxN is the most values the fixed part holds before it is moved into
// the partials.
const fixMaxN = 1 << 26

// addFix adds the finite, non-zero x to the fixed part and reports whether
// it could (else the caller adds x to the partials).
func (st *State) addFix(x float64) bool {
	if st.fixN >= fixMaxN || st.big1 != nil {
		return false
	}
	b := math.Float64bits(x)
	exp := int(b>>52) & 0x7ff
	if exp == 0 { // subnormal (zero never comes here)
		return false
	}
	m := b&(1<<52-1) | 1<<52
	sh := exp - 1075 + fixScale
	if sh < 0 {
		if bits.TrailingZeros64(m) < -sh {
			return false // below the unit
		}
		m >>= uint(-sh)
		sh = 0
	}
	if sh > 47 {
		return false // 2^100 or more
	}
	lo, hi := m<<uint(sh), uint64(0)
	if sh > 0 {
		hi = m >> uint(64-sh)
	}
	var c uint64
	if b>>63 != 0 {
		st.fixLo, c = bits.Sub64(st.fixLo, lo, 0)
		st.fixHi -= int64(hi + c)
	} else {
		st.fixLo, c = bits.Add64(st.fixLo, lo, 0)
		st.fixHi += int64(hi + c)
	}
	st.fixN++
	return true
}

// flushFix moves the fixed part into the partials s1, exactly, and empties it.
func (st *State) flushFix() {
	if st.wide == nil || st.sums == nil || st.fixN == 0 {
		return
	}
	lo, hi := st.fixLo, uint64(st.fixHi)
	neg := st.fixHi < 0
	if neg { // the magnitude
		var c uint64
		lo, c = bits.Sub64(0, lo, 0)
		hi = 0 - hi - c
	}
	st.fixLo, st.fixHi, st.fixN = 0, 0, 0
	const piece = 43
	parts := [3]uint64{lo & (1<<piece - 1), (lo>>piece | hi<<(64-piece)) & (1<<piece - 1), hi >> (2*piece - 64)}
	for k, p := range parts {
		if p == 0 {
			continue
		}
		y := math.Ldexp(float64(p), k*piece-fixScale)
		if neg {
			y = -y
		}
		st.s1 = addPartial(st.s1, &st.big1, y)
	}
}
