package agg

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
)

func partialsOf(xs ...float64) []float64 {
	var p []float64
	var exact *big.Rat
	for _, x := range xs {
		p = addPartial(p, &exact, x)
	}
	if exact != nil {
		return nil
	}
	return p
}

func ratSum(xs []float64) *big.Rat {
	r := new(big.Rat)
	for _, x := range xs {
		r.Add(r, new(big.Rat).SetFloat64(x))
	}
	return r
}

// TestRoundAgainstRationals: fsumRound and quoRound give the exact sum (and
// sum / n) rounded once to nearest, ties to even, as math/big computes it; also
// on values built to fall exactly halfway between two doubles.
func TestRoundAgainstRationals(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	check := func(xs []float64, n int64) {
		p := partialsOf(xs...)
		if p == nil {
			return
		}
		want, _ := ratSum(xs).Float64()
		if got := fsumRound(p); got != want && !(got == 0 && want == 0) {
			t.Fatalf("fsumRound(%v) = %v, want %v", xs, got, want)
		}
		wq, _ := new(big.Rat).Quo(ratSum(xs), new(big.Rat).SetInt64(n)).Float64()
		if q, ok := quoRound(p, n); ok && q != wq {
			t.Fatalf("quoRound(%v, %d) = %v, want %v", xs, n, q, wq)
		}
	}
	for it := 0; it < 20000; it++ {
		k := 1 + rng.Intn(8)
		xs := make([]float64, k)
		for i := range xs {
			switch rng.Intn(3) {
			case 0:
				xs[i] = float64(rng.Intn(2001)-1000) / 10
			case 1:
				xs[i] = rng.NormFloat64() * math.Ldexp(1, rng.Intn(120)-60)
			default:
				xs[i] = math.Ldexp(float64(rng.Int63()), rng.Intn(40)-80)
			}
		}
		check(xs, int64(1+rng.Intn(1000)))
		// a tie: S = (q + ulp(q)/2)·n exactly, for a random q and n
		q := rng.NormFloat64() * 1000
		n := int64(1 + rng.Intn(1000))
		nf := float64(n)
		u := math.Nextafter(q, math.Inf(1)) - q
		hi := q * nf
		tie := []float64{hi, math.FMA(q, nf, -hi), u / 2 * nf}
		check(tie, n)
		check([]float64{-tie[0], -tie[1], -tie[2]}, n)
	}
}
