package agg

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// TestAddOpMatchesAdd: AddOp's paths (OpOf) leave exactly the state Add leaves
// and report the same growth, over random runs of values with NULLs, NaN, ±Inf,
// ±0.0, subnormals, and magnitudes around addPartialSmall's 2^1020 bound (and
// partial sums that overflow into the exact spill), so every SPEC 2.4 value rule
// holds on the fast paths too.
func TestAddOpMatchesAdd(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	floats := func() float64 {
		switch r.Intn(12) {
		case 0:
			return math.NaN()
		case 1:
			return math.Inf(1 - 2*r.Intn(2))
		case 2:
			return math.Copysign(0, float64(1-2*r.Intn(2)))
		case 3:
			return math.SmallestNonzeroFloat64 * float64(r.Intn(100)-50)
		case 4:
			return math.Ldexp(1+r.Float64(), 1016+r.Intn(8)) * float64(1-2*r.Intn(2)) // 2^1016 .. 2^1024
		case 5:
			return math.MaxFloat64 * (1 - r.Float64()/8)
		}
		return float64(r.Intn(2001)-1000) / 10 // one decimal, as the sensor rows
	}
	ints := func() int64 {
		switch r.Intn(6) {
		case 0:
			return math.MaxInt64 - int64(r.Intn(3))
		case 1:
			return math.MinInt64 + int64(r.Intn(3))
		}
		return int64(r.Intn(2001) - 1000)
	}
	specs := []Spec{{Func: CountStar}}
	for _, f := range []Func{Count, Min, Max, Sum, Avg, First, VarPop} {
		for _, a := range []catalog.Type{catalog.Double, catalog.BigInt, catalog.Timestamp} {
			if (f == Sum || f == Avg || f == VarPop) && a == catalog.Timestamp {
				continue
			}
			specs = append(specs, Spec{Func: f, Arg: a})
		}
	}
	specs = append(specs, Spec{Func: Count, Arg: catalog.BigInt, Distinct: true})
	for _, sp := range specs {
		op := OpOf(&sp)
		for run := 0; run < 300; run++ {
			v := vector.NewVec(sp.Arg)
			if sp.Func == CountStar {
				v = vector.NewVec(catalog.BigInt)
			}
			n := 1 + r.Intn(60)
			for i := 0; i < n; i++ {
				v.Null[i] = r.Intn(8) == 0
				if sp.Arg == catalog.Double {
					v.F[i] = floats()
				} else {
					v.I[i] = ints()
				}
			}
			var a, b State
			var ga, gb int64
			for i := 0; i < n; i++ {
				ga += a.Add(&sp, v, i, int64(i))
				gb += b.AddOp(op, &sp, v, i, int64(i))
			}
			if ga != a.Bytes() || gb != b.Bytes() {
				t.Fatalf("%v over %v: Add grew %d bytes (holds %d), AddOp %d (holds %d)", sp.Func, sp.Arg, ga, a.Bytes(), gb, b.Bytes())
			}
			if !sameState(&a, &b) {
				t.Fatalf("%v over %v (op %d), nulls %v: Add left %+v, AddOp %+v", sp.Func, sp.Arg, op, v.Null[:n], a, b)
			}
			oa, ob := vector.NewVec(sp.ResultType()), vector.NewVec(sp.ResultType())
			a.Result(&sp, oa, 0)
			b.Result(&sp, ob, 0)
			if oa.Null[0] != ob.Null[0] || oa.Type == catalog.Double && !sameFloat(oa.F[0], ob.F[0]) || oa.Type != catalog.Double && oa.I[0] != ob.I[0] {
				t.Fatalf("%v over %v: results differ (NULL %v and %v)", sp.Func, sp.Arg, oa.Null[0], ob.Null[0])
			}
		}
	}
}

// sameState compares two states field by field (floats by their bits; the
// double sum by its exact value, its fixed-point part included, and its partials as an expansion: increasing
// magnitude, non-overlapping, the largest below 2^1020 or the sum spilled).
func sameState(a, b *State) bool {
	a.flushFix() // (the fixed-point front of the double sum, fixed.go: its exact value counts)
	b.flushFix()
	if (a.wide == nil) != (b.wide == nil) { // one spec: both or neither
		return false
	}
	if a.n != b.n || a.hi != b.hi || a.lo != b.lo {
		return false
	}
	if a.wide == nil {
		return true
	}
	if len(a.set) != len(b.set) || a.words.len() != b.words.len() || !slices.Equal(a.words.w4, b.words.w4) || !slices.Equal(a.words.w8, b.words.w8) {
		return false
	}
	if (a.sums == nil) != (b.sums == nil) {
		return false
	}
	if a.sums == nil {
		return true
	}
	if a.nan != b.nan || a.pinf != b.pinf || a.ninf != b.ninf || a.nonNegZero != b.nonNegZero ||
		exactSum(a.s1, a.big1).Cmp(exactSum(b.s1, b.big1)) != 0 {
		return false
	}
	return expansion(a.s1) && expansion(b.s1)
}

// expansion reports whether p is non-overlapping with increasing magnitude:
// each part's magnitude is below the lowest set bit of the next.
func expansion(p []float64) bool {
	for k := 1; k < len(p); k++ {
		lo, hi := math.Abs(p[k-1]), math.Abs(p[k])
		if lo == 0 || hi == 0 {
			return false
		}
		_, e := math.Frexp(hi)
		mant := math.Float64bits(hi) & (1<<52 - 1)
		low := e - 53 // the exponent of hi's last mantissa bit
		for mant&1 == 0 && low < e-1 {
			mant >>= 1
			low++
		}
		if lo >= math.Ldexp(1, low) {
			return false
		}
	}
	return true
}

// BenchmarkAvgDouble: AVG of one-decimal DOUBLE values (the sensor rows'
// temperatures) into 8 groups' states, the exact-sum fast path; ns/op is per row.
//
//	go test ./executor/agg -run XXX -bench AvgDouble
func BenchmarkAvgDouble(b *testing.B) {
	r := rand.New(rand.NewSource(3))
	v := vector.NewVec(catalog.Double)
	grp := make([]int, vector.Cap)
	for i := range vector.Cap {
		v.F[i] = float64(r.Intn(1001)) / 10
		grp[i] = r.Intn(8)
	}
	sp := Spec{Func: Avg, Arg: catalog.Double}
	op := OpOf(&sp)
	var sts [8]State
	b.ReportAllocs()
	for k := 0; k < b.N; k++ {
		i := k % vector.Cap
		sts[grp[i]].AddOp(op, &sp, v, i, int64(k))
	}
}
