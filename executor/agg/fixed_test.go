package agg

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// TestFixedSumExact: SUM and AVG of DOUBLE through the fixed-point front
// (fixed.go) give the exact sum rounded once (SPEC 2.4), as the partials
// alone do (Add's path) and as a rational sum of the values does: values of
// every magnitude around the front's bounds (2^-64 and 2^36, where values
// leave it for the partials), exact cancellations, negative sums, states
// merged at a random row, and a fixed part that reaches fixMaxN values.
func TestFixedSumExact(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	value := func() float64 {
		s := float64(1 - 2*r.Intn(2))
		switch r.Intn(8) {
		case 0:
			return s * math.Ldexp(1+r.Float64(), r.Intn(140)-90) // 2^-90 .. 2^50
		case 1:
			return s * math.Ldexp(1+r.Float64(), 34+r.Intn(4)) // around 2^36
		case 2:
			return s * math.Ldexp(float64(r.Intn(1<<20)+1), -64-r.Intn(3)) // around the unit
		case 3:
			return s * float64(r.Int63n(1<<40))
		}
		return float64(r.Intn(2001)-1000) / 10
	}
	for _, f := range []Func{Sum, Avg} {
		sp := Spec{Func: f, Arg: catalog.Double}
		op := OpOf(&sp)
		for run := 0; run < 3000; run++ {
			n := 1 + r.Intn(80)
			v := vector.NewVec(catalog.Double)
			exact := new(big.Rat)
			for i := range n {
				v.F[i] = value()
				if i > 0 && r.Intn(10) == 0 {
					v.F[i] = -v.F[i-1] // cancels
				}
				exact.Add(exact, new(big.Rat).SetFloat64(v.F[i]))
			}
			var fast, slow, a, b State
			if run%50 == 0 {
				fast.widen(&sp)
				fast.fixN = fixMaxN - int32(r.Intn(4)) // the front fills up
			}
			cut := r.Intn(n + 1)
			for i := range n {
				fast.AddOp(op, &sp, v, i, int64(i))
				slow.Add(&sp, v, i, int64(i))
				if i < cut {
					a.AddOp(op, &sp, v, i, int64(i))
				} else {
					b.AddOp(op, &sp, v, i, int64(i))
				}
			}
			if run%50 == 0 && fast.fixN > fixMaxN {
				t.Fatalf("the fixed part holds %d values", fast.fixN)
			}
			a.Merge(&sp, &b)
			want := exact
			if f == Avg {
				want = new(big.Rat).Quo(exact, new(big.Rat).SetInt64(int64(n)))
			}
			w, _ := want.Float64()
			if w == 0 && f == Sum {
				w = 0 // +0.0: some value was not -0.0
			}
			for name, st := range map[string]*State{"fixed": &fast, "partials": &slow, "merged": &a} {
				out := vector.NewVec(catalog.Double)
				st.Result(&sp, out, 0)
				if math.Float64bits(out.F[0]) != math.Float64bits(w) {
					t.Fatalf("%v of %v (%s): %v, want %v", f, v.F[:n], name, out.F[0], w)
				}
			}
		}
	}
}
