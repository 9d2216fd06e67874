package agg

import (
	"math"
	"math/big"
)

// Correct rounding of exact sums kept as Shewchuk partials, without math/big in
// the common cases (so that firing a window allocates nothing): the partials are
// non-overlapping and ordered by increasing magnitude, so their exact sum is
// nonzero exactly when the last partial is, and has its sign.

// fsumRound returns the partials' exact sum rounded to nearest, ties to even
// (the last step of Python's math.fsum).
func fsumRound(p []float64) float64 {
	n := len(p)
	if n == 0 {
		return 0
	}
	n--
	hi := p[n]
	lo := 0.0
	for n > 0 {
		x := hi
		n--
		y := p[n]
		hi = x + y
		yr := hi - x
		lo = y - yr
		if lo != 0 {
			break
		}
	}
	// a tie (lo is half an ulp of hi) is broken by the sign of the rest
	if n > 0 && (lo < 0 && p[n-1] < 0 || lo > 0 && p[n-1] > 0) {
		y := lo * 2
		x := hi + y
		if yr := x - hi; y == yr {
			hi = x
		}
	}
	return hi
}

// signOfSum returns the sign (-1, 0, 1) of the exact sum of p plus the values
// xs, or ok false when a partial sum would overflow.
func signOfSum(p []float64, xs ...float64) (int, bool) {
	var buf [48]float64
	q := append(buf[:0], p...)
	for _, x := range xs {
		var exact *big.Rat
		if q = addPartial(q, &exact, x); exact != nil {
			return 0, false
		}
	}
	for k := len(q) - 1; k >= 0; k-- {
		switch {
		case q[k] > 0:
			return 1, true
		case q[k] < 0:
			return -1, true
		}
	}
	return 0, true
}

// quoRound returns the exact sum of the partials p divided by n (> 0), rounded
// once to nearest, ties to even; ok is false where it cannot tell without
// math/big (results near overflow or underflow, huge n).
func quoRound(p []float64, n int64) (float64, bool) {
	if n <= 0 || n >= 1<<40 {
		return 0, false
	}
	nf := float64(n)
	q := fsumRound(p) / nf
	if q == 0 || math.IsInf(q, 0) || math.IsNaN(q) || math.Abs(q) < 0x1p-900 || math.Abs(q) > 0x1p900 {
		return 0, false
	}
	// above reports the sign of S/n − (a+b)/2, that is of S − a·n/2 − b·n/2,
	// each product exact as two doubles (FMA) and halved exactly (no underflow
	// in this range)
	above := func(a, b float64) (int, bool) {
		ah := a * nf
		al := math.FMA(a, nf, -ah)
		bh := b * nf
		bl := math.FMA(b, nf, -bh)
		return signOfSum(p, -ah/2, -al/2, -bh/2, -bl/2)
	}
	for range 4 { // q is within an ulp or two of the answer
		up, dn := math.Nextafter(q, math.Inf(1)), math.Nextafter(q, math.Inf(-1))
		cu, ok1 := above(q, up)
		cd, ok2 := above(dn, q)
		if !ok1 || !ok2 {
			return 0, false
		}
		switch {
		case cu > 0:
			q = up
		case cd < 0:
			q = dn
		case cu == 0: // halfway between q and up: the even one
			if math.Float64bits(q)&1 != 0 {
				q = up
			}
			return q, true
		case cd == 0:
			if math.Float64bits(q)&1 != 0 {
				q = dn
			}
			return q, true
		default:
			return q, true
		}
	}
	return 0, false
}
